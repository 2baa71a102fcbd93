"""One small test per mistake with values wider than a code (wide messages, valued floods,
gathers): each gives file:line, what is wrong, and a hint."""

import textwrap

import pytest

from blinkc.dsl import lower_game

HEADER = """\
from blinkc.dsl import *
game = Game("g")
hp = game.field(range(0, 6), default=5)
Flag = game.flood("Flag", payload=range(0, 1000))
Plain = game.flood("Plain")
Count = game.gather("Count", combine="sum", payload=range(0, 64))

@game.display
def look(t):
    t.color_all(BLUE)
"""
HEADER_LINES = HEADER.count("\n")


def errors_of(tmp_path, body: str, header: str = HEADER):
    path = tmp_path / "game.py"
    path.write_text(header + textwrap.dedent(body))
    result = lower_game(path)
    return path, result.errors


def line_of(body: str, marker: str) -> int:
    for i, line in enumerate(textwrap.dedent(body).splitlines(), start=HEADER_LINES + 1):
        if marker in line:
            return i
    raise AssertionError(marker)


CASES = [
    # (name, body, marker on the offending line, words in the message, words in the hint)
    ("flood value missing", """
        @game.on_click
        def f(t):
            t.flood(Flag)  # here
        """, "# here", "the flood Flag carries a value: pass it", "t.flood(Flag, value)"),
    ("flood value given to a plain flood", """
        @game.on_click
        def f(t):
            t.flood(Plain, 3)  # here
        """, "# here", "the flood Plain carries no value", "payload=range(16)"),
    ("value given to a gather", """
        @game.on_click
        def f(t):
            t.flood(Count, 3)  # here
        """, "# here", "the gather Count carries no value", "@game.on_flood"),
    ("flood value outside its range", """
        @game.on_click
        def f(t):
            t.flood(Flag, 1000)  # here
        """, "# here", "value 1000 is outside Flag's range 0..999", "widen payload"),
    ("colour as a flood value", """
        @game.on_click
        def f(t):
            t.flood(Flag, RED)  # here
        """, "# here", "a colour cannot be a value", "0..999"),
    ("flood value with side effects", """
        @game.on_click
        def f(t):
            t.flood(Flag, t.random(5))  # here
        """, "# here", "a value must not have side effects", "local first"),
    ("valued flood handler without the value", """
        @game.on_flood(Flag)
        def f(t):  # here
            t.hp = 1
        """, "# here", "a flood handler takes (t, value)", "def f(t, value):"),
    ("gather handler that does not return", """
        @game.on_flood(Count)
        def f(t):  # here
            t.hp = 1
        """, "# here", "must return this tile's value for the gather 'Count'", "0..63"),
    ("gather done handler without the total", """
        @game.on_flood_done(Count)
        def f(t):  # here
            t.hp = 1
        """, "# here", "a flood done handler takes (t, total)", "def f(t, total):"),
]


@pytest.mark.parametrize("name, body, marker, message, hint", CASES, ids=[c[0] for c in CASES])
def test_mistake_reports_file_line_and_hint(tmp_path, name, body, marker, message, hint):
    path, errors = errors_of(tmp_path, body)
    assert errors, f"{name}: no error reported"
    e = errors[0]
    assert e.loc.file == str(path)
    assert e.loc.line == line_of(body, marker), str(e)
    assert message in e.message, str(e)
    assert hint in e.hint, str(e)


DECLARATIONS = [
    ("unknown combination", 'G = game.gather("G", combine="avg")\n',
     "a gather combines with one of 'sum', 'min', 'max', 'or', 'count', not 'avg'",
     'game.gather("G", combine="sum")'),
    ("gather from 1", 'G = game.gather("G", payload=range(1, 10))\n',
     "the payload of gather 'G' starts at 0, not 1", "payload=range(0, 10)"),
    ("payload over 16 bits", 'Big = game.message("Big", payload=range(0, 70000))\n',
     "the payload of message 'Big' needs more than 16 bits: 0..69,999", "65,536 values"),
    ("flood payload over 16 bits", 'Big = game.flood("Big", payload=range(-1, 65536))\n',
     "the payload of flood 'Big' needs more than 16 bits", "range(-32768, 32768)"),
    ("gather name", 'G = game.gather("two words")\n',
     "a gather's name is a word such as 'Count'", 'Count = game.gather("Count")'),
]


@pytest.mark.parametrize("name, decl, message, hint", DECLARATIONS,
                         ids=[c[0] for c in DECLARATIONS])
def test_declaration_mistakes(tmp_path, name, decl, message, hint):
    path, errors = errors_of(tmp_path, decl)
    assert errors
    e = errors[0]
    assert e.loc.file == str(path) and e.loc.line == HEADER_LINES + 1, str(e)
    assert message in e.message and hint in e.hint, str(e)


def test_a_wide_message_longer_than_the_queue_is_refused(tmp_path):
    header = HEADER.replace('Game("g")', 'Game("g", queue_len=2)')
    _, errors = errors_of(tmp_path, 'Big = game.message("Big", payload=range(0, 4096))\n',
                             header)
    assert errors
    e = errors[0]
    assert e.loc.line == HEADER_LINES + 1, str(e)
    assert "the wide message 'Big' takes 4 places in the queue (its 3 data codes and its " \
           "code), but the queue has 2" in e.message
    assert 'Game("g", queue_len=12)' in e.hint


def test_a_payload_that_does_not_fit_plain_goes_wide_and_one_that_fits_stays_plain(tmp_path):
    path = tmp_path / "game.py"
    path.write_text(HEADER + 'Small = game.message("Small", payload=range(3))\n'
                             'Big = game.message("Big", payload=range(0, 256))\n')
    program = lower_game(path).program
    assert program is not None
    wide = {w.name: w.kind for w in program.wide_values}
    assert wide == {"Big": "message", "Flag": "flood", "Count": "gather"}
    labels = [label for _, label in program.codes]
    assert labels[:4] == ["Small(0)", "Small(1)", "Small(2)", "Big (0..255, after 3 data codes)"]
