"""A game's name becomes its sketch's folder and file name (`OUT/<name>/<name>.ino`), so it must
be a plain file name: one that cannot point outside OUT, is not empty, and works on every OS."""

import pytest
from click.testing import CliRunner

from blinkc.cli import main
from blinkc.dsl import lower_game

GAME = """\
from blinkc.dsl import *
game = Game({name})

@game.display
def look(t):
    t.color_all(BLUE)
"""

BAD = {
    "parent folder": ("'../escaped'", "'/'"),
    "absolute path": ("'/tmp/abs'", "'/'"),
    "sub-folder": ("'a/b'", "'/'"),
    "backslash": ("'a\\\\b'", "'\\\\'"),
    "empty": ("''", "empty"),
    "dot": ("'.'", "start with a letter or a digit"),
    "hidden": ("'.game'", "start with a letter or a digit"),
    "space": ("'my game'", "' '"),
    "dash first": ("'-x'", "start with a letter or a digit"),
    "trailing dot": ("'x.'", "end with '.'"),
    "too long": ("'a' * 64", "63"),
    "windows device": ("'con'", "reserved"),
    "not a string": ("5", "a string"),
}


@pytest.mark.parametrize("name,expected", BAD.values(), ids=BAD.keys())
def test_a_name_that_is_no_plain_file_name_is_an_error_at_the_game_line(tmp_path, name, expected):
    path = tmp_path / "game.py"
    path.write_text(GAME.format(name=name))
    errors = lower_game(path).errors
    assert len(errors) == 1, errors
    text = str(errors[0])
    assert text.startswith(f"{path}:2: error: ") and expected in text
    assert 'Game("my_game")' in text  # the hint


@pytest.mark.parametrize("name", ["pirates_lasers", "Game2", "9lives", "tic-tac-toe", "v1.2"])
def test_plain_names_are_accepted(tmp_path, name):
    path = tmp_path / "game.py"
    path.write_text(GAME.format(name=repr(name)))
    result = lower_game(path)
    assert result.errors == [] and result.program.name == name


@pytest.mark.parametrize("name", ["'../escaped'", "ABSOLUTE", "''"])
def test_gen_writes_nothing_for_a_bad_name(tmp_path, name, monkeypatch):
    monkeypatch.chdir(tmp_path)
    if name == "ABSOLUTE":
        name = repr(str(tmp_path / "abs"))
    (tmp_path / "game.py").write_text(GAME.format(name=name))
    before = set(tmp_path.rglob("*"))
    done = CliRunner().invoke(main, ["gen", "game.py", "-o", "out"])
    assert done.exit_code == 1 and "game.py:2: error" in done.output
    assert "Traceback" not in done.output
    assert set(tmp_path.rglob("*")) == before
