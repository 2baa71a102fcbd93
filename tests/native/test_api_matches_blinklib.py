"""The native blinklib computes exactly what blinkc.blinklib computes (and the SDK's numbers)."""

from __future__ import annotations

import ctypes

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blinkc.blinklib import Blinklib, Xorshift32
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
    rgb5,
)
from blinkc.blinklib.mathfns import map_range, sin8_C

u8, u16, u32 = ctypes.c_uint8, ctypes.c_uint16, ctypes.c_uint32


def make_probe(probe_sketch):
    program = probe_sketch()
    api = Blinklib()
    api.now = 1000
    program.setup(api)  # copies power-up state (the random seed) into the tile
    lib = program.lib
    signatures = {
        "probe_map": ([u16] * 5, u16), "probe_sin8": ([u8], u8),
        "probe_hsb": ([u8] * 3, u16), "probe_rgb": ([u8] * 3, u16),
        "probe_dim": ([u16, u8], u16), "probe_lighten": ([u16, u8], u16),
        "probe_named": ([u8], u16), "probe_random": ([u16], u16),
        "probe_random_word": ([], u16), "probe_randomize": ([], None),
        "probe_send": ([u16, u8], None), "probe_send_all": ([u16], None),
        "probe_timer_set": ([u32], None), "probe_timer_add": ([u16], None),
        "probe_timer_never": ([], None), "probe_timer_expired": ([], u8),
        "probe_timer_remaining": ([], u32),
    }
    for name, (args, res) in signatures.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = args, res
    return program


@pytest.fixture(scope="module")
def probe(probe_sketch):
    """For pure functions: one tile for the whole module."""
    return make_probe(probe_sketch)


@pytest.fixture
def fresh(probe_sketch):
    """For stateful functions (random, timers, values): a tile fresh from power-up."""
    return make_probe(probe_sketch)


@pytest.mark.parametrize("args, expected", [
    ((3000, 0, 6000, 0, 255), 127), ((6000, 0, 6000, 0, 255), 255), ((1, 0, 2, 0, 4), 2),
    ((9000, 0, 6000, 0, 255), 255), ((5, 10, 20, 100, 200), 100),
])
def test_map_pinned_examples(probe, args, expected):
    assert probe.lib.probe_map(*args) == expected


def test_map_agrees_with_the_runtime_including_wrapping_spans(probe):
    cases = [(x, a, b, c, d)
             for x in (0, 1, 7, 300, 32767, 40000, 65535)
             for a, b in ((0, 6000), (0, 65535), (100, 100), (5, 3), (0, 2))
             for c, d in ((0, 255), (255, 0), (0, 65535), (10, 10), (1000, 4))]
    for args in cases:
        assert probe.lib.probe_map(*args) == map_range(*args), args


def test_sin8_over_every_angle(probe):
    assert [probe.lib.probe_sin8(t) for t in range(256)] == [sin8_C(t) for t in range(256)]
    assert [probe.lib.probe_sin8(t) for t in (0, 16, 32, 64, 128, 192, 255)] == [
        128, 177, 218, 255, 128, 1, 125]


def test_hsb_rgb_and_named_colours(probe):
    assert channels(probe.lib.probe_hsb(35, 200, 255)) == (31, 27, 6)
    for h in range(0, 256, 5):
        for s in (0, 1, 100, 200, 255):
            for v in (0, 77, 255):
                assert probe.lib.probe_hsb(h, s, v) == makeColorHSB(h, s, v), (h, s, v)
    for r, g, b in ((255, 128, 7), (8, 16, 24), (0, 0, 0)):
        assert probe.lib.probe_rgb(r, g, b) == makeColorRGB(r, g, b)
    named = (RED, ORANGE, YELLOW, GREEN, CYAN, BLUE, MAGENTA, WHITE, OFF)
    assert [probe.lib.probe_named(i) for i in range(9)] == list(named)


def test_dim_and_lighten(probe):
    assert channels(probe.lib.probe_dim(WHITE, 128)) == (15, 15, 15)
    for c in (WHITE, ORANGE, rgb5(10, 0, 31), rgb5(1, 2, 3)):
        for b in (0, 1, 64, 128, 254, 255):
            assert probe.lib.probe_dim(c, b) == dim(c, b)
            assert probe.lib.probe_lighten(c, b) == lighten(c, b)


def test_random_sequences_from_power_up(fresh):
    assert [fresh.lib.probe_random(5) for _ in range(10)] == [1, 4, 2, 2, 4, 3, 0, 0, 0, 1]


def test_random_word_and_limits_follow_the_runtime_generator(fresh):
    rng = Xorshift32()
    assert [fresh.lib.probe_random_word() for _ in range(5)] == [
        rng.random_word() for _ in range(5)]
    for limit in (0, 1, 2, 5, 100, 1000, 32767, 65534, 65535):
        assert [fresh.lib.probe_random(limit) for _ in range(8)] == [
            rng.random(limit) for _ in range(8)], limit


def test_value_clamping(fresh):
    fresh.lib.probe_send(64, 2)
    fresh.lib.probe_send(300, 1)  # a byte parameter: 300 arrives as 44
    fresh.lib.probe_send(63, 0)
    assert list(fresh.tile.out_value[:3]) == [63, 44, 63]
    fresh.lib.probe_send_all(200)
    assert list(fresh.tile.out_value) == [63] * 6


def test_timer_edges(fresh):
    lib, tile = fresh.lib, fresh.tile
    tile.now = 0
    assert not lib.probe_timer_expired()  # a new Timer: expiry 0, strict comparison
    tile.now = 1
    assert lib.probe_timer_expired() and lib.probe_timer_remaining() == 0
    tile.now = 1000
    lib.probe_timer_set(100)
    tile.now = 1099
    assert not lib.probe_timer_expired() and lib.probe_timer_remaining() == 1
    tile.now = 1100
    assert not lib.probe_timer_expired() and lib.probe_timer_remaining() == 0
    tile.now = 1101
    assert lib.probe_timer_expired()
    tile.now = 5000
    lib.probe_timer_add(100)  # extends the expiry time itself: 1200 is still past
    assert lib.probe_timer_expired()
    lib.probe_timer_never()
    lib.probe_timer_add(10)  # saturates at never
    assert not lib.probe_timer_expired()
    assert lib.probe_timer_remaining() == 0xFFFFFFFF - 5000


words = st.integers(0, 0xFFFF)


@settings(max_examples=300)
@given(words, words, words, words, words)
def test_map_agrees_with_the_runtime_everywhere(probe, x, a, b, c, d):
    assert probe.lib.probe_map(x, a, b, c, d) == map_range(x, a, b, c, d)


@settings(max_examples=300)
@given(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255))
def test_hsb_agrees_with_the_runtime_everywhere(probe, h, s, v):
    assert probe.lib.probe_hsb(h, s, v) == makeColorHSB(h, s, v)
