"""The protocol explorer on a game with values wider than a code (tests/golden/games/convoy.py):
a wide message, a valued flood and gathers keep every invariant, and the monitor's checks of
their values catch a planted engine that breaks them."""

from pathlib import Path

import pytest

from blinkc.explore import Run, check, explore, play, shrink, subject
from blinkc.explore.clusters import Tile

CONVOY = Path(__file__).resolve().parents[1] / "golden" / "games" / "convoy.py"

# A data code taken twice (its bits shifted in twice): the value no longer arrives intact.
DATA_TWICE = ("    wide_rx[face] = (wide_rx[face] << DATA_BITS) | (code - DATA_CODE)\n",
              "    wide_rx[face] = (wide_rx[face] << DATA_BITS) | (code - DATA_CODE)\n"
              "    wide_rx[face] = (wide_rx[face] << DATA_BITS) | (code - DATA_CODE)  # (planted)\n")
# A subtree counted twice: an echo's value combined in twice.
SUBTREE_TWICE = ("        flood_acc[s] = gather_combine(s >> 1, flood_acc[s], wide_rx[face] & mask)\n",
                 "        flood_acc[s] = gather_combine(s >> 1, flood_acc[s], wide_rx[face] & mask)\n"
                 "        flood_acc[s] = gather_combine(s >> 1, flood_acc[s], wide_rx[face] & mask)"
                 "  # (planted)\n")
# The value of an answer at once (not the subtree's) taken for the subtree's.
EVERY_ECHO_A_SUBTREE = ("        elif GATHERS and flood_from[s] == bit and flood_parent[s] == NO_PARENT:\n",
                        "        elif True:  # (planted: every echo carries this tile's subtree)\n")


@pytest.mark.parametrize("clock", ["identical, in step", "±3 %"])
def test_a_sample_of_two_tile_clusters_keeps_every_invariant(clock):
    report = explore(CONVOY, 2, clocks=[clock], random_runs=2, limit=3, stop_at_first=False)
    assert report.violations == []
    assert report.values > 20 and report.totals > 5


def test_a_sample_of_three_tile_clusters_keeps_every_invariant():
    report = explore(CONVOY, 3, clocks=["±0.1 %"], random_runs=2, limit=3, stop_at_first=False,
                     seed=3)
    assert report.violations == []
    assert report.values > 20 and report.totals > 5


def test_a_data_code_taken_twice_is_caught(planted, world):
    planted(DATA_TWICE)
    report = explore(CONVOY, 2, clocks=["identical"], random_runs=0, limit=2, world=world)
    assert report.violations
    small, problems = shrink(subject(CONVOY, world), report.violations[0][0])
    # (A Cargo that arrives changed, or a gather whose echoes' values do.)
    assert any("with the value" in p or "brought back" in p for p in problems), problems
    assert len(small.steps) <= 2
    cargo = Run(TRIANGLE, ((1000.0, "send t0 Cargo(165) 2"),))
    assert any("got code 1 with the value 85, but t0 face 2 sent 165" in p
               for p in check(subject(CONVOY, world), cargo))


# A triangle: one of its three links is crossed by two waves, answered at once (with the
# combination's identity, not a subtree) at both ends.
TRIANGLE = (Tile("t0", (0, 0), 0), Tile("t1", (1, 0), 0), Tile("t2", (0, 1), 0))
GATHERS = [Run(TRIANGLE, ((1000.0, f"flood t{i} {g}"),), seed=i)
           for i in range(3) for g in ("Tally", "Least")]


def test_gathers_on_a_triangle_bring_back_every_tile_once(world):
    watched = subject(CONVOY, world)
    for run in GATHERS:
        monitor = play(watched, run)
        assert monitor.problems == [] and monitor.totals_checked == 1


@pytest.mark.parametrize("bug", [SUBTREE_TWICE, EVERY_ECHO_A_SUBTREE],
                         ids=["subtree-counted-twice", "every-echo-a-subtree"])
def test_a_gather_that_miscounts_is_caught(planted, bug, world):
    planted(bug)
    watched = subject(CONVOY, world)
    found = [p for run in GATHERS for p in check(watched, run)]
    assert any("brought back" in p for p in found), found


# A flood's data codes let in among a message's: both land in the one register of the face.
INTERLEAVED = ("        if not wide_busy & bit:\n            code = flood_take(bit)\n",
               "        if True:  # (planted: a flood's codes go between a message's data codes)\n"
               "            code = flood_take(bit)\n")


def test_a_flood_value_among_a_messages_data_codes_is_caught(planted, world):
    planted(INTERLEAVED)
    report = explore(CONVOY, 2, clocks=["identical"], random_runs=2, limit=2, world=world)
    assert report.violations
    assert any("with the value" in p for p in report.violations[0][1])
