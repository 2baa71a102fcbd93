"""The BIOS button model: debounce, clicks, long presses.

The BIOS samples the button every millisecond of the tile's own clock. A raw
change is accepted at once if the debounced state had been stable for 20 ms;
a change that comes sooner is held until 20 ms have passed and dropped if the
button went back meanwhile (that is what swallows contact bounce). Each
accepted press-down adds a click and restarts a 330 ms window; when the window
ends with the button up, 1 press is a single click, 2 a double, 3 or more a
multi click. If it ends while the button is held, the clicks are discarded.
Long press fires once at 1.2 s held; the long-long press at 3 s; sleep at 6 s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from ..blinklib.api import (
    BUTTON_DOUBLECLICKED,
    BUTTON_LONGLONGPRESSED,
    BUTTON_LONGPRESSED,
    BUTTON_MULTICLICKED,
    BUTTON_PRESSED,
    BUTTON_RELEASED,
    BUTTON_SINGLECLICKED,
)

DEBOUNCE_MS = 20
CLICK_WINDOW_MS = 330
LONG_PRESS_MS = 1200
LONG_LONG_PRESS_MS = 3000
SLEEP_PRESS_MS = 6000
#: blinklib spreads a press to its neighbours (the viral flag) at most this often.
VIRAL_LOCKOUT_MS = 2000

NEVER = 1 << 62

#: (bit in _long_fired, hold time) for long press, long-long press and sleep.
_LONG_MARKS = ((1, LONG_PRESS_MS), (2, LONG_LONG_PRESS_MS), (4, SLEEP_PRESS_MS))


class Debounce(NamedTuple):
    """A ButtonModel's inner state, beside its public fields: what another engine keeps in
    step (native_world/engine.py mirrors it field by field)."""

    raw_down: bool
    last_accept: int
    pending_clicks: int
    window_end: int
    down_since: int
    long_fired: int


@dataclass
class ButtonModel:
    """Debounced state and event flags of one tile's button, in local milliseconds."""

    down: bool = False
    flags: int = 0
    click_count: int = 0
    #: Raw transitions not yet processed: (local ms, down?).
    raw: list[tuple[int, bool]] = field(default_factory=list)
    _raw_down: bool = False
    _last_accept: int = -DEBOUNCE_MS
    _pending_clicks: int = 0
    _window_end: int = NEVER
    _down_since: int = NEVER
    _long_fired: int = 0  # bitmask of long/longlong/sleep already fired for this hold

    def debounce(self) -> Debounce:
        """The inner state (for another engine to mirror; load it back with load())."""
        return Debounce(self._raw_down, self._last_accept, self._pending_clicks,
                        self._window_end, self._down_since, self._long_fired)

    def load(self, state: Debounce) -> None:
        (self._raw_down, self._last_accept, self._pending_clicks, self._window_end,
         self._down_since, self._long_fired) = state

    @property
    def down_since(self) -> int:
        """Local ms at which the current hold began (NEVER when up)."""
        return self._down_since

    @property
    def marks_fired(self) -> int:
        """The hold's marks already fired: 1 long, 2 long-long (3 s), 4 sleep (6 s)."""
        return self._long_fired

    def push(self, t_ms: int, down: bool) -> None:
        """A raw contact change at local time t_ms (must not go back in time)."""
        self.raw.append((t_ms, down))

    def idle(self) -> bool:
        """True when nothing will happen without a new raw change (the C++ core's button.h
        asks the same in its idle())."""
        return not self.raw and self._window_end == NEVER and not self.down

    def next_deadline(self) -> int:
        """The next local ms at which the model can produce an event by itself."""
        t = self._window_end
        if self.raw:
            t = min(t, max(self.raw[0][0], self._last_accept + DEBOUNCE_MS))
        if self.down:
            for bit, mark in _LONG_MARKS:
                if not self._long_fired & bit:
                    t = min(t, self._down_since + mark)
        return t

    def advance(self, now: int) -> list[str]:
        """Process everything up to and including local time `now`; returns special events."""
        specials: list[str] = []
        while True:
            t_next = NEVER
            kind = ""
            if self.raw:
                # A change is seen once the state was stable 20 ms; bounces fold into it.
                t_next, kind = max(self.raw[0][0], self._last_accept + DEBOUNCE_MS), "raw"
            if self._window_end < t_next:
                t_next, kind = self._window_end, "window"
            if self.down:
                for bit, mark in _LONG_MARKS:
                    if not self._long_fired & bit and self._down_since + mark < t_next:
                        t_next, kind = self._down_since + mark, f"long{bit}"
            if t_next > now:
                return specials
            if kind == "raw":
                self._accept_raw(t_next)
            elif kind == "window":
                self._end_window()
            else:
                bit = int(kind[4:])
                self._long_fired |= bit
                if bit == 1:
                    self.flags |= BUTTON_LONGPRESSED
                elif bit == 2:
                    self.flags |= BUTTON_LONGLONGPRESSED
                    specials.append("longlong")
                else:
                    specials.append("sleep")

    def _accept_raw(self, t: int) -> None:
        # Consume every raw change up to t; the contact state at t is what the BIOS sees.
        state = self._raw_down
        while self.raw and self.raw[0][0] <= t:
            state = self.raw.pop(0)[1]
        self._raw_down = state
        if state == self.down:
            return  # a bounce that went back before it could be accepted
        self.down = state
        self._last_accept = t
        if state:
            self.flags |= BUTTON_PRESSED
            self._pending_clicks += 1
            self._window_end = t + CLICK_WINDOW_MS
            self._down_since = t
            self._long_fired = 0
        else:
            self.flags |= BUTTON_RELEASED
            self._down_since = NEVER

    def _end_window(self) -> None:
        n, self._pending_clicks = self._pending_clicks, 0
        self._window_end = NEVER
        if self.down or n == 0:
            return  # window ended while held: the clicks are discarded
        if n == 1:
            self.flags |= BUTTON_SINGLECLICKED
        elif n == 2:
            self.flags |= BUTTON_DOUBLECLICKED
        else:
            self.flags |= BUTTON_MULTICLICKED
            self.click_count = min(n, 255)

    def take_flags(self) -> int:
        f, self.flags = self.flags, 0
        return f
