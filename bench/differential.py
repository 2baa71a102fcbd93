"""The long differential run: random scenarios through the Python and the native backend.

    python bench/differential.py [--game firmware/pirates_lasers.py] [--cases 5000] [--seed 0]
                                 [--jobs N] [--ray auto|local|ADDRESS] [--shrink]

Prints how many cases ran, how long they took, and the first difference with
a reproducer if there is one (exit 1). The CI-sized run is
tests/backends/test_differential.py. The cases are drawn first (hypothesis, seeded with
--seed) and compared on blinkc's runner (docs/runner.md: every core, or Ray); a difference
is reported as drawn. --shrink runs the old way instead, in this process, letting
hypothesis shrink the first difference.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as seeded
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from blinkc.differential import cases, compare, reproducer  # noqa: E402
from blinkc.games import load_program  # noqa: E402
from blinkc.runner import Job, Options, run  # noqa: E402


def _setup(game: str) -> str:
    return game


def _compare(game: str, case) -> dict:
    difference = compare(game, case)
    return {"seed": case.seed, "tiles": len(case.tiles), "steps": len(case.steps),
            "difference": difference}


def on_runner(args: argparse.Namespace) -> int:
    drawn = []

    @seeded(args.seed)
    @settings(max_examples=args.cases, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(case=cases(load_program(args.game)))
    def draw(case):
        drawn.append(case)

    draw()
    job = Job(f"differential {args.game.name}", {"game": args.game.name, "seed": args.seed,
                                                 "cases": args.cases},
              _setup, str(args.game), _compare, drawn, failed=lambda r: r["difference"] is not None,
              chunk=20)
    outcome = run(job, Options(jobs=args.jobs, ray=args.ray, progress=sys.stderr.isatty()))
    ordered = outcome.ordered()
    print(f"{args.game.name}: {len(ordered)} cases ({sum(r['tiles'] for _, r in ordered)} tiles, "
          f"{sum(r['steps'] for _, r in ordered)} steps) in {outcome.wall_s:.1f} s "
          f"on {outcome.engine}")
    failing = [(i, r) for i, r in ordered if r["difference"] is not None]
    if failing:
        i, r = failing[0]
        print(f"FIRST DIFFERENCE (case {i}, as drawn; --shrink to shrink it):\n{r['difference']}"
              f"\n\n{reproducer(args.game, drawn[i])}")
        return 1
    if outcome.interrupted:
        print("stopped before every case was compared")
        return 130
    print("the Python and the native backend agreed on every case")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", type=Path, default=ROOT / "firmware" / "pirates_lasers.py")
    ap.add_argument("--cases", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=0, help="seed of the scenario generator")
    ap.add_argument("--jobs", type=int, default=None, help="local processes (default: one a core)")
    ap.add_argument("--ray", default=None, help="auto, local or a Ray cluster's address")
    ap.add_argument("--shrink", action="store_true",
                    help="compare in this process, letting hypothesis shrink a difference")
    args = ap.parse_args()
    if not args.shrink:
        return on_runner(args)
    ran = {"n": 0, "tiles": 0, "steps": 0}
    failure: list[str] = []

    @settings(max_examples=args.cases, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(case=cases(load_program(args.game)), _seed=st.just(args.seed))
    def run(case, _seed):
        ran["n"] += 1
        ran["tiles"] += len(case.tiles)
        ran["steps"] += len(case.steps)
        difference = compare(args.game, case)
        if difference is not None:
            failure[:] = [f"{difference}\n\n{reproducer(args.game, case)}"]
            raise AssertionError(difference)

    t0 = time.perf_counter()
    try:
        run()
    except AssertionError:
        pass
    wall = time.perf_counter() - t0
    print(f"{args.game.name}: {ran['n']} cases ({ran['tiles']} tiles, {ran['steps']} steps) "
          f"in {wall:.1f} s")
    if failure:
        print("FIRST DIFFERENCE (shrunk):\n" + failure[0])
        return 1
    print("the Python and the native backend agreed on every case")
    return 0


if __name__ == "__main__":
    sys.exit(main())
