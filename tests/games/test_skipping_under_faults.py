"""Skipping idle loops stays exact when packets are lost.

With loss, nothing sleeps (every packet draws on the fault stream), but a
tile whose program declared itself quiet still skips loop() while its inputs
are unchanged. Running every loop instead must give the same packets, face
values, expiry and game state. Colours are left out: a skipped tile's
animation is drawn on demand rather than at every pass.
"""

import json
from dataclasses import replace
from pathlib import Path

from hypothesis import HealthCheck, given, settings

from blinkc.differential import _scenario, cases
from blinkc.games import game_resolver, load_program
from blinkc.world import Faults, Trace
from blinkc.world.emulation import EmulationOptions, emulate
from blinkc.world.layout_file import parse_layout

from ..tiers import tiered

GAME = Path(__file__).resolve().parents[2] / "firmware" / "pirates_lasers.py"
LOSSY = Faults(drop=0.1, jitter_ms=2, skew=0.1)


def _run(case, idle_skip: bool) -> tuple[list[str], dict[str, int]]:
    trace = Trace()
    done = emulate(parse_layout(case.layout_text(), "<case>"), _scenario(case),
                   EmulationOptions(seed=case.seed, faults=case.faults, time_ms=case.run_ms,
                                    trace=trace, resolver=game_resolver(GAME, "python"),
                                    idle_skip=idle_skip, world="python"))
    lines = [line for line in trace.lines if json.loads(line)["ev"] != "colors"]
    return lines, dict(done.world.stats)


@tiered(10, 400)
def test_skipping_loops_under_packet_loss_changes_nothing(size):
    @settings(max_examples=size, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(case=cases(load_program(GAME)))
    def same(case):
        case = replace(case, faults=LOSSY)
        skipping, skip_stats = _run(case, idle_skip=True)
        every_loop, all_stats = _run(case, idle_skip=False)
        assert skipping == every_loop
        # The same packets flew and were lost; only the loops run differ.
        for key in ("packets", "dropped", "collisions"):
            assert skip_stats[key] == all_stats[key]
        assert all_stats["skipped"] == 0

    same()
