"""Who touches whom during a run: the links of the explorer's cluster as its `lift`,
`place` and `rotate` steps change them. The monitor judges each delivery, bounce and flood
on the links of its time (a tile may be put down at another place or rotation)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable

from ..world.geometry import DIRECTION_NAMES, DIRECTIONS, Pos, facing_face, neighbour_pos
from .clusters import Tile

#: A face of a tile: (tile name, face).
Key = tuple[str, int]
#: A layout: each face's neighbour face, or None where nobody is.
Layout = dict[Key, Key | None]
MOVES = ("lift", "place", "rotate")


class Links:
    """The cluster's links over time: a layout from each move on, and the times each tile
    was off the table."""

    def __init__(self, tiles: Iterable[Tile], steps: Iterable[tuple[float, str]]) -> None:
        tiles = list(tiles)
        #: Where each tile is now (None: off the table) and its rotation (kept in the hand).
        self._pos: dict[str, Pos | None] = {t.name: t.pos for t in tiles}
        self._rot: dict[str, int] = {t.name: t.rot for t in tiles}
        #: When each layout begins (ms), and the layouts.
        self.times: list[float] = [float("-inf")]
        self.layouts: list[Layout] = [self._layout()]
        #: Per tile, the [from, to] ms intervals it was off the table; a tile moved or turned
        #: without a lift counts as away for an instant (its faces meet others at once).
        self.away: dict[str, list[list[float]]] = {t.name: [] for t in tiles}
        # In the order the world takes them (Run.scenario_text: by time, then by text: two
        # steps at one moment, a `place` and a `lift` of one tile, go lift first)
        for at, what in sorted(steps):
            words = what.split()
            if words[0] in MOVES:
                self._move(at, words)

    @property
    def keys(self) -> list[Key]:
        return list(self.layouts[0])

    def at(self, key: Key, ms: float) -> Key | None:
        """The face touching `key` at `ms` (a move at `ms` has happened)."""
        return self.layouts[bisect_right(self.times, ms) - 1][key]

    def during(self, key: Key, since: float, until: float) -> set[Key]:
        """Every face that touched `key` at some time in [since, until]."""
        first = bisect_right(self.times, since) - 1
        last = bisect_right(self.times, until) - 1
        return {n for layout in self.layouts[first:last + 1] if (n := layout[key]) is not None}

    def met_another(self, key: Key, since: float, until: float) -> bool:
        """Whether `key` came to touch another face than the one it touched last (not the
        same face back after a lift) at some time in [since, until]."""
        last = None
        for start, layout in zip(self.times, self.layouts, strict=True):
            now = layout[key]
            if now is not None and last is not None and now != last and start >= since:
                return True
            if start > until:
                return False
            last = now or last
        return False

    def _move(self, at: float, words: list[str]) -> None:
        """A `lift NAME`, `place NAME at Q,R [rot K]` (or `at DIR of TILE`), or `rotate NAME
        K|+K|-K` step, as scenario.py's Step.describe() writes them."""
        action, name = words[0], words[1]
        was = self._pos[name]
        if action == "lift":
            self._pos[name] = None
        elif action == "rotate":
            turn = int(words[2])
            self._rot[name] = (self._rot[name] + turn) % 6 if words[2][0] in "+-" else turn
        else:
            self._pos[name] = self._place(words[3:])
            if "rot" in words:
                self._rot[name] = int(words[words.index("rot") + 1])
        self._note_away(name, at, was, self._pos[name])
        if self.times[-1] == at:  # (two moves at once: the layout after both)
            self.layouts[-1] = self._layout()
        else:
            self.times.append(at)
            self.layouts.append(self._layout())

    def _note_away(self, name: str, at: float, was: Pos | None, now: Pos | None) -> None:
        if was is not None and now is None:
            self.away[name].append([at, float("inf")])
        elif was is None and now is not None:
            self.away[name][-1][1] = at
        elif now is not None:
            self.away[name].append([at, at])

    def _place(self, words: list[str]) -> Pos:
        if len(words) >= 3 and words[1] == "of":
            other = self._pos[words[2]]
            if other is None:
                raise ValueError(f"a place {words[0]} of {words[2]}, which is off the table")
            return neighbour_pos(other, DIRECTION_NAMES.index(words[0]))
        q, r = words[0].split(",")
        return int(q), int(r)

    def _layout(self) -> Layout:
        """Each face's neighbour face with the tiles where they are now."""
        by_pos = {p: name for name, p in self._pos.items() if p is not None}
        out: Layout = {}
        for name, pos in self._pos.items():
            rot = self._rot[name]
            for f in range(6):
                n = None
                if pos is not None:
                    dq, dr = DIRECTIONS[(f + rot) % 6]
                    n = by_pos.get((pos[0] + dq, pos[1] + dr))
                out[(name, f)] = None if n is None else (n, facing_face(f, rot, self._rot[n]))
        return out
