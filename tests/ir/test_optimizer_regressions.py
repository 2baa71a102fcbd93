"""Bugs the optimiser fuzzer (test_optimizer_fuzz.py) found, each reduced to a small game."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from blinkc.backends.cpp import generate_cpp
from blinkc.backends.python import program_class
from blinkc.blinklib.api import Blinklib
from blinkc.dsl.loader import compile_game
from blinkc.ir.nodes import Cond, Local
from blinkc.ir.ranges import Ranges
from blinkc.ir.types import ColorType

from .test_optimizer_fuzz import reference_values


def _compile(tmp_path: Path, text: str):
    path = tmp_path / "game.py"
    path.write_text(text)
    return compile_game(path)


def _python_value(program, name: str, **fields) -> int:
    tile = program_class(program)()
    api = Blinklib()
    tile.setup(api)
    for k, v in fields.items():
        setattr(tile, k, v)
    return tile.value(api, name)


WRAPPED_OPERAND = '''
from blinkc.dsl import *

game = Game("wrapped")
a = game.field(range(0, 2), default=0)


@game.derived(range(-2**31, 2**31))
def five(t):
    return 5


@game.derived(range(-2**31, 2**31))
def product(t):
    x = t.five
    return (1 + x) * 0


@game.display
def look(t):
    if t.product == 1:
        t.color_all(RED)
'''


def test_a_signed_wrap_is_one_operand_in_python(tmp_path):
    # The Python backend wrapped signed values as `((v + h) & m) - h`, unparenthesised:
    # `(1 + x) * 0` became `((1 + x + h) & m) - h * 0`, which is 2**31 + 6, not 0.
    program = _compile(tmp_path, WRAPPED_OPERAND)
    assert reference_values(program, ["product"], {}, 0) == [0]
    assert _python_value(program, "product") == 0


COLOUR_LOCAL = '''
from blinkc.dsl import *

game = Game("colour_local")
lit = game.field(bool, default=False)


@game.display
def look(t):
    c = OFF
    if t.lit:
        c = RED
    t.color(0, c)
'''


def test_a_colour_local_stays_a_colour_when_its_values_fit_a_byte(tmp_path):
    # OFF and RED are 0 and 31 as words: the local's range fits a byte, and the optimiser
    # made it a uint8_t, which C++ cannot build from a Color (the sketch did not compile).
    program = _compile(tmp_path, COLOUR_LOCAL)
    local = next(s for s in program.function("show").body if isinstance(s, Local))
    assert isinstance(local.type, ColorType)
    assert "Color c = " in generate_cpp(program)


LOOP_BOUND = '''
from blinkc.dsl import *

game = Game("loop_bound")
n_max = game.field(range(0, 8), default=7)


@game.derived(range(0, 256))
def first(t):
    n = 0
    return n


@game.derived(range(-2**31, 2**31))
def second(t):
    n = t.n_max
    total = 0
    for i in range(n):
        total = i * 20000
    return total


@game.display
def look(t):
    if t.first + t.second == 1:
        t.color_all(RED)
'''


def test_loop_bounds_are_read_in_their_own_function(tmp_path):
    # Ranges.enter read a loop's bound `n` in the previous function's environment, where
    # `n` was 0: `i` was taken to be 0 and `i * 20000` never to wrap (Python returned
    # 120000, C++ 192, the tile -11072).
    program = _compile(tmp_path, LOOP_BOUND)
    ranges = Ranges(program)
    ranges.enter(program.function("value_first"))
    ranges.enter(program.function("value_second"))
    assert ranges.env["i"][1] >= 6
    expected = reference_values(program, ["second"], {"n_max": 7}, 0)[0]
    assert expected == -11072  # 120000 in int16_t
    assert _python_value(program, "second", n_max=7) == expected


RANDOM_TEST = '''
from blinkc.dsl import *

game = Game("random_test")


@game.derived(range(0, 65536))
def roll(t):
    return (t.random(9) * 30) if t.random(9) < 3 else 0


@game.display
def look(t):
    if t.roll == 1:
        t.color_all(RED)
'''


def test_a_test_on_a_random_draw_teaches_nothing_about_the_next_draw(tmp_path):
    # The C++ backend rendered the branch knowing random(9) < 3 there, so it computed
    # `random(9) * 30` in a byte: a second draw of 9 gave 270 & 255 = 14.
    program = _compile(tmp_path, RANDOM_TEST)
    cpp = generate_cpp(program)
    assert "(uint8_t)(random(9) * 30)" not in cpp
    ranges = Ranges(program)
    function = program.function("value_roll")
    ranges.enter(function)
    cond = function.body[-1].value
    assert isinstance(cond, Cond)
    assert ranges.of(cond)[1] >= 270


@pytest.mark.parametrize("seed", range(3))
def test_random_branches_agree_between_backends(tmp_path, seed):
    from blinkc.native.game import native_class

    from ..tools import require_tool

    require_tool("g++")
    program = _compile(tmp_path, RANDOM_TEST)
    python_tile, native_tile = program_class(program)(), native_class(program, tmp_path / "game.py")()
    apis = Blinklib(entropy=seed + 1), Blinklib(entropy=seed + 1)
    python_tile.setup(apis[0])
    native_tile.setup(apis[1])
    draws = [[tile.value(api, "roll") for _ in range(400)]
             for tile, api in zip((python_tile, native_tile), apis, strict=True)]
    assert draws[0] == draws[1]
    assert 270 in draws[0]


BYTE_PRODUCT = '''
from blinkc.dsl import *

game = Game("byte_product")
a = game.field(range(0, 65536), default=0)


@game.derived(bool)
def big(t):
    x = t.a & 255
    return x * x > 1000


@game.display
def look(t):
    if t.big:
        t.color_all(RED)
'''


def test_a_product_of_bytes_beyond_int_is_computed_in_its_own_type(tmp_path):
    # `x` holds 0..255, so the optimiser makes it a byte; `x * x` is a uint16_t operation
    # (up to 65,025), but C multiplies two bytes in int, which is 16 bits on the tile:
    # 255 * 255 overflowed to -511 and the tile found it smaller than 1000. The host, with
    # its 32-bit int, cannot see this; the sketch must say the type.
    program = _compile(tmp_path, BYTE_PRODUCT)
    assert reference_values(program, ["big"], {"a": 255}, 0) == [1]
    cpp = generate_cpp(program)
    assert re.search(r"uint8_t x = [^;]*;", cpp)  # a byte, declared where it is first given a value
    assert "(uint16_t)x * x > 1000" in cpp


NEGATIVE_STOP = '''
from blinkc.dsl import *

game = Game("negative_stop")
a = game.field(range(-50, 50), default=0)


@game.derived(range(0, 65536))
def count(t):
    n = 0
    for i in range(t.a):
        n += 1
    return n


@game.display
def look(t):
    if t.count == 3:
        t.color_all(RED)
'''


def test_a_loop_to_a_negative_stop_is_empty_in_cpp(tmp_path):
    # The C++ loop's end is a byte: range(-5) ran (uint8_t)-5 = 251 times.
    program = _compile(tmp_path, NEGATIVE_STOP)
    assert reference_values(program, ["count"], {"a": -5}, 0) == [0]
    assert _python_value(program, "count", a=-5) == 0
    assert "i_end = a < 0 ? 0 : (uint8_t)a;" in generate_cpp(program)


def test_a_negative_stop_natively(tmp_path):
    from blinkc.native.game import native_class

    from ..tools import require_tool

    require_tool("g++")
    program = _compile(tmp_path, NEGATIVE_STOP)
    cls = native_class(program, tmp_path / "game.py")
    for a in (-50, -5, 0, 7, 49):
        tile = cls()
        api = Blinklib()
        tile.setup(api)
        tile._cells["a"].value = a
        assert tile.value(api, "count") == max(a, 0)


UNSIGNED_TEST = '''
from blinkc.dsl import *

game = Game("unsigned_test")
a = game.field(range(0, 2), default=1)


@game.derived(range(0, 256))
def picked(t):
    # t.now % -2 is compared as a uint32: -129 is 4,294,967,167 there, so the test is false
    # for every time a test can run, and the else branch is taken.
    return 7 if (t.now % -2) >= -129 else 9


@game.display
def look(t):
    if t.picked == 1:
        t.color_all(RED)
'''


def test_a_test_decided_by_ranges_is_judged_in_the_comparisons_own_type(tmp_path):
    """Folding a conditional whose test the ranges decide must compare the constant as the
    comparison does: here in uint32, where -129 is a huge number (the fuzzer's game 6)."""
    program = _compile(tmp_path, UNSIGNED_TEST)
    assert _python_value(program, "picked") == 9
    assert reference_values(program, ["picked"], {}, 1000) == [9]
