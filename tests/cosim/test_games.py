"""The real firmware (game + the user's BlinkBIOS) co-simulated: the P&L turn, a WHAM! round,
Broadside's setup and a hit, and SDK examples against the emulator. They need the user's SDK
(the BIOS is not ours to ship) and take minutes: marked `long`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from blinkc.blinklib.color import channels
from blinkc.cosim.compare import compare_sides, cosim_side, emulator_side
from blinkc.cosim.run import CosimOptions, cosimulate
from blinkc.world import Faults

from ..tools import require_simavr
from ..world.test_service_port_input import ECHO

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
FIRMWARE = ROOT / "firmware"

pytestmark = pytest.mark.long


@pytest.fixture(autouse=True)
def sdk() -> str:
    path = os.environ.get("BLINKS_SDK")
    if not path:
        pytest.skip("set BLINKS_SDK to a Blinks SDK: co-simulation runs its BlinkBIOS")
    require_simavr()
    return path


def by_name(tiles: list[dict]) -> dict[str, dict]:
    return {t["name"]: t for t in tiles}


def test_the_pirates_and_lasers_turn_hits_the_same_hulls_as_in_the_emulator():
    game, layout, script = (FIRMWARE / "pirates_lasers.py", EXAMPLES / "ship.layout",
                            EXAMPLES / "turn.scenario")
    result = cosimulate(layout, game, script, CosimOptions())
    ours = by_name(result.tiles)
    side, end = emulator_side(layout, game, script, 0, CosimOptions().faults, None,
                              start_local_us=result.start_local_us)
    theirs = {name: shown.at(end) for name, shown in side.states.items()}
    z = ours["z"]["state"]
    assert z["kind"] == "HAZARD" and z["shots"] == 1 and z["flash_faces"] == 21  # three beams
    for name, tile in ours.items():
        assert tile["state"]["hp"] == theirs[name]["hp"], name
        assert tile["state"]["kind"] == theirs[name]["kind"], name
        assert 0 < tile["stack_free_min"] < 248   # 248: RAM left above the globals
    assert sum(t["state"]["hp"] for t in ours.values()) == 5 * 9 - 4


def test_a_hull_added_by_the_scenario_joins_the_ship_as_in_the_emulator(tmp_path):
    # The Hazard fires after h2 is added beside h1: its beams reach h2 only if h2's links
    # came up, and which hulls lose an HP is the game's draw on both sides.
    layout = tmp_path / "three.layout"
    layout.write_text(f"game {FIRMWARE / 'pirates_lasers.py'}\n"
                      "tile z  at 0,0 kind=HAZARD\ntile h1 at 0,-1\n")
    script = tmp_path / "add.scenario"
    script.write_text("wait 1s\nadd h2 at 1,-1\nwait 2s\nclick z\nwait 2s\n")
    game = FIRMWARE / "pirates_lasers.py"
    result = cosimulate(layout, game, script, CosimOptions())
    ours = by_name(result.tiles)
    side, end = emulator_side(layout, game, script, 0, CosimOptions().faults, None,
                              start_local_us=result.start_local_us)
    theirs = {name: shown.at(end) for name, shown in side.states.items()}
    assert sorted(ours) == ["h1", "h2", "z"]
    assert ours["z"]["state"]["shots"] == 1
    for name, tile in ours.items():
        for key in ("kind", "hp", "shots", "flash_faces", "sunk"):
            assert tile["state"][key] == theirs[name][key], (name, key)
    assert ours["h2"]["state"]["flash_faces"] or ours["h1"]["state"]["flash_faces"]  # beams


def test_bytes_a_scenario_sends_into_the_service_port_are_read_by_the_real_firmware(tmp_path):
    # The emulator's own test sketch (tests/world/test_service_port_input.py), on the tile.
    sketch = tmp_path / "echo" / "echo.ino"
    sketch.parent.mkdir()
    sketch.write_text(ECHO)
    layout = tmp_path / "one.layout"
    layout.write_text("tile a at 0,0\n")
    script = tmp_path / "serial.scenario"
    script.write_text('at 300ms serial a "hi there\\n"\nat 900ms serial a "\\x41\\tz"\nwait 1s\n')
    result = cosimulate(layout, sketch, script, CosimOptions())
    assert by_name(result.tiles)["a"]["serial"] == "HI THERE\nA\tZ"   # every byte, in order


def test_a_wham_round_starts_and_ends_as_in_the_emulator():
    game, layout, script = FIRMWARE / "wham.py", EXAMPLES / "wham.layout", EXAMPLES / "wham.scenario"
    result = cosimulate(layout, game, script, CosimOptions(sample_ms=100.0))
    side, end = emulator_side(layout, game, script, 0, CosimOptions().faults, None,
                              start_local_us=result.start_local_us)
    theirs = {name: shown.at(end) for name, shown in side.states.items()}
    stages = {(name, state["stage"]) for _, name, _, state in result.timeline}
    for name, tile in by_name(result.tiles).items():
        assert any(n == name and stage != "SETUP" for n, stage in stages), name  # it played
        assert tile["state"]["stage"] == theirs[name]["stage"], name            # and stopped


def _write(tmp_path: Path, layout: str, scenario: str) -> tuple[Path, Path]:
    (tmp_path / "l.layout").write_text(layout)
    (tmp_path / "s.scenario").write_text(scenario)
    return tmp_path / "l.layout", tmp_path / "s.scenario"


def test_broadside_setup_alone_makes_a_ship_in_the_fleet_colour(tmp_path):
    layout, script = _write(tmp_path, "tile x at 0,0\n",
                            "wait 500ms\nlong x\nwait 1s\ndouble x\nwait 1s\n")
    x = cosimulate(layout, FIRMWARE / "broadside.py", script, CosimOptions()).tiles[0]
    assert x["state"]["yellow"] and x["state"]["ship"]
    assert [channels(c) for c in x["colors"]] == [(31, 31, 0)] * 6


def test_a_broadside_hit_leaves_a_red_peg(tmp_path):
    layout, script = _write(tmp_path, "tile a1 at 0,0 ship=true\ntile a2 at 1,0 ship=true\n"
                                      "tile s1 at 0,1\n", "wait 1s\nclick a1\nwait 2s\n")
    tiles = by_name(cosimulate(layout, FIRMWARE / "broadside.py", script, CosimOptions()).tiles)
    a1 = tiles["a1"]
    assert a1["state"]["fired"] and not a1["state"]["captured"]
    assert channels(a1["colors"][0]) == (31, 0, 0)
    assert not tiles["a2"]["state"]["fired"]


SDK_EXAMPLES = ["Examples01/examples/A-BareMinimum", "Examples01/examples/B-ButtonPress",
                "Examples01/examples/C-ButtonCycleColors", "Examples01/examples/D-TimerFlash",
                "Examples01/examples/E-TimerBlink", "Examples01/examples/F-ColorWheel",
                "Examples02/examples/A-ColorByNeighbor", "Examples02/examples/B-ColorRamps",
                "Examples02/examples/C-SerialNumberPrinter", "Examples02/examples/D-SerialTest",
                "Examples03/examples/Berry"]


@pytest.mark.parametrize("example", SDK_EXAMPLES, ids=lambda e: e.rsplit("/", 1)[1])
def test_an_sdk_example_agrees_with_the_emulator(example, sdk, tmp_path):
    sketch = Path(sdk) / "libraries" / example / (example.rsplit("/", 1)[1] + ".ino")
    layout, script = _write(tmp_path, "tile a at 0,0\ntile b at 0,-1\n",
                            "wait 500ms\nclick a\nwait 1s\ndouble b\nwait 1s\n")
    result = cosimulate(layout, sketch, script, CosimOptions(sample_ms=20.0))
    theirs, end = emulator_side(layout, sketch, script, 0, CosimOptions().faults, None,
                                start_local_us=result.start_local_us)
    assert compare_sides(cosim_side(result), theirs, end_ms=end) == []


#: A sketch of our own whose every pass shows another colour: its colour changes are its passes.
TOGGLE = """bool on;
void setup() {}
void loop() { on = !on; setColor(on ? RED : BLUE); }
"""


def test_a_lone_tiles_passes_fall_where_the_real_firmwares_do(tmp_path):
    """The emulator's pass model against the real blinklib and BIOS: a lone tile's probes
    (six faces, 150 ms apart, bunched as the SDK's sendTime makes them), its display frames,
    the BIOS's tick interrupt holding blinklib up. Every pass of 3 s, to 0.2 ms."""
    sketch = tmp_path / "Toggle" / "Toggle.ino"
    sketch.parent.mkdir()
    sketch.write_text(TOGGLE)
    layout, script = _write(tmp_path, "tile a at 0,0\n", "wait 3s\n")
    for faults in (Faults(skew=0), Faults(skew=0.01)):
        result = cosimulate(layout, sketch, script,
                            CosimOptions(sample_ms=100.0, faults=faults, time_ms=3000.0))
        theirs, _ = emulator_side(layout, sketch, script, 0, faults, 3000.0,
                                  start_local_us=result.start_local_us)
        real, model = cosim_side(result).colors["a"].times, theirs.colors["a"].times
        assert len(real) > 250                 # a pass every 7.7 ms, and longer ones sending
        assert len(model) == len(real)
        assert max(abs(a - b) for a, b in zip(real, model)) < 0.2


def test_the_emulator_starts_a_tile_where_the_bios_starts_its_game(sdk, tmp_path):
    """Where setup() falls on the BIOS's clock depends on the image (the BIOS copies the game
    first); measured per image, the emulator's millis() then ticks when the BIOS's does."""
    from blinkc.build import build, find_sdk
    from blinkc.cosim.firmware import load_firmware
    from blinkc.cosim.tile import F_CPU, CosimTile, clock_at_start
    from blinkc.world.clock import Clock

    examples = Path(sdk) / "libraries"
    starts = []
    for sketch in (examples / "Examples01/examples/A-BareMinimum/A-BareMinimum.ino",
                   examples / "Examples02/examples/A-ColorByNeighbor/A-ColorByNeighbor.ino"):
        result = build(sketch, tmp_path / sketch.stem, sdk=find_sdk(sdk))
        firmware = load_firmware(result.with_bootloader, result.elf)
        start = clock_at_start(firmware, bytes(9))
        starts.append(start)
        model = Clock(offset=start)
        tile = CosimTile("a", firmware, bytes(range(9)))
        at = tile.boot()
        for us in range(0, 5000, 7):
            tile.run(at + us * F_CPU // 1_000_000)
            if abs((start + us) % 256 - 128) < 126:      # (not within 2 µs of a tick)
                assert tile.millis() == model.millis(us), (sketch.stem, us)
    assert starts[0] != starts[1]


def test_a_tile_sleeps_after_its_warm_sleep_time_and_a_press_wakes_it(tmp_path, sdk):
    """The BIOS and blinklib's warm sleep on the real firmware. The firmware's own deadline
    (10 minutes after power-up, read from its RAM) is moved to half a second from now, so
    the test does not simulate ten minutes."""
    from blinkc.build import build, find_sdk
    from blinkc.cosim.firmware import load_firmware
    from blinkc.cosim.tile import F_CPU, CosimTile

    result = build(FIRMWARE / "pirates_lasers.py", tmp_path / "pl", sdk=find_sdk(sdk))
    tile = CosimTile("a", load_firmware(result.with_bootloader, result.elf), bytes(range(9)))
    tile.run(2 * F_CPU)
    assert 600_000 <= tile.variable("warm_sleep_time") <= 600_200   # 10 min after setup
    lit = tile.colors()
    assert any(lit)
    deadline = tile.firmware.objects["warm_sleep_time"]
    tile.write(deadline.address, (tile.millis() + 500).to_bytes(4, "little"))
    tile.run(3 * F_CPU)
    assert tile.colors() == [0] * 6                                  # asleep: dark
    tile.run(5 * F_CPU)
    assert tile.colors() == [0] * 6
    tile.button(True)
    tile.run(5 * F_CPU + F_CPU // 10)
    tile.button(False)
    tile.run(6 * F_CPU)
    assert any(tile.colors())                                        # awake: lit again
    tile.run(9 * F_CPU)
    assert tile.colors()[5] == lit[5]       # (the press also counts as a click: a Hull
                                            # loses an HP, so a tan face may show water)


def test_a_tile_left_alone_for_ten_minutes_goes_dark_and_a_click_wakes_it(tmp_path, sdk):
    """The whole ten minutes, simulated (about 150 s at 4x real time): no deadline moved."""
    from blinkc.build import build, find_sdk
    from blinkc.cosim.firmware import load_firmware
    from blinkc.cosim.tile import F_CPU, CosimTile

    result = build(FIRMWARE / "pirates_lasers.py", tmp_path / "pl", sdk=find_sdk(sdk))
    tile = CosimTile("a", load_firmware(result.with_bootloader, result.elf), bytes(range(9)))
    tile.run(595 * F_CPU)
    assert any(tile.colors())                                        # 9 min 55 s: still lit
    tile.run(602 * F_CPU)
    assert tile.colors() == [0] * 6                                  # past 10 min: asleep
    tile.button(True)
    tile.run(602 * F_CPU + F_CPU // 10)
    tile.button(False)
    tile.run(604 * F_CPU)
    assert any(tile.colors())                                        # a click wakes it


def _cli(*args: str):
    from click.testing import CliRunner

    from blinkc.cli import main

    return CliRunner().invoke(main, list(args))


def test_compare_in_json_says_agree_and_exits_0_when_they_agree(sdk, tmp_path):
    import json

    sketch = Path(sdk) / "libraries/Examples01/examples/B-ButtonPress/B-ButtonPress.ino"
    layout, script = _write(tmp_path, "tile a at 0,0\n", "wait 500ms\nclick a\nwait 1s\n")
    r = _cli("cosim", str(sketch), "-l", str(layout), "-s", str(script), "--compare", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["agree"] is True and out["differences"] == []
    tile = out["tiles"][0]
    assert {"name", "pos", "rot", "millis", "colors", "state", "stack_free_min",
            "loop_max_us"} <= set(tile)


# An AVR-only quirk the emulator cannot model: on the tile `int` is 16 bits, on the host 32
# (docs/native.md), and an overflow at run time is beyond what avr-g++'s warnings can see.
WRAP = """#include "blinklib.h"
int count = 32000;
Timer step;
void setup() { step.set(1000); }
void loop() {
  if (step.isExpired()) { count += 1000; step.set(60000); }  // 33,000 wraps on the tile
  setColor(count < 0 ? RED : BLUE);
}
"""


def test_compare_prints_each_difference_and_exits_1(sdk, tmp_path):
    import json

    sketch = tmp_path / "Wrap" / "Wrap.ino"
    sketch.parent.mkdir()
    sketch.write_text(WRAP)
    layout, _ = _write(tmp_path, "tile a at 0,0\n", "")
    r = _cli("cosim", str(sketch), "-l", str(layout), "-t", "2s", "--compare", "--json")
    assert r.exit_code == 1
    out = json.loads(r.stdout)
    assert out["agree"] is False and len(out["differences"]) == 1
    d = out["differences"][0]
    assert d["tile"] == "a" and 1000 <= d["time_ms"] <= 1010 and d["until_ms"] >= 1700
    assert d["cosim"]["colors"] == [31] * 6 and d["emulator"]["colors"] == [31 << 10] * 6
    text = _cli("cosim", str(sketch), "-l", str(layout), "-t", "2s", "--compare")
    assert text.exit_code == 1 and "co-simulation and emulator differ" in text.output
    assert "cosim    " in text.output and "emulator " in text.output


def test_under_faults_the_same_seed_gives_the_same_run(tmp_path):
    from blinkc.world.emulation import parse_faults

    layout, script = _write(tmp_path, "tile a at 0,0\ntile b at 0,-1 kind=HAZARD\n",
                            "wait 500ms\nclick b\nwait 1s\n")
    game = FIRMWARE / "pirates_lasers.py"

    def run(seed: int, threads: int) -> list[dict]:
        opts = CosimOptions(seed=seed, threads=threads,
                            faults=parse_faults("drop=0.3,jitter=2ms,skew=5%"))
        return cosimulate(layout, game, script, opts).tiles

    first = run(3, 2)
    assert run(3, 1) == first                      # threads change nothing
    assert run(4, 2) != first                      # another seed: other clocks, other losses
