"""The explorer's long campaigns, in the long tier (`make test-long`, and CI after the default
tier): every cluster of two tiles under every clock condition, every cluster of three under
the ±10 % clocks, and a thousand put-back schedules. bench/protocol_explore.py and
bench/protocol_lifts.py run the same searches at other sizes; the default tier's samples
are test_explorer.py's, which also show the explorer catching planted bugs."""

from pathlib import Path

import pytest

from blinkc.explore import CLOCKS, explore, explore_lifts

GAME = Path(__file__).resolve().parents[2] / "firmware" / "pirates_lasers.py"

pytestmark = pytest.mark.long


def _clean(report) -> None:
    assert report.violations == [], "\n".join(
        f"{problems[:3]}" for _run, problems in report.violations[:3])


@pytest.mark.parametrize("clock", list(CLOCKS))
def test_every_two_tile_cluster_keeps_every_invariant(clock):
    report = explore(GAME, 2, clocks=[clock], random_runs=2, stop_at_first=False)
    _clean(report)
    # The one shape in every rotation of each tile, each with the scripted schedules and two
    # random ones.
    assert report.configurations == 6 * 6 and report.floods > 100


def test_every_three_tile_cluster_with_skewed_clocks_keeps_every_invariant():
    report = explore(GAME, 3, clocks=["±3 %"], random_runs=1, stop_at_first=False)
    _clean(report)
    assert report.configurations == 3 * 6**3  # three shapes, every rotation of each tile


def test_a_thousand_put_backs_around_the_grace_keep_every_invariant():
    report = explore_lifts(GAME, 1000, seed=1)
    _clean(report)
    assert report.runs == 1000 and report.floods >= 1000
