"""Our own SDK-style sketches (tests/native/corpus/): each part of the tile's life around
loop() on both world engines, and `blinkc examples`, which runs them all (and, with
BLINKS_SDK set, every example of the SDK)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from blinkc.cli import main
from blinkc.native import load_sketch
from blinkc.runtime.api import Blinklib
from blinkc.world.emulation import EmulationOptions, emulate
from blinkc.world.layout_file import parse_layout
from blinkc.world.scenario_file import parse_scenario

from ..tools import require_tool

CORPUS = Path(__file__).with_name("corpus")
ENGINES = ("python", "native")
MINUTE = 60_000


@pytest.fixture(scope="module")
def corpus():
    require_tool("g++")
    return {name: load_sketch(CORPUS / name, check_int16=False)
            for name in ("SleepWake", "StartColors", "SerialEcho", "ClickCount")}


def play(sketch, layout: str, scenario: str, engine: str, time_ms: float | None = None):
    done = emulate(parse_layout(layout, "<corpus>"), parse_scenario(scenario, "<corpus>"),
                   EmulationOptions(seed=1, time_ms=time_ms, resolver=lambda spec: sketch(),
                                    world=engine))
    assert getattr(done.world, "engine", "python") == engine
    return done.world


def lines(world, name: str) -> list[str]:
    return world.tile(name).serial_text.replace("\r\n", "\n").splitlines()


@pytest.mark.parametrize("engine", ENGINES)
def test_sleep_wake_sleeps_after_10_minutes_and_wakes_on_a_click(corpus, engine):
    world = play(corpus["SleepWake"], "tile a at 0,0\ntile b at 1,0\n",
                 "at 601s click b\n", engine)
    assert lines(world, "a") == ["awake", "woke 1"]  # b's click woke it too
    assert lines(world, "b") == ["awake", "woke 1"]
    assert world.tile("a").api.out_value[0] == 1 and not world.tile("a").asleep


@pytest.mark.parametrize("engine", ENGINES)
def test_start_colors_shows_seed_mode_spreading_its_game(corpus, engine):
    world = play(corpus["StartColors"], "tile s held\ntile a at 0,0\ntile b at 1,0\n",
                 "at 1s press s\nat 5s release s\nat 5.5s place s at 0,-1\n", engine, 13_000)
    assert lines(world, "s") == ["start state 0", "start state 1"]
    assert lines(world, "a") == ["start state 0", "start state 2"]
    assert lines(world, "b") == ["start state 0", "start state 2"]
    assert world.colors(world.tile("s")) == [Blinklib.WHITE] * 6
    assert world.colors(world.tile("b")) == [Blinklib.GREEN] * 6


@pytest.mark.parametrize("engine", ENGINES)
def test_start_colors_reads_its_layouts_start_state(corpus, engine):
    world = play(corpus["StartColors"], "tile a at 0,0 start=download\ntile b at 1,0\n", "",
                 engine, 500)
    assert [world.tile(n).api.out_value[0] for n in "ab"] == [2, 0]


@pytest.mark.parametrize("engine", ENGINES)
def test_serial_echo_answers_on_the_service_port(corpus, engine):
    world = play(corpus["SerialEcho"], "tile a at 0,0\n",
                 'at 300ms serial a "abc\\n"\nat 1s click a\n', engine)
    assert lines(world, "a") == ["ABC", "received 4"]


@pytest.mark.parametrize("engine", ENGINES)
def test_click_count_sees_long_long_presses_only_with_a_neighbour(corpus, engine):
    world = play(corpus["ClickCount"], "tile a at 0,0\ntile b at 1,0\ntile c held\n",
                 "click a\ndouble a\nlong a 3500ms\nlong c 3500ms\n", engine, 16_000)
    assert world.tile("a").api.out_value[:3] == [1, 1, 1]
    # Alone, c's hold was seed mode: nobody joined, so c restarted its game, counts at 0.
    assert world.tile("c").api.out_value[:3] == [0, 0, 0]
    assert world.tile("c").api.start_state == 1


def test_blinkc_examples_runs_the_whole_corpus():
    require_tool("g++")
    result = CliRunner().invoke(main, ["examples", str(CORPUS)])
    assert result.exit_code == 0, result.output
    out = result.output.splitlines()
    assert [line.split()[:2] for line in out[:-1]] == [
        ["ok", "ClickCount"], ["ok", "SerialEcho"], ["ok", "SleepWake"], ["ok", "StartColors"]]
    assert out[-1] == "4 of 4 ran"


def test_blinkc_examples_says_which_fail_and_why(tmp_path, monkeypatch):
    require_tool("g++")
    monkeypatch.setenv("BLINKC_TILE_BUDGET", "0.3")
    for name, body in (("Broken", "void setup() {}\nvoid loop() { setColor(; }\n"),
                       ("Forever", "void setup() {}\nvoid loop() { while (1); }\n"),
                       ("Fine", "void setup() {}\nvoid loop() { setColor(RED); }\n")):
        (tmp_path / "mine" / name).mkdir(parents=True)
        (tmp_path / "mine" / name / f"{name}.ino").write_text(body)
    result = CliRunner().invoke(main, ["examples", str(tmp_path / "mine")])
    assert result.exit_code == 1
    out = result.output.splitlines()
    assert out[0].startswith("FAIL  Broken: does not compile: ") and "Broken.ino:2" in out[0]
    assert out[1].startswith("ok    Fine  (")
    assert out[2].startswith("FAIL  Forever: tile 'a': loop() did not return")
    assert "while (1);" in out[2]
    assert out[3] == "1 of 3 ran; failed: Broken, Forever"
    assert "Traceback" not in result.output


def test_blinkc_examples_without_sketches_is_one_clear_error(tmp_path):
    result = CliRunner().invoke(main, ["examples", str(tmp_path)])
    assert result.exit_code == 1
    assert "no sketches under" in result.output and "X.ino" in result.output
    assert "Traceback" not in result.output


@pytest.mark.skipif(not os.environ.get("BLINKS_SDK"),
                    reason="BLINKS_SDK is not set: it names a checkout of the Blinks SDK whose "
                           "examples to run")
def test_every_sdk_example_runs_but_the_one_that_never_returns():
    require_tool("g++")
    result = CliRunner().invoke(main, ["examples"], env={"BLINKC_TILE_BUDGET": "0.5"})
    out = result.output.splitlines()
    failed = [line for line in out if line.startswith("FAIL")]
    assert len(failed) == 1 and failed[0].startswith("FAIL  C-SerialNumberPrinter: ")
    assert "did not return" in failed[0]
    assert out[-1] == "26 of 27 ran; failed: C-SerialNumberPrinter"
    assert result.exit_code == 1
