"""The referee: Pirates & Lasers played on the lattice, by the rules, with no IR or protocol.

Tests use it as the oracle for the emulated firmware. It shares no code with
firmware/pirates_lasers.py: beams are traced geometrically tile to tile, HP
is plain bookkeeping, floods are connected components. It follows the rules
and decisions in docs/pirates-and-lasers.md.

When two beams of one shot pass the same Redirector, the outcome depends on
which arrives first (the tile bends the first one, then turns). The referee
then plays every order of the three beams and reports each distinct outcome.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from itertools import permutations

from .world.geometry import DIRECTIONS, Pos

HULL, HAZARD, REDIRECTOR = "HULL", "HAZARD", "REDIRECTOR"
KINDS = (HULL, HAZARD, REDIRECTOR)
FULL_HP = 5
REPAIR_FACE = 5


@dataclass
class Piece:
    kind: str = HULL
    hp: int = FULL_HP
    orient: int = 0
    rot: int = 0
    sunk: bool = False

    def view(self) -> dict:
        return {"kind": self.kind, "hp": self.hp, "orient": self.orient, "sunk": self.sunk}


@dataclass
class Ship:
    """Pieces on the lattice by position."""

    pieces: dict[Pos, Piece] = field(default_factory=dict)
    #: What happened (for test failure messages).
    log: list[str] = field(default_factory=list)

    # ------------------------------------------------------------ geometry
    def neighbour(self, pos: Pos, face: int) -> tuple[Pos, int] | None:
        """The piece across local `face` of the piece at pos, and its face that touches back."""
        rot = self.pieces[pos].rot
        g = (face + rot) % 6
        dq, dr = DIRECTIONS[g]
        npos = (pos[0] + dq, pos[1] + dr)
        other = self.pieces.get(npos)
        if other is None:
            return None
        return npos, (g + 3 - other.rot) % 6

    def component(self, pos: Pos) -> list[Pos]:
        seen = {pos}
        todo = [pos]
        while todo:
            p = todo.pop()
            for f in range(6):
                n = self.neighbour(p, f)
                if n is not None and n[0] not in seen:
                    seen.add(n[0])
                    todo.append(n[0])
        return sorted(seen)

    def alone(self, pos: Pos) -> bool:
        return all(self.neighbour(pos, f) is None for f in range(6))

    # ------------------------------------------------------------- actions
    def sink(self, pos: Pos) -> None:
        for p in self.component(pos):
            self.pieces[p].sunk = True
        self.log.append(f"ship of {pos} sank")

    def damage(self, pos: Pos) -> None:
        piece = self.pieces[pos]
        if piece.hp > 0:
            piece.hp -= 1
            if piece.hp == 0:
                self.sink(pos)

    def double_click(self, pos: Pos) -> None:
        piece = self.pieces[pos]
        if piece.sunk or not self.alone(pos):
            return
        piece.kind = KINDS[(KINDS.index(piece.kind) + 1) % 3]
        piece.hp = FULL_HP

    def multi_click(self, pos: Pos) -> None:
        for p in self.component(pos):
            piece = self.pieces[p]
            if piece.kind == HULL:
                piece.hp = FULL_HP
            piece.sunk = False

    def click(self, pos: Pos) -> list[Ship]:
        """Press a piece. Returns every possible resulting ship (more than one only on a race)."""
        piece = self.pieces[pos]
        if piece.sunk:
            return [self]
        if piece.kind == HULL:
            if piece.hp > 0:
                self.damage(pos)
                target = self.neighbour(pos, REPAIR_FACE)
                if target is not None:
                    other = self.pieces[target[0]]
                    if other.kind == HULL and other.hp < FULL_HP:
                        other.hp += 1
            return [self]
        if piece.kind == REDIRECTOR:
            piece.orient = (piece.orient + 1) % 6
            return [self]
        return self.fire(pos)

    def fire(self, pos: Pos) -> list[Ship]:
        outcomes: list[Ship] = []
        seen: list[dict] = []
        for order in permutations(range(3)):
            ship = copy.deepcopy(self)
            hazard = ship.pieces[pos]
            faces = [(hazard.orient + 2 * b) % 6 for b in range(3)]
            for b in order:
                ship.trace_beam(pos, faces[b])
            hazard.orient = (hazard.orient + 1) % 6
            key = ship.view()
            if key not in seen:
                seen.append(key)
                outcomes.append(ship)
        return outcomes

    def trace_beam(self, start: Pos, face: int) -> None:
        """Follow one beam from `start` out of `face` until it leaves the ship or comes back."""
        crossed = {start}
        pos, out = start, face
        while True:
            nxt = self.neighbour(pos, out)
            if nxt is None:
                return  # the beam leaves into open water
            pos, entry = nxt
            if pos in crossed:
                self.log.append(f"beam stopped at {pos}: it had crossed it already")
                return  # a beam never crosses the same tile twice: it stops here
            crossed.add(pos)
            piece = self.pieces[pos]
            out = (entry + 3) % 6
            if piece.kind == HULL:
                self.damage(pos)
            elif piece.kind == REDIRECTOR:
                o = piece.orient
                if entry == o:
                    out = (o + 2) % 6
                elif entry == (o + 2) % 6:
                    out = o
                piece.orient = (o + 1) % 6

    def view(self) -> dict:
        return {p: piece.view() for p, piece in sorted(self.pieces.items())}

