"""@game.loop at run time, on both backends: it runs on every pass of the tile."""

from pathlib import Path

import pytest

from blinkc.blinklib import color
from blinkc.testing import Cluster

from ..tools import require_tool

GAME = Path(__file__).parent / "fixtures" / "loop_game.py"
PAIR = """
tile a at 0,0
tile b at 0,1
"""


@pytest.fixture(params=["python", "native"])
def backend(request):
    if request.param == "native":
        require_tool("g++")
    return request.param


def test_the_games_loop_runs_on_every_pass_and_the_tile_is_never_skipped(backend):
    c = Cluster(GAME, PAIR, backend=backend)
    tile = c.world.tile("a")
    counted, passes = c.state("a")["passes"], tile.passes
    c.wait(1000)
    ran = c.state("a")["passes"] - counted
    assert ran == tile.passes - passes and ran > 60  # every pass ran it (none skipped)
    assert tile.quiet_until in (None, 0)


def test_the_games_loop_animates_with_the_clock(backend):
    c = Cluster(GAME, PAIR, backend=backend)
    while c.world.tile("a").api.now % 1000 < 600:
        c.wait(10)
    assert c.state("a")["lit"] is True and c.colors("a") == [color.BLUE] * 6
    while c.world.tile("a").api.now % 1000 >= 500:
        c.wait(10)
    c.wait(20)
    assert c.state("a")["lit"] is False and c.colors("a") == [0] * 6
