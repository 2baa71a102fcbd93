"""Per-tile clocks: each tile's RC oscillator runs at its own rate and phase.

World time is integer microseconds. A tile's local time is
`offset + t * (1e6 + ppm) / 1e6`, so a tile with +50,000 ppm runs 5 % fast.
The display frame (7.68 ms of local time) paces the main loop.
"""

from __future__ import annotations

#: The BIOS's display frame: 61,440 cycles at 8 MHz, measured in co-simulation (docs/cosim.md).
FRAME_US = 7680
MILLION = 1_000_000


class Clock:
    __slots__ = ("_rate", "frame_phase", "offset", "ppm")

    def __init__(self, ppm: int = 0, offset: int = 0, frame_phase: int = 0) -> None:
        self.ppm = ppm
        self.offset = offset
        self.frame_phase = frame_phase % FRAME_US
        self._rate = MILLION + ppm

    def local_us(self, t: int) -> int:
        return self.offset + t * self._rate // MILLION

    def millis(self, t: int) -> int:
        return self.local_us(t) // 1000

    def world_us(self, local: int) -> int:
        """The first world time at which the local clock reads at least `local` µs."""
        return -((self.offset - local) * MILLION // self._rate)

    def world_at_millis(self, ms: int) -> int:
        return self.world_us(ms * 1000)

    def local_duration_to_world(self, local_us: int) -> int:
        return -(-local_us * MILLION // self._rate)

    def next_frame(self, t: int) -> int:
        """The first display-frame boundary at or after world time t."""
        local = self.local_us(t)
        k = -(-(local - self.frame_phase) // FRAME_US)
        b = self.world_us(self.frame_phase + k * FRAME_US)
        return b if b >= t else t
