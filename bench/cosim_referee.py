"""Co-simulation as the referee of the emulator: random Pirates & Lasers cases, each run on
the real firmware (game + the SDK's BlinkBIOS on simavr) and in the fast emulator.

    BLINKS_SDK=... python bench/cosim_referee.py [--cases 20] [--seed 0] [--tiles 4]
                                                 [--jobs N] [--ray auto|local|ADDRESS]

The cases are blinkc.differential's (random clusters, presses, moves and rotations, and
each case's own faults: none, ±10 % clocks, or 10 % loss with 2 ms jitter and ±10 %
clocks), drawn from --seed; each runs once co-simulated and once in the emulator (the
emulator's tiles started where each image's BIOS starts its game, as `cosim --compare`
does). A case agrees when every tile ends in the same game state on both, `water` left
out (a random draw from the coin sequence the protocol shares, so another number when the
passes fall differently). Printed: per fault mix, the cases, how many ended the same,
and how many showed no difference at all under `--compare`'s rule (colours and state
within 250 ms, both ways); then the first disagreement, with the command that replays it.
The cases run on blinkc's runner (docs/runner.md). Exit 1 when a case ended differently.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, seed, settings

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from blinkc.cosim.compare import compare_sides, cosim_side, emulator_side  # noqa: E402
from blinkc.cosim.run import CosimOptions, cosimulate  # noqa: E402
from blinkc.differential import Case, cases  # noqa: E402
from blinkc.games import load_program  # noqa: E402
from blinkc.runner import Job, Options, run  # noqa: E402

GAME = ROOT / "firmware" / "pirates_lasers.py"
#: Fields that are random draws: they may differ when passes fall differently.
RANDOM_FIELDS = {"water"}


def draw_cases(n: int, at_seed: int, tiles: int) -> list[Case]:
    out: list[Case] = []

    @seed(at_seed)
    @settings(max_examples=n, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(cases(load_program(GAME), max_tiles=tiles, max_steps=4))
    def collect(case: Case) -> None:
        out.append(case)

    collect()
    return out[:n]


def mix(case: Case) -> str:
    f = case.faults
    if f.drop:
        return "10 % loss, 2 ms jitter, ±10 % clocks"
    return "±10 % clocks" if f.skew else "no faults"


def _setup(shared: object) -> None:
    return None


def _play(_: object, spec: tuple[int, Case]) -> dict:
    index, case = spec
    with tempfile.TemporaryDirectory() as tmp:
        layout, scenario = Path(tmp) / "case.layout", Path(tmp) / "case.scenario"
        layout.write_text(case.layout_text())
        scenario.write_text(case.scenario_text())
        opts = CosimOptions(seed=case.seed, faults=case.faults, time_ms=case.run_ms,
                            sample_ms=20.0)
        result = cosimulate(layout, GAME, scenario, opts)
        theirs, end = emulator_side(layout, GAME, scenario, case.seed, case.faults,
                                    case.run_ms, start_local_us=result.start_local_us)
        differences = compare_sides(cosim_side(result), theirs, end_ms=end)
    ended = []
    for tile in result.tiles:
        ours = {k: v for k, v in tile["state"].items() if k not in RANDOM_FIELDS}
        other = theirs.states[tile["name"]].at(end)
        other = {k: v for k, v in dict(other).items() if k not in RANDOM_FIELDS}
        if ours != other:
            ended.append(f"{tile['name']}: co-simulated {ours}, emulated {other}")
    return {"seed": case.seed, "case": index, "mix": mix(case), "ended": ended,
            "differences": len(differences), "layout": case.layout_text(),
            "scenario": case.scenario_text(), "faults": case.faults_text(),
            "run_ms": case.run_ms}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0, help="seed of the case generator")
    ap.add_argument("--tiles", type=int, default=4, help="the most tiles in a case")
    ap.add_argument("--jobs", type=int, default=None, help="local processes (default: one a core)")
    ap.add_argument("--ray", default=None, help="auto, local or a Ray cluster's address")
    args = ap.parse_args()
    if not os.environ.get("BLINKS_SDK"):
        print("set BLINKS_SDK to a Blinks SDK (co-simulation runs its BlinkBIOS)")
        return 2
    specs = list(enumerate(draw_cases(args.cases, args.seed, args.tiles)))
    job = Job("cosim referee", {"cases": args.cases, "seed": args.seed, "tiles": args.tiles},
              _setup, None, _play, specs, failed=lambda r: bool(r["ended"]))
    outcome = run(job, Options(jobs=args.jobs, ray=args.ray, progress=sys.stderr.isatty()))
    table: dict[str, list[int]] = {}
    first = None
    for _, r in outcome.ordered():
        row = table.setdefault(r["mix"], [0, 0, 0])
        row[0] += 1
        row[1] += not r["ended"]
        row[2] += r["differences"] == 0
        if r["ended"] and first is None:
            first = r
    print(f"cosim referee: {args.cases} P&L cases of up to {args.tiles} tiles, seed "
          f"{args.seed} ({outcome.wall_s:.0f} s on {outcome.engine})")
    print(f"{'faults':<40} {'cases':>5} {'same end':>9} {'no difference':>14}")
    for name, (n, same, quiet) in sorted(table.items()):
        print(f"{name:<40} {n:>5} {same:>9} {quiet:>14}")
    if first is not None:
        print(f"\nfirst case that ended differently (case {first['case']}, seed {first['seed']},"
              f" faults {first['faults']}, {first['run_ms']:g} ms):")
        for line in first["ended"]:
            print("    " + line)
        print("layout:\n" + first["layout"] + "scenario:\n" + first["scenario"])
        print(f"replay: blinkc cosim {GAME.relative_to(ROOT)} -l case.layout -s case.scenario "
              f"--seed {first['seed']} --faults {first['faults']} -t {first['run_ms']:g}ms "
              f"--compare")
    return 1 if first is not None else 0


if __name__ == "__main__":
    sys.exit(main())
