"""The C++ backend's expressions: as few parentheses as C++ and a reader need, and the value
the Python backend computes.

The sketch's expressions are printed from a tree (blinkc/backends/cexpr.py), each operand
knowing the precedence of what it goes into. The property test renders random IR expressions
with both backends and runs the C++ through g++: a parenthesis too few would make g++ read
another expression, and compute another value.
"""

import subprocess
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from blinkc.backends.cpp import CppRenderer, generate_cpp
from blinkc.backends.python import PythonRenderer
from blinkc.blinklib.arith import I8
from blinkc.dsl.types import convert
from blinkc.games import load_program
from blinkc.ir.nodes import (
    BOOL,
    I16,
    I32,
    U8,
    U16,
    U32,
    BinOp,
    BoolOp,
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

from ..tools import require_tool

GAME = """\
from blinkc.dsl import *
game = Game("paren")
x = game.field(range(0, 100), default=0)
y = game.field(range(0, 100), default=0)
w = game.field(range(-1000, 1000), default=0)
m = game.field(range(0, 256), default=0)

@game.derived(range(-2000, 2000))
def spread(t):
    return t.x - (t.y - t.w)

@game.derived(bool)
def low_bit(t):
    return t.m & 1 == 0

@game.derived(range(-2000, 2000))
def chosen(t):
    return t.x if t.w < 0 else (t.y if t.m > 3 else t.w)

@game.on_click
def press(t):
    t.m = (t.x + t.y) << 1 & 255
    t.w = -(t.x + t.y)

@game.display
def look(t):
    if t.low_bit and t.spread > 3 or t.chosen == 5:
        t.color_all(RED)
"""


def test_the_sketch_says_each_expression_with_the_parentheses_it_needs(tmp_path):
    path = tmp_path / "paren.py"
    path.write_text(GAME)
    lines = [line.strip() for line in generate_cpp(load_program(path)).splitlines()]
    assert "return x - (y - w);" in lines  # grouped to the right: kept
    assert "return (m & 1) == 0;" in lines  # & below ==: needed
    assert "return w < 0 ? x : (m > 3 ? y : w);" in lines  # nested ?: kept for the reader
    assert "m = ((uint8_t)(x + y) << 1) & 255;" in lines  # the sum cast whole; shift inside &
    assert "w = 0 - (uint8_t)(x + y);" in lines  # no parentheses around a statement's value
    assert "if ((value_low_bit() && value_spread() > 3) || value_chosen() == 5) {" in lines


# ------------------------------------------------------------- random expressions, by g++
INTS = (U8, I8, U16, I16, U32, I32)
PARAMS = tuple(Param(f"{'i' if t.signed else 'u'}{t.bits}", t) for t in INTS)
LOC = SrcLoc("exprs.py", 0)


OPS = ["+", "-", "*", "&", "|", "^", "<<", ">>", "//", "%"]


@st.composite
def numbers(draw, depth: int):
    """An integer expression of any type, at most `depth` operators deep."""
    t = draw(st.sampled_from(INTS))
    kind = draw(st.sampled_from(["leaf"] * 2 + ["binop"] * 5 + ["not", "cast", "cond", "truth"])
                if depth else st.just("leaf"))
    if kind == "leaf":
        if draw(st.booleans()):
            p = draw(st.sampled_from(PARAMS))
            return Name(p.name, p.type, "param")
        edges = sorted({t.min, t.max, 0, 1, min(t.max, 255), max(t.min, -1)})
        return Const(draw(st.one_of(st.sampled_from(edges), st.integers(t.min, t.max))), t)
    if kind == "binop":
        op = draw(st.sampled_from(OPS))
        if op in ("<<", ">>"):  # by a constant amount that every type can shift by
            right = Const(draw(st.integers(0, 7)), U8)
        elif op in ("//", "%"):  # by a positive constant (no division by 0, no MIN / -1)
            right = Const(draw(st.integers(1, 9)), U8)
        else:
            right = draw(numbers(depth - 1))
        return BinOp(op, draw(numbers(depth - 1)), right, t)
    if kind == "not":
        return UnOp("~", draw(numbers(depth - 1)), t)
    if kind == "cast":
        return Cast(draw(numbers(depth - 1)), t)
    if kind == "cond":  # (its branches converted to its type, as the DSL's cond() does)
        body, orelse = draw(numbers(depth - 1)), draw(numbers(depth - 1))
        return Cond(draw(truths(depth - 1)), convert(body, t), convert(orelse, t), t)
    return Cast(draw(truths(depth - 1)), U8)  # a truth value as a number


@st.composite
def truths(draw, depth: int):
    """A truth value (BOOL), at most `depth` operators deep."""
    kind = draw(st.sampled_from(["compare"] * 3 + ["nonzero", "and", "or", "not"])
                if depth else st.sampled_from(["compare", "nonzero"]))
    if kind == "compare":
        op = draw(st.sampled_from(["==", "!=", "<", "<=", ">", ">="]))
        below = max(depth - 1, 0)
        return Compare(op, draw(numbers(below)), draw(numbers(below)), draw(st.sampled_from(INTS)))
    if kind == "nonzero":
        return Cast(draw(numbers(max(depth - 1, 0))), BOOL)
    if kind == "not":
        return UnOp("not", draw(truths(depth - 1)), BOOL, True)
    values = draw(st.lists(truths(depth - 1), min_size=2, max_size=3))
    return BoolOp("and" if kind == "and" else "or", tuple(values))


def expressions() -> st.SearchStrategy:
    return st.one_of(numbers(4), truths(3))


def program(exprs: list) -> Program:
    functions = tuple(Function(f"e{i}", PARAMS, e.type, (Return(e, LOC),), LOC)
                      for i, e in enumerate(exprs))
    return Program("exprs", "exprs.py", (), functions)


def cpp_values(p: Program, inputs: list[tuple[int, ...]], folder: Path) -> list[list[int]]:
    """Each function of p, compiled by g++ from the C++ backend's code, on each input."""
    r = CppRenderer(p)
    parts = ["#include <stdint.h>", "#include <stdio.h>"]
    for f in p.functions:
        code = r.function(f)
        parts += [code["signature"] + " {", *code["lines"], "}"]
    assert not (r.helpers or r.needs_signed_div or r.needs_clamp)  # (none defined here)
    args = ", ".join(f"({p.type.c_name})v[{i}]" for i, p in enumerate(PARAMS))
    calls = " ".join(f'printf("%lld ", (long long){f.name}({args}));' for f in p.functions)
    n = len(PARAMS)
    read = f"scanf(\"{' %lld' * n}\", {', '.join(f'&v[{i}]' for i in range(n))}) == {n}"
    parts.append(f"int main(void) {{ long long v[{n}]; "
                 f"while ({read}) {{ {calls} printf(\"\\n\"); }} return 0; }}")
    source, exe = folder / "exprs.cpp", folder / "exprs"
    source.write_text("\n".join(parts) + "\n")
    subprocess.run([require_tool("g++"), "-std=gnu++11", "-O1", "-w", "-o", str(exe), str(source)],
                   check=True, capture_output=True, text=True)
    text = "\n".join(" ".join(map(str, row)) for row in inputs) + "\n"
    out = subprocess.run([str(exe)], input=text, check=True, capture_output=True, text=True).stdout
    return [[int(v) for v in line.split()] for line in out.splitlines()]


def python_values(p: Program, inputs: list[tuple[int, ...]]) -> list[list[int]]:
    r = PythonRenderer(p)
    for f in p.functions:
        r.function(f)
    namespace: dict = {}
    exec("from blinkc.backends.python import _cdiv, _cmod\nclass P:\n    api = None\n"
         + "\n".join(r.lines), namespace)
    tile = namespace["P"]()
    return [[int(getattr(tile, f"f_{f.name}")(*row)) for f in p.functions] for row in inputs]


def params() -> st.SearchStrategy:
    def value(t):
        return st.one_of(st.sampled_from([t.min, t.max, 0, -1 if t.signed else 1]),
                         st.integers(t.min, t.max))

    return st.tuples(*(value(p.type) for p in PARAMS))


# No shrinking (each step is a g++ build): a failure names the expression, its C++ and inputs.
@settings(max_examples=10, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate])
@given(exprs=st.lists(expressions(), min_size=20, max_size=20),
       inputs=st.lists(params(), min_size=8, max_size=8))
def test_random_expressions_compute_in_cpp_what_they_compute_in_python(tmp_path_factory, exprs,
                                                                       inputs):
    require_tool("g++")
    p = program(exprs)
    cpp = cpp_values(p, inputs, tmp_path_factory.mktemp("exprs"))
    python = python_values(p, inputs)
    for i, e in enumerate(exprs):
        got, want = [row[i] for row in cpp], [row[i] for row in python]
        assert got == want, (f"{e}\nC++:\n" + "\n".join(CppRenderer(p).function(p.functions[i])["lines"])
                             + f"\ninputs ({', '.join(q.name for q in PARAMS)}): {inputs}")
