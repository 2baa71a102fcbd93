"""The figures a game maker needs from a co-simulation: how close the stack came to the
globals, and the longest loop(); and the same figures for one build, measured on one tile
running alone (what `blinkc size` and `blinkc check --verbose` show)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .firmware import Firmware, load_firmware
from .tile import F_CPU, CosimTile

#: A game whose stack comes within this many bytes of its globals gets a warning.
STACK_WARN_BYTES = 64
#: How long `blinkc size` runs a build alone to measure it (simulated seconds).
MEASURE_S = 3.0


@dataclass
class Figures:
    stack_free_min: int | None
    loop_max_cycles: int | None
    seconds: float

    @property
    def loop_max_us(self) -> int | None:
        return None if self.loop_max_cycles is None else round(self.loop_max_cycles * 1e6 / F_CPU)

    def lines(self) -> list[str]:
        out = []
        if self.stack_free_min is not None:
            out.append(f"Stack: at least {self.stack_free_min} bytes stayed free between the stack "
                       f"and the globals")
        if self.loop_max_cycles is not None:
            out.append(f"Longest loop(): {self.loop_max_cycles:,} cycles = "
                       f"{self.loop_max_cycles / F_CPU * 1000:.2f} ms")
        else:
            out.append("Longest loop(): not measured (loop() is inlined into blinklib's main loop)")
        if self.stack_free_min is not None and self.stack_free_min < STACK_WARN_BYTES:
            out.append("warning: " + stack_warning(self.stack_free_min))
        return out


def stack_warning(free: int) -> str:
    return (f"the stack came within {free} bytes of the globals (fewer than "
            f"{STACK_WARN_BYTES}): a deeper call or a bigger local can overwrite them")


def measure(firmware: Firmware, seconds: float = MEASURE_S) -> Figures:
    """Run the build on one tile alone, untouched, for `seconds` of simulated time."""
    tile = CosimTile("measure", firmware, bytes(9))
    try:
        tile.run(round(seconds * F_CPU))
        f = tile.figures()
        return Figures(f["stack_free_min"], f["loop_max_cycles"], seconds)
    finally:
        tile.close()


def build_images(target: Path) -> tuple[Path, Path] | None:
    """(with_bootloader hex, ELF) of a build folder or an ELF beside its hex, if there are both."""
    if target.is_dir():
        elves = sorted(target.glob("*.ino.elf"))
        if len(elves) != 1:
            return None
        elf = elves[0]
    elif target.suffix == ".elf":
        elf = target
    else:
        return None
    hex_file = elf.with_name(elf.name[:-len(".elf")] + ".with_bootloader.hex")
    return (hex_file, elf) if hex_file.exists() else None


def measure_build(target: Path, seconds: float = MEASURE_S) -> Figures | None:
    found = build_images(target)
    if found is None:
        return None
    return measure(load_firmware(*found), seconds)


def figure_lines(with_bootloader: Path, elf: Path, seconds: float = MEASURE_S) -> list[str]:
    """What `blinkc size` and `check --verbose` print: the figures of one tile running the
    build alone for `seconds`, or why they were not measured."""
    from .firmware import FirmwareError
    from .library import HarnessUnavailable

    try:
        figures = measure(load_firmware(with_bootloader, elf), seconds)
    except (HarnessUnavailable, FirmwareError) as e:
        return [f"Stack and loop(): not measured: {e}"]
    return [f"Co-simulated (one tile alone, {seconds:g} s, firmware and BIOS on simavr):",
            *(f"  {line}" for line in figures.lines())]
