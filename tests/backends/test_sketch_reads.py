"""The generated sketch reads as a careful Blinks developer would write it: whole sentences
for function comments, one origin comment per function (per line only when asked for),
constants declared only when used, and no line past 120 columns."""

import re
from pathlib import Path

import pytest

from blinkc.backends.cpp import first_sentence, generate_cpp
from blinkc.games import load_program

ROOT = Path(__file__).resolve().parents[2]
GAMES = sorted((ROOT / "firmware").glob("*.py")) + sorted((ROOT / "tests" / "golden" / "games").glob("*.py"))


@pytest.fixture(scope="module", params=GAMES, ids=[g.stem for g in GAMES])
def sketch(request) -> tuple[str, str]:
    game = request.param
    return game.stem, generate_cpp(load_program(game), source=game.name)


def test_no_line_runs_past_120_columns(sketch):
    name, text = sketch
    long = [line for line in text.splitlines() if len(line) > 120]
    assert not long, f"{name}: {len(long)} lines over 120 columns, e.g. {long[0]!r}"


def test_code_lines_carry_no_origin_comment_by_default(sketch):
    name, text = sketch
    bodies = re.findall(r"^\S[^\n]*\) \{\n(.*?)^\}", text, re.M | re.S)
    assert len(bodies) > 5
    tagged = [ln for body in bodies for ln in body.splitlines() if re.search(r"//\s*\w+\.py:\d+", ln)]
    assert not tagged, f"{name}: {tagged[:2]}"
    # The function's own comment says where it comes from.
    assert re.search(rf"^// .*\[{name}\.py:\d+\]$", text, re.M)


def test_line_directives_put_an_origin_on_each_line():
    program = load_program(ROOT / "firmware" / "pirates_lasers.py")
    text = generate_cpp(program, line_directives=True)
    assert "hp = FULL_HP;  // pirates_lasers.py:" in text
    assert "#line " in text


def test_engine_constants_are_declared_only_where_the_code_says_them(sketch):
    name, text = sketch
    declared = re.findall(r"^static const \w+ (\w+) = ", text, re.M)
    for constant in declared:
        uses = re.findall(rf"\b{constant}\b", text)
        assert len(uses) > 1, f"{name}: {constant} is declared and never used"


def test_function_comments_are_whole_sentences():
    assert first_sentence("Seed the coin from the tile's serial number: every tile tosses\n"
                          "its own sequence. Then more.") == (
        "Seed the coin from the tile's serial number: every tile tosses its own sequence.")
    assert first_sentence("A bit, e.g. this one, and i.e. that.\n\nOther paragraph.") == (
        "A bit, e.g. this one, and i.e. that.")
    text = generate_cpp(load_program(ROOT / "firmware" / "pirates_lasers.py"))
    # Its docstring's first line stops at "one step of a": the comment goes on to the end.
    assert "else one step of a 16-bit Galois\n// LFSR (period 65,535).  [protocol.py:" in text


def test_no_lower_case_object_like_macros(sketch):
    """The engine's table rows are named by an enum of row indices (engine_bytes6[TX_CODE][f]),
    not by `#define tx_code (engine_bytes6[1])` (which hid the names from the compiler)."""
    name, text = sketch
    macros = re.findall(r"^#define ([a-z]\w*)\b(?!\()", text, re.M)
    assert not macros, f"{name}: {macros}"


def test_face_loops_and_locals_are_declared_as_a_developer_would(sketch):
    """A face loop as the SDK spells it (FOREACH_FACE, or FACE_COUNT when it carries a bit),
    never `f < 6`; no local zero-initialised at the top and then given its first value; a
    loop's counter (and the bit that moves with it, and its computed end) declared by the
    loop, `for (uint8_t i = 0; ...)`."""
    name, text = sketch
    assert not re.search(r"\w < 6;", text), name
    assert not re.findall(r"for \(\w+ = .*", text), name
    for body in re.findall(r"^\S[^\n]*\) \{\n(.*?)^\}", text, re.M | re.S):
        top = re.findall(r"^    (?:u?int\d+_t|bool) (\w+) = 0;$", body, re.M)
        for local in top:
            # Declared at the top only when its first value is not given in the same block.
            assert not re.search(rf"^    {local} = ", body, re.M), (name, local)


LOOPS = """\
from blinkc.dsl import *
game = Game("loops")
n = game.field(range(0, 7), default=3)

@game.derived(range(0, 256))
def total(t):
    acc = 0
    for i in range(t.n):
        acc += i
    for i in range(t.n + 1):
        for j in range(i):
            acc += j
    return acc

@game.display
def look(t):
    t.color_all(RED if t.total > 4 else BLUE)
"""


def test_two_loops_of_one_counter_each_declare_it_and_compute_alike(tmp_path):
    """Two loops of `i` with computed ends in one function: each loop declares its `i`, and
    the ends stay declared once at the top (two `uint8_t i_end` in one block would not
    compile); the tile's C++ counts as Python does."""
    from blinkc.backends.python import program_class
    from blinkc.blinklib.api import Blinklib
    from blinkc.dsl.loader import compile_game
    from blinkc.native.game import native_class

    from ..tools import require_tool

    require_tool("g++")
    path = tmp_path / "loops.py"
    path.write_text(LOOPS)
    program = compile_game(path)
    text = generate_cpp(program)
    assert text.count("for (uint8_t i = 0; i < i_end; i++) {") == 2
    assert text.count("for (uint8_t j = 0; j < j_end; j++) {") == 1
    assert "    uint8_t i_end = 0;" in text and "uint8_t j_end = i;" in text
    totals = []
    for cls in (program_class(program), native_class(program, path)):
        tile, api = cls(), Blinklib()
        tile.setup(api)
        totals.append(tile.value(api, "total"))
    assert totals == [(0 + 1 + 2) + (0 + 0 + (0 + 1) + (0 + 1 + 2))] * 2


def test_pirates_and_lasers_reads_its_face_loops_with_foreach_face():
    text = generate_cpp(load_program(ROOT / "firmware" / "pirates_lasers.py"))
    assert "    bool alone = true;\n    bool hull_near = kind == HULL;\n    FOREACH_FACE(f) {" in text


def test_a_mask_keeps_the_radix_it_was_written_in():
    text = generate_cpp(load_program(ROOT / "firmware" / "pirates_lasers.py"))
    assert "static const uint8_t RED_FACES_EVEN = 0b010101;" in text
    assert "static const uint8_t FULL_HP = 5;" in text  # decimal stays decimal


def test_a_count_that_goes_round_is_a_named_helper():
    text = generate_cpp(load_program(ROOT / "firmware" / "pirates_lasers.py"))
    assert "    kind = next_wrapped(kind, 3);" in text
    assert ">= 3) ?" not in text


def test_a_boolean_is_tested_as_itself(sketch):
    """One spelling of a boolean test: `if (their_ack)` and `!their_ack`, never `!= false`,
    `== 0` or `== true` on a bool (a bool parameter was tested as a number)."""
    name, text = sketch
    assert not re.findall(r"[!=]= (?:false|true)\b", text), name
    assert "their_ack == 0" not in text and "their_ack != 0" not in text, name
