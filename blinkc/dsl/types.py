"""Typing rules of the DSL: C's rules on the ATmega168PB, made explicit."""

from __future__ import annotations

from ..blinklib.arith import c_div, c_mod, common_type, promote
from ..ir.nodes import (
    BOOL,
    I16,
    I32,
    U8,
    U16,
    U32,
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
    UnOp,
)
from ..ir.types import COLOR, ColorType

TYPE_NAMES: dict[str, IntType] = {
    "u8": U8, "u16": U16, "u32": U32, "i16": I16, "i32": I32, "bool": BOOL,
}


def literal_type(v: int) -> IntType:
    """The type of an integer literal: int if it fits, else wider (as C does on AVR)."""
    for t in (I16, U16, I32, U32):
        if t.contains(v):
            return t
    raise OverflowError(v)


def storage_type(lo: int, hi: int) -> IntType:
    """The smallest type holding lo..hi."""
    for t in (U8, U16, U32) if lo >= 0 else (I16, I32):
        if t.contains(lo) and t.contains(hi):
            return t
    raise OverflowError((lo, hi))


def is_bool(e: Expr) -> bool:
    return bool(getattr(e, "is_bool", False))


def fold_binop(op: str, a: int, b: int, t: IntType) -> int | None:
    """Evaluate a constant operation exactly as the tile would (None if undefined)."""
    a, b = t.wrap(a), t.wrap(b)
    if op == "+":
        v = a + b
    elif op == "-":
        v = a - b
    elif op == "*":
        v = a * b
    elif op == "//":
        if b == 0:
            return None
        v = c_div(a, b)
    elif op == "%":
        if b == 0:
            return None
        v = c_mod(a, b)
    elif op == "&":
        v = a & b
    elif op == "|":
        v = a | b
    elif op == "^":
        v = a ^ b
    elif op == "<<":
        if not 0 <= b < t.bits:
            return None
        v = a << b
    elif op == ">>":
        if not 0 <= b < t.bits:
            return None
        v = a >> b
    else:
        return None
    return t.wrap(v)


def binop(op: str, left: Expr, right: Expr) -> Expr:
    """A typed binary operation, folded when both sides are constants."""
    t = promote(left.type) if op in ("<<", ">>") else common_type(left.type, right.type)
    if isinstance(left, Const) and isinstance(right, Const):
        v = fold_binop(op, left.value, right.value, t)
        if v is not None:
            return Const(v, t, folded=BinOp(op, left, right, t) if named(left) or named(right)
                         else None)
    # Identities: x + 0, x - 0, x | 0, x ^ 0, x << 0, x >> 0, x * 1, x // 1 are x (in type t).
    if isinstance(right, Const) and (
            (right.value == 0 and op in ("+", "-", "|", "^", "<<", ">>"))
            or (right.value == 1 and op in ("*", "//"))):
        return left if left.type == t else Cast(left, t)
    if isinstance(left, Const) and ((left.value == 0 and op in ("+", "|", "^"))
                                    or (left.value == 1 and op == "*")):
        return right if right.type == t else Cast(right, t)
    return BinOp(op, left, right, t)


_CMP = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


def named(e: Expr) -> bool:
    """e is a constant the code names, or one folded from named constants (see `Const.folded`)."""
    return isinstance(e, Const) and (e.name is not None or e.folded is not None)


def compare(op: str, left: Expr, right: Expr) -> Expr:
    t = common_type(left.type, right.type)
    if isinstance(left, Const) and isinstance(right, Const):
        return Const(int(_CMP[op](t.wrap(left.value), t.wrap(right.value))), BOOL, True)
    return Compare(op, left, right, t)


def truth(e: Expr) -> Expr:
    """An expression as a condition (non-zero is true), kept boolean-typed."""
    if is_bool(e):
        return e
    if isinstance(e, Const):
        return Const(int(e.value != 0), BOOL, True)
    return compare("!=", e, Const(0, e.type))


def not_(e: Expr) -> Expr:
    e = truth(e)
    if isinstance(e, Const):
        return Const(1 - e.value, BOOL, True)
    if isinstance(e, UnOp) and e.op == "not":
        return e.operand
    if isinstance(e, Compare):
        inverse = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}[e.op]
        return Compare(inverse, e.left, e.right, e.optype)
    return UnOp("not", e, BOOL, True)


def bool_op(op: str, values: list[Expr]) -> Expr:
    vals = [truth(v) for v in values]
    out: list[Expr] = []
    for v in vals:
        if isinstance(v, Const):
            if (op == "and") == (v.value == 0):
                return Const(0 if op == "and" else 1, BOOL, True)  # short-circuits
            continue  # neutral element
        out.append(v)
    if not out:
        return Const(1 if op == "and" else 0, BOOL, True)
    if len(out) == 1:
        return out[0]
    return BoolOp(op, tuple(out))


def convert(e: Expr, t: IntType) -> Expr:
    """The value of e in type t (C conversion: wraps; to bool: non-zero)."""
    if e.type == t:
        return e
    if t == BOOL:
        return truth(e)
    if isinstance(e, Const):
        v = t.wrap(e.value)
        if v == e.value:
            return Const(v, t, is_bool(e) and t == BOOL, name=e.name, folded=e.folded)
        return Const(v, t, is_bool(e) and t == BOOL, folded=Cast(e, t) if named(e) else None)
    if isinstance(e.type, ColorType) or isinstance(t, ColorType):
        return e if isinstance(t, ColorType) == isinstance(e.type, ColorType) else Cast(e, t)
    return Cast(e, t, t == BOOL and is_bool(e))


def cond(test: Expr, body: Expr, orelse: Expr) -> Expr:
    t = body.type if isinstance(body.type, ColorType) else common_type(body.type, orelse.type)
    test = truth(test)
    if isinstance(test, Const):
        return convert(body if test.value else orelse, t)
    return Cond(test, convert(body, t), convert(orelse, t), t, is_bool(body) and is_bool(orelse))


def is_pure(e: Expr, pure_calls: set[str]) -> bool:
    """True when evaluating e twice gives the same result and does nothing else."""
    if isinstance(e, Const | Name):
        return True
    if isinstance(e, Index):
        return is_pure(e.index, pure_calls)
    if isinstance(e, BinOp):
        return is_pure(e.left, pure_calls) and is_pure(e.right, pure_calls)
    if isinstance(e, UnOp | Cast):
        return is_pure(e.operand if isinstance(e, UnOp) else e.value, pure_calls)
    if isinstance(e, Compare):
        return is_pure(e.left, pure_calls) and is_pure(e.right, pure_calls)
    if isinstance(e, BoolOp):
        return all(is_pure(v, pure_calls) for v in e.values)
    if isinstance(e, Cond):
        return all(is_pure(x, pure_calls) for x in (e.test, e.body, e.orelse))
    if isinstance(e, Call):
        return e.func in pure_calls and all(is_pure(a, pure_calls) for a in e.args)
    return False


__all__ = [
    "BOOL", "COLOR", "I16", "I32", "TYPE_NAMES", "U8", "U16", "U32", "ColorType", "binop",
    "bool_op", "compare", "cond", "convert", "fold_binop", "is_bool", "is_pure",
    "literal_type", "named", "not_", "promote", "storage_type", "truth",
]
