"""Low-byte locals: stored as bytes when only their low 8 bits are ever used, exactly."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blinkc.backends.python import program_class
from blinkc.blinklib.api import Blinklib
from blinkc.dsl.loader import compile_game
from blinkc.ir import optimize as optimize_module
from blinkc.ir.demanded import low_byte_locals
from blinkc.ir.nodes import Local
from blinkc.ir.walk import walk_stmts

# A display-style computation: a 32-bit clock, of which only the low byte matters.
GAME = '''
from blinkc.dsl import Game, faces, makeColorRGB

game = Game("lowbyte")
speed = game.field(range(0, 4), default=0)


@game.derived(range(0, 256))
def ripple(t):
    now = t.now >> 3
    if t.speed == 2:
        now = t.now >> 1
    total = 0
    for f in faces():
        phase = (now + f * 40) & 255
        wave = phase & 127
        if phase & 128:
            wave = 127 - wave
        total = (total + wave) & 255
    return total


@game.derived(range(0, 256))
def coarse(t):
    later = t.now + 300
    return (later >> 8) & 255


@game.display
def look(t):
    t.color(0, makeColorRGB(0, 0, t.ripple))
    if t.coarse & 1:
        t.color(1, makeColorRGB(0, 0, 255))
'''


@pytest.fixture(scope="module")
def game_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("lowbyte") / "lowbyte.py"
    path.write_text(GAME)
    return path


def _function(program, name):
    return next(f for f in program.functions if f.name.endswith(name))


def _local_bits(function) -> dict[str, int]:
    return {s.name: s.type.bits for s in walk_stmts(function.body) if isinstance(s, Local)}


def test_only_locals_used_through_their_low_byte_become_bytes(both):
    narrowed, wide = both
    # `now` holds millis() >> 3: only its use, never its range, lets it be a byte.
    assert "now" in low_byte_locals(_function(wide, "ripple"))
    assert _local_bits(_function(wide, "ripple"))["now"] == 32
    # `phase` is `... & 255`: its range alone makes it a byte, although t.now is 32-bit.
    assert _local_bits(_function(wide, "ripple"))["phase"] == 8
    bits = _local_bits(_function(narrowed, "ripple"))
    assert (bits["now"], bits["phase"], bits["wave"]) == (8, 8, 8)
    # `later` is shifted right before the mask: its high bits matter, so it keeps its 32 bits.
    assert low_byte_locals(_function(wide, "coarse")) == set()
    assert _local_bits(_function(narrowed, "coarse"))["later"] == 32


def _evaluate(program, now: int, speed: int) -> tuple[int, int]:
    tile = program_class(program)()
    api = Blinklib()
    tile.setup(api)
    tile.speed = speed
    api.now = now
    return tile.value(api, "ripple"), tile.value(api, "coarse")


@pytest.fixture(scope="module")
def both(game_file):
    """The game compiled with and without byte locals."""
    narrowed = compile_game(game_file)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(optimize_module, "low_byte_locals", lambda f: set())
        wide = compile_game(game_file)
    return narrowed, wide


def test_the_comparison_is_between_different_code(both):
    narrowed, wide = both
    assert _function(narrowed, "ripple") != _function(wide, "ripple")


@settings(max_examples=300, deadline=None)
@given(now=st.integers(0, 2**32 - 1), speed=st.integers(0, 3))
def test_byte_locals_compute_exactly_what_the_wide_ones_did(both, now, speed):
    narrowed, wide = both
    assert _evaluate(narrowed, now, speed) == _evaluate(wide, now, speed)
