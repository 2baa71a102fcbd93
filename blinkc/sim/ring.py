"""The trace of the last seconds: what the world records, kept only while it is recent."""

from __future__ import annotations

from collections import deque
from typing import Any

#: At most this many records are kept, however busy the world (memory stays bounded).
MAX_RECORDS = 20_000
#: What the BIOS made of a tile's presses, as the page labels them for a moment.
GESTURES = ("single", "double", "multi", "long", "longlong")


class RingTrace:
    """A trace sink for `World(trace=...)` that keeps the records of the last `seconds`."""

    def __init__(self, seconds: float = 5.0, max_records: int = MAX_RECORDS) -> None:
        self.window_us = round(seconds * 1_000_000)
        self.records: deque[dict[str, Any]] = deque(maxlen=max_records)
        #: Each tile's last button gesture: (world time in us, its name).
        self.gestures: dict[str, tuple[int, str]] = {}

    def write(self, t_us: int, tile: str | None, event: str, data: dict[str, Any]) -> None:
        if event == "button" and tile is not None:
            for gesture in data.get("events", ()):
                if gesture in GESTURES:
                    self.gestures[tile] = (t_us, gesture)
        record = {"t": t_us, "tile": tile, "ev": event}
        record.update(data)
        records = self.records
        records.append(record)
        horizon = t_us - self.window_us
        while records and records[0]["t"] < horizon:
            records.popleft()

    def recent(self, tile: str | None = None, limit: int = 200) -> list[dict[str, Any]]:
        """The newest records (of one tile, and world events, if `tile` is given), oldest first."""
        out: list[dict[str, Any]] = []
        for record in reversed(self.records):
            if tile is None or record["tile"] in (tile, None):
                out.append(record)
                if len(out) >= limit:
                    break
        out.reverse()
        return out
