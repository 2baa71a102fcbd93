"""The look-ahead of a policy: what a round would do, by the rules of
docs/pirates-and-lasers.md. The policy uses it only to choose a press; the rounds a ship
lasts are counted by the game itself in the emulator (play.py), never by this."""

from __future__ import annotations

from dataclasses import dataclass, replace

from .ships import HULL, REDIRECTOR, Pos, step

FULL_HP = 5
MAX_BENDS = 3


@dataclass(frozen=True)
class State:
    kinds: dict[Pos, str]
    hp: dict[Pos, int]             #: Hulls
    orient: dict[Pos, int]         #: Hazards' first red direction, Redirectors' bend (world)
    repair: dict[Pos, int]         #: Hulls' Repair direction (world)
    hazards: tuple[Pos, ...]       #: in the order they are pressed

    @property
    def sunk(self) -> bool:
        return any(v == 0 for v in self.hp.values())


def round_after(state: State, pressed: Pos) -> State:
    """The state after `pressed` repairs and every Hazard fires once."""
    hp, orient = dict(state.hp), dict(state.orient)
    if hp[pressed] > 0:
        hp[pressed] -= 1
        target = step(pressed, state.repair[pressed])
        if state.kinds.get(target) == HULL and 0 < hp[target] < FULL_HP:
            hp[target] += 1
    for z in state.hazards:
        for b in range(3):
            _beam(state.kinds, hp, orient, z, (orient[z] + 2 * b) % 6)
        orient[z] = (orient[z] + 1) % 6
    return replace(state, hp=hp, orient=orient)


def _beam(kinds: dict[Pos, str], hp: dict[Pos, int], orient: dict[Pos, int], p: Pos,
          d: int) -> None:
    bends = MAX_BENDS
    while True:
        p = step(p, d)
        kind = kinds.get(p)
        if kind is None:
            return
        if kind == HULL:
            hp[p] = max(0, hp[p] - 1)
        elif kind == REDIRECTOR:
            o = orient[p]
            orient[p] = (o + 1) % 6
            entry = (d + 3) % 6
            if entry in (o, (o + 2) % 6):
                if bends == 0:
                    return
                bends -= 1
                d = (o + 2) % 6 if entry == o else o


def _score(state: State) -> tuple[int, int]:
    return (min(state.hp.values()), sum(state.hp.values()))


def choose(state: State, lookahead: int = 1) -> Pos:
    """The Hull to press: greedy (lookahead 1) leaves the lowest Hull highest after the round
    (then the most HP in all); lookahead K the press whose best K rounds last longest, then
    leave the lowest Hull highest. Ties go to the first Hull in the ship's order."""
    hulls = [p for p in sorted(state.hp) if state.hp[p] > 0]
    return max(hulls, key=lambda p: (_value(round_after(state, p), lookahead - 1), -hulls.index(p)))


def _value(state: State, depth: int) -> tuple[int, int, int]:
    if state.sunk:
        return (0, -1, 0)
    if depth == 0:
        return (1, *_score(state))
    hulls = [p for p in state.hp if state.hp[p] > 0]
    rounds, *score = max(_value(round_after(state, p), depth - 1) for p in hulls)
    return (rounds + 1, *score)
