"""A workshop table: tiles that come and go on the programmer's ISP clip.

Stands in for a single `Chip` behind a simulated programmer. After a tile has
been flashed and released, it is taken off; the next `gap` attempts to enter
programming mode find nothing; then the next tile is on the clip. Driven by
what the host does, not by wall time, so workshop tests are deterministic.
"""

from __future__ import annotations

from .chip import Chip

ABSENT = b"\x00\x00\x00\x00"


class Workbench:
    def __init__(self, tiles: list[Chip], gap: int = 2) -> None:
        self.tiles = tiles
        self.gap = gap
        self.index = 0
        self.current: Chip | None = tiles[0] if tiles else None
        self._gap_left = 0
        self._writes_at_attach = 0

    @property
    def part(self):
        return self.tiles[0].part

    def reset(self, held: bool) -> None:
        if held:
            if self.current is None and self.index < len(self.tiles):
                if self._gap_left > 0:
                    self._gap_left -= 1
                else:
                    self.current = self.tiles[self.index]
                    self._writes_at_attach = self.current.page_writes
        elif self.current is not None and self.current.page_writes > self._writes_at_attach:
            # Flashed and released: the person takes this tile off the clip.
            self.current.reset(False)
            self.current = None
            self.index += 1
            self._gap_left = self.gap
        if self.current is not None:
            self.current.reset(held)

    def spi(self, instr: bytes) -> bytes:
        return self.current.spi(instr) if self.current is not None else ABSENT
