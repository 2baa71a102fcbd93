"""The tile's life around loop(), on both world engines: the start state a layout,
a scenario or Python gives a tile (startState())."""

from __future__ import annotations

import json

import pytest

from blinkc.blinklib.api import (
    START_STATE_DOWNLOAD_SUCCESS,
    START_STATE_POWER_UP,
    START_STATE_WE_ARE_ROOT,
)
from blinkc.native import load_sketch_text
from blinkc.world import Trace, WorldError, make_world
from blinkc.world.emulation import EmulationOptions, emulate
from blinkc.world.layout import LayoutError
from blinkc.world.layout_file import parse_layout
from blinkc.world.scenario_file import parse_scenario

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


TICKER = """
#include "Serial.h"
ServicePortSerial Serial;
Timer beat;
void setup() { Serial.begin(); beat.set(50); }
void loop() {
  if (beat.isExpired()) { Serial.println("tick"); beat.set(50); }
}
"""


def test_a_cluster_settles_while_its_tiles_print(tmp_path):
    # settle() polls the C++ core without refreshing the tiles' mirrors: what the tiles
    # print meanwhile is still taken, every line of it.
    require_tool("g++")
    from blinkc.testing import Cluster

    sketch = tmp_path / "Ticker" / "Ticker.ino"
    sketch.parent.mkdir()
    sketch.write_text(TICKER)
    runs = []
    for world in ("native", "python"):
        cluster = Cluster(sketch, "tile a at 0,0\ntile b at 1,0\n", world=world)
        cluster.settle()
        runs.append((cluster.world.now_ms, cluster.serial_lines("a"), cluster.serial_lines("b")))
    assert runs[0] == runs[1]  # the same lines as the Python world, which has no mirrors
    assert set(runs[0][1]) == {"tick"} and len(runs[0][1]) > 10


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


# ------------------------------------------------------------------ sleep and wake
SLEEPY = """
byte wakes, presses;
void setup() {}
void loop() {
  if (buttonPressed()) presses++;
  if (hasWoken()) wakes++;
  setValueSentOnAllFaces(wakes);
  setColor(wakes ? GREEN : BLUE);
}
#ifdef BLINKC_HOST
const blinkc_field_t blinkc_state_fields[] = {
  BLINKC_FIELD(wakes), BLINKC_FIELD(presses), BLINKC_FIELDS_END};
#endif
"""
GREEN, BLUE = 31 << 5, 31 << 10
MINUTE = 60_000


@pytest.fixture(scope="module")
def sleepy():
    require_tool("g++")
    return load_sketch_text(SLEEPY, "sleepy", check_int16=False)


def sleepy_world(sleepy, engine, trace=None):
    world = make_world(seed=4, engine=engine, trace=trace)
    world.add_tile("a", sleepy(), (0, 0))
    world.add_tile("b", sleepy(), (1, 0))
    world.add_tile("c", sleepy(), None)
    return world


def click(world, name):
    world.button(name, True)
    world.run_for(80)
    world.button(name, False)


#: The Python engine's 85 minutes of sleep and wake are the long tier's: the default tier has the
#: native engine's, and test_sleep_and_wake_traces_agree_between_engines (both engines, trace for
#: trace, through a sleep, a wake and a sleep again).
@pytest.mark.parametrize("engine", ["native", pytest.param("python", marks=pytest.mark.long)])
def test_tiles_sleep_after_10_minutes_and_a_click_wakes_them(sleepy, engine):
    world = sleepy_world(sleepy, engine)
    world.run_for(5 * MINUTE)
    click(world, "a")  # resets a's timer, and b's through the viral flag; not c's
    world.run_for(5 * MINUTE + 500)
    assert [t.asleep for t in world.tiles] == [False, False, True]
    assert world.colors(world.tile("c")) == [0] * 6
    world.run_for(5 * MINUTE)
    assert all(t.asleep for t in world.tiles)
    assert world.is_quiet()
    passes = world.stats["passes"]
    millis = world.tile("a").api.now
    world.run_for(60 * MINUTE)  # sleeping costs nothing
    assert world.stats["passes"] == passes
    click(world, "b")  # wakes b, and a through its wake packets; c is alone
    world.run_for(1000)
    a, b, c = world.tiles
    assert not a.asleep and not b.asleep and c.asleep
    assert a.program.state()["wakes"] == 1 and b.program.state()["wakes"] == 1
    assert world.colors(b) == [GREEN] * 6 and world.colors(c) == [0] * 6
    assert millis < a.api.now < millis + 2000  # millis() went on from where it stopped
    assert b.program.state()["presses"] == 1  # the press that woke it (a's came before)
    world.run_for(9 * MINUTE)
    assert not a.asleep  # the timer started again at the wake


@pytest.mark.parametrize("engine", ENGINES)
def test_holding_the_button_6_s_puts_the_cluster_to_sleep(sleepy, engine):
    world = sleepy_world(sleepy, engine)
    world.run_for(1000)
    world.button("a", True)
    world.run_for(5900)
    assert not world.tile("a").asleep
    world.run_for(200)
    assert world.tile("a").asleep and world.tile("b").asleep and not world.tile("c").asleep
    world.button("a", False)  # letting go does not wake it
    world.run_for(2000)
    assert world.tile("a").asleep
    click(world, "a")
    world.run_for(500)
    assert not world.tile("a").asleep and world.tile("a").program.state()["wakes"] == 1


@pytest.mark.parametrize("engine", ENGINES)
def test_an_awake_tile_put_beside_a_sleeping_one_wakes_it(sleepy, engine):
    world = sleepy_world(sleepy, engine)
    world.run_for(1000)
    world.button("a", True)
    world.run_for(6200)
    world.button("a", False)
    assert world.tile("b").asleep and not world.tile("c").asleep
    world.place("c", (0, 1))
    world.run_for(500)
    assert not any(t.asleep for t in world.tiles)


def test_sleep_and_wake_traces_agree_between_engines(sleepy):
    traces = []
    for engine in ENGINES:
        trace = Trace()
        world = sleepy_world(sleepy, engine, trace)
        world.run_for(3 * MINUTE)
        click(world, "c")
        world.run_for(8 * MINUTE)
        click(world, "b")
        world.run_for(1000)
        world.button("b", True)
        world.run_for(7000)
        world.button("b", False)
        world.place("c", (0, 1))
        world.run_for(12 * MINUTE)
        click(world, "a")
        world.run_for(2000)
        traces.append((trace.lines, dict(world.stats), world.snapshot()))
    assert traces[0] == traces[1]
    events = "".join(traces[0][0])
    assert '"warm-sleep"' in events and '"warm-wake"' in events
