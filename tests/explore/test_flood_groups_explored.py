"""The protocol explorer on a game with a flood confined to a group (tests/golden/games/fleet.py)."""

import re
from pathlib import Path

from blinkc.explore import explore

FLEET = Path(__file__).resolve().parents[1] / "golden" / "games" / "fleet.py"


def test_a_group_of_every_tile_keeps_every_invariant(tmp_path):
    # Every tile a ship tile: the group is the whole cluster, so the explorer's own checks
    # (a flood reaches every tile once, ends, and the protocol settles) all apply to it.
    game = tmp_path / "fleet.py"
    game.write_text(FLEET.read_text().replace("game.field(bool, default=False, broadcast=True)",
                                              "game.field(bool, default=True, broadcast=True)"))
    report = explore(game, 2, clocks=["identical, in step", "±10 %"], random_runs=1, limit=3,
                     stop_at_first=False)
    assert report.violations == []
    assert report.floods > 20


def test_a_group_of_one_tile_misses_exactly_the_others():
    # No ship tile: a Capture stays on its starter. The explorer expects every flood to reach
    # the whole cluster, so all it may report is a Capture (flood 0) missing the other tile:
    # no flood runs twice or never ends, and the protocol settles.
    report = explore(FLEET, 2, clocks=["identical, in step"], random_runs=1, limit=3,
                     stop_at_first=False)
    problems = [p for _run, ps in report.violations for p in ps]
    assert problems, "a Capture reached a tile outside its group"
    missed = re.compile(r"at \d+ ms: flood 0 started by t\d at \d+ ms never reached t\d")
    assert all(missed.fullmatch(p) for p in problems), problems
