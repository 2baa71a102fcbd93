"""Ships the Pirates & Lasers rules allow, each once up to turning (and, without
Redirectors, mirroring) the whole ship, with each piece's rotation as far as the rules
tell rotations apart.

A piece is (place, kind, direction), the direction a world direction (0 = north, clockwise):
a Hull's Repair face (or NOWHERE: it points at no Hull, where every such rotation loses the
HP the same way); a Hazard's first red faces (0: directions 0, 2, 4; 1: 1, 3, 5; it fires
them and then the others, so only this parity matters); a Redirector's bend (between
directions o and o+2).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

from ..explore.clusters import shapes
from ..world.geometry import DIRECTIONS, Pos

HULL, HAZARD, REDIRECTOR = "HULL", "HAZARD", "REDIRECTOR"
NOWHERE = -1
REPAIR_FACE = 5      # firmware/pirates_lasers.py
LETTERS = {HULL: "h", HAZARD: "z", REDIRECTOR: "r"}

Piece = tuple[Pos, str, int]


def step(p: Pos, d: int) -> Pos:
    return p[0] + DIRECTIONS[d][0], p[1] + DIRECTIONS[d][1]


@dataclass(frozen=True, order=True)
class Ship:
    pieces: tuple[Piece, ...]     #: sorted

    @property
    def kinds(self) -> dict[Pos, str]:
        return {p: k for p, k, _ in self.pieces}

    def describe(self) -> str:
        return " ".join(f"{LETTERS[k]}{p[0]},{p[1]}" + ("" if d == NOWHERE else f">{d}")
                        for p, k, d in self.pieces)

    def names(self) -> dict[Pos, str]:
        """Tile names: h0, h1 ... for Hulls, z0 ... for Hazards, r0 ... for Redirectors."""
        counts: dict[str, int] = {}
        out = {}
        for p, k, _ in self.pieces:
            letter = LETTERS[k]
            out[p] = f"{letter}{counts.get(letter, 0)}"
            counts[letter] = counts.get(letter, 0) + 1
        return out

    def rotation(self, piece: Piece) -> int:
        """The tile's rotation in a layout (face f points in direction f + rot)."""
        p, k, d = piece
        if k == HULL:
            if d == NOWHERE:   # the first direction with no Hull there
                kinds = self.kinds
                d = next(x for x in range(6) if kinds.get(step(p, x)) != HULL)
            return (d - REPAIR_FACE) % 6
        return d % 6          # orient stays 0: a Hazard's / Redirector's face 0 points at d

    def layout_text(self, game: str) -> str:
        names = self.names()
        lines = [f"game {game}"]
        for piece in self.pieces:
            p, k, _ = piece
            lines.append(f"tile {names[p]} at {p[0]},{p[1]} rot {self.rotation(piece)} kind={k}")
        return "\n".join(lines) + "\n"


def legal(kinds: dict[Pos, str]) -> bool:
    """No weak link (two touching pieces share a third neighbour), and every Hazard and
    Redirector touches a Hull (the game's `illegal`, on every tile). Connected is given."""
    for p, k in kinds.items():
        near = [step(p, d) in kinds for d in range(6)]
        for d in range(6):
            if near[d] and not near[(d - 1) % 6] and not near[(d + 1) % 6]:
                return False
        if k != HULL and not any(kinds.get(step(p, d)) == HULL for d in range(6)):
            return False
    return True


def connected(cells: set[Pos]) -> bool:
    start = next(iter(cells))
    seen, todo = {start}, [start]
    while todo:
        c = todo.pop()
        for f in range(6):
            n = step(c, f)
            if n in cells and n not in seen:
                seen.add(n)
                todo.append(n)
    return seen == cells


def _turn(p: Pos) -> Pos:
    return -p[1], p[0] + p[1]


def _mirror(p: Pos) -> Pos:
    return -p[0], p[1] + p[0]


def _turn_piece(piece: Piece) -> Piece:
    p, k, d = piece
    if k == HAZARD:
        return _turn(p), k, (d + 1) % 2
    return _turn(p), k, d if d == NOWHERE else (d + 1) % 6


def _mirror_piece(piece: Piece) -> Piece:
    p, k, d = piece
    if k == HAZARD or d == NOWHERE:
        return _mirror(p), k, d
    if k == HULL:
        return _mirror(p), k, (-d) % 6
    return _mirror(p), k, (-d - 2) % 6


def canonical(pieces: tuple[Piece, ...]) -> Ship:
    """The least of the ship's turns (and mirror images, when it has no Redirector: one
    turns clockwise, its mirror image would turn the other way), moved to the origin."""
    variants = [pieces]
    if not any(k == REDIRECTOR for _, k, _ in pieces):
        variants.append(tuple(_mirror_piece(x) for x in pieces))
    best = None
    for variant in variants:
        cur = variant
        for _ in range(6):
            q0 = min(p[0] for p, _, _ in cur)
            r0 = min(p[1] for p, _, _ in cur if p[0] == q0)
            moved = tuple(sorted(((p[0] - q0, p[1] - r0), k, d) for p, k, d in cur))
            if best is None or moved < best:
                best = moved
            cur = tuple(_turn_piece(x) for x in cur)
    assert best is not None
    return Ship(best)


def directions(p: Pos, kind: str, kinds: dict[Pos, str]) -> list[int]:
    if kind == HULL:
        at_hulls = [d for d in range(6) if kinds.get(step(p, d)) == HULL]
        return at_hulls + ([NOWHERE] if len(at_hulls) < 6 else [])
    return [0, 1] if kind == HAZARD else list(range(6))


def ships(hulls: int, hazards: int, redirectors: int = 0) -> Iterator[Ship]:
    """Every legal ship of these pieces, once up to its symmetries."""
    n = hulls + hazards + redirectors
    seen: set[Ship] = set()
    for shape in shapes(n):
        cells = list(shape)
        for others in itertools.combinations(range(n), hazards + redirectors):
            for which in itertools.combinations(others, redirectors):
                kinds = {c: HULL for c in cells}
                for i in others:
                    kinds[cells[i]] = REDIRECTOR if i in which else HAZARD
                if not legal(kinds):
                    continue
                choices = [directions(c, kinds[c], kinds) for c in cells]
                for dirs in itertools.product(*choices):
                    ship = canonical(tuple((c, kinds[c], d) for c, d in zip(cells, dirs)))
                    if ship not in seen:
                        seen.add(ship)
                        yield ship
