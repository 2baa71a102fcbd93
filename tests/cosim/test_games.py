"""The real firmware (game + the user's BlinkBIOS) co-simulated: the P&L turn, a WHAM! round,
Broadside's setup and a hit, and SDK examples against the emulator. They need the user's SDK
(the BIOS is not ours to ship) and take minutes: marked `long`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from blinkc.cosim.compare import compare_sides, cosim_side, emulator_side
from blinkc.cosim.run import CosimOptions, cosimulate
from blinkc.runtime.color import channels

from ..tools import require_simavr

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
    ours = by_name(cosimulate(layout, game, script, CosimOptions()).tiles)
    side, end = emulator_side(layout, game, script, 0, CosimOptions().faults, None)
    theirs = {name: shown.at(end) for name, shown in side.states.items()}
    z = ours["z"]["state"]
    assert z["kind"] == "HAZARD" and z["shots"] == 1 and z["flash_faces"] == 21  # three beams
    for name, tile in ours.items():
        assert tile["state"]["hp"] == theirs[name]["hp"], name
        assert tile["state"]["kind"] == theirs[name]["kind"], name
        assert 0 < tile["stack_free_min"] < 248   # 248: RAM left above the globals
    assert sum(t["state"]["hp"] for t in ours.values()) == 5 * 9 - 4


def test_a_wham_round_starts_and_ends_as_in_the_emulator():
    game, layout, script = FIRMWARE / "wham.py", EXAMPLES / "wham.layout", EXAMPLES / "wham.scenario"
    result = cosimulate(layout, game, script, CosimOptions(sample_ms=100.0))
    side, end = emulator_side(layout, game, script, 0, CosimOptions().faults, None)
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
                "Examples01/examples/E-TimerBlink", "Examples02/examples/A-ColorByNeighbor"]


@pytest.mark.parametrize("example", SDK_EXAMPLES, ids=lambda e: e.rsplit("/", 1)[1])
def test_an_sdk_example_agrees_with_the_emulator(example, sdk, tmp_path):
    sketch = Path(sdk) / "libraries" / example / (example.rsplit("/", 1)[1] + ".ino")
    layout, script = _write(tmp_path, "tile a at 0,0\ntile b at 0,-1\n",
                            "wait 500ms\nclick a\nwait 1s\ndouble b\nwait 1s\n")
    result = cosimulate(layout, sketch, script, CosimOptions(sample_ms=20.0))
    theirs, _ = emulator_side(layout, sketch, script, 0, CosimOptions().faults, None)
    assert compare_sides(cosim_side(result), theirs) == []


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


def test_compare_prints_each_difference_and_exits_1(sdk, tmp_path):
    import json

    # F-ColorWheel steps its hue on a 10 ms timer, so it runs at the pace of the tile's
    # passes, which the real firmware takes about 9 % longer than the emulator (docs/cosim.md):
    # some 4.7 s in, the two wheels are more than the tolerance apart.
    sketch = Path(sdk) / "libraries/Examples01/examples/F-ColorWheel/F-ColorWheel.ino"
    layout, _ = _write(tmp_path, "tile a at 0,0\n", "")
    r = _cli("cosim", str(sketch), "-l", str(layout), "-t", "7s", "--compare", "--json")
    assert r.exit_code == 1
    out = json.loads(r.stdout)
    assert out["agree"] is False and out["differences"]
    d = out["differences"][0]
    assert d["tile"] == "a" and d["time_ms"] >= 2000
    assert d["cosim"]["colors"] != d["emulator"]["colors"]
    text = _cli("cosim", str(sketch), "-l", str(layout), "-t", "7s", "--compare")
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
