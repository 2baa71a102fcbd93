"""The put-back search: tiles lifted a little longer than the grace as floods pass.

    python bench/protocol_lifts.py [--game firmware/pirates_lasers.py] [--runs 3000] [--seed 0]

The explorer's own lifts are far shorter or far longer than the grace; around it, one
side of a link may end its session while the other outlives the lift, and a flood can come
back to a tile that ran it (docs/protocol.md, "Floods that come round late"). Each run is a
random cluster of 3 or 4 tiles (clocks in step or ±10 %), one tile lifted for 4.2-7 s around
a flood's start, one-way cuts, and now and then another flood once it is back. Prints the
runs, messages and floods checked and every violation (exit 1), shrunk, with the command
that replays it. The runs go through blinkc's runner (docs/runner.md): --jobs N local
processes (default: every core) or --ray.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from blinkc.explore import explore_lifts, shrink, subject, write_counterexample  # noqa: E402
from blinkc.explore.runs import WORLDS  # noqa: E402
from blinkc.runner import Options  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", type=Path, default=ROOT / "firmware" / "pirates_lasers.py")
    ap.add_argument("--runs", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=None, help="local processes (default: one a core)")
    ap.add_argument("--ray", default=None, help="auto, local or a Ray cluster's address")
    ap.add_argument("--world", choices=WORLDS, default="auto",
                    help="native (the game's C++ in the C++ world core), python, or auto")
    args = ap.parse_args()
    options = Options(jobs=args.jobs, ray=args.ray, progress=sys.stderr.isatty())
    started = time.monotonic()
    report = explore_lifts(args.game, args.runs, seed=args.seed, options=options,
                           world=args.world)
    print(f"lifts around the grace: {report.runs:,} runs of {report.game} (3 and 4 tiles), "
          f"{report.messages:,} messages and {report.floods:,} floods checked; "
          f"{len(report.violations)} violation(s) [{time.monotonic() - started:.0f} s]")
    watched = subject(args.game, args.world)
    for i, (run, _found) in enumerate(report.violations):
        small, small_problems = shrink(watched, run)
        command = write_counterexample(args.game, small, small_problems,
                                       Path("explore-out") / f"lifts-{i}")
        print(f"    {small_problems[:2]}\n    replay: {command}")
    return 1 if report.violations else 0


if __name__ == "__main__":
    sys.exit(main())
