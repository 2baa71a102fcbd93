"""Value ranges of IR expressions, so renderers can leave out wraps that never happen.

This is an over-approximation: if `value_range(e)` says [lo, hi], the exact
(unwrapped) value of e is always inside it. A backend may skip the wrap of
an operation whose exact result provably fits its type.
"""

from __future__ import annotations

from ..ir.nodes import (
    BOOL,
    BinOp,
    BoolOp,
    Call,
    Cast,
    Compare,
    Cond,
    Const,
    Expr,
    Index,
    IntType,
    Name,
    Program,
    UnOp,
)

Range = tuple[int, int]


def type_range(t: IntType) -> Range:
    return (0, 1) if t == BOOL else (t.min, t.max)


class Ranges:
    def __init__(self, program: Program) -> None:
        self.globals = {g.name: (g.range or type_range(g.type)) for g in program.globals}

    def of(self, e: Expr) -> Range:
        if isinstance(e, Const):
            return (e.value, e.value)
        if isinstance(e, Name):
            if getattr(e, "is_bool", False):
                return (0, 1)
            if e.scope == "global" and e.name in self.globals:
                return self.globals[e.name]
            return type_range(e.type)
        if isinstance(e, Index | Call):
            if e.type is None:
                return (0, 0)
            return (0, 1) if getattr(e, "is_bool", False) else type_range(e.type)
        if isinstance(e, Compare | BoolOp):
            return (0, 1)
        if isinstance(e, UnOp):
            if e.op == "not":
                return (0, 1)
            return type_range(e.type)
        if isinstance(e, Cast):
            inner = self.of(e.value)
            return inner if self.fits(inner, e.type) else type_range(e.type)
        if isinstance(e, Cond):
            a, b = self.of(e.body), self.of(e.orelse)
            return (min(a[0], b[0]), max(a[1], b[1]))
        if isinstance(e, BinOp):
            r = self.exact(e)
            return r if self.fits(r, e.type) else type_range(e.type)
        return type_range(e.type)

    @staticmethod
    def fits(r: Range, t: IntType) -> bool:
        lo, hi = type_range(t)
        return lo <= r[0] and r[1] <= hi

    def operand(self, e: Expr, t: IntType) -> Range:
        r = self.of(e)
        return r if self.fits(r, t) else type_range(t)

    def exact(self, e: BinOp) -> Range:
        """Range of the exact result of a binary operation (before wrapping)."""
        a = self.operand(e.left, e.type)
        b = self.operand(e.right, e.type)
        op = e.op
        if op == "+":
            return (a[0] + b[0], a[1] + b[1])
        if op == "-":
            return (a[0] - b[1], a[1] - b[0])
        if op == "*":
            products = [x * y for x in a for y in b]
            return (min(products), max(products))
        nonneg = a[0] >= 0 and b[0] >= 0
        if op == "&" and nonneg:
            return (0, min(a[1], b[1]))
        if op in ("|", "^") and nonneg:
            top = (1 << max(a[1], b[1]).bit_length()) - 1
            return (0, top)
        if op == ">>" and a[0] >= 0 and b[0] >= 0:
            return (a[0] >> b[1], a[1] >> b[0])
        if op == "<<" and a[0] >= 0 and 0 <= b[0] and b[1] < 32:
            return (a[0] << b[0], a[1] << b[1])
        if op == "//" and nonneg and b[0] > 0:
            return (a[0] // b[1], a[1] // b[0])
        if op == "%" and nonneg and b[0] > 0:
            return (0, min(a[1], b[1] - 1))
        return (-(1 << 40), 1 << 40)  # unknown: force a wrap
