"""The Fleet Combos soak: random games planned by the rules, every ship checked after every step.

    python bench/fleet_soak.py [--games 1000] [--steps 12] [--drop 0 0.1 0.3] [--jobs 2]
                               [--backend native|python] [--seed 0]

For each drop rate it plays `--games` random games (tests/games/fleet_referee.py plans
them: legal and illegal placements, fires, burning ships taken away and their spaces
filled, `--steps` placements each, the first ones of a game; the whole 32-ship games are
tests/games/test_fleet_combos.py's) in the emulator, and compares every ship with the
referee after every step and the gathered score at the end. It prints, per drop rate, the
games, steps and ships laid, and how many games lost or duplicated something or never
settled (the goal is 0 everywhere). Game i is the same on every run with the same --seed.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from blinkc.world import Faults  # noqa: E402
from tests.games.fleet_play import Played, play  # noqa: E402


def _chunk(args: tuple) -> list[Played]:
    drop, indices, seed, backend, steps = args
    faults = Faults(drop=drop) if drop else None
    return [play(seed + i, backend, faults, max_steps=steps, strict=False)[0] for i in indices]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000, help="games per drop rate")
    ap.add_argument("--steps", type=int, default=12, help="placements planned per game")
    ap.add_argument("--drop", type=float, nargs="+", default=[0.0, 0.1, 0.3])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--backend", choices=["native", "python"], default="native")
    args = ap.parse_args()
    print(f"fleet soak: {args.games:,} games of {args.steps} placements per drop rate, "
          f"{args.backend} backend, seed {args.seed}")
    print(f"{'drop':>5} {'games':>6} {'steps':>7} {'ships':>6} {'lost':>5} {'dup':>4} "
          f"{'stall':>5} {'other':>5}   wall")
    bad = 0
    for drop in args.drop:
        start = time.perf_counter()
        chunks = [(drop, range(i, min(i + 10, args.games)), args.seed, args.backend, args.steps)
                  for i in range(0, args.games, 10)]
        games = steps = ships = lost = dup = stalled = other = 0
        failures: list[str] = []
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            for results in pool.map(_chunk, chunks):
                for p in results:
                    games += 1
                    steps += p.steps
                    ships += p.ships
                    lost += bool(p.lost)
                    dup += bool(p.duplicated)
                    stalled += bool(p.stalled)
                    other += bool(p.other)
                    failures += p.failures
        print(f"{drop:>5.0%} {games:>6,} {steps:>7,} {ships:>6,} {lost:>5} {dup:>4} {stalled:>5} "
              f"{other:>5}   {time.perf_counter() - start:.0f} s", flush=True)
        for f in failures[:5]:
            print(f"    {f[:400]}")
        bad += lost + dup + stalled + other
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
