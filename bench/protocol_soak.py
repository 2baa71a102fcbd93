"""The protocol soak: random legal Pirates & Lasers ships played by the rules, at scale.

    python bench/protocol_soak.py [--ships 10000] [--condition NAME ...] [--jobs N]
                                  [--ray auto|local|ADDRESS] [--results FILE [--resume]]
                                  [--backend native|python] [--seed 0] [--moves]

For every condition (identical clocks, ±0.1 %, the default ±1 %, 10 % drop + 2 ms
jitter + ±10 % skew, 30 % drop, 50 % drop) it plays `--ships` random ships of 3-30
tiles, turn after turn by the rules (tests/games/soak.py), and checks every tile
against the referee after every action. It prints, per condition, the ships,
tiles and actions played, how many actions lost or duplicated something or
never settled (the goal is 0 everywhere), and percentiles of the time from a
press until every tile is idle again. Ship i of a run is the same ship on every
run with the same --seed; a failing one is printed with its index to replay it.
The CI-sized sample is tests/games/test_protocol_soak.py. The ships are played on
blinkc's runner (docs/runner.md): every core by default, or a Ray cluster; with
--results FILE (one file per condition: FILE.<n>) a cut soak goes on with --resume.
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
from tests.games.soak import CONDITIONS, soak_ship  # noqa: E402


def _setup(shared: tuple) -> tuple:
    return shared


def _ship(shared: tuple, index: int) -> dict:
    condition, seed, backend, moves = shared
    outcome = asdict(soak_ship(index, condition, base_seed=seed, backend=backend, moves=moves))
    return {**outcome, "seed": seed}


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def run(condition: str, ships: int, options: Options, seed: int, backend: str, moves: bool,
        first: int = 0) -> dict:
    job = Job(f"soak {condition}", {"condition": condition, "seed": seed, "backend": backend,
                                    "moves": moves, "first": first},
              _setup, (condition, seed, backend, moves), _ship, range(first, first + ships),
              failed=lambda o: bool(o["failures"]), chunk=10)
    outcome = run_job(job, options)
    totals = {"ships": 0, "tiles": 0, "actions": 0, "lost": 0, "duplicated": 0, "other": 0,
              "stalled": 0, "sim_s": 0.0}
    latencies: list[float] = []
    failures: list[str] = []
    for i, o in outcome.ordered():
        totals["ships"] += 1
        totals["tiles"] += o["tiles"]
        totals["actions"] += o["actions"]
        for k in ("lost", "duplicated", "other", "stalled"):
            totals[k] += o[k]
        totals["sim_s"] += o["sim_ms"] / 1000
        latencies += o["latencies_ms"]
        failures += [f"ship {first + i}: {f}" for f in o["failures"]]
    totals["wall_s"] = outcome.wall_s
    totals["latency"] = {q: _percentile(latencies, q) for q in (0.5, 0.9, 0.99, 1.0)}
    totals["failures"] = failures
    totals["interrupted"] = outcome.interrupted
    return totals


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ships", type=int, default=10_000, help="ships per condition")
    ap.add_argument("--condition", action="append", choices=list(CONDITIONS),
                    help="run only these conditions (repeatable; default: all)")
    ap.add_argument("--jobs", type=int, default=None, help="local processes (default: one a core)")
    ap.add_argument("--ray", default=None, help="auto, local or a Ray cluster's address")
    ap.add_argument("--results", type=Path, default=None,
                    help="keep each ship's outcome in FILE.<condition number> to --resume from")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--first", type=int, default=0,
                    help="number of the first ship (ship i is the same in every run: a long "
                         "soak can be run in parts, e.g. --first 2000 --ships 8000)")
    ap.add_argument("--backend", choices=["native", "python"], default="native")
    ap.add_argument("--moves", action="store_true",
                    help="turns start, more often than not, by splitting the ship and joining it again")
    args = ap.parse_args()
    print(f"protocol soak: {args.ships:,} random P&L ships of 3-30 tiles per condition, "
          f"{args.backend} backend, seed {args.seed}"
          + (f", ships {args.first:,}..{args.first + args.ships - 1:,}" if args.first else "")
          + (", with rearrangements" if args.moves else ""))
    print(f"{'condition':32} {'ships':>6} {'tiles':>7} {'actions':>7} {'lost':>5} {'dup':>4} "
          f"{'stall':>5} {'other':>5}  press->idle ms p50/p90/p99/max   wall")
    bad = 0
    for n, condition in enumerate(args.condition or list(CONDITIONS)):
        results = args.results.with_name(f"{args.results.name}.{n}") if args.results else None
        options = Options(jobs=args.jobs, ray=args.ray, results=results, resume=args.resume,
                          progress=sys.stderr.isatty())
        t = run(condition, args.ships, options, args.seed, args.backend, args.moves, args.first)
        lat = t["latency"]
        print(f"{condition:32} {t['ships']:>6,} {t['tiles']:>7,} {t['actions']:>7,} {t['lost']:>5} "
              f"{t['duplicated']:>4} {t['stalled']:>5} {t['other']:>5}  "
              f"{lat[0.5]:>5.0f} {lat[0.9]:>5.0f} {lat[0.99]:>6.0f} {lat[1.0]:>6.0f}   "
              f"{t['wall_s']:.0f} s ({t['sim_s'] / 3600:.1f} h simulated)", flush=True)
        for f in t["failures"][:5]:
            print(f"    {f[:400]}")
        bad += t["lost"] + t["duplicated"] + t["stalled"] + t["other"]
        if t["interrupted"]:
            print("stopped; go on with the same command and --resume"
                  + ("" if args.results else " (and --results FILE, next time)"))
            return 130
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
