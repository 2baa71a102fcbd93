"""`blinkc gen -o` and `blinkc build -o` never lose a user's file: they write only into folders
blinkc created (marked with .blinkc-output) and over files blinkc wrote, and otherwise refuse
with one message (what, why, what to do) and a non-zero exit, unless --force."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from blinkc.build import BuildError, build_for_flash

from .helpers import AVR_TOOLS, require_tools

MARKER = ".blinkc-output"  # blinkc.build.outputs.MARKER

GAME = """\
from blinkc.dsl import *
game = Game("counter")
count = game.field(range(0, 7), default=0)

@game.on_click
def press(t):
    t.count += 1

@game.display
def look(t):
    t.color_all(GREEN if t.count else OFF)
"""
MINE = "// my own counter sketch, written by hand\nvoid setup() {}\nvoid loop() {}\n"


def blinkc(*args: str) -> Result:
    from blinkc.cli import main

    return CliRunner().invoke(main, list(args))


def refused(result: Result, *words: str) -> None:
    """A clear refusal: non-zero exit, no traceback, the words in the message, --force offered."""
    assert result.exit_code != 0, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    assert result.output.count("Error:") == 1
    for word in words:
        assert word in result.output, result.output


@pytest.fixture
def game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "counter.py"
    path.write_text(GAME)
    return path


@pytest.fixture
def unwritable(tmp_path: Path):
    """A folder that cannot be created: under a read-only folder, or (root writes anywhere on
    disk) in sysfs, which refuses new folders even to root."""
    if os.geteuid() != 0:
        parent = tmp_path / "read-only"
        parent.mkdir()
        parent.chmod(0o555)
        yield parent / "out"
        parent.chmod(0o755)
        return
    target = Path("/sys/blinkc-test-output")
    try:
        target.mkdir()
    except OSError:
        yield target
        return
    target.rmdir()
    pytest.skip("this machine lets root create folders in /sys")


# --- gen -----------------------------------------------------------------------------------


def test_gen_twice_rewrites_its_own_sketch(game: Path, tmp_path: Path):
    assert blinkc("gen", "counter.py", "-o", "out").exit_code == 0
    ino = tmp_path / "out/counter/counter.ino"
    assert (tmp_path / "out/counter" / MARKER).is_file()
    first = ino.read_text()
    game.write_text(GAME.replace("GREEN", "BLUE"))
    again = blinkc("gen", "counter.py", "-o", "out")
    assert again.exit_code == 0, again.output
    assert ino.read_text() != first


def test_gen_refuses_to_overwrite_a_hand_written_sketch(game: Path, tmp_path: Path):
    folder = tmp_path / "out/counter"
    folder.mkdir(parents=True)
    (folder / "counter.ino").write_text(MINE)
    refused(blinkc("gen", "counter.py", "-o", "out"), "out/counter/counter.ino", "no record",
            "--force")
    assert (folder / "counter.ino").read_text() == MINE
    assert not (folder / MARKER).exists()

    forced = blinkc("gen", "counter.py", "-o", "out", "--force")
    assert forced.exit_code == 0, forced.output
    assert "#include <blinklib.h>" in (folder / "counter.ino").read_text()


def test_gen_refuses_to_overwrite_its_sketch_once_edited_by_hand(game: Path, tmp_path: Path):
    assert blinkc("gen", "counter.py", "-o", "out").exit_code == 0
    ino = tmp_path / "out/counter/counter.ino"
    edited = ino.read_text() + "// my tweak\n"
    ino.write_text(edited)
    refused(blinkc("gen", "counter.py", "-o", "out"), "out/counter/counter.ino",
            "changed since blinkc wrote it", "--force")
    assert ino.read_text() == edited
    assert blinkc("gen", "counter.py", "-o", "out", "--force").exit_code == 0
    assert "my tweak" not in ino.read_text()
    assert blinkc("gen", "counter.py", "-o", "out").exit_code == 0  # its own again


def test_gen_refuses_a_folder_of_someone_elses_files(game: Path, tmp_path: Path):
    (tmp_path / "out/counter").mkdir(parents=True)
    (tmp_path / "out/counter/notes.txt").write_text("mine")
    refused(blinkc("gen", "counter.py", "-o", "out"), "notes.txt", "--force")
    assert not (tmp_path / "out/counter/counter.ino").exists()


def test_gen_into_an_empty_folder_takes_it(game: Path, tmp_path: Path):
    (tmp_path / "out/counter").mkdir(parents=True)
    assert blinkc("gen", "counter.py", "-o", "out").exit_code == 0
    assert (tmp_path / "out/counter" / MARKER).is_file()


def test_gen_where_a_file_or_a_folder_is_in_the_way(game: Path, tmp_path: Path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out/counter").write_text("a file")
    for force in ([], ["--force"]):
        refused(blinkc("gen", "counter.py", "-o", "out", *force), "is a file, not a folder")
    assert (tmp_path / "out/counter").read_text() == "a file"

    (tmp_path / "out2/counter/counter.ino").mkdir(parents=True)
    (tmp_path / "out2/counter" / MARKER).write_text("")
    refused(blinkc("gen", "counter.py", "-o", "out2"), "is a folder")


def test_gen_into_a_folder_it_cannot_write(game: Path, unwritable: Path):
    refused(blinkc("gen", "counter.py", "-o", str(unwritable)), "Cannot write to", str(unwritable))


# --- build ---------------------------------------------------------------------------------


@pytest.fixture
def sketch(tmp_path: Path) -> Path:
    folder = tmp_path / "Mine"
    folder.mkdir()
    (folder / "Mine.ino").write_text(MINE)
    return folder


def test_build_refuses_a_folder_it_did_not_create(sketch: Path, standin_sdk, tmp_path: Path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "core.a").write_text("my own library")
    args = ["build", str(sketch), "-o", str(out), "--sdk", str(standin_sdk.path)]
    refused(blinkc(*args), str(out), "blinkc did not create it", "core.a", "--force")
    assert (out / "core.a").read_text() == "my own library"
    assert sorted(p.name for p in out.iterdir()) == ["core.a"]

    require_tools(*AVR_TOOLS)
    forced = blinkc(*args, "--force")
    assert forced.exit_code == 0, forced.output
    assert (out / "Mine.ino.with_bootloader.hex").is_file()


def test_build_twice_into_its_own_folder(sketch: Path, standin_sdk, tmp_path: Path):
    require_tools(*AVR_TOOLS)
    out = tmp_path / "out"
    args = ["build", str(sketch), "-o", str(out), "--sdk", str(standin_sdk.path)]
    assert blinkc(*args).exit_code == 0
    assert (out / MARKER).is_file()
    again = blinkc(*args)
    assert again.exit_code == 0, again.output


def test_build_game_refuses_a_folder_holding_a_hand_made_sketch(game: Path, standin_sdk,
                                                               tmp_path: Path):
    (tmp_path / "build/counter").mkdir(parents=True)
    (tmp_path / "build/counter/counter.ino").write_text(MINE)
    refused(blinkc("build", "counter.py", "--sdk", str(standin_sdk.path)), "build",
            "blinkc did not create it", "--force")
    assert (tmp_path / "build/counter/counter.ino").read_text() == MINE


def test_build_game_refuses_to_overwrite_a_sketch_blinkc_did_not_write(game: Path, standin_sdk,
                                                                      tmp_path: Path):
    # A folder blinkc made, holding a sketch by the game's name that blinkc did not write.
    out = tmp_path / "out"
    (out / "counter").mkdir(parents=True)
    (out / MARKER).write_text("")
    (out / "counter/counter.ino").write_text(MINE)
    args = ["build", "counter.py", "-o", "out", "--sdk", str(standin_sdk.path)]
    refused(blinkc(*args), "out/counter/counter.ino", "no record", "--force")
    assert (out / "counter/counter.ino").read_text() == MINE

    forced = blinkc(*args, "--force")
    assert "#include <blinklib.h>" in (out / "counter/counter.ino").read_text(), forced.output


def test_build_game_refuses_to_overwrite_its_sketch_once_edited(game: Path, standin_sdk,
                                                               tmp_path: Path):
    require_tools(*AVR_TOOLS)
    args = ["build", "counter.py", "-o", "out", "--sdk", str(standin_sdk.path)]
    assert blinkc(*args).exit_code == 0
    ino = tmp_path / "out/counter/counter.ino"
    edited = ino.read_text() + "// my tweak\n"
    ino.write_text(edited)
    refused(blinkc(*args), "out/counter/counter.ino", "changed since blinkc wrote it", "--force")
    assert ino.read_text() == edited
    assert blinkc(*args, "--force").exit_code == 0
    assert "my tweak" not in ino.read_text()
    again = blinkc(*args)  # its own sketch again
    assert again.exit_code == 0, again.output


def test_build_onto_a_file_is_a_clear_error(sketch: Path, standin_sdk, tmp_path: Path):
    out = tmp_path / "out.hex"
    out.write_text("keep me")
    for force in ([], ["--force"]):
        refused(blinkc("build", str(sketch), "-o", str(out), "--sdk", str(standin_sdk.path), *force),
                str(out), "is a file, not a folder")
    assert out.read_text() == "keep me"


def test_build_into_a_folder_it_cannot_write(sketch: Path, standin_sdk, unwritable: Path):
    refused(blinkc("build", str(sketch), "-o", str(unwritable), "--sdk", str(standin_sdk.path)),
            "Cannot write to", str(unwritable))


def test_build_of_a_missing_source_leaves_no_folder_behind(standin_sdk, tmp_path: Path):
    refused(blinkc("build", str(tmp_path / "nope.ino"), "-o", str(tmp_path / "out"),
                   "--sdk", str(standin_sdk.path)), "does not exist")
    assert not (tmp_path / "out").exists()


def test_flash_builds_refuse_a_users_folder_and_say_what_to_do(game: Path, standin_sdk,
                                                              tmp_path: Path):
    (tmp_path / "build/counter").mkdir(parents=True)
    (tmp_path / "build/counter/notes.txt").write_text("mine")
    with pytest.raises(BuildError) as info:
        build_for_flash(game, sdk=standin_sdk)
    assert type(info.value).__name__ == "OutputRefused"
    assert "blinkc build" in str(info.value) and "-o" in str(info.value)
    assert (tmp_path / "build/counter/notes.txt").read_text() == "mine"


def test_flash_force_builds_into_a_users_folder_and_keeps_its_other_files(game: Path, standin_sdk,
                                                                         tmp_path: Path):
    (tmp_path / "build/counter").mkdir(parents=True)
    (tmp_path / "build/counter/notes.txt").write_text("mine")
    hex_path = build_for_flash(game, sdk=standin_sdk, force=True)
    assert hex_path.exists() and hex_path.parent == tmp_path / "build/counter"
    assert (tmp_path / "build/counter/notes.txt").read_text() == "mine"
