"""Per-tile clocks: each tile's RC oscillator runs at its own rate and phase.

World time is integer microseconds. A tile's local time is
`offset + t * (1e6 + ppm) / 1e6`, so a tile with +50,000 ppm runs 5 % fast.
The display frame (7.68 ms of local time) paces the main loop.
"""

from __future__ import annotations

#: The BIOS's display frame: 61,440 cycles at 8 MHz, measured in co-simulation (docs/cosim.md).
FRAME_US = 7680
#: The BIOS counts time in timer ticks of 256 µs (a frame is 30 of them) and millis() is that
#: count in whole milliseconds: it steps 1,024 µs apart, now and then 768 (docs/cosim.md).
TICK_US = 256
#: The tick's interrupt (the BIOS's LEDs, IR timing and millis) starts 32 µs before each tick
#: and runs 55 µs (53-62 measured); blinklib's code waits while it runs.
ISR_BEFORE_TICK_US = 32
ISR_US = 55
#: blinklib's CPU time between the BIOS's calls in a pass, measured in co-simulation (from
#: the display frame's return or a send call's return to the next send call or millis()
#: snapshot, the interrupt taken out): a face not due to send, up to a due face's send call,
#: after a send call returns, and from the last face to the next pass's millis() snapshot.
TX_CHECK_US = 5
TX_CALL_US = 10
TX_AFTER_SEND_US = 6
PASS_START_US = 6
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
        return self.local_us(t) // TICK_US * TICK_US // 1000

    def world_us(self, local: int) -> int:
        """The first world time at which the local clock reads at least `local` µs."""
        return -((self.offset - local) * MILLION // self._rate)

    def world_at_millis(self, ms: int) -> int:
        """The first world time at which millis() reads at least `ms`."""
        return self.world_us(-(-ms * 1000 // TICK_US) * TICK_US)

    def local_duration_to_world(self, local_us: int) -> int:
        return -(-local_us * MILLION // self._rate)

    def cpu_done(self, t: int, work_us: int) -> int:
        """When `work_us` of blinklib's code begun at world time t ends: the tick interrupts
        that come meanwhile (or are running at t) hold it up."""
        x = self.local_us(t)
        into = (x + ISR_BEFORE_TICK_US) % TICK_US   # µs since the last interrupt began
        if into < ISR_US:
            x += ISR_US - into
            into = ISR_US
        while work_us > TICK_US - into:
            work_us -= TICK_US - into
            x += TICK_US - into + ISR_US
            into = ISR_US
        return self.world_us(x + work_us)

    def next_frame(self, t: int) -> int:
        """The first display-frame boundary at or after world time t."""
        local = self.local_us(t)
        k = -(-(local - self.frame_phase) // FRAME_US)
        b = self.world_us(self.frame_phase + k * FRAME_US)
        return b if b >= t else t
