"""The search for the ship that lasts longest: every legal ship (exhaustive) when there
are few enough, else a seeded beam search; either way each ship is played in the
emulator, on the runner."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from ..games import tile_class
from ..runner import Job, Options, Outcome, run
from ..world.geometry import Pos
from .play import Played, Policy, play
from .ships import HAZARD, HULL, REDIRECTOR, Ship, canonical, connected, directions, legal, ships, step


@dataclass(frozen=True)
class Scored:
    rounds: int
    ship: Ship


def _setup(shared: tuple[str, Policy, int]) -> tuple[Path, Policy, int]:
    game, policy, seed = shared
    tile_class(game, "native")          # the game compiled for the host once per worker
    return Path(game), policy, seed


def _play(context: tuple[Path, Policy, int], ship: Ship) -> dict:
    game, policy, seed = context
    played = play(game, ship, policy, seed)
    return {"seed": seed, "ship": ship.describe(), "rounds": played.rounds}


def evaluate_job(game: Path, candidates: list[Ship], policy: Policy, seed: int,
                 name: str, key: dict) -> Job:
    return Job(name, {**key, "policy": str(policy), "seed": seed, "ships": len(candidates)},
               _setup, (str(game.resolve()), policy, seed), _play, candidates, chunk=8)


def ranked(outcome: Outcome) -> list[Scored]:
    """Most rounds first; ties in the ships' order (the same however they were played)."""
    scored = [Scored(r["rounds"], outcome.job.runs[i]) for i, r in outcome.ordered()]
    return sorted(scored, key=lambda s: (-s.rounds, s.ship))


@dataclass
class Search:
    kind: str                 #: "exhaustive" or "beam"
    searched: int             #: ships played
    legal: int | None         #: legal ships up to symmetry (exhaustive: all of them)
    best: list[Scored]
    interrupted: bool = False


def exhaustive(game: Path, hulls: int, hazards: int, redirectors: int, policy: Policy,
               seed: int, options: Options) -> Search:
    every = list(ships(hulls, hazards, redirectors))
    job = evaluate_job(game, every, policy, seed, f"solve {hulls}+{hazards}+{redirectors}",
                       {"hulls": hulls, "hazards": hazards, "redirectors": redirectors})
    outcome = run(job, options)
    return Search("exhaustive", outcome.done, len(every), ranked(outcome), outcome.interrupted)


def random_ship(rng: random.Random, hulls: int, hazards: int, redirectors: int) -> Ship:
    """A legal ship grown at random (a blob of cells, kinds and directions drawn)."""
    n = hulls + hazards + redirectors
    while True:
        cells: list[Pos] = [(0, 0)]
        while len(cells) < n:
            c = step(rng.choice(cells), rng.randrange(6))
            if c not in cells:
                cells.append(c)
        order = ([HAZARD] * hazards + [REDIRECTOR] * redirectors + [HULL] * hulls)
        rng.shuffle(order)
        kinds = dict(zip(cells, order))
        if legal(kinds):
            return canonical(tuple((c, k, rng.choice(directions(c, k, kinds)))
                                   for c, k in kinds.items()))


def neighbours(ship: Ship) -> set[Ship]:
    """Ships one change away: a piece's direction, two pieces' kinds swapped, or a piece
    moved to another free place next to the ship; legal ones only."""
    pieces = list(ship.pieces)
    kinds = ship.kinds
    out: set[Ship] = set()

    def add(new: list) -> None:
        k = {p: kind for p, kind, _ in new}
        if legal(k) and connected(set(k)):
            fixed = [(p, kind, d if d in directions(p, kind, k) else directions(p, kind, k)[0])
                     for p, kind, d in new]
            out.add(canonical(tuple(fixed)))

    for i, (p, k, d) in enumerate(pieces):
        for d2 in directions(p, k, kinds):
            if d2 != d:
                add([*pieces[:i], (p, k, d2), *pieces[i + 1:]])
        for j in range(i + 1, len(pieces)):
            q, k2, e = pieces[j]
            if k2 != k:
                swapped = list(pieces)
                swapped[i], swapped[j] = (p, k2, e), (q, k, d)
                add(swapped)
        rest = [x for x in pieces if x[0] != p]
        free = {step(x[0], f) for x in rest for f in range(6)} - {x[0] for x in pieces}
        for spot in sorted(free):
            add([*rest, (spot, k, d)])
    out.discard(ship)
    return out


def beam(game: Path, hulls: int, hazards: int, redirectors: int, policy: Policy, seed: int,
         options: Options, budget: int, width: int = 8) -> Search:
    """A seeded beam search: `width` random ships, then generation after generation the
    unplayed neighbours of the best `width` so far (at most 4 x width of them, drawn with
    the seed), until `budget` ships have been played or no neighbour is left."""
    rng = random.Random(seed)
    played: dict[Ship, int] = {}
    batch = sorted({random_ship(rng, hulls, hazards, redirectors) for _ in range(width)})
    generation = 0
    interrupted = False
    while batch and len(played) < budget:
        batch = batch[:budget - len(played)]
        job = evaluate_job(game, batch, policy, seed, f"solve, generation {generation}",
                           {"hulls": hulls, "hazards": hazards, "redirectors": redirectors,
                            "generation": generation})
        outcome = run(job, options)
        for s in ranked(outcome):
            played[s.ship] = s.rounds
        if outcome.interrupted:
            interrupted = True
            break
        best = sorted(played, key=lambda s: (-played[s], s))[:width]
        fresh = sorted(set().union(*(neighbours(s) for s in best)) - set(played))
        batch = sorted(rng.sample(fresh, min(len(fresh), 4 * width)))
        generation += 1
    best = [Scored(r, s) for s, r in sorted(played.items(), key=lambda x: (-x[1], x[0]))]
    return Search("beam", len(played), None, best, interrupted)


def replay_files(game: Path, ship: Ship, policy: Policy, seed: int) -> tuple[str, str, Played]:
    """The layout and the scenario of a ship's game, for `blinkc emulate` to replay."""
    played = play(game, ship, policy, seed)
    return ship.layout_text(str(game)), played.scenario_text(ship, policy), played
