"""Per-face fields at run time, on both backends: layouts set them, handlers keep six values,
views show them, and a short queue bounces what does not fit."""

from pathlib import Path

import pytest

from blinkc.testing import Cluster
from blinkc.world.layout import LayoutError

from ..tools import require_tool

TALLY = Path(__file__).resolve().parents[1] / "golden" / "games" / "tally.py"
#: b in the middle, a neighbour on each of its six faces (b's face f touches n<f>).
RING = """
tile b at 0,0
tile n0 at 0,-1
tile n1 at 1,-1
tile n2 at 1,0
tile n3 at 0,1
tile n4 at -1,1
tile n5 at -1,0
"""


@pytest.fixture(params=["python", "native"])
def backend(request):
    if request.param == "native":
        require_tool("g++")
    return request.param


def test_a_layout_sets_each_face_or_all_six(backend):
    c = Cluster(TALLY, "tile a at 0,0 hits=0,1,2,3,0,1 mark=RING\ntile b at 0,1 missed=true\n",
                backend=backend)
    assert c.state("a")["hits"] == [0, 1, 2, 3, 0, 1]
    assert c.state("a")["mark"] == ["RING"] * 6
    assert c.state("b")["missed"] == [True] * 6 and c.state("b")["hits"] == [0] * 6


def test_a_message_changes_only_the_face_it_arrived_on(backend):
    # a's face 3 (S) touches b's face 0 (N): b counts the hit on face 0 only.
    c = Cluster(TALLY, "tile a at 0,0\ntile b at 0,1\n", backend=backend)
    c.click("a")
    c.settle()
    assert c.state("b")["hits"] == [1, 0, 0, 0, 0, 0] and c.state("b")["total"] == 1
    c.click("a")
    c.settle()
    assert c.state("b")["hits"] == [2, 0, 0, 0, 0, 0]


def test_a_per_face_field_clamps_into_its_range_face_by_face(backend):
    # RING marks hit for 2: b's face 0 is at 3 already (its range is 0..3) and stays there.
    c = Cluster(TALLY, "tile a at 0,0 mark=RING\ntile b at 0,1 hits=3,0,0,0,0,2\n",
                backend=backend)
    c.click("a")
    c.settle()
    assert c.state("b")["hits"] == [3, 0, 0, 0, 0, 2] and c.state("b")["total"] == 2


def test_six_sends_into_a_queue_of_four_bounce_two_and_lose_none(backend):
    # tally's queue_len=4: b fires at all six neighbours in one pass; four arrive once each,
    # the two that found the queue full bounce (and b marks those faces missed).
    c = Cluster(TALLY, RING, backend=backend)
    c.click("b")
    c.settle()
    received = [sum(c.state(f"n{f}")["hits"]) for f in range(6)]
    missed = c.state("b")["missed"]
    assert sorted(received) == [0, 0, 1, 1, 1, 1]
    assert [r == 0 for r in received] == missed


@pytest.mark.parametrize("setting, message", [
    ("hits=1,2", "hits has one value per face: 2 given"),
    ("hits=0,0,0,0,0,4", "hits=4 is outside 0..3"),
    ("mark=DOT,RING,STAR,DOT,RING,MOON", "mark cannot be 'MOON'"),
])
def test_a_wrong_per_face_setting_is_refused_with_its_line(setting, message):
    with pytest.raises(LayoutError) as e:
        Cluster(TALLY, f"tile a at 0,0\ntile b at 0,1 {setting}\n")
    assert "<test layout>:2" in str(e.value) and message in str(e.value)


def test_a_per_face_setting_that_setup_assigns_is_refused(tmp_path):
    game = tmp_path / "g.py"
    game.write_text(TALLY.read_text().replace(
        "@game.on_click", "@game.setup\ndef start(t):\n    t.hits[2] = 1\n\n\n@game.on_click"))
    with pytest.raises(LayoutError) as e:
        Cluster(game, "tile a at 0,0 hits=1\n")
    assert "hits=1 would not hold: the game's @game.setup assigns t.hits" in str(e.value)
