"""Traces: what happened in a run, one JSON object per line.

Each line is `{"t": <world µs>, "tile": <name or null>, "ev": <event>, ...}`.
Per-tile events: power, place, lift, contact (raw button), button (events the
tile's snapshot received), sent / received (face values, when they change),
expired (per-face expiry, when it changes), colors (when they change), state
(the program's own state, when it changes), drop (a packet lost to faults),
longlong / sleep (BIOS button milestones; the emulator's idle skipping records nothing),
warm-sleep / warm-wake, serial, froze (its loop() never returned: freeze.py).
World events: action (a scenario step).
"""

from __future__ import annotations

import json
from typing import IO, Any


class Trace:
    """Collects trace lines in memory and optionally streams them to a file."""

    def __init__(self, out: IO[str] | None = None, keep: bool = True) -> None:
        self.out = out
        self.keep = keep
        self.lines: list[str] = []

    def write(self, t_us: int, tile: str | None, event: str, data: dict[str, Any]) -> None:
        record = {"t": t_us, "tile": tile, "ev": event}
        record.update(data)
        line = json.dumps(record, separators=(",", ":"), sort_keys=False)
        if self.keep:
            self.lines.append(line)
        if self.out is not None:
            self.out.write(line + "\n")

    def events(self, event: str | None = None, tile: str | None = None) -> list[dict[str, Any]]:
        out = []
        for line in self.lines:
            rec = json.loads(line)
            if (event is None or rec["ev"] == event) and (tile is None or rec["tile"] == tile):
                out.append(rec)
        return out

    def text(self) -> str:
        return "".join(line + "\n" for line in self.lines)
