"""The one walker of the IR: every pass fails loudly on a node class it does not know.

A pass written before a new IR node must not skip the node (or render it as nothing): each
raises UnknownNode, naming itself and the class, until the node is given its methods.
"""

from dataclasses import dataclass
from types import SimpleNamespace

import pytest

from blinkc.backends.cpp import generate_cpp
from blinkc.backends.python import generate_python
from blinkc.dsl.lints import _LintRanges, _RangeLint
from blinkc.dsl.prune import fold_constant_calls
from blinkc.ir.demanded import low_byte_locals
from blinkc.ir.loop_bits import with_loop_bits
from blinkc.ir.nodes import (
    U8,
    Assign,
    BinOp,
    Call,
    Const,
    Expr,
    ExprStmt,
    For,
    Function,
    GlobalVar,
    IntType,
    Name,
    Program,
    Return,
    SrcLoc,
)
from blinkc.ir.optimize import optimize
from blinkc.ir.ranges import Ranges, repeatable
from blinkc.ir.visitor import CHILDREN, EXPR_CLASSES, STMT_CLASSES, Transformer, UnknownNode, Visitor
from blinkc.ir.walk import walk_stmts

LOC = SrcLoc("new_node.py", 3)


@dataclass(frozen=True, slots=True)
class Square:
    """A new expression node: value * value."""

    value: Expr
    type: IntType
    is_bool: bool = False


@dataclass(frozen=True, slots=True)
class Repeat:
    """A new statement node: do the call `times` times."""

    times: Expr
    body: tuple
    loc: SrcLoc


X = Name("x", U8, "global")
NEW_EXPR = Square(BinOp("+", X, Const(1, U8), U8), U8)
NEW_STMT = Repeat(Const(2, U8), (ExprStmt(Call("f", (), None), LOC),), LOC)


def program_with(stmt) -> Program:
    """A program whose loop() holds the statement, inside a face loop (so loop_bits walks
    it), with a constant function (so the folding of constant calls walks every body)."""
    body = (For("f", Const(0, U8), Const(6, U8), (stmt,), LOC),
            ExprStmt(Call("f", (), None), LOC))
    return Program(
        "new_node", "new_node.py", (GlobalVar("x", U8, 0, LOC),),
        (Function("loop", (), None, body, LOC, role="handler"),
         Function("f", (), None, (), LOC),
         Function("one", (), U8, (Return(Const(1, U8), LOC),), LOC)))


def lint(program: Program) -> None:
    sym = SimpleNamespace(neighbor_getters={}, fields={}, helpers={})
    lowering = SimpleNamespace(sym=sym, functions=list(program.functions),
                               err=lambda *a: None, warn=lambda *a: None)
    walker = _RangeLint(lowering, _LintRanges(program))  # type: ignore[arg-type]
    walker.function(program.function("loop"))


PASSES = {
    "walk": lambda p: list(walk_stmts(p.function("loop").body)),
    "optimize": optimize,
    "demanded": lambda p: low_byte_locals(p.function("loop")),
    "loop_bits": lambda p: with_loop_bits(p.function("loop")),
    "ranges": lambda p: Ranges(p),
    "lints": lint,
    "prune": lambda p: fold_constant_calls(list(p.functions), frozenset()),
    "python": generate_python,
    "cpp": generate_cpp,
}

NEW_NODES = {
    "expression": Assign(X, NEW_EXPR, LOC),
    "statement": NEW_STMT,
}


@pytest.mark.parametrize("kind", NEW_NODES)
@pytest.mark.parametrize("name", PASSES)
def test_every_pass_raises_on_a_node_class_it_does_not_know(name, kind):
    program = program_with(NEW_NODES[kind])
    with pytest.raises(UnknownNode) as raised:
        PASSES[name](program)
    cls = type(raised.value.node).__name__
    assert cls in ("Square", "Repeat")
    assert f"visit_{cls}" in str(raised.value)


def test_the_same_program_without_the_new_node_goes_through_every_pass():
    """The raising above is the new node's doing: with a known node in its place, all pass."""
    program = program_with(Assign(X, BinOp("*", X, X, U8), LOC))
    for run in PASSES.values():
        run(program)


def test_the_range_of_a_new_expression_and_whether_it_repeats_raise():
    ranges = Ranges(program_with(Assign(X, X, LOC)))
    for ask in (ranges.of, repeatable):
        with pytest.raises(UnknownNode):
            ask(NEW_EXPR)


def test_children_are_declared_for_exactly_the_ir_node_classes():
    assert set(CHILDREN) == set(EXPR_CLASSES) | set(STMT_CLASSES)
    for cls, names in CHILDREN.items():
        assert set(names) <= set(cls.__dataclass_fields__), cls


def test_a_pass_that_handles_the_new_class_walks_it():
    """A pass given a method for the new class visits it (and recursion reaches it)."""

    class Counting(Visitor):
        def __init__(self) -> None:
            self.squares = 0

        def visit_Square(self, e: Square) -> None:
            self.squares += 1

    walker = Counting()
    walker.visit_block(program_with(Assign(X, NEW_EXPR, LOC)).function("loop").body)
    assert walker.squares == 1


def test_a_transformer_rewrites_bottom_up_and_keeps_what_it_does_not_change():
    class Doubling(Transformer):
        def visit_Const(self, e: Const) -> Const:
            return Const(e.value * 2, e.type)

    body = (Assign(X, BinOp("+", X, Const(3, U8), U8), LOC), Return(None, LOC))
    new = Doubling().visit_block(body)
    assert new[0].value.right == Const(6, U8)
    assert new[0].target is X and new[1] is body[1]
    untouched = (Return(None, LOC),)
    assert Doubling().visit_block(untouched) is untouched
