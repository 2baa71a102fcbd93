"""platform.txt / boards.txt parsing and recipe expansion."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from blinkc.build.platform import Properties, board_properties, split_command

from .helpers import STANDIN


def test_parse_skips_comments_and_prefers_this_os_values():
    props = Properties.parse(
        "# comment\nname=Move38\ntool.cmd=avr-gcc\ntool.cmd.windows=avr-gcc.exe\n"
        "tool.cmd.linux=avr-gcc-linux\nbad line\nempty=\n",
        os_suffix="linux",
    )
    assert props == {"name": "Move38", "tool.cmd": "avr-gcc-linux", "empty": ""}


def test_expand_is_recursive_and_leaves_unknown_variables_visible():
    props = Properties({"a": "{b}/x", "b": "{c}", "c": "root"})
    assert props.expand("{a} {unknown}") == "root/x {unknown}"


def test_split_command_groups_quotes_and_keeps_backslashes():
    line = '"C:\\avr gcc\\bin\\avr-gcc" -c  -DX=1 "-I/a b" \'-o\' "" end'
    assert split_command(line) == [
        "C:\\avr gcc\\bin\\avr-gcc",
        "-c",
        "-DX=1",
        "-I/a b",
        "-o",
        "",
        "end",
    ]


def test_board_entries_override_platform_and_local_overrides_both(tmp_path: Path):
    (tmp_path / "platform.txt").write_text("name=P\nbuild.extra_flags=\nx=platform\n")
    (tmp_path / "boards.txt").write_text("blink.name=Board\nblink.x=board\nother.x=other\n")
    assert board_properties(tmp_path)["x"] == "board"
    assert board_properties(tmp_path)["name"] == "Board"  # why the SDK's name is read separately
    (tmp_path / "platform.local.txt").write_text("x=local\n")
    assert board_properties(tmp_path)["x"] == "local"


def test_standin_compile_recipe_expands_completely():
    props = board_properties(STANDIN)
    props.update(
        {
            "runtime.tools.avr-gcc.path": "/usr",
            "runtime.ide.version": "10607",
            "build.arch": "AVR",
            "includes": '"-I/core dir"',
            "source_file": "/s/a.cpp",
            "object_file": "/o/a.cpp.o",
        }
    )
    argv = split_command(props.expand(props["recipe.cpp.o.pattern"]))
    assert argv[0] == "/usr/bin/avr-g++"
    assert "-mmcu=atmega168pb" in argv and "-DARDUINO_AVR_BLINK" in argv
    assert "-I/core dir" in argv and argv[-3:] == ["/s/a.cpp", "-o", "/o/a.cpp.o"]
    assert not any("{" in a for a in argv)


@pytest.mark.skipif(not os.environ.get("BLINKS_SDK"), reason="set BLINKS_SDK to read a real SDK")
def test_real_sdk_has_the_recipes_blinkc_expands():
    props = board_properties(Path(os.environ["BLINKS_SDK"]))
    for key in (
        "recipe.cpp.o.pattern",
        "recipe.S.o.pattern",
        "recipe.ar.pattern",
        "recipe.c.combine.pattern",
        "recipe.objcopy.hex.pattern",
    ):
        assert key in props
    assert "--change-addresses" in props["compiler.elf2hex.flags"]
