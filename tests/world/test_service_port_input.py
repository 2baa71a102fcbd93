"""Service-port input: a scenario's `serial` step feeds bytes to a tile's Serial, which its
sketch reads with Serial.available()/read(), on both world engines; every bad step is one
clear error."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from blinkc.cli import main
from blinkc.native import load_sketch_text
from blinkc.world import Trace
from blinkc.world.emulation import EmulationOptions, emulate
from blinkc.world.layout_file import parse_layout
from blinkc.world.scenario import Scenario, ScenarioError
from blinkc.world.scenario_file import parse_scenario

from ..tools import require_tool

ENGINES = ("python", "native")

# Echoes what it reads, upper-cased, one byte per pass (as SDK sketches read), and shows
# how many bytes it has read on its faces.
ECHO = """
#include "Serial.h"
ServicePortSerial Serial;
byte got;
void setup() { Serial.begin(); }
void loop() {
  if (Serial.available()) {
    int c = Serial.read();
    got++;
    Serial.write((byte)(c >= 'a' && c <= 'z' ? c - 32 : c));
  }
  if (!Serial.available() && Serial.read() == -1) setValueSentOnAllFaces(got);
}
"""


@pytest.fixture(scope="module")
def echo():
    require_tool("g++")
    return load_sketch_text(ECHO, "echo", check_int16=False)


def run(echo, engine: str, scenario: str | Scenario, layout: str = "tile a at 0,0\ntile b at 1,0\n"):
    if isinstance(scenario, str):
        scenario = parse_scenario(scenario, "<test>")
    return emulate(parse_layout(layout, "<test>"), scenario,
                   EmulationOptions(seed=2, time_ms=2000, trace=Trace(),
                                    resolver=lambda spec: echo(), world=engine))


@pytest.mark.parametrize("engine", ENGINES)
def test_a_scenario_feeds_the_service_port(echo, engine):
    done = run(echo, engine, 'at 300ms serial a "hi there\\n"\nat 900ms serial a "\\x41\\tz"\n')
    assert getattr(done.world, "engine", "python") == engine
    a, b = done.world.tile("a"), done.world.tile("b")
    assert a.serial_out == b"HI THERE\nA\tZ"  # every byte read, in order, none lost
    assert a.api.out_value[0] == 12  # and then available() is 0 and read() is -1
    assert b.serial_out == b"" and b.api.out_value[0] == 0  # b was sent nothing


def test_the_python_api_feeds_bytes_too(echo):
    sc = Scenario().at(300).serial("a", "ab").at(600).serial("a", b"\xff")
    done = run(echo, "native", sc)
    assert done.world.tile("a").serial_out == b"AB\xff"


def test_both_engines_agree(echo):
    text = 'at 300ms serial a "abc"\nat 310ms serial b "xyz"\nat 1s serial a "\\x00\\x7f"\n'
    runs = [run(echo, engine, text) for engine in ENGINES]
    assert runs[0].world.trace.lines == runs[1].world.trace.lines
    assert runs[0].snapshot() == runs[1].snapshot()
    assert any('"ev":"serial-in"' in line for line in runs[0].world.trace.lines)


@pytest.mark.parametrize(("step", "message", "hint"), [
    ('serial q "hi"', "no tile named 'q'", "the tiles are: a, b"),
    ('serial a "h\\qi"', "bad escape '\\\\q'", "\\xHH"),
    ('serial a "\\x4"', "bad escape '\\\\x4'", "two hex digits"),
    ("serial a", "`serial` takes a tile and the text", 'serial TILE "TEXT"'),
    ('serial a "one" "two"', "`serial` takes a tile and the text", 'serial TILE "TEXT"'),
    ('serial a ""', "`serial` sends nothing", 'serial TILE "TEXT"'),
])
def test_bad_serial_steps_are_one_clear_error(echo, step, message, hint):
    with pytest.raises(ScenarioError) as e:
        run(echo, "python", f"at 100ms {step}\n")
    text = str(e.value)
    assert message in text and hint in text and "<test>:1" in text


def test_a_tile_without_a_service_port_is_refused():
    # A Python tile program has no Serial to read.
    layout = parse_layout("tile a at 0,0\n", "<test>")
    with pytest.raises(ScenarioError, match="has no service port"):
        emulate(layout, parse_scenario('serial a "x"\n', "<test>"),
                EmulationOptions(resolver=lambda spec: _Silent(), time_ms=500))


class _Silent:
    def setup(self, api):
        pass

    def loop(self, api):
        pass


def test_blinkc_emulate_reports_a_bad_escape_without_a_traceback(echo, tmp_path):
    sketch = tmp_path / "Echo" / "Echo.ino"
    sketch.parent.mkdir()
    sketch.write_text(ECHO)
    layout = tmp_path / "one.layout"
    layout.write_text("tile a at 0,0\n")
    script = tmp_path / "bad.scenario"
    script.write_text('wait 1s\nserial a "\\u0041"\n')
    result = CliRunner().invoke(main, ["emulate", str(sketch), "-l", str(layout), "--script",
                                       str(script)])
    assert result.exit_code != 0
    assert "bad.scenario:2: bad escape '\\\\u'" in result.output
    assert "Traceback" not in result.output
    script.write_text('at 200ms serial a "ok\\n"\n')
    result = CliRunner().invoke(main, ["emulate", str(sketch), "-l", str(layout), "--script",
                                       str(script)])
    assert result.exit_code == 0, result.output
    assert "  a| OK" in result.output.splitlines()
