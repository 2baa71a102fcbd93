"""Co-simulation: the firmware `blinkc build` makes, run instruction by instruction on simavr
cores, one per tile, with IR between facing faces at the pins (docs/cosim.md)."""
