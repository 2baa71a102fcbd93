"""Random legal ships for property tests (a hypothesis strategy)."""

from __future__ import annotations

from hypothesis import strategies as st

from blinkc.world.geometry import DIRECTIONS


def neighbours(p):
    return [(p[0] + dq, p[1] + dr) for dq, dr in DIRECTIONS]


@st.composite
def legal_ships(draw, min_tiles: int = 3, max_tiles: int = 30):
    """(name, pos, rot, settings) tuples for a connected ship with no weak link, where every
    Hazard and Redirector touches a Hull. Each new tile touches two tiles that touch each
    other, so no tile ever hangs on by a single edge."""
    n = draw(st.integers(min_tiles, max_tiles))
    cells = [(0, 0), (0, 1), (1, 0)]  # a triangle
    while len(cells) < n:
        taken = set(cells)
        options = sorted({c for p in cells for c in neighbours(p) if c not in taken
                          and _touches_a_pair(c, taken)})
        cells.append(draw(st.sampled_from(options)))
    kinds = ["HULL"] * n
    n_hazards = draw(st.integers(1, min(3, n - 2)))
    n_redirectors = draw(st.integers(0, min(2, n - 1 - n_hazards)))
    others = draw(st.lists(st.integers(0, n - 1), min_size=n_hazards + n_redirectors,
                           max_size=n_hazards + n_redirectors, unique=True))
    for i, idx in enumerate(others):
        kinds[idx] = "HAZARD" if i < n_hazards else "REDIRECTOR"
    for i, c in enumerate(cells):  # a Hazard or Redirector with no Hull next to it becomes a Hull
        if kinds[i] != "HULL" and not any(kinds[cells.index(x)] == "HULL"
                                          for x in neighbours(c) if x in cells):
            kinds[i] = "HULL"
    tiles = []
    for i, (c, kind) in enumerate(zip(cells, kinds, strict=True)):
        settings = {"kind": kind, "orient": draw(st.integers(0, 5))}
        if kind == "HULL":
            settings["hp"] = draw(st.integers(1, 5))
        tiles.append((f"t{i}", c, draw(st.integers(0, 5)), settings))
    return tiles


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
