"""Messages confined to a group (`game.message(..., within=pred)`), on both backends: a send
out of a face where the sender's predicate holds is delivered exactly once; any other send
is not transmitted and goes to the game's @game.on_bounce handler, at once. The receiver
does not ask the predicate (docs/dsl.md, "Messages confined to a group")."""

from pathlib import Path

import pytest

from blinkc.testing import Cluster
from blinkc.world import Faults
from blinkc.world.infrared import LINKING_SKEW

from ..tools import require_tool

GAME = Path(__file__).resolve().parents[1] / "golden" / "games" / "fleet.py"
# A ship a-b-c, the sea d beside b and c, and a ship of one tile, e, beyond the sea (d only
# touches it). Neighbours: a-b; b-c, b-d; c-d; d-e.
FLEET = """
tile a at 0,0 ship=true
tile b at 0,1 ship=true
tile c at 1,1 ship=true
tile d at 0,2
tile e at 0,3 ship=true
"""
NOBODY = {"a": 0, "b": 0, "c": 0, "d": 0, "e": 0}


@pytest.fixture(params=["python", "native"])
def backend(request):
    if request.param == "native":
        require_tool("g++")
    return request.param


def counts(c: Cluster, field: str) -> dict[str, int]:
    return {name: c.state(name)[field] for name in c.names()}


@pytest.mark.parametrize("faults", [None, Faults(drop=0.1, jitter_ms=2, skew=LINKING_SKEW)],
                         ids=["clean", "faults"])
def test_a_message_of_a_group_crosses_only_links_inside_it_and_bounces_elsewhere(backend, faults):
    # a signals b (one more hop): b passes it on to c (its ship) and not to d (the sea):
    # that send bounces on b. The plain Hail beside it reaches b, whatever the group.
    c = Cluster(GAME, FLEET, backend=backend, faults=faults, seed=3)
    c.settle()  # (every tile has heard its neighbours: has_neighbor(f) holds)
    c.multi_click("a")
    c.settle()
    assert counts(c, "hails") == {**NOBODY, "b": 1}
    assert counts(c, "signals") == {**NOBODY, "b": 1, "c": 1}
    assert counts(c, "refused") == {**NOBODY, "b": 1}


def test_each_send_outside_the_group_bounces_once_on_its_sender(backend):
    # b signals a, c and d: d is sea, so that one bounces on b; c passes it on to d: bounces
    # on c. a has nobody else to pass it to.
    c = Cluster(GAME, FLEET, backend=backend, seed=4)
    c.settle()  # (every tile has heard its neighbours: has_neighbor(f) holds)
    c.multi_click("b")
    c.settle()
    assert counts(c, "hails") == {**NOBODY, "a": 1, "c": 1, "d": 1}
    assert counts(c, "signals") == {**NOBODY, "a": 1, "c": 1}
    assert counts(c, "refused") == {**NOBODY, "b": 1, "c": 1}


def test_a_tile_outside_every_group_sends_nothing_of_it(backend):
    # d is sea: none of its three Signals is transmitted; each bounces, once.
    c = Cluster(GAME, FLEET, backend=backend, seed=5)
    c.settle()  # (every tile has heard its neighbours: has_neighbor(f) holds)
    c.multi_click("d")
    c.settle()
    assert counts(c, "hails") == {**NOBODY, "b": 1, "c": 1, "e": 1}
    assert counts(c, "signals") == NOBODY
    assert counts(c, "refused") == {**NOBODY, "d": 3}


def test_the_group_is_what_the_neighbours_broadcast_when_the_message_is_sent(backend):
    # d becomes a ship tile: b's Signal now goes on to d as well (and stops there: no hops).
    c = Cluster(GAME, FLEET, backend=backend, seed=6)
    c.settle()  # (every tile has heard its neighbours: has_neighbor(f) holds)
    c.long_press("d")
    c.settle()
    c.multi_click("a")
    c.settle()
    assert counts(c, "signals") == {**NOBODY, "b": 1, "c": 1, "d": 1}
    assert counts(c, "refused") == NOBODY


def test_a_scenario_send_goes_through_the_group_too():
    # What the explorer and `send` steps do: a send outside the group bounces at once.
    c = Cluster(GAME, FLEET, seed=7)
    c.settle()
    b = c.program("b")
    b.send("Signal(0)", 3)  # b's face 3 touches d, the sea
    b.send("Signal(0)", 2)  # face 2 touches c, its ship
    c.world.touch("b")
    c.settle()
    assert counts(c, "signals") == {**NOBODY, "c": 1}
    assert counts(c, "refused") == {**NOBODY, "b": 1}


# A wide message (256 values) in a group whose predicate reads only the sender's own state:
# the receiver does not ask it, so a ship tile's Cargo reaches the sea tile beside it.
FREIGHT = Path(__file__).parent / "fixtures" / "freight_game.py"


def test_a_wide_message_of_a_group_arrives_whole_from_inside_and_bounces_from_outside(backend):
    c = Cluster(FREIGHT, "tile x at 0,0 ship=true\ntile y at 0,1\n", backend=backend, seed=8,
                faults=Faults(drop=0.1))
    c.settle()
    c.click("x")
    c.settle()
    assert c.state("y")["got"] == 200  # the receiver is sea: it does not ask the predicate
    c.click("y")
    c.settle()
    assert c.state("x")["got"] == 0
    assert c.state("y")["refused"] == 1 and c.state("x")["refused"] == 0
