"""Optimisations on the IR, shared by both backends (so they cannot change the meaning).

Every rewrite here is exact: it computes the same value, bit for bit, for
every input the value ranges allow. They exist because the tile has 5,888
bytes of flash and an 8-bit CPU:

- `x % n` when x is known to be in 0..2n-1 becomes `x - n if x >= n else x`
  (no division: face arithmetic such as `(f + 3) % 6` is everywhere);
- `x // 2**k` and `x % 2**k` of a non-negative x become shifts and masks;
- a value cut down to 8 bits (`Cast(..., uint8)`) of `+ - * & | ^` is
  computed from the operands' low bytes (the low byte of a sum only depends
  on the low bytes), so the AVR does 8-bit work instead of 16- or 32-bit;
- a local of which only the low byte is ever used (`demanded.py`) is a byte;
- a face loop carries `1 << f` along instead of shifting by f at each use (`loop_bits.py`);
- the clamp of an assignment to a ranged field is dropped when the value
  cannot leave the range (knowing the tests that guard the assignment: in
  `if 0 < t.hp < 5: t.hp += 1` it cannot), and a conditional expression or
  an `if` whose test the ranges decide (a payload's clamp that cannot bind)
  is its taken branch;
- what follows a return, break or continue in its block is dropped (it never
  runs: e.g. after a branch that the game's settings decided), and an `if`
  with nothing in its body tests the opposite instead.
"""

from __future__ import annotations

from dataclasses import replace

from .demanded import LOW_BYTE_OPS, low_byte_locals
from .loop_bits import with_loop_bits
from .nodes import (
    BOOL,
    I16,
    U8,
    U16,
    Assign,
    BinOp,
    Cast,
    Compare,
    Cond,
    Const,
    Expr,
    For,
    Function,
    If,
    Index,
    Local,
    Name,
    Program,
    Stmt,
    UnOp,
)
from .ranges import Ranges, type_range
from .types import ColorType as _ColorType
from .visitor import Transformer
from .walk import leaves


