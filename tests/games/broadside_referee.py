"""A referee for Broadside, written from the rules (docs/broadside.md), not from the firmware.

A fleet is a set of hex cells, each open sea or a ship tile (maybe a Sweet Spot); every
tile lies at rotation 0, so its face 3 points south, to (q, r + 1). Ships are the ship
tiles joined through touching ship tiles. `Referee.shot(cell, scatter)` plays one turn;
afterwards each tile's `outcome()` is what a player sees: fired on, captured (and the
ship's size n), and the fleet's points lost (in hundreds) and its spent Scatter Shot.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

Cell = tuple[int, int]

#: The six neighbours of a hex cell (axial q, r): N, NE, SE, S, SW, NW.
DIRECTIONS = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))
SOUTH = DIRECTIONS[3]  # face 3 at rotation 0: the Scatter Shot's second tile


def neighbours(c: Cell) -> list[Cell]:
    return [(c[0] + dq, c[1] + dr) for dq, dr in DIRECTIONS]


def capture_count(n: int) -> int:
    """Hits that capture a ship of n tiles: ceil(n / 2) + 1, at most n."""
    return min(n, (n + 1) // 2 + 1)


@dataclass
class Tile:
    ship: bool = False
    sweet: bool = False
    fired: bool = False
    captured: bool = False
    value: int = 0


@dataclass
class Referee:
    tiles: dict[Cell, Tile]
    lost: int = 0  # hundreds of points the fleet's owner has lost
    scattered: bool = False
    ships: list[set[Cell]] = field(default_factory=list)

    def __post_init__(self) -> None:
        seen: set[Cell] = set()
        for cell, tile in self.tiles.items():
            if tile.ship and cell not in seen:
                ship, todo = set(), [cell]
                while todo:
                    c = todo.pop()
                    if c in ship:
                        continue
                    ship.add(c)
                    todo += [n for n in neighbours(c) if n in self.tiles and self.tiles[n].ship]
                seen |= ship
                self.ships.append(ship)

    def ship_of(self, cell: Cell) -> set[Cell]:
        return next(s for s in self.ships if cell in s)

    def _fire(self, cell: Cell) -> bool:
        """Fire on a tile; False when it ignores the shot (fired on already, or captured)."""
        tile = self.tiles[cell]
        if tile.fired or tile.captured:
            return False
        tile.fired = True
        return True

    def shot(self, cell: Cell, scatter: bool = False) -> None:
        if scatter and self.scattered:
            return  # once per game
        if not self._fire(cell):
            return
        hit = [cell]
        if scatter:
            self.scattered = True
            second = (cell[0] + SOUTH[0], cell[1] + SOUTH[1])
            if second in self.tiles and self._fire(second):
                hit.append(second)
        for c in hit:
            if not self.tiles[c].ship:
                continue
            ship = self.ship_of(c)
            if self.tiles[c].captured:
                continue  # both shots on one ship: it is captured once
            hits = sum(self.tiles[s].fired for s in ship)
            sweet_hit = any(self.tiles[s].fired and self.tiles[s].sweet for s in ship)
            if sweet_hit or hits >= capture_count(len(ship)):
                for s in ship:
                    self.tiles[s].captured = True
                    self.tiles[s].value = len(ship)
                self.lost += len(ship)

    def reset(self) -> None:
        for tile in self.tiles.values():
            tile.fired = tile.captured = False
            tile.value = 0
        self.lost, self.scattered = 0, False

    def outcome(self, cell: Cell) -> dict:
        tile = self.tiles[cell]
        return {"fired": tile.fired, "captured": tile.captured,
                "value": tile.value if tile.captured else None,
                "lost": self.lost, "scattered": self.scattered}


# --- random fleets ---------------------------------------------------------------------------
def random_fleet(rng: random.Random, size: int) -> dict[Cell, Tile]:
    """A connected cluster of `size` cells grown at random, each sea or ship (about half);
    each ship gets at most one Sweet Spot (a legal fleet)."""
    cells = [(0, 0)]
    while len(cells) < size:
        c = rng.choice(cells)
        n = rng.choice(neighbours(c))
        if n not in cells:
            cells.append(n)
    tiles = {c: Tile(ship=rng.random() < 0.5) for c in cells}
    for ship in Referee(tiles).ships:
        if rng.random() < 0.5:
            tiles[rng.choice(sorted(ship))].sweet = True
    return tiles


def layout(tiles: dict[Cell, Tile], names: dict[Cell, str]) -> str:
    lines = []
    for cell, tile in tiles.items():
        settings = (" ship=true" if tile.ship else "") + (" sweet=true" if tile.sweet else "")
        lines.append(f"tile {names[cell]} at {cell[0]},{cell[1]}{settings}")
    return "\n".join(lines) + "\n"
