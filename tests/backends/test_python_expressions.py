"""The Python backend computes what C computes on the tile, for IR the DSL does not produce
today but the IR allows (each found in a review of blinkc/backends/python.py): the values are
C's, worked out by hand, so these tests need no compiler (but the last, which asks g++).

- a conditional whose branches are of other types than its own converts the branch it takes
  to its type (C's `?:` then the conversion to the result's type), and the value ranges know
  it: a conditional's range is within its type's, as a cast's is;
- a conditional of type bool is 0 or 1 whatever its branches hold (C converts to bool);
- a unary minus negates (it was printed as `~`), wrapping in its type. (The DSL writes `-x`
  as `0 - x`, so no game had one; the C++ backend still prints `~` for it: left to whoever
  edits backends/cpp.py next.)
"""

from __future__ import annotations

from blinkc.ir.nodes import (
    BOOL,
    I16,
    I32,
    U8,
    U16,
    U32,
    BinOp,
    Cast,
    Compare,
    Cond,
    Const,
    Function,
    Name,
    Param,
    Program,
    Return,
    SrcLoc,
    UnOp,
)
from blinkc.ir.ranges import Ranges
from blinkc.ir.types import IntType

from ..tools import require_tool
from .test_cpp_expressions import PARAMS as ALL_PARAMS
from .test_cpp_expressions import cpp_values, program, python_values

LOC = SrcLoc("exprs.py", 0)
PARAMS = (Param("a", U8), Param("w", U16), Param("s", I16), Param("l", U32))
A, W, S, L = (Name(p.name, p.type, "param") for p in PARAMS)
BIG = Compare(">", A, Const(100, U8), U8)  # a > 100


def values(e, rows: list[tuple[int, int, int, int]]) -> list[int]:
    p = Program("exprs", "exprs.py", (), (Function("e0", PARAMS, e.type, (Return(e, LOC),), LOC),))
    return [row[0] for row in python_values(p, rows)]


def wrap(v: int, t: IntType) -> int:
    return t.wrap(v)


def test_a_conditional_is_of_its_own_type_when_its_branches_are_of_another():
    # (uint16_t)(a > 100 ? s : s) + 0 as an int16_t: s = -1 is 65535 as the conditional's
    # value, and -1 again as the sum's. The branches' type (int16) is not the conditional's.
    cond = Cond(BIG, S, S, U16)
    total = BinOp("+", cond, Const(0, U8), I16)
    rows = [(200, 0, -1, 0), (5, 0, -32768, 0), (101, 0, 1234, 0)]
    assert values(cond, rows) == [65535, 32768, 1234]
    assert values(total, rows) == [-1, -32768, 1234]
    # What the ranges say of the conditional: within its type, as for a cast.
    lo, hi = Ranges(Program("exprs", "exprs.py", (), ())).of(cond)
    assert 0 <= lo <= hi <= 65535


def test_a_conditional_wider_than_its_type_wraps_the_branch_it_takes():
    # (uint8_t)(a > 100 ? l : w), then times 1 in int16: l = 300 is 44.
    cond = Cond(BIG, L, W, U8)
    rows = [(200, 7, 0, 300), (5, 65535, 0, 300), (150, 0, 0, 2**32 - 1)]
    assert values(cond, rows) == [44, 255, 255]
    assert values(BinOp("*", cond, Const(1, U8), I16), rows) == [44, 255, 255]


def test_a_conditional_of_type_bool_is_0_or_1():
    # bool(a > 100 ? w : a): C converts the branch taken to bool (non-zero: 1).
    cond = Cond(BIG, W, A, BOOL)
    rows = [(200, 300, 0, 0), (5, 300, 0, 0), (150, 0, 0, 0)]
    assert [int(v) for v in values(cond, rows)] == [1, 1, 0]
    assert values(BinOp("+", cond, Const(1, U8), I16), rows) == [2, 2, 1]


def test_a_unary_minus_negates_in_its_type():
    rows = [(0, 1, 5, 0), (0, 0, -32768, 1), (0, 65535, 32767, 2**32 - 1)]
    assert values(UnOp("-", S, I16), rows) == [wrap(-s, I16) for _, _, s, _ in rows]
    assert values(UnOp("-", S, I16), rows) == [-5, -32768, -32767]
    assert values(UnOp("-", W, U16), rows) == [65535, 0, 1]
    assert values(UnOp("-", L, U32), rows) == [0, 2**32 - 1, 1]
    assert values(UnOp("-", A, I16), [(200, 0, 0, 0)]) == [-200]
    # `~` is still the complement.
    assert values(UnOp("~", S, I16), rows) == [-6, 32767, -32768]


def test_a_unary_minus_computes_in_cpp_what_it_computes_in_python(tmp_path):
    # The C++ tree printed every operator but `not` as `~` (the review's finding for both
    # backends); a minus of -32768 must wrap as on the tile, where int is 16 bits.
    require_tool("g++")
    a, b, w, s, l, i = (Name(p.name, p.type, "param") for p in ALL_PARAMS)  # u8 i8 u16 i16 u32 i32
    p = program([UnOp("-", s, I16), UnOp("-", w, U16), UnOp("-", l, U32), UnOp("-", a, I16),
                 UnOp("-", b, I16), UnOp("-", i, I32), UnOp("~", s, I16)])
    rows = [(200, 0, 40000, -1, 7, 0), (0, -128, 65535, -32768, 0, 5), (101, 5, 1, 32767, 1, -1)]
    assert python_values(p, rows) == cpp_values(p, rows, tmp_path)


def test_casts_of_results_compute_in_python_what_gcc_computes(tmp_path):
    # The C++ backend marks the cast that brings an arithmetic result back to its type
    # (cexpr.Cast.result) to tell it from an operand's conversion; the Python backend wraps
    # such results itself (visit_BinOp, visit_UnOp). Casts of them, wider and narrower,
    # signed and not, agree with g++ (the review's "ignored result flag" changes no value).
    require_tool("g++")
    a, _, w, s, _, _ = (Name(p.name, p.type, "param") for p in ALL_PARAMS)  # u8 i8 u16 i16 u32 i32
    sum16 = BinOp("+", w, w, U16)
    exprs = [Cast(sum16, U8), Cast(sum16, I16), Cast(sum16, U32),
             Cast(UnOp("~", a, I16), U16), Cast(UnOp("~", w, U16), I16),
             Cast(BinOp("*", s, s, I16), U8), Cast(BinOp("-", a, Const(1, U8), I16), U32),
             Cast(Cond(Compare(">", a, Const(100, U8), U8), sum16, s, U16), I16)]
    p = program(exprs)
    rows = [(200, 0, 40000, -1, 7, 0), (0, -1, 65535, 300, 0, 5), (101, 5, 32768, -32768, 1, -1)]
    assert python_values(p, rows) == cpp_values(p, rows, tmp_path)