class Optimizer(Transformer):
    """The rewrites, one method per node class; a statement's method returns the statements
    it becomes (an `if` the ranges decide is its taken branch)."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self.ranges = Ranges(program)
        self.program_names = ({g.name for g in program.globals}
                              | {f.name for f in program.functions})

    def run(self) -> Program:
        functions = tuple(self.function(f) for f in self.program.functions)
        return replace(self.program, functions=functions)

    def function(self, f: Function) -> Function:
        self.ranges.enter(f)
        # Locals whose values all fit in a byte become bytes: the AVR is an 8-bit CPU.
        self.narrow = {name for name, r in self.ranges.env.items()
                       if 0 <= r[0] and r[1] <= 255 and name not in {p.name for p in f.params}}
        # Locals of which only the low byte is ever used become bytes too, whatever their range.
        self.low_bytes = low_byte_locals(f)
        for name in self.low_bytes:
            self.ranges.env[name] = (0, 255)
        body = self.block(f.body)
        return with_loop_bits(replace(f, body=body), self.program_names)

    def block(self, body: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
        """The statements of a block, each knowing what the tests above it in the block (and
        around the block) teach; none after one that never falls through."""
        out: list[Stmt] = []
        with self.ranges.scope():
            for s in body:
                for new in self.stmts(s):
                    out.append(new)
                    self.ranges.after(new)
                if leaves(out):
                    break  # the rest never runs
        return tuple(out)

    visit_block = block  # type: ignore[assignment]

    def stmts(self, s: Stmt) -> tuple[Stmt, ...]:
        """s optimised: usually one statement; an `if` the ranges decide is its taken branch."""
        new = self.visit(s)
        return new if isinstance(new, tuple) else (new,)

    # ------------------------------------------------------------- statements
    def visit_If(self, s: If) -> tuple[Stmt, ...]:
        test = self.expr(s.test)
        outcome = self.ranges.decided(test)
        if outcome is not None:
            return self.block(s.body if outcome else s.orelse)
        with self.ranges.assuming(test, True):
            body = self.block(s.body)
        with self.ranges.assuming(test, False):
            orelse = self.block(s.orelse)
        if not body and orelse:
            # `if c: pass else: x` is `if not c: x`.
            return (replace(s, test=_negated(test), body=orelse, orelse=()),)
        return (replace(s, test=test, body=body, orelse=orelse),)

    def visit_For(self, s: For) -> For:
        self.ranges.forget(s)  # what the loop changes on one turn is not known on the next
        return replace(s, start=self.expr(s.start), stop=self.expr(s.stop),
                       body=self.block(s.body))

    def visit_Local(self, s: Local) -> Local:
        if s.name in self.low_bytes or (
                s.name in self.narrow and s.type != U8 and s.type != BOOL and s.type.bits <= 32
                and not isinstance(s.type, _ColorType)):  # as _narrowed: colours stay colours
            return replace(s, type=U8, value=self.expr(_as(s.value, U8)))
        return replace(s, value=self.expr(s.value))

    def visit_Assign(self, s: Assign) -> Assign:
        value = self.expr(s.value)
        clamp = s.clamp
        if clamp is not None:
            lo, hi = self.ranges.of(value)
            if clamp[0] <= lo and hi <= clamp[1]:
                clamp = None  # the value never leaves the field's range
                value = self.expr(Cast(value, s.target.type)) if value.type != s.target.type else value
        target = s.target
        if isinstance(target, Index):
            target = replace(target, index=self.expr(target.index))
        elif self._narrowed(target):
            target = replace(target, type=U8)
            value = self.expr(_as(_strip_cast(value), U8))
        return replace(s, target=target, value=value, clamp=clamp)

    # Return, ExprStmt, Break and Continue: their expressions optimised (the default).

    # ------------------------------------------------------------ expressions
    def _narrowed(self, e: Expr) -> bool:
        if not (isinstance(e, Name) and e.scope == "local"):
            return False
        return e.name in self.low_bytes or (
            e.name in self.narrow and e.type != BOOL and e.type.bits <= 32
            and not isinstance(e.type, _ColorType))

    def expr(self, e: Expr) -> Expr:
        return self.visit(e)

    def visit_Name(self, e: Name) -> Expr:
        return replace(e, type=U8) if self._narrowed(e) else e

    def visit_BinOp(self, e: BinOp) -> Expr:
        return self.binop(self.generic_visit(e))

    def visit_Cond(self, e: Cond) -> Expr:
        outcome = self.ranges.decided(e.test)
        if outcome is not None:  # e.g. a clamp that cannot bind
            return self.expr(_as(e.body if outcome else e.orelse, e.type))
        return self.generic_visit(e)

    def visit_Cast(self, e: Cast) -> Expr:
        inner = self.expr(e.value)
        if e.type.bits in (8, 16) and e.type != BOOL and isinstance(inner, BinOp):
            inner = self.low_bits(inner, e.type.bits)
        if self.ranges.fits(self.ranges.of(inner), e.type) and e.type != BOOL:
            if inner.type == e.type:
                return inner
        return replace(e, value=inner)

    def visit_UnOp(self, e: UnOp) -> Expr:
        e = self.generic_visit(e)
        if e.op == "not" and isinstance(e.operand, Compare) and e.operand.op in ("==", "!="):
            # `not (x != 0)` is `x == 0` (an inlined timer_running() under a `not`)
            return replace(e.operand, op=_NEGATION[e.operand.op])
        return e

    # Const, Index, Compare, BoolOp and Call: their operands optimised (the default).

    def binop(self, e: BinOp) -> Expr:
        a = self.ranges.operand(e.left, e.type)
        r = e.right
        if isinstance(r, Const) and r.value > 0 and a[0] >= 0:
            n = r.value
            if e.op == "%":
                if a[1] < n:
                    return _as(e.left, e.type)  # already in range
                if a[1] < 2 * n and _pure(e.left):
                    # x in 0..2n-1: one conditional subtraction instead of a division.
                    x = _as(e.left, e.type)
                    minus = BinOp("-", x, Const(n, e.type), e.type)
                    return Cond(Compare(">=", x, Const(n, e.type), e.type), minus, x, e.type)
                if n & (n - 1) == 0:
                    return BinOp("&", e.left, Const(n - 1, e.type), e.type)
            if e.op == "//" and n & (n - 1) == 0:
                return BinOp(">>", e.left, Const(n.bit_length() - 1, e.type), e.type)
        return e

    def low_bits(self, e: Expr, bits: int) -> Expr:
        """An expression with the same low `bits` bits as e, from operands no wider than that.

        The low bits of a sum, difference, product or bitwise result only depend on the
        operands' low bits; a right shift by k needs k more bits of its operand.
        """
        narrow = U8 if bits == 8 else U16
        if isinstance(e, BinOp) and e.type.bits > bits:
            if e.op in LOW_BYTE_OPS:
                left, right = self.low_bits(e.left, bits), self.low_bits(e.right, bits)
                return BinOp(e.op, left, right, I16 if bits == 8 else U16)
            if (e.op == ">>" and isinstance(e.right, Const) and bits == 8 and e.right.value <= 8
                    and e.left.type.bits > 16 and not e.left.type.signed):
                # Bits k..k+7 of a 32-bit value are inside its low 16 bits.
                return BinOp(">>", Cast(e.left, U16), e.right, U16)
            return e
        if isinstance(e, Const):
            v = e.value & ((1 << bits) - 1)
            if v == e.value:
                return Const(v, narrow, name=e.name, folded=e.folded)
            return Const(v, narrow, folded=Cast(e, narrow) if e.name or e.folded else None)
        if e.type.bits > bits or (e.type.signed and e.type.bits == bits):
            lo, hi = self.ranges.of(e)
            if not (0 <= lo and hi < (1 << bits)):
                return Cast(e, narrow)
        return e


_NEGATION = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}


def _negated(test: Expr) -> Expr:
    """The test that is true where `test` is false (comparisons of integers negate exactly)."""
    if isinstance(test, Compare):
        return replace(test, op=_NEGATION[test.op])
    if isinstance(test, UnOp) and test.op == "not" and test.operand.type == BOOL:
        return test.operand
    return UnOp("not", test, BOOL, True)


def _strip_cast(e: Expr) -> Expr:
    """e without an outer cast that keeps its low byte (a cast to bool does not)."""
    if isinstance(e, Cast) and e.type != BOOL and not e.is_bool and e.type.bits >= 8:
        return e.value
    return e


def _as(e: Expr, t) -> Expr:
    return e if e.type == t else Cast(e, t)


def _pure(e: Expr) -> bool:
    if isinstance(e, Const | Name):
        return True
    if isinstance(e, BinOp):
        return _pure(e.left) and _pure(e.right)
    if isinstance(e, Cast):
        return _pure(e.value)
    if isinstance(e, Index):
        return _pure(e.index)
    return False


def optimize(program: Program) -> Program:
    return Optimizer(program).run()


__all__ = ["optimize", "type_range"]
