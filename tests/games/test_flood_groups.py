"""Floods confined to a group (`game.flood(..., within=pred)`), on both backends: a flood
reaches exactly the tiles joined to its starter by links where the predicate holds on both
ends, once each, and ends on its starter."""

from pathlib import Path

import pytest

from blinkc.testing import Cluster
from blinkc.world import Faults
from blinkc.world.infrared import LINKING_SKEW

from ..tools import require_tool

GAME = Path(__file__).resolve().parents[1] / "golden" / "games" / "fleet.py"
# A ship a-b-c, the sea d beside b and c, and a ship of one tile, e, beyond the sea (d only
# touches it): a Capture started on the first ship must not cross d to e.
FLEET = """
tile a at 0,0 ship=true
tile b at 0,1 ship=true
tile c at 1,1 ship=true
tile d at 0,2
tile e at 0,3 ship=true
"""


@pytest.fixture(params=["python", "native"])
def backend(request):
    if request.param == "native":
        require_tool("g++")
    return request.param


def counts(c: Cluster, field: str) -> dict[str, int]:
    return {name: c.state(name)[field] for name in c.names()}


@pytest.mark.parametrize("faults", [None, Faults(drop=0.1, jitter_ms=2, skew=LINKING_SKEW)],
                         ids=["clean", "faults"])
def test_a_group_flood_reaches_its_group_once_each_and_ends(backend, faults):
    c = Cluster(GAME, FLEET, backend=backend, faults=faults, seed=3)
    c.click("a")
    c.settle()
    assert counts(c, "captured") == {"a": 1, "b": 1, "c": 1, "d": 0, "e": 0}
    assert counts(c, "ended") == {"a": 1, "b": 0, "c": 0, "d": 0, "e": 0}


def test_a_group_flood_from_a_lone_ship_tile_stays_on_it(backend):
    c = Cluster(GAME, FLEET, backend=backend, seed=5)
    c.click("e")
    c.settle()
    assert counts(c, "captured") == {"a": 0, "b": 0, "c": 0, "d": 0, "e": 1}
    assert counts(c, "ended")["e"] == 1


def test_a_group_flood_started_outside_every_group_runs_on_the_starter_only(backend):
    # The starter runs the handler whatever its predicate says; the wave goes nowhere.
    c = Cluster(GAME, FLEET, backend=backend, seed=6)
    c.click("d")
    c.settle()
    assert counts(c, "captured") == {"a": 0, "b": 0, "c": 0, "d": 1, "e": 0}
    assert counts(c, "ended")["d"] == 1


def test_two_groups_flooded_at_once_stay_apart(backend):
    c = Cluster(GAME, FLEET, backend=backend, seed=7)
    c.click_together("a", "e")
    c.settle()
    assert counts(c, "captured") == {"a": 1, "b": 1, "c": 1, "d": 0, "e": 1}
    assert counts(c, "ended") == {"a": 1, "b": 0, "c": 0, "d": 0, "e": 1}


def test_a_flood_without_a_group_still_reaches_every_tile(backend):
    c = Cluster(GAME, FLEET, backend=backend, seed=8)
    c.double_click("d")
    c.settle()
    assert counts(c, "alarms") == {"a": 1, "b": 1, "c": 1, "d": 1, "e": 1}
    assert counts(c, "captured") == {"a": 0, "b": 0, "c": 0, "d": 0, "e": 0}


def test_the_group_is_what_the_tiles_broadcast_when_the_wave_passes(backend):
    # d becomes a ship tile: the two ships are one, and a Capture crosses d to e.
    c = Cluster(GAME, FLEET, backend=backend, seed=9)
    c.long_press("d")
    c.settle()
    c.click("a")
    c.settle()
    assert counts(c, "captured") == {"a": 1, "b": 1, "c": 1, "d": 1, "e": 1}
    assert counts(c, "ended") == {"a": 1, "b": 0, "c": 0, "d": 0, "e": 0}
