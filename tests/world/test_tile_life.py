"""The tile's life around loop(), on both world engines: the start state a layout,
a scenario or Python gives a tile (startState())."""

from __future__ import annotations

import json

import pytest

from blinkc.native import load_sketch_text
from blinkc.runtime.api import (
    START_STATE_DOWNLOAD_SUCCESS,
    START_STATE_POWER_UP,
    START_STATE_WE_ARE_ROOT,
)
from blinkc.world import Trace, WorldError, make_world
from blinkc.world.emulation import EmulationOptions, emulate
from blinkc.world.layout import LayoutError
from blinkc.world.layout_file import parse_layout
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


# ------------------------------------------------------------ the service port
CHATTY = """
#include "Serial.h"
ServicePortSerial Serial;
byte clicks;
void setup() {
  Serial.begin();
  Serial.println("hello");
  Serial.print(F("bios "));
  Serial.println(getBlinkbiosVersion());
}
void loop() {
  if (buttonSingleClicked()) {
    clicks++;
    Serial.print("click ");
    Serial.print(clicks);
    Serial.print(' ');
    Serial.print(-5);
    Serial.print(' ');
    Serial.print(255, HEX);
    Serial.print(' ');
    Serial.print((byte)7, BIN);
    Serial.print(' ');
    Serial.println(2.5);
  }
  setValueSentOnAllFaces(clicks);
}
"""

EXPECTED = ["hello", "bios 2", "click 1 -5 FF 111 2.50", "click 2 -5 FF 111 2.50"]


@pytest.fixture(scope="module")
def chatty_sketch():
    require_tool("g++")
    return load_sketch_text(CHATTY, "chatty", check_int16=False)


@pytest.mark.parametrize("engine", ENGINES)
def test_service_port_output_is_captured_and_traced(chatty_sketch, engine):
    done = run("tile a at 0,0\ntile b at 1,0\n", chatty_sketch, engine,
               "at 500ms click a\nat 1.5s click a\n", time_ms=3000)
    a = done.world.tile("a")
    assert a.serial_text.replace("\r\n", "\n").splitlines() == EXPECTED
    assert done.world.tile("b").serial_text == "hello\r\nbios 2\r\n"
    records = [json.loads(line) for line in done.world.trace.lines if '"ev":"serial"' in line]
    assert "".join(r["text"] for r in records if r["tile"] == "a") == a.serial_text
    assert done.snapshot()[0]["serial"] == a.serial_text


def test_service_port_traces_agree_between_engines(chatty_sketch):
    runs = [run("tile a at 0,0\ntile b at 1,0\ntile c held\n", chatty_sketch, engine,
                "at 500ms click a\nat 1.5s click c\nat 2s click a\n", time_ms=3000)
            for engine in ENGINES]
    assert runs[0].world.trace.lines == runs[1].world.trace.lines
    assert runs[0].snapshot() == runs[1].snapshot()


@pytest.mark.parametrize("engine", ENGINES)
def test_service_port_without_a_trace(chatty_sketch, engine):
    cluster = make_world(seed=2, engine=engine)
    cluster.add_tile("a", chatty_sketch(), (0, 0))
    cluster.run_for(400)
    cluster.button("a", True)
    cluster.run_for(80)
    cluster.button("a", False)
    cluster.run_for(1000)
    assert cluster.tile("a").serial_text.replace("\r\n", "\n").splitlines() == EXPECTED[:3]


def test_blinkc_emulate_shows_the_service_port(chatty_sketch, tmp_path):
    from click.testing import CliRunner

    from blinkc.cli import main

    sketch = tmp_path / "Chatty" / "Chatty.ino"
    sketch.parent.mkdir()
    sketch.write_text(CHATTY)
    layout = tmp_path / "two.layout"
    layout.write_text("tile a at 0,0\ntile b at 1,0\n")
    script = tmp_path / "click.scenario"
    script.write_text("at 500ms click a\n")
    for engine in ENGINES:
        result = CliRunner().invoke(main, ["emulate", str(sketch), "-l", str(layout), "--script",
                                           str(script), "--world", engine])
        assert result.exit_code == 0, result.output
        lines = result.stdout.splitlines()
        start = lines.index("service port:")
        assert lines[start + 1:] == ["  a| hello", "  a| bios 2", "  a| click 1 -5 FF 111 2.50",
                                     "  b| hello", "  b| bios 2"]


def test_a_cluster_reads_the_service_port(tmp_path):
    require_tool("g++")
    from blinkc.testing import Cluster

    sketch = tmp_path / "Chatty" / "Chatty.ino"
    sketch.parent.mkdir()
    sketch.write_text(CHATTY)
    cluster = Cluster(sketch, "tile a at 0,0\ntile b at 1,0\n")
    assert cluster.world.engine == "native"
    cluster.click("a")
    cluster.settle()
    assert cluster.serial_lines("a") == EXPECTED[:3]
    assert cluster.serial("b") == "hello\r\nbios 2\r\n"


SDK_MACROS = """
void setup() {}
void loop() {
  Color c = PIXEL_COLOR_HALF_RED;
  setColorOnFace(c, 0);
  setColorOnFace(PIXEL_COLOR_FULL_BLUE, 1);
  setColorOnFace(PIXEL_COLOR_OFF, 2);
  rawpixel_t raw = RAW_PIXEL_OFF;
  byte s = startState() == BLINKBIOS_START_STATE_DOWNLOAD_SUCCESS ? 40 : 0;
  setValueSentOnAllFaces(s + getBlinkbiosVersion() + (raw.rawValueR == 255) + PIXELCOLOR_PRIMARY_HALF);
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_the_sdks_bios_macros_are_there(engine):
    require_tool("g++")
    sketch = load_sketch_text(SDK_MACROS, "macros", check_int16=False)
    done = run("tile a at 0,0 start=download\n", sketch, engine, time_ms=500)
    api = done.world.tile("a").api
    assert api.out_value[0] == 40 + 2 + 1 + 15
    assert api.pixels[:3] == [15, 31 << 10, 0]
