"""A game with a single message code keeps its queue as a count per face (protocol.py,
ONE_CODE): the same promises as the queue of entries, on both backends. A full queue
bounces; a link that ends bounces what waited for it, once each; nothing waits past it."""

from pathlib import Path

import pytest

from blinkc.testing import Cluster

from ..tools import require_tool

BEAT = Path(__file__).parent / "fixtures" / "beat_game.py"
# b on a's face 3 (S), c on its face 0 (N)
THREE = "tile a at 0,0\ntile b at 0,1\ntile c at 0,-1\n"
PAIR = "tile a at 0,0\ntile b at 0,1\n"


@pytest.fixture(params=["python", "native"])
def backend(request):
    if request.param == "native":
        require_tool("g++")
    return request.param


def test_the_queue_length_counts_every_face_together(backend):
    # queue_len=4 holds four messages in all, not four per face: three for b and one for c
    # go, and the last two for c find the queue full.
    c = Cluster(BEAT, THREE, backend=backend)
    c.click("a")
    c.settle()
    assert c.state("b")["received"] == 3
    assert c.state("c")["received"] == 1
    assert c.state("a")["bounced"] == 2


def test_a_link_that_ends_bounces_what_waited_for_it_once_each(backend):
    c = Cluster(BEAT, PAIR, backend=backend)
    c.double_click("a")
    c.lift("b")  # before the three can cross
    c.wait(5000)  # past the grace: the link ends
    assert c.state("a")["bounced"] + c.state("b")["received"] == 3
    assert c.state("a")["bounced"] >= 1
    c.place("b", (0, 1))
    c.wait(1000)
    received = c.state("b")["received"]
    c.double_click("a")  # the queue is empty again: all three fit and cross
    c.settle()
    assert c.state("b")["received"] == received + 3


def test_without_a_bounce_handler_what_waited_is_gone_with_the_link(backend, tmp_path):
    # Nobody hears of these bounces, so the count goes at once (queued[f] = 0): the new
    # neighbour gets none of the old messages, and the queue has room for four again.
    game = tmp_path / "beat_quiet.py"
    game.write_text(BEAT.read_text().replace("@game.on_bounce(Beat)\ndef lost(t, face):\n"
                                             "    t.bounced += 1\n", ""))
    c = Cluster(game, PAIR, backend=backend)
    c.double_click("a")
    c.lift("b")
    c.wait(5000)
    before = c.state("b")["received"]
    c.place("b", (0, 1))
    c.wait(2000)
    assert c.state("b")["received"] == before
    c.double_click("a")
    c.settle()
    assert c.state("b")["received"] == before + 3
