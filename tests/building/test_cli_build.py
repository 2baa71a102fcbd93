"""`blinkc build` and `blinkc size` as a person runs them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from blinkc.cli import main

from .helpers import AVR_TOOLS, SKETCHES, require_tools


def run_blinkc(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """In a subprocess, so HOME/env/cwd are really the user's (no SDK anywhere)."""
    return subprocess.run(
        [sys.executable, "-m", "blinkc", *args], cwd=cwd, env=env, capture_output=True, text=True
    )


def test_build_without_an_sdk_says_how_to_install_one(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BLINKS_", "ARDUINO_"))}
    env["HOME"] = str(tmp_path)
    done = run_blinkc(
        ["build", str(SKETCHES / "Spinner"), "-o", str(tmp_path / "out")], tmp_path, env
    )
    assert done.returncode != 0
    assert "No Blinks SDK found" in done.stderr
    assert "boardsmanager" in done.stderr and "BLINKS_SDK" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


def test_build_then_size_of_elf_hex_and_folder(standin_sdk, tmp_path: Path):
    require_tools(*AVR_TOOLS)
    runner = CliRunner()
    out = tmp_path / "out"
    args = ["build", str(SKETCHES / "Spinner"), "-o", str(out), "--sdk", str(standin_sdk.path)]
    done = runner.invoke(main, args)
    assert done.exit_code == 0, done.output
    assert "Blinks SDK: Standin 0.0.1" in done.output
    assert "Flash:" in done.output and "RAM:" in done.output
    assert str(out / "Spinner.ino.with_bootloader.hex") in done.output

    for target in (out / "Spinner.ino.elf", out, out / "Spinner.ino.hex"):
        sized = runner.invoke(main, ["size", str(target)])
        assert sized.exit_code == 0, sized.output
        assert "Flash:" in sized.output
    assert "RAM:" in runner.invoke(main, ["size", str(out)]).output
    assert "no RAM figures" in runner.invoke(main, ["size", str(out / "Spinner.ino.hex")]).output
    merged = runner.invoke(main, ["size", str(out / "Spinner.ino.with_bootloader.hex")])
    game = runner.invoke(main, ["size", str(out / "Spinner.ino.hex")])
    assert merged.output.splitlines()[1] == game.output.splitlines()[1]  # BIOS not counted


def test_size_of_something_that_is_not_a_build_is_a_clear_error(tmp_path: Path):
    (tmp_path / "junk.elf").write_text("not an elf")
    done = CliRunner().invoke(main, ["size", str(tmp_path / "junk.elf")])
    assert done.exit_code != 0 and "Cannot read" in done.output
    done = CliRunner().invoke(main, ["size", str(tmp_path / "empty-dir-missing")])
    assert done.exit_code != 0 and "does not exist" in done.output


def test_size_bench_without_an_sdk_says_what_it_needs(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if k != "BLINKS_SDK"}
    bench = Path(__file__).resolve().parents[2] / "bench" / "firmware_size.py"
    done = subprocess.run([sys.executable, str(bench)], env=env, capture_output=True, text=True)
    assert done.returncode == 0 and "set BLINKS_SDK" in done.stdout
    assert "pirates_lasers" in done.stdout  # the own-code figure needs no SDK


def test_build_of_a_game_with_errors_names_its_lines_without_a_traceback(standin_sdk, tmp_path):
    game = tmp_path / "broken.py"
    game.write_text("from blinkc.dsl import Game\ngame = Game('broken')\nlevel = 3\n\n"
                    "@game.on_click\ndef click(t):\n    level = 2\n")
    done = CliRunner().invoke(main, ["build", str(game), "-o", str(tmp_path / "out"),
                                     "--sdk", str(standin_sdk.path)])
    assert done.exit_code == 1
    assert "broken.py:7: error: 'level' is a module-level name" in done.output
    assert done.exception is None or isinstance(done.exception, SystemExit)
