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
    BoolOp,
    BoolType,
    Call,
    Cast,
    Compare,
    Cond,
    Const,
    Expr,
    ExprStmt,
    For,
    Function,
    If,
    Index,
    Local,
    Name,
    Return,
    Stmt,
    UnOp,
)
from .types import ColorType
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


class _Walker:
    """One pass over a function: which candidates are read as a whole value somewhere."""

    def __init__(self, candidates: set[str]) -> None:
        self.candidates = candidates
        self.whole: set[str] = set()

    def block(self, body: tuple[Stmt, ...]) -> None:
        for s in body:
            self.stmt(s)

    def stmt(self, s: Stmt) -> None:
        if isinstance(s, Local):
            self.expr(s.value, low=s.name in self.candidates)
        elif isinstance(s, Assign):
            target = s.target
            if isinstance(target, Index):
                self.expr(target.index, low=False)
                self.expr(s.value, low=False)
            else:
                narrow = target.scope == "local" and target.name in self.candidates
                self.expr(s.value, low=narrow and s.clamp is None)
        elif isinstance(s, If):
            self.expr(s.test, low=False)
            self.block(s.body)
            self.block(s.orelse)
        elif isinstance(s, For):
            self.expr(s.start, low=False)
            self.expr(s.stop, low=False)
            self.block(s.body)
        elif isinstance(s, Return):
            if s.value is not None:
                self.expr(s.value, low=False)
        elif isinstance(s, ExprStmt):
            self.expr(s.value, low=False)

    def expr(self, e: Expr, low: bool) -> None:
        """Visit e, whose consumer needs only its low byte when `low` is true."""
        if isinstance(e, Name):
            if not low and e.scope == "local":
                self.whole.add(e.name)
        elif isinstance(e, BinOp):
            if e.op == "&" and _byte_mask(e.right):
                self.expr(e.left, low=True)
            elif e.op == "&" and _byte_mask(e.left):
                self.expr(e.right, low=True)
            else:
                inner = low and e.op in LOW_BYTE_OPS
                self.expr(e.left, low=inner)
                self.expr(e.right, low=inner)
        elif isinstance(e, UnOp):
            self.expr(e.operand, low=low and e.op in ("~", "-"))
        elif isinstance(e, Cast):
            self.expr(e.value, low=e.type.bits == 8 and e.type != BOOL and not e.is_bool)
        elif isinstance(e, Cond):
            self.expr(e.test, low=False)
            self.expr(e.body, low=low)
            self.expr(e.orelse, low=low)
        elif isinstance(e, Compare):
            self.expr(e.left, low=False)
            self.expr(e.right, low=False)
        elif isinstance(e, BoolOp):
            for v in e.values:
                self.expr(v, low=False)
        elif isinstance(e, Call):
            for a in e.args:
                self.expr(a, low=False)
        elif isinstance(e, Index):
            self.expr(e.index, low=False)


def _byte_mask(e: Expr) -> bool:
    return isinstance(e, Const) and 0 <= e.value <= 255
