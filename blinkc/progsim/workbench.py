"""A workshop table: tiles that come and go on the programmer's ISP clip.

Stands in for a single `Chip` behind a simulated programmer. After a tile has
been flashed and released, it is taken off; the next `gap` attempts to enter
programming mode find nothing; then the next tile is on the clip. Driven by
what the host does, not by wall time, so workshop tests are deterministic.
With `patience`, a tile that is looked at that many times without being
flashed (say, a chip that is not a Blink) is taken off too.
"""

from __future__ import annotations

from .chip import Chip

ABSENT = b"\x00\x00\x00\x00"


class Workbench:
    def __init__(self, tiles: list[Chip], gap: int = 2, patience: int | None = None) -> None:
        self.tiles = tiles
        self.gap = gap
        self.patience = patience
        self._looks = 0
        self.index = 0
        self.current: Chip | None = tiles[0] if tiles else None
        self._gap_left = 0
        self._writes_at_attach = 0

    def reset(self, held: bool) -> None:
        if held:
            if self.current is None and self.index < len(self.tiles):
                if self._gap_left > 0:
                    self._gap_left -= 1
                else:
                    self.current = self.tiles[self.index]
                    self._writes_at_attach = self.current.page_writes
                    self._looks = 0
        elif self.current is not None:
            self._looks += 1
            flashed = self.current.page_writes > self._writes_at_attach
            if flashed or (self.patience is not None and self._looks >= self.patience):
                self._take_off()
        if self.current is not None:
            self.current.reset(held)

    def _take_off(self) -> None:
        """Flashed (or given up on) and released: the person takes the tile off the clip."""
        if self.current is not None:
            self.current.reset(False)
            self.current = None
            self.index += 1
            self._gap_left = self.gap

    def spi(self, instr: bytes) -> bytes:
        return self.current.spi(instr) if self.current is not None else ABSENT
