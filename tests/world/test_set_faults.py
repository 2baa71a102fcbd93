"""World.set_faults and the scenario step `faults`: faults that change during a run."""

from __future__ import annotations

import pytest

from blinkc.programs.examples import NeighbourColours as Neighbours
from blinkc.world import Faults, Trace, World
from blinkc.world.emulation import EmulationOptions, emulate
from blinkc.world.layout_file import parse_layout
from blinkc.world.scenario import ScenarioError
from blinkc.world.scenario_file import parse_scenario

LAYOUT = """
program hops
tile src at 0,0 source=true
tile a at SE of src
tile b at SE of a clock=+0.2%
"""


def _world() -> World:
    world = World(seed=3)
    world.add_tile("a", Neighbours(), (0, 0))
    world.add_tile("b", Neighbours(), (1, 0), ppm=2000)
    return world


def test_skew_redraws_drawn_clocks_without_a_jump():
    world = _world()
    world.run_until(1000)
    a, b = world.tile("a"), world.tile("b")
    before = a.clock.millis(world.now), a.clock.ppm
    world.set_faults(Faults(skew=0.2))
    assert a.clock.millis(world.now) == before[0]
    assert a.clock.ppm != before[1] and abs(a.clock.ppm) <= 200_000
    # the same draw, scaled: the sign stays
    assert (a.clock.ppm > 0) == (before[1] > 0)
    assert b.clock.ppm == 2000  # given in the layout: kept
    world.run_until(3000)


def test_drop_and_jitter_take_effect_and_stop_sleep():
    world = _world()
    world.run_until(2000)
    dropped = world.stats["dropped"]
    world.set_faults(Faults(drop=0.5, jitter_ms=3))
    world.run_until(4000)
    assert world.stats["dropped"] > dropped
    assert not world.is_quiet()
    world.set_faults(Faults())
    world.run_until(6000)
    assert world.stats["dropped"] >= dropped


def test_has_event_at():
    world = _world()
    world.run_until(100)
    world.call_at(500.5, lambda: None)
    assert world.has_event_at(500.5)
    assert not world.has_event_at(500.4)


def test_scenario_step_parses_describes_and_replays_exactly():
    sc = parse_scenario("at 1s faults drop=0.2,jitter=1ms,skew=5%\nat 3s faults drop=0\n")
    assert [s.describe() for s in sc.steps] == ["faults drop=0.2,jitter=1ms,skew=0.05",
                                               "faults drop=0,jitter=0ms,skew=0.01"]
    assert sc.steps[0].faults == Faults(drop=0.2, jitter_ms=1, skew=0.05)
    layout = parse_layout(LAYOUT)
    runs = []
    for _ in range(2):
        trace = Trace()
        result = emulate(layout, sc, EmulationOptions(seed=1, trace=trace, time_ms=5000))
        runs.append((trace.text(), result.snapshot()))
    assert runs[0] == runs[1]
    assert '"ev":"drop"' in runs[0][0]


@pytest.mark.parametrize(("text", "message"), [
    ("faults", "`faults` needs the faults"),
    ("faults drop=2", "drop must be in [0, 1)"),
    ("faults wobble=1", "bad fault 'wobble=1'"),
])
def test_bad_faults_step(text, message):
    with pytest.raises(ScenarioError) as e:
        parse_scenario(text, "s.scenario")
    assert message in str(e.value) and "s.scenario:1" in str(e.value)
