"""@game.setup and a layout's settings (`tile a at 0,0 hp=3`).

A layout's settings are the tile's fields before @game.setup runs: setup sees them. A
setting of a field that setup assigns would not hold once the tile is up, so the layout
is refused at that tile's line, naming the setup line that assigns it.
"""

import pytest

from blinkc.testing import Cluster
from blinkc.world.layout import LayoutError

GAME = """\
from blinkc.dsl import *
game = Game("g")
Piece = game.kinds("HULL", "HAZARD")
kind = game.field(Piece)
hp = game.field(range(0, 6), default=5)
seen = game.field(range(0, 6), default=0)


def start_hp(t):
    t.hp = 4


@game.setup
def start(t):
    t.seen = 3 if t.kind == Piece.HAZARD else 1
    start_hp(t)


@game.display
def look(t):
    t.color_all(BLUE)


Ping = game.message("Ping")  # a game that sends: its tiles link up


@game.on_click
def press(t):
    t.send(Ping, 0)


@game.on_message(Ping)
def got(t, face):
    t.seen = 0
"""


@pytest.fixture
def game(tmp_path):
    path = tmp_path / "g.py"
    path.write_text(GAME)
    return path


def test_setup_sees_the_layouts_settings(game):
    c = Cluster(game, """
        tile a at 0,0 kind=HAZARD
        tile b at 0,1
    """)
    assert c.state("a") == {"kind": "HAZARD", "hp": 4, "seen": 3}
    assert c.state("b") == {"kind": "HULL", "hp": 4, "seen": 1}


@pytest.mark.parametrize("field, line", [("hp", 10), ("seen", 15)])
def test_a_setting_that_setup_overrides_is_refused(game, field, line):
    with pytest.raises(LayoutError) as e:
        Cluster(game, f"""
            tile a at 0,0
            tile b at 0,1 {field}=2
        """)
    text = str(e.value)
    assert "<test layout>:2" in text
    assert (f"tile 'b': {field}=2 would not hold: the game's @game.setup assigns t.{field} "
            f"at power-up ({game}:{line})") in text
    assert "settings are the fields' values before setup runs" in text
