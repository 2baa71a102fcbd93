"""Demanded bits: locals of which only the low byte is ever looked at.

A display routine such as

    now = t.now >> 4                 # a 32-bit millis() value
    phase = (now + f * step) & 255

only ever uses the low 8 bits of `now`: the low byte of a sum, difference,
product or bitwise result depends only on the operands' low bytes. Such a
local can be stored as a byte (and its value computed from the low bytes of
its sources), which on the 8-bit AVR saves a register quartet and 32-bit
arithmetic at every use.

`low_byte_locals(f)` finds them. A read of a local is *low-byte* when its
value flows only through `+ - * & | ^ ~` and conditional expressions into
one of: a mask with a constant no wider than a byte, a cast to an 8-bit
type, or an assignment to another low-byte local. Anything else (a
comparison, a shift, a division, a call argument, a return value, a field
or array store, an index) needs the whole value. The analysis starts from
every candidate and removes those with a whole-value read until nothing
changes, so chains of locals narrow together.
"""

from __future__ import annotations

from .nodes import (
    BOOL,
    Assign,
    BinOp,
    BoolType,
    Cast,
    Cond,
    Const,
    Expr,
    For,
    Function,
    Index,
    Local,
    Name,
    Stmt,
    UnOp,
)
from .types import ColorType
from .visitor import Visitor
from .walk import walk_stmts

#: Operations whose result's low byte depends only on the operands' low bytes.
LOW_BYTE_OPS = ("+", "-", "*", "&", "|", "^")


def low_byte_locals(f: Function) -> set[str]:
    """Names of f's locals (not parameters, loop variables or colours) whose every read
    needs only the low 8 bits; each can be stored in a uint8."""
    candidates = _candidates(f)
    while True:
        walker = _Walker(candidates)
        walker.block(f.body)
        needed_whole = walker.whole & candidates
        if not needed_whole:
            return candidates
        candidates = candidates - needed_whole


def _candidates(f: Function) -> set[str]:
    """Locals wider than a byte (not parameters, loop variables, booleans or colours)."""
    wide: set[str] = set()
    loop_vars: set[str] = set()
    for s in walk_stmts(f.body):
        if isinstance(s, Local) and s.type.bits > 8 and not isinstance(s.type, BoolType | ColorType):
            wide.add(s.name)
        elif isinstance(s, For):
            loop_vars.add(s.var)
    return wide - {p.name for p in f.params} - loop_vars


class _Walker(Visitor):
    """One pass over a function: which candidates are read as a whole value somewhere. Each
    expression is visited with `low`: its consumer needs only its low byte."""

    def __init__(self, candidates: set[str]) -> None:
        self.candidates = candidates
        self.whole: set[str] = set()

    def block(self, body: tuple[Stmt, ...]) -> None:
        self.visit_block(body, False)

    # Statements (visited with low=False): what they read is needed whole, but for a local's
    # value (or a narrow local's assignment).
    def visit_Local(self, s: Local, low: bool) -> None:
        self.visit(s.value, s.name in self.candidates)

    def visit_Assign(self, s: Assign, low: bool) -> None:
        target = s.target
        if isinstance(target, Index):
            self.visit(target.index, False)
            self.visit(s.value, False)
        else:
            narrow = target.scope == "local" and target.name in self.candidates
            self.visit(s.value, narrow and s.clamp is None)

    # Expressions.
    def visit_Name(self, e: Name, low: bool) -> None:
        if not low and e.scope == "local":
            self.whole.add(e.name)

    def visit_BinOp(self, e: BinOp, low: bool) -> None:
        if e.op == "&" and _byte_mask(e.right):
            self.visit(e.left, True)
        elif e.op == "&" and _byte_mask(e.left):
            self.visit(e.right, True)
        else:
            inner = low and e.op in LOW_BYTE_OPS
            self.visit(e.left, inner)
            self.visit(e.right, inner)

    def visit_UnOp(self, e: UnOp, low: bool) -> None:
        self.visit(e.operand, low and e.op in ("~", "-"))

    def visit_Cast(self, e: Cast, low: bool) -> None:
        self.visit(e.value, e.type.bits == 8 and e.type != BOOL and not e.is_bool)

    def visit_Cond(self, e: Cond, low: bool) -> None:
        self.visit(e.test, False)
        self.visit(e.body, low)
        self.visit(e.orelse, low)

    # Compare, BoolOp, Call and Index need their operands whole; the statements If, For,
    # Return and ExprStmt their expressions: the default visits them with low=False.
    def generic_visit(self, node: object, low: bool) -> None:  # type: ignore[override]
        super().generic_visit(node, False)


def _byte_mask(e: Expr) -> bool:
    return isinstance(e, Const) and 0 <= e.value <= 255
