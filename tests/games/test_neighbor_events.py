"""@game.on_neighbor_changed and @game.on_release at run time, on both backends."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from blinkc.testing import Cluster

from ..tools import require_tool

GAME = Path(__file__).parent / "fixtures" / "watch_game.py"
PAIR = """
tile a at 0,0
tile b at 0,1
"""


@pytest.fixture(params=["python", "native"])
def backend(request):
    if request.param == "native":
        require_tool("g++")
    return request.param


def test_a_neighbours_value_fires_on_arrival_on_each_change_and_on_leaving(backend):
    c = Cluster(GAME, PAIR, backend=backend)
    a = c.state("a")
    assert (a["hue_changes"], a["last_face"]) == (1, 3)  # b arrived on a's face 3
    c.click("b")
    c.settle()
    assert c.state("a")["hue_changes"] == 2
    assert c.state("b")["hue_changes"] == 1  # its own change is not a neighbour's
    c.lift("b")
    c.wait(500)  # the face expires 200 ms after the lift
    assert c.state("a")["hue_changes"] == 3
    c.place("b", (0, 1))
    c.wait(500)
    assert c.state("a")["hue_changes"] == 4


def test_only_the_watched_value_fires_its_handler(backend):
    c = Cluster(GAME, PAIR, backend=backend)
    for _ in range(2):  # b's hue 0 -> 1 -> 2: hot stays False
        c.click("b")
        c.settle()
    assert (c.state("a")["hue_changes"], c.state("a")["hot_changes"]) == (3, 1)
    c.click("b")  # hue 3: hot
    c.settle()
    assert (c.state("a")["hue_changes"], c.state("a")["hot_changes"]) == (4, 2)


def test_every_release_of_the_button_fires_on_release(backend):
    c = Cluster(GAME, PAIR, backend=backend)
    c.world.button("a", True)
    c.wait(40)
    assert c.state("a")["releases"] == 0  # still held
    c.world.button("a", False)
    c.wait(40)
    assert c.state("a")["releases"] == 1  # at once, not when the click is known
    c.double_click("a")
    c.settle()
    assert c.state("a")["releases"] == 3 and c.state("b")["releases"] == 0


QUIET = Path(__file__).parent / "fixtures" / "watch_quiet_game.py"


def test_a_game_without_messages_watches_its_neighbours_too(backend, tmp_path):
    # No protocol, no sessions (so no on_neighbor_joined): the handler still hears b arrive,
    # change, leave and come back. (Cluster needs links to settle: blinkc emulate runs it.)
    (tmp_path / "pair.layout").write_text(PAIR)
    (tmp_path / "moves.scenario").write_text("at 1s click b\nat 3s lift b\nat 4s place b at 0,1\n")
    out = subprocess.run([sys.executable, "-m", "blinkc", "emulate", str(QUIET), "--layout",
                          "pair.layout", "--script", "moves.scenario", "--time", "5s", "--json",
                          "--backend", backend], cwd=tmp_path, capture_output=True, text=True,
                         check=True)
    a, b = (t["state"] for t in json.loads(out.stdout)["tiles"])
    assert (a["hue_changes"], a["hot_changes"], a["last_face"]) == (4, 3, 3)
    assert (b["hue"], b["releases"], b["hue_changes"]) == (1, 1, 3)
