"""Ranges of locals: the tests that guard an assignment (still holding there) narrow the value
assigned, and a local counted down below `if x == 0: break` keeps the range it started in."""

from __future__ import annotations

import pytest

from blinkc.backends.python import program_class
from blinkc.blinklib.api import Blinklib
from blinkc.ir.nodes import Local
from blinkc.ir.walk import walk_stmts

from .test_optimizer_fuzz import compile_both, reference_values

GAME = '''
from blinkc.dsl import *

game = Game("local_ranges")
n = game.field(range(0, 6), default=5)
mask = game.field(range(0, 32), default=0)


@game.derived(range(0, 256))
def slot(t):
    """Pirates & Lasers' lose_hp(): the pick-th clear bit of mask, counted down."""
    if t.n == 0:
        return 255
    pick = t.n - 1  # 0..4 below the test (-1 without it)
    for f in range(5):
        if not bit(t.mask, f):
            if pick == 0:
                return f
            pick -= 1
    return 200


@game.derived(range(-1000, 1000))
def reassigned(t):
    x = t.n
    y = 0
    if x != 0:
        x = 0  # the test no longer holds below
        y = x - 1
    return y


@game.derived(range(-1000, 1000))
def looped(t):
    x = t.n
    z = 0
    if x != 0:
        for i in range(3):
            z = x - 1  # x != 0 holds on the first turn only
            x = 0
    return z


@game.derived(range(-1000, 1000))
def broken(t):
    x = t.n
    w = 0
    for i in range(3):
        if x == 0:
            break
        w = x - 1  # x != 0 here (the break above), on every turn
        x -= 1
    return w


@game.display
def look(t):
    if t.slot == 1 or t.reassigned == 1 or t.looped == 1 or t.broken == 1:
        t.color_all(RED)
'''

NAMES = ["slot", "reassigned", "looped", "broken"]


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    programs = compile_both(GAME, tmp_path_factory.mktemp("local_ranges"))
    assert programs is not None
    return programs


def _local_bits(program, function: str) -> dict[str, int]:
    f = next(f for f in program.functions if f.name.endswith(function))
    return {s.name: s.type.bits for s in walk_stmts(f.body) if isinstance(s, Local)}


def test_guarded_and_counted_down_locals_are_bytes(both):
    optimised, _ = both
    assert _local_bits(optimised, "slot")["pick"] == 8
    assert _local_bits(optimised, "broken")["w"] == 8


def test_a_test_undone_by_an_assignment_or_a_loop_narrows_nothing(both):
    optimised, _ = both
    assert _local_bits(optimised, "reassigned")["y"] > 8
    assert _local_bits(optimised, "looped")["z"] > 8


def _python(program, fields) -> list[int]:
    tile = program_class(program)()
    api = Blinklib()
    tile.setup(api)
    for k, v in fields.items():
        setattr(tile, k, v)
    return [int(tile.value(api, name)) for name in NAMES]


def test_every_input_computes_what_the_plain_ir_does(both):
    optimised, plain = both
    for n in range(6):
        for mask in range(32):
            fields = {"n": n, "mask": mask}
            expected = reference_values(plain, NAMES, fields, 0)
            assert reference_values(optimised, NAMES, fields, 0) == expected, fields
            assert _python(optimised, fields) == expected, fields
            if n:
                assert expected[1:3] == [-1, -1]
