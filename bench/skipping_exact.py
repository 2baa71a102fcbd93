"""Idle skipping against every loop: how many random cases give the same trace.

    python bench/skipping_exact.py [--cases 2000] [--seed 0] [--world auto|python]
                                   [--backend native|python]

Random Pirates & Lasers cases (blinkc.differential's generator) each run twice with idle
skipping and twice without (`idle_skip=False`: every loop() runs): with no loss and ±10 %
clocks, and with the faults the case drew (none, ±10 % clocks, or 10 % loss with 2 ms jitter
and ±10 % clocks). Prints how many cases gave the same trace (every record but the colours,
with its time in µs; blinkc.differential.compare_skipping), how many went through the same
game states, and the first difference with a reproducer (exit 1). The default test tier
runs tests/world/test_skipping_is_exact.py (30 cases), the long tier 2,000.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

from hypothesis import HealthCheck, given, seed, settings

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from blinkc.differential import cases, reproducer, skipping_trace  # noqa: E402
from blinkc.games import load_program  # noqa: E402
from blinkc.world import Faults  # noqa: E402

GAME = ROOT / "firmware" / "pirates_lasers.py"
SKEWED = Faults(skew=0.1)


def states(trace: list[str]) -> list[tuple[str, str]]:
    """The game states each tile went through, in order, without their times."""
    out = []
    for line in trace:
        record = json.loads(line)
        if record["ev"] == "state":
            out.append((record["tile"], line[line.index('"ev"'):]))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0, help="seed of the case generator")
    ap.add_argument("--world", default="auto", choices=["auto", "python"])
    ap.add_argument("--backend", default="native", choices=["native", "python"])
    args = ap.parse_args()
    counts = {mix: {"cases": 0, "same trace": 0, "same states": 0}
              for mix in ("no loss, ±10 % clocks", "the case's own faults")}
    first: list[str] = []

    @seed(args.seed)
    @settings(max_examples=args.cases, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(case=cases(load_program(GAME)))
    def run(case):
        for mix, faulted in zip(counts, (replace(case, faults=SKEWED), case), strict=True):
            skipping = skipping_trace(GAME, faulted, True, args.backend, args.world)
            every = skipping_trace(GAME, faulted, False, args.backend, args.world)
            n = counts[mix]
            n["cases"] += 1
            n["same trace"] += skipping == every
            n["same states"] += states(skipping) == states(every)
            if skipping != every and not first:
                at = next((i for i, (a, b) in enumerate(zip(skipping, every)) if a != b),
                          min(len(skipping), len(every)))
                first.append(f"{mix}: record {at + 1}\n  skipping:   "
                             f"{skipping[at] if at < len(skipping) else '(end)'}\n  every loop: "
                             f"{every[at] if at < len(every) else '(end)'}\n"
                             + reproducer(GAME, faulted))

    t0 = time.perf_counter()
    run()
    wall = time.perf_counter() - t0
    print(f"{GAME.name}, {args.backend} tiles, world {args.world}, seed {args.seed}: "
          f"{wall:.0f} s")
    for mix, n in counts.items():
        print(f"  {mix:<24} {n['cases']:>5} cases: {n['same trace']:>5} the same trace, "
              f"{n['same states']:>5} the same states, {n['cases'] - n['same trace']} differ")
    if first:
        print("FIRST DIFFERENCE:\n" + first[0])
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
