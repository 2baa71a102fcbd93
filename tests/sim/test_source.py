"""What `blinkc sim` runs: games, sketches and layouts, and their mistakes as one message."""

from __future__ import annotations

import pytest

from blinkc.sim import SimError, load_source

from .helpers import GAME, ROOT, SHIP


def test_a_game_on_a_layout():
    src = load_source(GAME, SHIP, seed=2, faults_text="drop=0.1")
    assert src.title == "pirates_lasers.py on ship.layout"
    assert src.faults.drop == 0.1 and src.seed == 2
    assert src.default_program is None  # new tiles run the game
    assert len(src.layout.tiles) == 9


def test_a_game_without_a_layout_gets_three_tiles():
    src = load_source(GAME)
    assert [t.name for t in src.layout.tiles] == ["a", "b", "c"]


def test_a_layout_with_several_programs(tmp_path):
    layout = tmp_path / "mixed.layout"
    layout.write_text("tile a at 0,0 hops source=true\ntile b at 1,0 clicks\n")
    src = load_source(str(layout))
    assert src.programs()[:2] == ["hops", "clicks"]
    assert src.default_program == "hops"


@pytest.mark.parametrize(("args", "message"), [
    ((str(ROOT / "examples" / "chain.layout"), SHIP), "give the layout once"),
    ((GAME, None, 0, "drop=7"), "--faults: drop must be in [0, 1)"),
])
def test_mistakes(args, message):
    with pytest.raises(SimError, match=message.replace("[", r"\[").replace(")", r"\)")):
        load_source(*args)


def test_a_bad_layout_names_its_line(tmp_path):
    bad = tmp_path / "bad.layout"
    bad.write_text("tile a at 0,0 hops\ntile b at 0,0 hops\n")
    with pytest.raises(SimError, match=r"bad.layout:2: tile 'b' at 0,0 overlaps"):
        load_source(str(bad))
