"""The referee: Pirates & Lasers played on the lattice, by the rules, with no IR or protocol.

Tests use it as the oracle for the emulated firmware. It shares no code with
firmware/pirates_lasers.py: beams are traced geometrically tile to tile, HP
is plain bookkeeping, floods are connected components. It follows the rules
and decisions in docs/pirates-and-lasers.md.

Beams advance hop by hop, each at its own pace, so when two beams reach the
same Redirector the outcome depends on which arrives first (the Redirector
bends the first, then turns). The referee plays every interleaving of the
hops of all beams in flight (of one shot, or of several Hazards pressed
together) and reports each distinct outcome. Only a hop into a Redirector
depends on the order; every other hop commutes with all the others, so it
is taken at once, and only the Redirector hops are branched on.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from blinkc.world.geometry import DIRECTIONS, Pos

HULL, HAZARD, REDIRECTOR = "HULL", "HAZARD", "REDIRECTOR"
KINDS = (HULL, HAZARD, REDIRECTOR)
FULL_HP = 5
REPAIR_FACE = 5
#: A beam ends at the Redirector that would bend it once more than this.
MAX_BENDS = 3

#: A beam in flight: it leaves `pos` out of the local face `out`, and may bend `left` more times.
Beam = tuple[Pos, int, int]


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
    #: Pieces lifted off the lattice, by a name of the caller's choosing.
    held: dict[str, Piece] = field(default_factory=dict)
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
                    if other.kind == HULL and 0 < other.hp < FULL_HP:  # a flooded Hull stays flooded
                        other.hp += 1
            return [self]
        if piece.kind == REDIRECTOR:
            piece.orient = (piece.orient + 1) % 6
            return [self]
        return self.fire_together([pos])

    def fire_together(self, hazards: list[Pos]) -> list[Ship]:
        """Hazards pressed at once (or while each other's beams fly): every outcome.

        Each Hazard fires when its click is recognised, which on a tile of its own can come
        a little before or after the others' beams have moved on; a Hazard that the ship's
        sinking reached first does nothing (a sunk ship only takes a reset)."""
        outcomes: dict[str, Ship] = {}
        seen: set[tuple] = set()
        copy.deepcopy(self)._explore((), tuple(sorted(hazards)), outcomes, seen)
        return list(outcomes.values())

    def _fire(self, pos: Pos) -> tuple[Beam, ...]:
        hazard = self.pieces[pos]
        if hazard.sunk or hazard.kind != HAZARD:
            return ()
        beams = tuple((pos, (hazard.orient + 2 * b) % 6, MAX_BENDS) for b in range(3))
        hazard.orient = (hazard.orient + 1) % 6
        return beams

    # --------------------------------------------------------------- beams
    def _explore(self, beams: tuple[Beam, ...], fires: tuple[Pos, ...], outcomes: dict[str, Ship],
                 seen: set[tuple]) -> None:
        ship, beams = self._advance_free(beams, careful=bool(fires))
        if not beams and not fires:
            outcomes.setdefault(repr(ship.view()), ship)
            return
        key = (beams, fires, repr(ship.view()))
        if key in seen:
            return
        seen.add(key)
        for i in range(len(fires)):  # a Hazard's click is recognised now
            branch = copy.deepcopy(ship)
            new = branch._fire(fires[i])
            branch._explore(tuple(sorted(beams + new)), fires[:i] + fires[i + 1:], outcomes, seen)
        for i in range(len(beams)):  # a beam about to enter a Redirector (or to sink the ship) does
            branch = copy.deepcopy(ship)
            nxt = branch._hop(beams[i])
            rest = beams[:i] + beams[i + 1:] + ((nxt,) if nxt is not None else ())
            branch._explore(tuple(sorted(rest)), fires, outcomes, seen)

    def _advance_free(self, beams: tuple[Beam, ...], careful: bool) -> tuple[Ship, tuple[Beam, ...]]:
        """Take every hop whose order does not matter; returns the beams left, each about to
        enter a Redirector (or, while a Hazard has yet to fire, to sink the ship)."""
        ship = copy.deepcopy(self)
        todo = list(beams)
        waiting: list[Beam] = []
        while todo:
            beam = todo.pop()
            nxt = ship.neighbour(beam[0], beam[1])
            if nxt is not None:
                piece = ship.pieces[nxt[0]]
                if piece.kind == REDIRECTOR or (careful and piece.kind == HULL and piece.hp == 1
                                                and not piece.sunk):
                    waiting.append(beam)
                    continue
            moved = ship._hop(beam)
            if moved is not None:
                todo.append(moved)
        return ship, tuple(sorted(waiting))

    def _hop(self, beam: Beam) -> Beam | None:
        """The beam crosses one edge and acts on the piece it enters; None when it ends."""
        pos, out, left = beam
        nxt = self.neighbour(pos, out)
        if nxt is None:
            return None  # the beam leaves into open water
        pos, entry = nxt
        piece = self.pieces[pos]
        out = (entry + 3) % 6
        if piece.kind == HULL:
            self.damage(pos)
        elif piece.kind == REDIRECTOR:
            o = piece.orient
            piece.orient = (o + 1) % 6
            if entry in (o, (o + 2) % 6):
                if left == 0:
                    self.log.append(f"beam stopped at {pos}: a fourth bend")
                    return None
                out = (o + 2) % 6 if entry == o else o
                left -= 1
        return pos, out, left

    # ------------------------------------------------------------ moving
    def lift(self, name: str, pos: Pos) -> None:
        self.held[name] = self.pieces.pop(pos)

    def place(self, name: str, to: Pos, rot: int | None = None) -> None:
        """Put a lifted piece down; a sunk piece sinks whatever it is put against."""
        piece = self.held.pop(name)
        if rot is not None:
            piece.rot = rot
        self.pieces[to] = piece
        self.spread_sinking()

    def move(self, pos: Pos, to: Pos, rot: int | None = None) -> None:
        self.lift("moving", pos)
        self.place("moving", to, rot)

    def spread_sinking(self) -> None:
        for p, piece in list(self.pieces.items()):
            if piece.sunk:
                for q in self.component(p):
                    self.pieces[q].sunk = True

    def view(self) -> dict:
        return {p: piece.view() for p, piece in sorted(self.pieces.items())}
