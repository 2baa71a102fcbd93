"""The protocol explorer in both worlds: the same runs, the same results, and how fast each is.

    python bench/explore_worlds.py [--game firmware/GAME.py ...] [--tiles 2] [--tiles 3]
                                   [--limit N] [--random 2] [--jobs 1]

For each game and cluster size: `blinkc explore` (every clock condition, the scripted and
--random schedules, the first --limit configurations) in the python world (the game's Python
backend in the reference world) and in the native one (its C++ in the C++ world core, the
default where g++ is); prints each report and runs/s, and exits 1 if the reports differ in
any count or violation. docs/protocol.md ("The explorer's two worlds") has the figures.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from blinkc.explore import explore  # noqa: E402
from blinkc.explore.explorer import Report  # noqa: E402
from blinkc.runner import Options  # noqa: E402

GAMES = ("pirates_lasers", "broadside", "wham", "fleet_combos")
COUNTS = ("runs", "configurations", "messages", "floods", "values", "totals", "outside")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", type=Path, action="append",
                    help=f"a game (repeatable; default: firmware/ {', '.join(GAMES)})")
    ap.add_argument("--tiles", type=int, action="append", choices=(2, 3, 4),
                    help="cluster size (repeatable; default: 2 and 3)")
    ap.add_argument("--limit", type=int, default=None, help="configurations (default: all)")
    ap.add_argument("--random", type=int, default=2, help="random schedules per configuration")
    ap.add_argument("--jobs", type=int, default=1, help="local processes (default: 1)")
    args = ap.parse_args()
    games = args.game or [ROOT / "firmware" / f"{g}.py" for g in GAMES]
    options = Options(jobs=args.jobs)
    differ = 0
    for game in games:
        for n in args.tiles or (2, 3):
            reports: dict[str, tuple[Report, float]] = {}
            for world in ("python", "native"):
                explore(game, n, limit=1, random_runs=0, world=world)  # (compiled, loaded)
                start = time.perf_counter()
                report = explore(game, n, random_runs=args.random, limit=args.limit,
                                 stop_at_first=False, options=options, world=world)
                reports[world] = (report, time.perf_counter() - start)
                print(f"{game.stem:15} {n} tiles {world:7} {report.runs / reports[world][1]:7.1f} "
                      f"runs/s  {report.lines()[0]}", flush=True)
            (a, _), (b, _) = reports["python"], reports["native"]
            same = (all(getattr(a, k) == getattr(b, k) for k in COUNTS)
                    and a.violations == b.violations)
            speedup = reports["python"][1] / reports["native"][1]
            print(f"{'':15} {'same results' if same else 'DIFFERENT RESULTS'}, native "
                  f"{speedup:.1f} times as fast", flush=True)
            differ += not same
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
