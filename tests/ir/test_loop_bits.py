"""Loop bits: face loops test mask bits through a bit that moves with the loop, exactly."""


import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blinkc.backends.cpp import generate_cpp
from blinkc.backends.python import program_class
from blinkc.blinklib.api import Blinklib
from blinkc.dsl.loader import compile_game
from blinkc.ir import optimize as optimize_module
from blinkc.ir.nodes import For
from blinkc.ir.walk import walk_stmts

GAME = '''
from blinkc.dsl import RED, Game, bit, faces

game = Game("masks")
lit = game.field(range(0, 64), default=0)
spin = game.field(range(0, 6), default=0)
f_bit = game.field(range(0, 2), default=1)  # takes the loop bit's natural name


@game.derived(range(0, 64))
def pattern(t):
    out = 0
    for f in faces():
        if bit(t.lit, f) and not bit(t.lit >> 1, f) and t.f_bit:
            out |= 1 << f
        for g in range(2):
            if bit(t.spin, g) and f == t.spin:
                out ^= 1 << f
    return out


@game.derived(range(0, 64))
def shifted(t):
    # A bound known only at run time: the loop keeps its shifts.
    total = 0
    for f in range(t.spin):
        if bit(t.lit, f):
            total += 1
    return total


@game.display
def look(t):
    if t.pattern + t.shifted > 3:
        t.color(0, RED)
'''


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    path = tmp_path_factory.mktemp("masks") / "masks.py"
    path.write_text(GAME)
    with_bits = compile_game(path)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(optimize_module, "with_loop_bits", lambda f, names=(): f)
        without = compile_game(path)
    return with_bits, without


def _loops(program, name):
    function = next(f for f in program.functions if f.name.endswith(name))
    return [s for s in walk_stmts(function.body) if isinstance(s, For)]


def test_face_loops_that_test_mask_bits_carry_the_bit(both):
    with_bits, _ = both
    outer, inner = _loops(with_bits, "pattern")
    # The field f_bit keeps its name: the loop's bit must not hide it in C++.
    assert outer.bit == "f_bit2" and inner.bit == "g_bit"
    code = generate_cpp(with_bits)
    start = code.index("value_pattern(void) {")
    pattern = code[start:code.index("\n}\n", start)]
    assert "for (uint8_t f = 0, f_bit2 = 1; f < FACE_COUNT; f++, f_bit2 <<= 1)" in pattern
    assert ">> f)" not in pattern and "<< f)" not in pattern


def test_the_comparison_is_between_different_code(both):
    with_bits, without = both
    assert all(loop.bit is None for loop in _loops(without, "pattern"))
    assert all(loop.bit is None for loop in _loops(with_bits, "shifted"))


def _evaluate(program, lit: int, spin: int, f_bit: int) -> tuple[int, int]:
    tile = program_class(program)()
    api = Blinklib()
    tile.setup(api)
    tile.lit, tile.spin, tile.f_bit = lit, spin, f_bit
    return tile.value(api, "pattern"), tile.value(api, "shifted")


@settings(max_examples=200, deadline=None)
@given(lit=st.integers(0, 63), spin=st.integers(0, 5), f_bit=st.integers(0, 1))
def test_loop_bits_compute_exactly_what_the_shifts_did(both, lit, spin, f_bit):
    with_bits, without = both
    assert _evaluate(with_bits, lit, spin, f_bit) == _evaluate(without, lit, spin, f_bit)
