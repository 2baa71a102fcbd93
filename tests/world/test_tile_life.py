"""The tile's life around loop(), on both world engines: the start state a layout,
a scenario or Python gives a tile (startState())."""

from __future__ import annotations

import pytest

from blinkc.native import load_sketch_text
from blinkc.runtime.api import (
    START_STATE_DOWNLOAD_SUCCESS,
    START_STATE_POWER_UP,
    START_STATE_WE_ARE_ROOT,
)
from blinkc.world import Trace, WorldError, make_world
from blinkc.world.emulation import EmulationOptions, emulate
from blinkc.world.layout import LayoutError, parse_layout
from blinkc.world.scenario import parse_scenario

from ..tools import require_tool

ENGINES = ("python", "native")

START = """
byte seen;
void setup() { seen = startState(); }
void loop() { setValueSentOnAllFaces(10 + seen + 10 * startState()); }
"""


@pytest.fixture(scope="module")
def start_sketch():
    require_tool("g++")
    return load_sketch_text(START, "start", check_int16=False)


def run(layout: str, sketch, engine: str, scenario: str = "", time_ms: float = 1500):
    done = emulate(parse_layout(layout, "<test>"), parse_scenario(scenario) if scenario else None,
                   EmulationOptions(seed=3, time_ms=time_ms, trace=Trace(),
                                    resolver=lambda spec: sketch(), world=engine))
    assert getattr(done.world, "engine", "python") == engine
    return done


def sent(done, name: str) -> int:
    return done.world.tile(name).api.out_value[0]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_layout_sets_each_tiles_start_state(start_sketch, engine):
    done = run("tile a at 0,0\ntile b at 1,0 start=root\ntile c at 2,0 start=download\n"
               "tile d held start=2\ntile e held start=power-up\n", start_sketch, engine)
    assert [sent(done, n) for n in "abcde"] == [10, 21, 32, 32, 10]


def test_start_state_values_are_the_sdks():
    assert (START_STATE_POWER_UP, START_STATE_WE_ARE_ROOT, START_STATE_DOWNLOAD_SUCCESS) == (0, 1, 2)
    with pytest.raises(LayoutError, match="start"):
        parse_layout("tile a at 0,0 start=sideways\n", "<test>").build(make_world(), print)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_scenario_adds_a_tile_with_a_start_state(start_sketch, engine):
    done = run("tile a at 0,0\n", start_sketch, engine, "at 200ms add b at 1,0 start=download\n")
    assert sent(done, "b") == 32


@pytest.mark.parametrize("engine", ENGINES)
def test_python_sets_the_start_state(start_sketch, engine):
    world = make_world(seed=1, engine=engine)
    world.add_tile("a", start_sketch(), (0, 0), start_state=START_STATE_WE_ARE_ROOT)
    world.add_tile("b", start_sketch(), (1, 0))
    world.run_for(300)
    if engine == "native":
        assert world.engine == "native"
    assert [t.api.out_value[0] for t in world.tiles] == [21, 10]


@pytest.mark.parametrize("engine", ENGINES)
def test_setting_the_start_state_while_running_reaches_the_tile(start_sketch, engine):
    # Writing tile.api.start_state after the move into the C++ core changed nothing there.
    world = make_world(seed=1, engine=engine)
    world.add_tile("a", start_sketch(), (0, 0))
    world.run_for(300)
    world.set_start_state("a", START_STATE_DOWNLOAD_SUCCESS)
    world.run_for(300)
    assert world.tile("a").api.out_value[0] == 30  # setup() saw power-up, loop() sees download
    with pytest.raises(WorldError, match="start state"):
        world.set_start_state("a", 3)
