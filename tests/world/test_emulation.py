"""One emulator run from a layout, a scenario and options."""

import pytest

from blinkc.world.emulation import (
    DEFAULT_TIME_MS,
    EmulationOptions,
    FaultsError,
    emulate,
    parse_faults,
)
from blinkc.world.layout_file import load_layout, parse_layout
from blinkc.world.scenario_file import parse_scenario
from blinkc.world.world import Faults

CHAIN = load_layout("examples/chain.layout")


def test_without_a_scenario_the_run_lasts_the_default_time():
    result = emulate(CHAIN)
    assert result.end_ms == DEFAULT_TIME_MS == result.world.now_ms
    assert [t["state"]["distance"] for t in result.snapshot()] == [0, 1, 2, 3, 4]


def test_with_a_scenario_the_run_lasts_until_a_second_after_it():
    sc = parse_scenario("at 3s click d")
    result = emulate(CHAIN, sc)
    assert result.end_ms == sc.end_ms + 1000
    assert result.world.tile("d").program.state()["source"] is True
    assert result.late_steps == []


def test_steps_after_the_end_are_reported_late():
    sc = parse_scenario("click d\nat 5s click c")
    result = emulate(CHAIN, sc, EmulationOptions(time_ms=4000))
    assert [s.where.line for s in result.late_steps] == [2]


def test_the_same_seed_gives_the_same_run_even_with_faults():
    opts = dict(seed=7, faults=Faults(drop=0.2, jitter_ms=3, skew=0.1))
    sc = parse_scenario("click d\nwait 1s\nclick src")
    runs = [emulate(CHAIN, sc, EmulationOptions(**opts)).snapshot() for _ in range(2)]
    assert runs[0] == runs[1]


def test_the_step_hook_sees_each_group_of_steps_once_in_time_order():
    layout = parse_layout("tile k at 0,0 clicks\ntile j at 1,0 clicks")
    sc = parse_scenario("click k\nat 2s click j\nat 2s lift k")
    seen = []
    emulate(layout, sc, on_step=lambda world, steps: seen.append(
        (world.now_ms, [s.describe() for s in steps], world.tile("k").program.state()["clicks"])))
    assert [s[1] for s in seen] == [["click k"], ["click j", "lift k"]]
    assert seen[0][0] < 2000 and seen[0][2] == 1  # the click has shown before the next group
    assert seen[1][0] == 2000 + 580 + 1000


@pytest.mark.parametrize("text,faults", [
    ("drop=0.1,jitter=2ms,skew=10%", Faults(0.1, 2.0, 0.1)),
    ("skew=0.05", Faults(skew=0.05)),
    ("jitter=3", Faults(jitter_ms=3.0)),
    ("drop=5%, jitter=0.5ms", Faults(drop=0.05, jitter_ms=0.5)),
    ("", Faults()),
])
def test_faults_are_read_from_text(text, faults):
    assert parse_faults(text) == faults


@pytest.mark.parametrize("text,message", [
    ("loss=0.1", "bad fault 'loss=0.1'"),
    ("drop", "bad fault 'drop'"),
    ("drop=lots", "bad drop 'lots'"),
    ("drop=1", "drop must be in [0, 1)"),
    ("skew=0.1,skew=0.2", "given twice"),
    ("jitter=fast", "bad jitter 'fast'"),
])
def test_bad_faults_say_what_is_wrong(text, message):
    with pytest.raises(FaultsError) as err:
        parse_faults(text)
    assert message in str(err.value)
