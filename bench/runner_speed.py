"""The runner's speed: one batch of explorer runs on 1, 2 and every core, and on Ray.

    python bench/runner_speed.py [--configurations 12] [--tiles 3] [--ray-local]

The same batch (the first --configurations of --tiles tiles under "±3 %" clocks, 10 runs
each) with --jobs 1, --jobs 2, --jobs (every core) and, with --ray-local, on a Ray cluster
started here. Prints runs per second and the speed-up over one job, and checks that every
engine gave the same results (docs/runner.md has the figures).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from blinkc.explore.explorer import explore_job  # noqa: E402
from blinkc.runner import Options, run  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", type=Path, default=ROOT / "firmware" / "pirates_lasers.py")
    ap.add_argument("--configurations", type=int, default=12)
    ap.add_argument("--tiles", type=int, default=3)
    ap.add_argument("--ray-local", action="store_true", help="also on `--ray local`")
    args = ap.parse_args()
    engines = [("1 job", Options(jobs=1)), ("2 jobs", Options(jobs=2))]
    cores = os.cpu_count() or 1
    if cores > 2:
        engines.append((f"{cores} jobs (every core)", Options(jobs=cores)))
    if args.ray_local:
        engines.append(("ray local", Options(ray="local")))
    first = None
    base = None
    print(f"{args.configurations} configurations of {args.tiles} tiles (±10 %), "
          f"{os.cpu_count()} cores here")
    for name, options in engines:
        job = explore_job(args.game, args.tiles, clocks=["±3 %"], random_runs=2,
                          limit=args.configurations, stop_at_first=False)
        outcome = run(job, options)
        per_s = outcome.done / outcome.wall_s
        base = base or per_s
        same = "" if first is None or outcome.ordered() == first else "  DIFFERENT RESULTS"
        first = first or outcome.ordered()
        print(f"{name:24} {outcome.done:5} runs in {outcome.wall_s:6.1f} s: {per_s:6.2f} runs/s, "
              f"x{per_s / base:.2f}{same}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
