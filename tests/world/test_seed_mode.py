"""Seed mode (game sharing) on both world engines: a lone tile held 3 s and let go before
6 s sends its game to the tiles it touches and on through the cluster; they restart running
it with startState() == START_STATE_DOWNLOAD_SUCCESS, the sender with START_STATE_WE_ARE_ROOT."""

from __future__ import annotations

import pytest

from blinkc.native import load_sketch_text
from blinkc.world import Trace, make_world
from blinkc.world.seed import SEED_IDLE_MS

from ..tools import require_tool

ENGINES = ("python", "native")

# The game being shared: its face value says which game runs, in which start state, and
# how often the sketch saw a long-long press.
GAME = """
byte longlongs;
void setup() {}
void loop() {
  if (buttonLongLongPressed()) longlongs++;
  setValueSentOnAllFaces(40 + startState() + 4 * longlongs);
  setColor(startState() == START_STATE_DOWNLOAD_SUCCESS ? GREEN : BLUE);
}
"""
# What the other tiles run before they receive it.
OTHER = "void setup() {}\nvoid loop() { setValueSentOnAllFaces(5); }\n"


@pytest.fixture(scope="module")
def sketches():
    require_tool("g++")
    return (load_sketch_text(GAME, "game", check_int16=False),
            load_sketch_text(OTHER, "other", check_int16=False))


def cluster(sketches, engine, trace=None):
    """s, in the hand, runs the game; a-b-c in a row and d apart run the other sketch."""
    game, other = sketches
    world = make_world(seed=5, engine=engine, trace=trace)
    world.add_tile("s", game(), None)
    for name, pos in (("a", (0, 0)), ("b", (1, 0)), ("c", (2, 0)), ("d", (6, 0))):
        world.add_tile(name, other(), pos)
    return world


def value(world, name: str) -> int:
    return world.tile(name).api.out_value[0]


def share(world):
    world.run_for(1000)
    world.button("s", True)
    world.run_for(4000)  # past the 3 s mark: the hold (blinklib's blue spin)
    world.button("s", False)  # let go before 6 s: seed mode
    world.run_for(500)
    world.place("s", (0, -1))  # put it beside a: a takes the game, then b from a, c from b
    world.run_for(500)


@pytest.mark.parametrize("engine", ENGINES)
def test_seed_mode_spreads_a_game_across_a_cluster(sketches, engine):
    world = cluster(sketches, engine)
    share(world)
    assert [world.snapshot()[i].get("seed") for i in range(5)] == [
        "root", "download", "download", "download", None]
    world.run_for(SEED_IDLE_MS + 1000)  # nobody joined for 5 s: all of them start the game
    if engine == "native":
        assert world.engine == "native"
    assert value(world, "s") == 41  # the root: START_STATE_WE_ARE_ROOT
    assert [value(world, n) for n in "abc"] == [42, 42, 42]  # the game, DOWNLOAD_SUCCESS
    assert value(world, "d") == 5  # it touches none of them
    assert world.colors(world.tile("b")) == [world.tile("b").api.GREEN] * 6
    assert all("seed" not in t for t in world.snapshot())


@pytest.mark.parametrize("engine", ENGINES)
def test_with_a_neighbour_the_sketch_sees_the_long_long_press(sketches, engine):
    world = cluster(sketches, engine)
    world.place("s", (0, -1))
    world.run_for(1000)
    world.button("s", True)
    world.run_for(4000)
    world.button("s", False)
    world.run_for(SEED_IDLE_MS + 1000)
    assert value(world, "s") == 44  # power-up, one long-long press
    assert [value(world, n) for n in "abc"] == [5, 5, 5]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_lone_tile_held_past_6_s_sleeps_instead(sketches, engine):
    world = cluster(sketches, engine)
    world.run_for(1000)
    world.button("s", True)
    world.run_for(3500)
    assert world.snapshot()[0].get("seed") == "hold"
    world.run_for(3000)
    assert world.tile("s").asleep
    world.button("s", False)
    world.place("s", (0, -1))
    world.run_for(SEED_IDLE_MS + 1000)
    assert [value(world, n) for n in "abc"] == [5, 5, 5]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_root_nobody_joins_restarts_alone(sketches, engine):
    world = cluster(sketches, engine)
    world.run_for(1000)
    world.button("s", True)
    world.run_for(3500)
    world.button("s", False)
    world.run_for(SEED_IDLE_MS + 500)
    assert value(world, "s") == 41 and "seed" not in world.snapshot()[0]
    world.place("s", (0, -1))  # too late: a runs its own sketch on
    world.run_for(1000)
    assert value(world, "a") == 5


def test_seed_mode_traces_agree_between_engines(sketches):
    out = []
    for engine in ENGINES:
        trace = Trace()
        world = cluster(sketches, engine, trace)
        share(world)
        world.place("d", (3, 0))  # a latecomer beside c joins and restarts the countdown
        world.run_for(SEED_IDLE_MS + 2000)
        out.append((trace.lines, dict(world.stats), world.snapshot()))
    assert out[0] == out[1]
    events = "".join(out[0][0])
    for ev in ("seed-hold", "seed-root", "seed-download", "seed-start"):
        assert f'"ev":"{ev}"' in events
    assert value_of(out[0][2], "d") == 42


def value_of(snapshot, name):
    return next(t["sent"][0] for t in snapshot if t["name"] == name)
