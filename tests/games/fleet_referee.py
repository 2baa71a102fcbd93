"""A referee for Fleet Combos, written from the rules (docs/fleet-combos.md), not the firmware.

The sea is a dict of hex cells (axial q, r) to ships; every tile lies at rotation 0. It
shares no code with firmware/fleet_combos.py and never imports the DSL: legality, abilities,
the turn count and the score are plain bookkeeping on the lattice, and `random_game` plans a
whole game (legal and illegal placements, fires, burning ships taken away and their spaces
filled) from a seed, by these rules alone.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

Cell = tuple[int, int]

#: The six neighbours of a hex cell (axial q, r), faces 0..5 at rotation 0.
DIRECTIONS = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))
GAME_SHIPS = 32
#: Placements planned for a whole game: enough for every plan to reach its 32nd ship
#: (test_fleet_combos.py checks that they do).
WHOLE_GAME = 120
FIRESHIP, FIREBOAT, PRIVATEER = 1, 5, 9


def neighbours(c: Cell) -> list[Cell]:
    return [(c[0] + dq, c[1] + dr) for dq, dr in DIRECTIONS]


@dataclass
class Ship:
    number: int
    owner: int
    fire: bool = False


@dataclass
class Referee:
    ships: dict[Cell, Ship] = field(default_factory=dict)
    count: int = 0
    first: int = 0
    #: A burning ship's cell, taken away: the ships beside it then (they can tell).
    holes: dict[Cell, set[Cell]] = field(default_factory=dict)

    def mover(self) -> int:
        return self.first ^ (self.count & 1)

    def launch(self, cell: Cell, number: int, owner: int) -> None:
        self.ships = {cell: Ship(number, owner)}
        self.count, self.first, self.holes = 1, owner, {}

    def legal(self, cell: Cell, number: int, owner: int) -> bool:
        touching = [n for n in neighbours(cell) if n in self.ships]
        if not touching or number == 0 or self.count >= GAME_SHIPS or owner != self.mover():
            return False
        own_active = any(self.ships[n].owner == owner and not self.ships[n].fire for n in touching)
        hole = any(w in self.ships for w in self.holes.get(cell, ()))
        return self.count < 2 or own_active or hole

    def lay(self, cell: Cell, number: int, owner: int) -> bool:
        """Lay a ship; False (and nothing changes) when it is illegal."""
        if not self.legal(cell, number, owner):
            return False
        touching = [n for n in neighbours(cell) if n in self.ships]
        self.ships[cell] = Ship(number, owner)
        self.count += 1
        self.holes.pop(cell, None)
        for n in touching:
            s = self.ships[n]
            if s.owner != owner and number == FIRESHIP:
                s.fire = True
            elif s.owner != owner and number == PRIVATEER and s.fire:
                s.fire, s.owner = False, owner
            elif s.owner == owner and number == FIREBOAT:
                s.fire = False
        return True

    def remove(self, cell: Cell) -> None:
        """Take a ship away: a burning one is destroyed and leaves its space."""
        ship = self.ships.pop(cell)
        if ship.fire:
            self.holes[cell] = {n for n in neighbours(cell) if n in self.ships}

    def lines(self, cell: Cell) -> int:
        """Lines through this ship with a ship of the line on each side (3 directions)."""
        me = self.ships.get(cell)
        if me is None or me.fire:
            return 0
        found = 0
        for d in range(3):
            a = self.ships.get((cell[0] + DIRECTIONS[d][0], cell[1] + DIRECTIONS[d][1]))
            b = self.ships.get((cell[0] - DIRECTIONS[d][0], cell[1] - DIRECTIONS[d][1]))
            if any(s is None or s.fire or s.owner != me.owner for s in (a, b)):
                continue
            if a.number - me.number == me.number - b.number and abs(a.number - me.number) <= 1:
                found += 1
        return found

    def score(self) -> tuple[int, int]:
        """Each player's points: a line of L ships scores L - 2."""
        points = [0, 0]
        for cell, ship in self.ships.items():
            points[ship.owner] += self.lines(cell)
        return points[0], points[1]


def connected(cells: list[Cell]) -> bool:
    if not cells:
        return True
    seen, todo = {cells[0]}, [cells[0]]
    while todo:
        for n in neighbours(todo.pop()):
            if n in cells and n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen) == len(cells)


def stuck(ref: Referee) -> bool:
    """Whether the player to move has no space where a ship of theirs would be legal."""
    free = {n for c in ref.ships for n in neighbours(c) if n not in ref.ships}
    return not any(ref.legal(cell, 1, ref.mover()) for cell in free)


# --- a random game, planned by the rules -------------------------------------------------------
@dataclass
class Step:
    action: str  # "lay" (a new tile), "lift" (a tile of the plan taken away), "launch"
    tile: str
    cell: Cell | None = None
    number: int = 0
    owner: int = 0
    legal: bool = True


def random_game(seed: int, max_steps: int = WHOLE_GAME) -> tuple[list[Step], Referee]:
    """A whole game from a seed: the steps and the referee after them. About one lay in
    six is illegal (the wrong player), burning ships are taken away now and then and
    their spaces filled, and the game goes on until the 32nd legal ship."""
    rng = random.Random(seed)
    ref = Referee()
    names = iter(f"s{i}" for i in range(1000))
    where: dict[Cell, str] = {}
    steps: list[Step] = []
    owner = rng.randrange(2)
    first = next(names)
    ref.launch((0, 0), rng.randint(1, 9), owner)
    steps.append(Step("launch", first, (0, 0), ref.ships[(0, 0)].number, owner))
    where[(0, 0)] = first
    for _ in range(max_steps):
        if ref.count >= GAME_SHIPS:
            break
        burning = sorted(c for c, s in ref.ships.items() if s.fire)
        # (With two ships, one burning, its owner may have nowhere to lay but its space: the
        # player takes it away then. The condition leaves every other plan as it was.)
        if burning and rng.random() < 0.3 and (len(ref.ships) > 2 or stuck(ref)):
            cell = rng.choice(burning)
            # (players keep the sea in one piece: a part cut off cannot hear the turns)
            if connected([o for o in ref.ships if o != cell]):
                ref.remove(cell)
                steps.append(Step("lift", where.pop(cell), cell))
                continue
        holes = sorted(c for c in ref.holes if c not in ref.ships)
        free = sorted({n for c in ref.ships for n in neighbours(c) if n not in ref.ships})
        cell = rng.choice(holes) if holes and rng.random() < 0.6 else rng.choice(free)
        owner = ref.mover() if rng.random() < 0.85 else 1 - ref.mover()
        number = rng.choice((1, 1, 5, 9, *range(1, 10)))  # abilities a little more often
        name = next(names)
        legal = ref.lay(cell, number, owner)
        steps.append(Step("lay", name, cell, number, owner, legal))
        if legal:
            where[cell] = name
        else:
            steps.append(Step("lift", name, cell))
    return steps, ref


def layout(steps: list[Step]) -> str:
    """Every tile of the plan, in the hand, with its number and owner."""
    return "".join(f"tile {s.tile} held number={s.number} owner={s.owner}\n"
                   for s in steps if s.action in ("lay", "launch"))
