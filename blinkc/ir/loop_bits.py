"""Loop bits: a face loop carries `1 << f` along instead of shifting by f at every use.

Games test bits of a mask for each face (`bit(t.water, f)`, `1 << f`). On the
AVR a shift by a variable amount is a loop of its own, paid at every use;
a bit that moves one place per iteration costs one shift per iteration:

    for f in range(6):                      for (f = 0, f_bit = 1; f < 6; f++, f_bit <<= 1)
        if (water >> f) & 1 != 0: ...   →       if ((water & f_bit) != 0) ...
        mask |= 1 << f                          mask |= f_bit

Exact: for 0 <= f < 8, bit f of any value E is set exactly when E & (1 << f)
is not zero. Only loops with constant bounds within 0..8 whose variable the
body never assigns are rewritten, and only when the body uses the bit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import fields, replace
from typing import get_args

from .nodes import (
    U8,
    Assign,
    BinOp,
    Cast,
    Compare,
    Const,
    Expr,
    For,
    Function,
    If,
    Local,
    Name,
    Stmt,
)
from .walk import walk_stmts


def with_loop_bits(f: Function, program_names: Iterable[str] = ()) -> Function:
    """f with its face loops' bits; `program_names` (globals, functions) are not taken for
    the new locals, which would hide them in C++."""
    taken = _assigned(f.body) | {p.name for p in f.params} | set(program_names)
    return replace(f, body=_Rewriter(taken).block(f.body))


class _Rewriter:
    def __init__(self, taken: set[str]) -> None:
        self.taken = taken

    def block(self, body: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
        return tuple(self.stmt(s) for s in body)

    def stmt(self, s: Stmt) -> Stmt:
        if isinstance(s, If):
            return replace(s, body=self.block(s.body), orelse=self.block(s.orelse))
        if not isinstance(s, For):
            return s
        body = self.block(s.body)
        if not (_small_constant_bounds(s) and s.var not in _assigned(body)):
            return replace(s, body=body)
        name = self._fresh(f"{s.var}_bit")
        uses = [0]
        new_body = tuple(_map_parts(x, lambda e: _rewrite(e, s.var, name, uses)) for x in body)
        if not uses[0]:
            self.taken.discard(name)
            return replace(s, body=body)
        return replace(s, body=new_body, bit=name)

    def _fresh(self, base: str) -> str:
        name, k = base, 2
        while name in self.taken:
            name, k = f"{base}{k}", k + 1
        self.taken.add(name)
        return name


def _small_constant_bounds(s: For) -> bool:
    return (isinstance(s.start, Const) and isinstance(s.stop, Const)
            and 0 <= s.start.value and s.stop.value <= 8)


def _is_var(e: Expr, var: str) -> bool:
    return isinstance(e, Name) and e.scope == "local" and e.name == var


def _rewrite(e: Expr, var: str, bit: str, uses: list[int]) -> Expr:
    """e with `(E >> var) & 1 ==/!= 0` and `1 << var` expressed through the loop bit."""
    e = _map_parts(e, lambda c: _rewrite(c, var, bit, uses))  # type: ignore[assignment]
    bit_name = Name(bit, U8, "local")
    if (isinstance(e, Compare) and e.op in ("==", "!=") and isinstance(e.right, Const)
            and e.right.value == 0 and isinstance(e.left, BinOp) and e.left.op == "&"
            and isinstance(e.left.right, Const) and e.left.right.value == 1
            and isinstance(e.left.left, BinOp) and e.left.left.op == ">>"
            and _is_var(e.left.left.right, var)):
        uses[0] += 1
        shifted = e.left.left
        masked = BinOp("&", shifted.left, bit_name, shifted.type)
        return replace(e, left=masked)
    if (isinstance(e, BinOp) and e.op == "<<" and isinstance(e.left, Const) and e.left.value == 1
            and _is_var(e.right, var)):
        uses[0] += 1
        return bit_name if e.type == U8 else Cast(bit_name, e.type)
    return e


_EXPRS = get_args(Expr)
_STMTS = get_args(Stmt)


def _map_parts(node: Expr | Stmt, fn: Callable[[Expr], Expr]) -> Expr | Stmt:
    """node with fn applied to each of its direct expressions (not to node itself);
    the statements nested in a statement are mapped the same way."""
    changes: dict[str, object] = {}
    for fld in fields(node):  # type: ignore[arg-type]
        value = getattr(node, fld.name)
        if isinstance(value, _EXPRS):
            changes[fld.name] = fn(value)
        elif isinstance(value, tuple) and any(isinstance(v, _EXPRS) for v in value):
            changes[fld.name] = tuple(fn(v) for v in value)
        elif isinstance(value, tuple) and any(isinstance(v, _STMTS) for v in value):
            changes[fld.name] = tuple(_map_parts(x, fn) for x in value)
    return replace(node, **changes) if changes else node  # type: ignore[type-var]


def _assigned(body: tuple[Stmt, ...]) -> set[str]:
    """Names the body gives a value to: its locals, assigned names and loop variables."""
    out: set[str] = set()
    for s in walk_stmts(body):
        if isinstance(s, Local):
            out.add(s.name)
        elif isinstance(s, Assign) and isinstance(s.target, Name):
            out.add(s.target.name)
        elif isinstance(s, For):
            out.add(s.var)
    return out
