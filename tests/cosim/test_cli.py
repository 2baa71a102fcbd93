"""`blinkc cosim` and the co-simulated figures of `blinkc size`, where they need no SDK: what
it refuses (each with one message, no traceback) and the figures of a build of our own."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from blinkc.cli import main

from ..tools import require_simavr, require_tool
from .avr_programs import boot_firmware
from .test_harness import TIMED_LOOP

ROOT = Path(__file__).resolve().parents[2]
GAME = ROOT / "firmware" / "pirates_lasers.py"


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_a_game_needs_a_layout():
    r = run("cosim", str(GAME))
    assert r.exit_code == 2 and "needs a cluster: add --layout" in r.output


def test_tolerance_is_only_for_compare(tmp_path):
    layout = tmp_path / "one.layout"
    layout.write_text("tile a at 0,0\n")
    r = run("cosim", str(GAME), "-l", str(layout), "--tolerance", "100ms")
    assert r.exit_code == 2 and "--tolerance is for --compare" in r.output


def test_a_hand_in_the_model_is_refused_before_anything_is_built(tmp_path):
    layout = tmp_path / "one.layout"
    layout.write_text("tile a at 0,0\n")
    scenario = tmp_path / "cut.scenario"
    scenario.write_text("wait 1s\ncut a 0 for 1s\n")
    r = run("cosim", str(GAME), "-l", str(layout), "-s", str(scenario))
    assert r.exit_code == 1
    assert "`cut` (line 2) is not co-simulated" in r.output
    assert "Traceback" not in r.output


def test_a_built_in_python_program_has_no_firmware(tmp_path):
    layout = tmp_path / "prog.layout"
    layout.write_text("tile a at 0,0 NeighbourColours\n")
    r = run("cosim", str(layout))
    assert r.exit_code == 1
    assert "built-in program 'NeighbourColours', which has no firmware" in r.output


def test_size_of_a_build_shows_the_stack_and_the_longest_loop(tmp_path):
    require_tool("avr-gcc")
    require_tool("avr-objcopy")
    require_tool("avr-size")
    require_simavr()
    fw = boot_firmware(tmp_path, TIMED_LOOP)
    build = tmp_path / "build"
    build.mkdir()
    (build / "timed.ino.elf").write_bytes(fw.elf.read_bytes())
    (build / "timed.ino.with_bootloader.hex").write_bytes((tmp_path / "image.hex").read_bytes())
    r = run("size", str(build))
    assert r.exit_code == 0, r.output
    assert "Stack: at least" in r.output
    assert "Longest loop(): 40,0" in r.output and "= 5.00 ms" in r.output


def test_an_image_without_a_bios_is_refused_with_a_hint(tmp_path):
    from blinkc.cosim.firmware import FirmwareError, load_firmware

    (tmp_path / "x.hex").write_text(":0100000000FF\n:00000001FF\n")
    with pytest.raises(FirmwareError) as e:
        load_firmware(tmp_path / "x.hex", tmp_path / "x.elf")
    assert "has no BIOS at the boot reset vector (0x3800)" in str(e.value)
    assert "hint: use the .with_bootloader.hex of a build" in str(e.value)
