"""The Python blinklib model (blinkc.blinklib) reproduces every number of docs/platform.md."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blinkc.blinklib import Blinklib, Xorshift32
from blinkc.blinklib.arith import I16, U8, U16, c_div, c_mod, common_type
from blinkc.blinklib.color import (
    BLUE,
    CYAN,
    GREEN,
    MAGENTA,
    OFF,
    ORANGE,
    RED,
    WHITE,
    YELLOW,
    channels,
    dim,
    lighten,
    makeColorHSB,
    makeColorRGB,
)
from blinkc.blinklib.mathfns import map_range, sin8_C


def test_random5_sequence_from_power_up():
    rng = Xorshift32()
    assert [rng.random(5) for _ in range(10)] == [1, 4, 2, 2, 4, 3, 0, 0, 0, 1]


def test_random_word_sequence_from_power_up():
    rng = Xorshift32()
    assert [rng.random_word() for _ in range(5)] == [19811, 52090, 22944, 22142, 45281]


def test_every_tile_starts_with_the_same_sequence():
    a, b = Blinklib(entropy=1), Blinklib(entropy=99)
    assert [a.random(100) for _ in range(20)] == [b.random(100) for _ in range(20)]


def test_randomize_gives_tiles_different_sequences_and_costs_half_a_second():
    a, b = Blinklib(entropy=1), Blinklib(entropy=99)
    a.randomize()
    b.randomize()
    assert [a.random(1000) for _ in range(5)] != [b.random(1000) for _ in range(5)]
    assert a.extra_cpu_ms == 512


@given(st.integers(0, 65534))
def test_random_is_inclusive_and_bounded(limit):
    rng = Xorshift32()
    assert all(0 <= rng.random(limit) <= limit for _ in range(20))


def test_random_reaches_its_limit():
    rng = Xorshift32()
    assert {rng.random(3) for _ in range(200)} == {0, 1, 2, 3}


@pytest.mark.parametrize("args, expected", [
    ((3000, 0, 6000, 0, 255), 127),
    ((6000, 0, 6000, 0, 255), 255),
    ((1, 0, 2, 0, 4), 2),
    ((9000, 0, 6000, 0, 255), 255),   # clamped above
    ((5, 10, 20, 100, 200), 100),     # clamped below
])
def test_map_examples(args, expected):
    assert map_range(*args) == expected


@pytest.mark.parametrize("theta, expected", [
    (0, 128), (16, 177), (32, 218), (64, 255), (128, 128), (192, 1), (255, 125),
])
def test_sin8(theta, expected):
    assert sin8_C(theta) == expected


def test_hsb_example():
    assert channels(makeColorHSB(35, 200, 255)) == (31, 27, 6)


def test_hsb_without_saturation_is_grey():
    assert channels(makeColorHSB(123, 0, 200)) == (25, 25, 25)


def test_rgb_shifts_right_by_three():
    assert channels(makeColorRGB(255, 128, 7)) == (31, 16, 0)


def test_dim_and_lighten():
    assert channels(dim(WHITE, 128)) == (15, 15, 15)
    assert channels(dim(ORANGE, 255)) == (31, 15, 0)
    assert channels(lighten(OFF, 255)) == (31, 31, 31)
    # channel + (31 - channel) * b / 255: 10 + 21 * 128 // 255 = 20
    assert channels(lighten(makeColorRGB(80, 0, 248), 128)) == (20, 15, 31)


def test_named_colours():
    assert [channels(c) for c in (RED, ORANGE, YELLOW, GREEN, CYAN, BLUE, MAGENTA, WHITE, OFF)] == [
        (31, 0, 0), (31, 15, 0), (31, 31, 0), (0, 31, 0), (0, 31, 31), (0, 0, 31),
        (31, 0, 31), (31, 31, 31), (0, 0, 0)]


def test_face_values_clamp_not_wrap():
    b = Blinklib()
    b.setValueSentOnFace(64, 2)
    assert b.out_value[2] == 63
    b.setValueSentOnAllFaces(200)
    assert b.out_value == [63] * 6
    b.setValueSentOnFace(300, 1)  # a byte parameter: 300 is 44 by the time it arrives
    assert b.out_value[1] == 44


def test_power_up_face_values_are_zero():
    assert Blinklib().out_value == [0] * 6


def test_avr_int_is_16_bit():
    assert I16.wrap(200 * 200) == -25536
    assert U8.wrap(-1) == 255
    assert U16.wrap(70000) == 4464
    assert common_type(U8, U8) == I16       # promotion to int
    assert common_type(U16, I16) == U16     # same width: unsigned wins
    assert c_div(-7, 2) == -3 and c_mod(-7, 2) == -1
