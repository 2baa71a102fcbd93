"""`@game.on_long_long_press`: the SDK's long-long press (the button held 3 s), beside the
long press (1.2 s), on both backends. Only a tile with a neighbour gets it: a lone tile
held 3 s shares its game instead (the BIOS's seed mode, blinkc/world/seed.py)."""

import textwrap

import pytest

from blinkc.testing import Cluster

from ..tools import require_tool

GAME = textwrap.dedent('''
    from blinkc.dsl import *
    game = Game("holds")
    longs = game.field(range(0, 16), default=0)
    long_longs = game.field(range(0, 16), default=0)
    resets = game.field(range(0, 16), default=0)
    Reset = game.flood("Reset")

    @game.on_long_press
    def held(t):
        t.longs += 1

    @game.on_long_long_press
    def held_long(t):
        t.long_longs += 1
        t.flood(Reset)

    @game.on_flood(Reset)
    def reset(t):
        t.resets += 1

    @game.display
    def look(t):
        t.color_all(BLUE)
''')


@pytest.fixture(params=["python", "native"])
def backend(request):
    if request.param == "native":
        require_tool("g++")
    return request.param


def test_a_long_long_press_comes_at_3_s_after_the_long_press(tmp_path, backend):
    game = tmp_path / "holds.py"
    game.write_text(GAME)
    c = Cluster(game, "tile a at 0,0\ntile b at 0,1\n", backend=backend)
    c.long_press("a", 1500)  # a long press only
    c.settle()
    assert (c.state("a")["longs"], c.state("a")["long_longs"]) == (1, 0)
    c.long_press("a", 2900)  # still short of 3 s
    c.settle()
    assert (c.state("a")["longs"], c.state("a")["long_longs"]) == (2, 0)
    c.long_press("a", 3300)  # both: the long press at 1.2 s, the long-long at 3 s
    c.settle()
    assert (c.state("a")["longs"], c.state("a")["long_longs"]) == (3, 1)
    assert (c.state("a")["resets"], c.state("b")["resets"]) == (1, 1)
    assert c.state("b")["longs"] == 0
