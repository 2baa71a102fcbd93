"""Our own SDK-style sketches (tests/native/corpus/): each part of the tile's life around
loop() on both world engines, and `blinkc examples`, which runs them all (and, with
BLINKS_SDK set, every example of the SDK)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from blinkc.blinklib.api import Blinklib
from blinkc.cli import main
from blinkc.native import load_sketch
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
    monkeypatch.setenv("BLINKC_TILE_BUDGET", "0.2")
    for name, body in (
            ("Broken", "void setup() {}\nvoid loop() { setColor(; }\n"),
            ("Forever", '#include "Serial.h"\nServicePortSerial sp;\nvoid setup() { sp.begin(); }\n'
                        'void loop() { sp.println("hello"); while (1); }\n'),
            ("Fine", "void setup() {}\nvoid loop() { setColor(RED); }\n"),
            ("Never", "void setup() { while (1); }\nvoid loop() {}\n")):
        (tmp_path / "mine" / name).mkdir(parents=True)
        (tmp_path / "mine" / name / f"{name}.ino").write_text(body)
    result = CliRunner().invoke(main, ["examples", str(tmp_path / "mine")])
    assert result.exit_code == 1
    out = result.output.splitlines()
    assert out[0].startswith("FAIL  Broken: does not compile: ") and "Broken.ino:2" in out[0]
    assert out[1].startswith("ok    Fine  (")
    # A loop() that never returns: the tiles freeze, as real ones do, and the sketch ran.
    assert out[2].startswith("ok    Forever  (")
    assert out[3] == ("      froze: tiles 'a' at t = 0 s, 'b' at t = 0 s, 'c' at t = 0 s, 'd' at "
                      "t = 0 s: loop() did not return within 0.2 s of CPU time (it ends in an "
                      "endless loop such as `while (1);`; a real tile freezes there too)")
    assert out[4] == "      service port a| hello"
    assert out[7] == "      service port d| hello"
    assert out[8].startswith("FAIL  Never: tile 'a': setup() did not return within 0.2 s")
    assert "Its game never starts" in out[8]
    assert out[9] == "2 of 4 ran; failed: Broken, Never"
    assert "Traceback" not in result.output


def test_blinkc_examples_without_sketches_is_one_clear_error(tmp_path):
    result = CliRunner().invoke(main, ["examples", str(tmp_path)])
    assert result.exit_code == 1
    assert "no sketches under" in result.output and "X.ino" in result.output
    assert "Traceback" not in result.output


@pytest.mark.skipif(not os.environ.get("BLINKS_SDK"),
                    reason="BLINKS_SDK is not set: it names a checkout of the Blinks SDK whose "
                           "examples to run")
def test_every_sdk_example_runs():
    require_tool("g++")
    result = CliRunner().invoke(main, ["examples"], env={"BLINKC_TILE_BUDGET": "0.3"})
    out = result.output.splitlines()
    assert not [line for line in out if line.startswith("FAIL")], result.output
    assert out[-1] == "27 of 27 ran"
    assert result.exit_code == 0
    # SerialNumberPrinter prints its serial number, then stops in `while (1);`: its tiles
    # freeze there, as real ones do, and what they printed is shown.
    at = next(i for i, line in enumerate(out) if line.startswith("ok    C-SerialNumberPrinter"))
    assert out[at + 1].startswith("      froze: tiles 'a' at t = 0 s, 'b' at t = 0 s, ")
    assert "loop() did not return within 0.3 s of CPU time" in out[at + 1]
    assert out[at + 2].startswith("      service port a| For a good time, call:")
    assert "froze" not in "".join(out[:at] + out[at + 2:])
