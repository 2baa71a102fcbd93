"""The lints (warnings from value ranges) read the author's code as written, before the
optimiser narrows types; a `# blinkc: ignore` comment silences a warning on its line."""

import textwrap

import pytest

from blinkc.dsl import lower_game
from blinkc.dsl import lowering as lowering_module

HEADER = """\
from blinkc.dsl import *
game = Game("g")
score = game.field(range(0, 100), default=0)
big = game.field(range(0, 70000), default=0)
wide = game.field(range(-2**31, 2**31), default=0)

@game.display
def look(t):
    t.color_all(BLUE)
"""


def lower(tmp_path, body: str):
    path = tmp_path / "game.py"
    path.write_text(HEADER + textwrap.dedent(body))
    return lower_game(path)


def wraps(result):
    return [w for w in result.warnings if "wraps around" in w.message]


def test_overflow_warnings_speak_of_the_types_the_author_wrote(tmp_path):
    # t.big * 200 is a uint32_t product that cannot wrap; the optimiser computes only its low
    # byte (in int16_t), which is no business of the author's.
    result = lower(tmp_path, """
        @game.on_click
        def press(t):
            x: u8 = t.big * 200
            t.score = x & 63
        """)
    assert result.errors == [] and wraps(result) == [], wraps(result)


def test_a_real_overflow_still_warns_in_the_authors_type(tmp_path):
    result = lower(tmp_path, """
        @game.on_click
        def press(t):
            t.score = t.score * 1000 // 100
        """)
    (w,) = wraps(result)
    assert "can reach 99,000, beyond int16_t" in w.message


def test_the_loop_lint_does_not_depend_on_the_optimiser(tmp_path, monkeypatch):
    # A stop the ranges bound (a mask of a mask) is accepted with and without the optimiser
    # (the fuzzer compiles each game both ways).
    body = """
        @game.on_click
        def press(t):
            n: i16 = ((t.wide + t.score) & 127) & 7
            for i in range(3, n):
                t.score += 1
        """
    assert lower(tmp_path, body).errors == []
    monkeypatch.setattr(lowering_module, "optimize", lambda program: program)
    assert lower(tmp_path, body).errors == []


@pytest.mark.parametrize("comment", ["# blinkc: ignore", "#blinkc:ignore", "# ok: blinkc: ignore"])
def test_blinkc_ignore_silences_a_warning_on_its_line(tmp_path, comment):
    result = lower(tmp_path, f"""
        @game.on_click
        def press(t):
            t.score = t.score * 1000 // 100  {comment}
            t.score = t.score * 2000 // 100
        """)
    assert result.errors == []
    (w,) = wraps(result)  # the second line's warning stays
    assert "198,000" in w.message
    (s,) = result.silenced
    assert "99,000" in s.message


def test_blinkc_ignore_does_not_silence_an_error(tmp_path):
    result = lower(tmp_path, """
        @game.on_click
        def press(t):
            t.score = 2.5  # blinkc: ignore
        """)
    assert [e.message for e in result.errors] == ["there is no floating point on the tile"]


def test_blinkc_ignore_silences_a_declaration_warning(tmp_path):
    result = lower(tmp_path, 'Ping = game.message("Ping")  # blinkc: ignore\n')
    assert result.errors == [] and result.warnings == []
    assert len(result.silenced) == 2
