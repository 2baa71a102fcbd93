"""Constants mean the same in the C++ on the host as on the tile.

Found by the optimiser fuzzer: `32768 > t.a0` with a 32-bit signed a0 rendered as
`32768U > a0`; 32768U is a 16-bit unsigned int on the tile (so the comparison is made in
long, as the IR says) but a 32-bit one on the host, where it made the comparison unsigned
(-40000 became 4,294,927,296).
"""

from blinkc.backends.cpp import generate_cpp
from blinkc.backends.python import program_class
from blinkc.blinklib.api import Blinklib
from blinkc.dsl.loader import compile_game
from blinkc.native import avr_compile_check, sketch_from_text
from blinkc.native.game import native_class

from ..tools import require_tool

GAME = """\
from blinkc.dsl import *
game = Game("consts")
a = game.field(range(-40000, 40000), default=-40000)

@game.derived(bool)
def below(t):
    return 32768 > t.a

@game.derived(range(-2**31, 2**31))
def sum(t):
    return t.a + 40000

@game.display
def look(t):
    if t.below or t.sum == 3:
        t.color_all(RED)
"""


def compiled(tmp_path, name, source):
    """The game's program, its C++ and its two tile classes (native, Python)."""
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    program = compile_game(path)
    return path, generate_cpp(program), native_class(program, path), program_class(program)


def value(cls, name):
    tile = cls()
    api = Blinklib()
    tile.setup(api)
    return tile.value(api, name)


def test_a_16_bit_unsigned_constant_in_32_bit_signed_arithmetic_is_a_long(tmp_path):
    require_tool("g++")
    _, text, native, python = compiled(tmp_path, "consts", GAME)
    assert "32768L > a" in text
    assert value(python, "below") is True and value(native, "below") is True
    assert value(python, "sum") == 0 == value(native, "sum")


NAMED = """\
from blinkc.dsl import *
game = Game("named")
a = game.field(range(-40000, 40000), default=-40000)
BIG = 40000

@game.derived(bool)
def below(t):
    return t.a < BIG

@game.derived(range(-2**31, 2**31))
def big(t):
    return BIG

@game.display
def look(t):
    if t.below and t.big == BIG:
        t.color_all(RED)
"""


def test_a_16_bit_unsigned_name_is_said_alone_where_c_converts_it_at_once(tmp_path):
    """A name beyond int (declared uint16_t: an unsigned int on the tile, an int on the host)
    needs no `1U *` where C converts it at once to a type that holds it: compared with a
    32-bit variable, stored, returned (SURVEY_MAX, POINTS_MAX in the dispatch)."""
    require_tool("g++")
    _, text, native, python = compiled(tmp_path, "named", NAMED)
    assert "static const uint16_t BIG = 40000U;" in text
    assert "return a < BIG;" in text and "return BIG;" in text
    assert value(python, "below") is True and value(native, "below") is True
    assert value(python, "big") == 40000 == value(native, "big")


SIGNED = """\
from blinkc.dsl import *
game = Game("signed")
a = game.field(range(-300, 300), default=-5)
SWEET = 256

@game.derived(bool)
def above(t):
    return t.a > SWEET

@game.display
def look(t):
    if t.above:
        t.color_all(RED)
"""


def test_a_name_that_fits_an_int_compares_as_an_int_on_the_tile_too(tmp_path):
    """A game's 256..32,767 is an int in the IR, as the literal is in C; declared uint16_t (an
    unsigned int on the tile) it made `-5 > SWEET` an unsigned comparison there, true on the
    tile and false in the emulator, with avr-gcc's sign-compare warning."""
    require_tool("g++")
    require_tool("avr-gcc")
    path, text, native, python = compiled(tmp_path, "signed", SIGNED)
    assert "static const int16_t SWEET = 256;" in text
    assert avr_compile_check(sketch_from_text(text, "signed", path.with_suffix(".ino"))) == []
    assert value(python, "above") is False and value(native, "above") is False
