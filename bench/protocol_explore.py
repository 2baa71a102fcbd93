"""The protocol explorer at length: every cluster of 2 and 3 tiles, a sample of 4.

    python bench/protocol_explore.py [--game firmware/pirates_lasers.py] [--random 2]
                                     [--four 400] [--seed 0] [--tiles 3] [--clock "±3 %"]

For 2 and 3 tiles: every connected shape (up to a turn of the whole cluster), every
rotation of every tile, under every clock condition, each with the scripted schedules
and --random seeded ones. For 4 tiles: --four configurations of each clock condition,
the 10 shapes in turn. Prints what was explored and checked and every violation (exit 1), shrunk,
with the command that replays it (docs/protocol.md, blinkc/explore/). The runs go through blinkc's runner
(docs/runner.md): --jobs N local processes (default: every core) or --ray.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from blinkc.explore import CLOCKS, explore, shrink, subject, write_counterexample  # noqa: E402
from blinkc.explore.runs import WORLDS  # noqa: E402
from blinkc.runner import Options  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", type=Path, default=ROOT / "firmware" / "pirates_lasers.py")
    ap.add_argument("--random", type=int, default=2, help="random schedules per configuration")
    ap.add_argument("--four", type=int, default=400, help="4-tile configurations per clock")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tiles", type=int, action="append", choices=(2, 3, 4),
                    help="only clusters of this size (repeatable; default: 2, 3 and 4)")
    ap.add_argument("--clock", action="append", choices=CLOCKS,
                    help="only this clock condition (repeatable; default: all)")
    ap.add_argument("--jobs", type=int, default=None, help="local processes (default: one a core)")
    ap.add_argument("--ray", default=None, help="auto, local or a Ray cluster's address")
    ap.add_argument("--world", choices=WORLDS, default="auto",
                    help="native (the game's C++ in the C++ world core), python, or auto")
    args = ap.parse_args()
    options = Options(jobs=args.jobs, ray=args.ray, progress=sys.stderr.isatty())
    bad = 0
    sizes = ((2, None), (3, None), (4, args.four))
    for n, limit in (s for s in sizes if not args.tiles or s[0] in args.tiles):
        for clock in args.clock or CLOCKS:
            start = time.perf_counter()
            # (a sample of 4-tile clusters takes every shape in turn)
            report = explore(args.game, n, clocks=[clock], random_runs=args.random, seed=args.seed,
                             limit=limit, spread=limit is not None, stop_at_first=False,
                             options=options, world=args.world)
            for line in report.lines():
                print(f"{clock:20} {line} [{time.perf_counter() - start:.0f} s]", flush=True)
            for i, (run, problems) in enumerate(report.violations[:3]):
                small, problems = shrink(subject(args.game, args.world), run)
                # (one folder per counterexample: they used to overwrite each other)
                out = Path("explore-out") / f"{n}-{clock.replace(' ', '_')}-{bad + i}"
                command = write_counterexample(args.game, small, problems, out)
                print("   ", problems[:3], "\n    replay:", command)
            bad += len(report.violations)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
