"""The Fleet Combos soak: random games planned by the rules, every ship checked after every step.

    python bench/fleet_soak.py [--games 1000] [--steps 120] [--drop 0 0.1 0.3] [--jobs N]
                               [--ray auto|local|ADDRESS] [--results FILE [--resume]]
                               [--backend native|python] [--seed 0] [--first 0]

For each drop rate it plays `--games` random games (tests/games/fleet_referee.py plans
them: legal and illegal placements, fires, burning ships taken away and their spaces
filled) in the emulator, and compares every ship with the referee after every step and
the gathered score at the end. By default a game is played whole, to its 32nd legal ship
(the plan ends there; 120 placements is enough for every plan); `--steps 12` plays only
each game's first 12 placements, for a quicker soak. It prints, per drop rate, the games,
steps and ships laid, and how many games lost or duplicated something or never settled
(the goal is 0 everywhere); `slept` counts the games whose sea fell asleep in the middle of
a step or while it gathered the score, and was woken (and long pressed again), as a player
would (not a disagreement: tests/games/fleet_play.py), and `slowest` the longest a step took
to settle (a step that does not settle within two minutes is a stall). Game i is the same
on every run with the same --seed. The games are played on blinkc's runner (docs/runner.md):
every core by default, or a Ray cluster; with --results FILE (one file per drop rate:
FILE.<n>) a cut soak goes on with --resume.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from blinkc.runner import Job, Options  # noqa: E402
from blinkc.runner import run as run_job  # noqa: E402
from blinkc.world import Faults  # noqa: E402
from tests.games.fleet_play import play  # noqa: E402
from tests.games.fleet_referee import WHOLE_GAME as WHOLE  # noqa: E402

#: What a game can go wrong by (tests/games/fleet_play.Played), in the order printed.
KINDS = ("lost", "duplicated", "stalled", "other")


def _setup(shared: tuple) -> tuple:
    return shared


def _game(shared: tuple, index: int) -> dict:
    drop, seed, backend, steps = shared
    played, _ = play(seed + index, backend, Faults(drop=drop) if drop else None,
                     max_steps=steps, strict=False)
    return {**asdict(played), "seed": seed + index}


def run(drop: float, games: int, options: Options, seed: int, backend: str, steps: int,
        first: int = 0) -> dict:
    job = Job(f"fleet soak {drop:.0%}", {"drop": drop, "seed": seed, "backend": backend,
                                         "steps": steps, "first": first},
              _setup, (drop, seed, backend, steps), _game, range(first, first + games),
              failed=lambda r: any(r[k] for k in KINDS), chunk=5)
    outcome = run_job(job, options)
    totals: dict = {"games": 0, "steps": 0, "ships": 0, "slept": 0, "slowest_ms": 0,
                    **{k: 0 for k in KINDS}}
    failures: list[str] = []
    for _, r in outcome.ordered():
        totals["games"] += 1
        totals["steps"] += r["steps"]
        totals["ships"] += r["ships"]
        totals["slept"] += bool(r.get("slept"))  # (results of before it was counted: none)
        totals["slowest_ms"] = max(totals["slowest_ms"], r.get("slowest_ms", 0))
        for k in KINDS:
            totals[k] += bool(r[k])       # games that went wrong this way
        failures += r["failures"]
    totals["failures"] = failures
    totals["wall_s"] = outcome.wall_s
    totals["interrupted"] = outcome.interrupted
    return totals


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000, help="games per drop rate")
    ap.add_argument("--steps", type=int, default=WHOLE,
                    help=f"placements planned per game (default {WHOLE}: the whole game)")
    ap.add_argument("--drop", type=float, nargs="+", default=[0.0, 0.1, 0.3])
    ap.add_argument("--jobs", type=int, default=None, help="local processes (default: one a core)")
    ap.add_argument("--ray", default=None, help="auto, local or a Ray cluster's address")
    ap.add_argument("--results", type=Path, default=None,
                    help="keep each game's outcome in FILE.<drop rate number> to --resume from")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--first", type=int, default=0,
                    help="number of the first game (game i is the same in every run: a long "
                         "soak can be run in parts)")
    ap.add_argument("--backend", choices=["native", "python"], default="native")
    args = ap.parse_args()
    plan = "whole games" if args.steps >= WHOLE else f"games of {args.steps} placements"
    print(f"fleet soak: {args.games:,} {plan} per drop rate, {args.backend} backend, "
          f"seed {args.seed}" + (f", games {args.first:,}.." if args.first else ""))
    print(f"{'drop':>5} {'games':>6} {'steps':>7} {'ships':>6} {'lost':>5} {'dup':>4} "
          f"{'stall':>5} {'other':>5} {'slept':>5} {'slowest':>7}   wall")
    bad = 0
    for n, drop in enumerate(args.drop):
        results = args.results.with_name(f"{args.results.name}.{n}") if args.results else None
        options = Options(jobs=args.jobs, ray=args.ray, results=results, resume=args.resume,
                          progress=sys.stderr.isatty())
        t = run(drop, args.games, options, args.seed, args.backend, args.steps, args.first)
        print(f"{drop:>5.0%} {t['games']:>6,} {t['steps']:>7,} {t['ships']:>6,} {t['lost']:>5} "
              f"{t['duplicated']:>4} {t['stalled']:>5} {t['other']:>5} {t['slept']:>5} "
              f"{t['slowest_ms'] / 1000:>6.1f}s   "
              f"{t['wall_s']:.0f} s",
              flush=True)
        for f in t["failures"][:5]:
            print(f"    {f[:400]}")
        bad += sum(t[k] for k in KINDS)
        if t["interrupted"]:
            print("stopped; go on with the same command and --resume"
                  + ("" if args.results else " (and --results FILE, next time)"))
            return 130
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
