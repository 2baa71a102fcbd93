"""A frozen tile: one whose loop() never returned (docs/emulator.md, "A tile that never returns").

blinklib's run() reads the button, takes in IR, commits the LEDs, transmits and
checks for warm sleep only between two calls of loop() (cores/blinklib/blinklib.cpp
in the SDK). A tile stuck in loop() therefore keeps showing what its last finished
pass committed (the BIOS goes on refreshing the LEDs from it), sends nothing more,
ignores its button and never sleeps, while every other tile runs on. The world
marks such a tile frozen once loop() has used its budget of CPU time (watchdog.py),
at that world time, and never calls its code again.
"""

from __future__ import annotations

from dataclasses import dataclass

from .watchdog import program_label, seconds_text


@dataclass(frozen=True)
class Freeze:
    """When and why a tile froze."""

    #: The tile's name.
    tile: str
    #: What it runs, as messages name it ("sketch X.ino", "program P", "game G").
    program: str
    #: The function that never returned ("loop").
    what: str
    #: World time (ms) of the pass that never ended.
    at_ms: float
    #: The budget of CPU time (s) it used up.
    budget_s: float

    @property
    def when(self) -> str:
        return f"t = {seconds_text(self.at_ms / 1000)}"

    def why(self) -> str:
        return (f"{self.what}() did not return within {seconds_text(self.budget_s)} of CPU time "
                f"(it ends in an endless loop such as `while (1);`; a real tile freezes there too)")

    def line(self) -> str:
        """One line for a run's report: which tile, what it runs, when and why."""
        return f"tile {self.tile!r} ({self.program}) froze at {self.when}: {self.why()}"


def freeze_of(tile: object, what: str, at_ms: float, budget_s: float) -> Freeze:
    """The Freeze record of a world's tile."""
    return Freeze(getattr(tile, "name", "?"), program_label(getattr(tile, "program", None)),
                  what, at_ms, budget_s)


def frozen_message(freeze: Freeze) -> str:
    """Why a frozen tile's program cannot be called (a display, a derived value)."""
    return (f"tile {freeze.tile!r} froze at {freeze.when}: its program cannot run any more "
            f"(its {freeze.what}() never returned)")
