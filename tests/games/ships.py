"""Random legal Pirates & Lasers ships: a hypothesis strategy and a seeded generator.

Both build ships with the same rules (`ship_from`), choosing through a small
chooser so hypothesis can shrink its choices and the soak bench can use a
plain `random.Random`.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from hypothesis import strategies as st

from blinkc.world.geometry import DIRECTIONS


def neighbours(p):
    return [(p[0] + dq, p[1] + dr) for dq, dr in DIRECTIONS]


class Chooser(Protocol):
    def integer(self, lo: int, hi: int) -> int: ...
    def choice(self, options: list) -> Any: ...
    def sample(self, population: list, k: int) -> list: ...


class _Drawn:
    """Choices drawn by hypothesis (so failing ships shrink)."""

    def __init__(self, draw) -> None:
        self.draw = draw

    def integer(self, lo: int, hi: int) -> int:
        return self.draw(st.integers(lo, hi))

    def choice(self, options: list) -> Any:
        return self.draw(st.sampled_from(options))

    def sample(self, population: list, k: int) -> list:
        return self.draw(st.lists(st.sampled_from(population), min_size=k, max_size=k, unique=True))


class _Seeded:
    """Choices from a seeded random.Random (the soak bench)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def choice(self, options: list) -> Any:
        return self.rng.choice(options)

    def sample(self, population: list, k: int) -> list:
        return self.rng.sample(population, k)


def ship_from(ch: Chooser, min_tiles: int = 3, max_tiles: int = 30) -> list[tuple]:
    """(name, pos, rot, settings) tuples for a connected ship with no weak link, where every
    Hazard and Redirector touches a Hull. Each new tile touches two tiles that touch each
    other, so no tile ever hangs on by a single edge."""
    n = ch.integer(min_tiles, max_tiles)
    cells = [(0, 0), (0, 1), (1, 0)]  # a triangle
    while len(cells) < n:
        taken = set(cells)
        options = sorted({c for p in cells for c in neighbours(p) if c not in taken
                          and _touches_a_pair(c, taken)})
        cells.append(ch.choice(options))
    kinds = ["HULL"] * n
    n_hazards = ch.integer(1, min(3, n - 2))
    n_redirectors = ch.integer(0, min(2, n - 1 - n_hazards))
    others = ch.sample(list(range(n)), n_hazards + n_redirectors)
    for i, idx in enumerate(others):
        kinds[idx] = "HAZARD" if i < n_hazards else "REDIRECTOR"
    for i, c in enumerate(cells):  # a Hazard or Redirector with no Hull next to it becomes a Hull
        if kinds[i] != "HULL" and not any(kinds[cells.index(x)] == "HULL"
                                          for x in neighbours(c) if x in cells):
            kinds[i] = "HULL"
    tiles = []
    for i, (c, kind) in enumerate(zip(cells, kinds, strict=True)):
        settings = {"kind": kind, "orient": ch.integer(0, 5)}
        if kind == "HULL":
            settings["hp"] = ch.integer(1, 5)
        tiles.append((f"t{i}", c, ch.integer(0, 5), settings))
    return tiles


@st.composite
def legal_ships(draw, min_tiles: int = 3, max_tiles: int = 30):
    return ship_from(_Drawn(draw), min_tiles, max_tiles)


def random_ship(rng: random.Random, min_tiles: int = 3, max_tiles: int = 30) -> list[tuple]:
    return ship_from(_Seeded(rng), min_tiles, max_tiles)


def _touches_a_pair(c, taken) -> bool:
    ring = neighbours(c)
    return any(ring[i] in taken and ring[(i + 1) % 6] in taken for i in range(6))


@st.composite
def turns(draw, tiles, max_actions: int = 6):
    """A sequence of actions: presses of any tile, now and then a reset (multi-click)."""
    names = [t[0] for t in tiles]
    actions = draw(st.lists(st.tuples(st.sampled_from(names),
                                      st.sampled_from(["click"] * 9 + ["multi_click"])),
                            min_size=1, max_size=max_actions))
    return actions
