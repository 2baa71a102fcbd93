"""The long differential run: random scenarios through the Python and the native backend.

    python bench/differential.py [--game firmware/pirates_lasers.py] [--cases 5000] [--seed 0]

Prints how many cases ran, how long they took, and the first difference with
a reproducer if there is one (exit 1). The CI-sized run is
tests/backends/test_differential.py.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from blinkc.differential import cases, compare, reproducer  # noqa: E402
from blinkc.games import load_program  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", type=Path, default=ROOT / "firmware" / "pirates_lasers.py")
    ap.add_argument("--cases", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=0, help="seed of the scenario generator")
    args = ap.parse_args()
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
