"""What `blinkc build` accepts besides a sketch: a blinkc game (GAME.py), and
arduino-cli as the builder when it is installed."""

from __future__ import annotations

import os
import shutil
import stat
import sys
import types
from pathlib import Path

import pytest

from blinkc.build import BuildError, build, build_for_flash, find_sdk

from .helpers import AVR_TOOLS, SKETCHES, require_tools


def test_game_py_without_the_cpp_backend_is_a_clear_error(standin_sdk, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "blinkc.backends.cpp", None)  # as if not installed
    game = tmp_path / "game.py"
    game.write_text("")
    with pytest.raises(BuildError, match=r"no C\+\+ code generator \(blinkc.backends.cpp\)"):
        build(game, tmp_path / "out", sdk=standin_sdk)


def test_game_py_is_generated_by_the_cpp_backend_then_built(standin_sdk, tmp_path, monkeypatch):
    require_tools(*AVR_TOOLS)
    calls = []
    program = types.SimpleNamespace(name="lasers")

    def compile_game(game_path: Path) -> types.SimpleNamespace:
        calls.append(game_path)
        return program

    def sketch_path(out_dir: Path, of: object) -> Path:
        calls.append(out_dir)
        return Path(out_dir) / "lasers" / "lasers.ino"

    def generate_cpp(of: object, **_: object) -> str:
        assert of is program
        return (SKETCHES / "Spinner/Spinner.ino").read_text()

    fake = types.ModuleType("blinkc.backends.cpp")
    fake.generate_cpp = generate_cpp
    fake.sketch_path = sketch_path
    monkeypatch.setitem(sys.modules, "blinkc.backends.cpp", fake)
    monkeypatch.setattr("blinkc.dsl.loader.compile_game", compile_game)
    game = tmp_path / "lasers.py"
    game.write_text("# a game")
    hex_path = build_for_flash(game, sdk=standin_sdk, out_dir=tmp_path / "out")
    assert calls == [game, (tmp_path / "out").resolve()]
    assert hex_path == (tmp_path / "out/lasers.ino.with_bootloader.hex").resolve()
    assert hex_path.is_file()


ROOT = Path(__file__).resolve().parents[2]
GAMES = [ROOT / "firmware" / "pirates_lasers.py", *sorted((ROOT / "tests/golden/games").glob("*.py"))]


@pytest.mark.parametrize("game", GAMES, ids=[g.stem for g in GAMES])
def test_a_games_generated_sketch_builds_against_the_standin_sdk(standin_sdk, game, tmp_path):
    require_tools(*AVR_TOOLS)
    result = build(game, tmp_path / "out", sdk=standin_sdk, backend="avr-gcc")
    assert result.sketch.main == (tmp_path / "out" / game.stem / f"{game.stem}.ino").resolve()
    assert result.with_bootloader.is_file() and result.report.flash > 0


def test_a_game_builds_with_line_directives_that_point_at_its_lines(standin_sdk, tmp_path):
    require_tools(*AVR_TOOLS)
    game = ROOT / "firmware" / "pirates_lasers.py"
    result = build(game, tmp_path / "out", sdk=standin_sdk, backend="avr-gcc", line_directives=True)
    text = result.sketch.main.read_text()
    press = next(i for i, line in enumerate(game.read_text().splitlines(), 1)
                 if line.startswith("def press(t):"))
    assert f'#line {press} "{game}"' in text
    assert f'"{result.sketch.main}"' in text  # and back to the sketch's own lines
    assert result.with_bootloader.is_file()


def test_line_directives_are_for_a_game_not_a_sketch(standin_sdk, tmp_path):
    with pytest.raises(BuildError, match="--line-directives is for a game"):
        build(SKETCHES / "Spinner", tmp_path / "out", sdk=standin_sdk, line_directives=True)


FAKE_CLI = """#!{python}
# A stand-in arduino-cli for tests: records its arguments and hands back a
# prebuilt ELF and hex as `arduino-cli compile --build-path DIR` would.
import json, pathlib, shutil, sys
args = sys.argv[1:]
pathlib.Path({log!r}).write_text(json.dumps(args))
out = pathlib.Path(args[args.index("--build-path") + 1])
out.mkdir(parents=True, exist_ok=True)
name = pathlib.Path(args[-1]).name
for ext in ("elf", "hex"):
    shutil.copy({prebuilt!r} + "." + ext, out / (name + ".ino." + ext))
"""


def test_arduino_cli_is_used_for_an_sdk_it_can_see(
    standin_sdk, standin_built, tmp_path, monkeypatch
):
    built = standin_built
    # The SDK installed in a sketchbook's hardware folder, where arduino-cli finds it.
    sketchbook_sdk = tmp_path / "Arduino/hardware/Move38/avr"
    shutil.copytree(standin_sdk.path, sketchbook_sdk)
    prebuilt = built.results["Spinner"].elf.with_suffix("")
    log = tmp_path / "args.json"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    cli = bin_dir / "arduino-cli"
    cli.write_text(FAKE_CLI.format(python=sys.executable, log=str(log), prebuilt=str(prebuilt)))
    cli.chmod(cli.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")

    sdk = find_sdk(sketchbook_sdk)
    result = build(SKETCHES / "Spinner", tmp_path / "out", sdk=sdk)
    assert result.backend == "arduino-cli"
    args = log.read_text()
    assert '"--fqbn", "Move38:avr:blink"' in args
    assert result.with_bootloader.is_file()
    assert result.report.flash == built.results["Spinner"].report.flash

    # A checkout outside Arduino's folders is invisible to arduino-cli: avr-gcc builds it.
    require_tools(*AVR_TOOLS)
    assert build(SKETCHES / "Spinner", tmp_path / "out2", sdk=standin_sdk).backend == "avr-gcc"
