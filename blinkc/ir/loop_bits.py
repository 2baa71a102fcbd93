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

from collections.abc import Iterable
from dataclasses import replace

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
    Local,
    Name,
    Stmt,
)
from .visitor import STMT_CLASSES, Transformer
from .walk import walk_stmts


def with_loop_bits(f: Function, program_names: Iterable[str] = ()) -> Function:
    """f with its face loops' bits; `program_names` (globals, functions) are not taken for
    the new locals, which would hide them in C++."""
    taken = _assigned(f.body) | {p.name for p in f.params} | set(program_names)
    return replace(f, body=_Rewriter(taken).block(f.body))


class _Rewriter(Transformer):
    """Gives each face loop (innermost first) its bit where its body uses one."""

    def __init__(self, taken: set[str]) -> None:
        self.taken = taken

    def block(self, body: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
        return self.visit_block(body)

    # Only statements hold loops: expressions stay as they are.
    def generic_visit(self, node, *args):  # type: ignore[no-untyped-def]
        return super().generic_visit(node) if isinstance(node, STMT_CLASSES) else node

    def visit_For(self, s: For) -> For:
        body = self.block(s.body)
        if not (_small_constant_bounds(s) and s.var not in _assigned(body)):
            return replace(s, body=body)
        name = self._fresh(f"{s.var}_bit")
        through_bit = _ThroughBit(s.var, name)
        new_body = through_bit.visit_block(body)
        if not through_bit.uses:
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


class _ThroughBit(Transformer):
    """A loop body with `(E >> var) & 1 ==/!= 0` and `1 << var` expressed through the loop's
    bit (inner loops too: their statements are rewritten the same way)."""

    def __init__(self, var: str, bit: str) -> None:
        self.var, self.bit = var, bit
        self.uses = 0

    def visit_Compare(self, e: Compare) -> Expr:
        e = self.generic_visit(e)
        if (e.op in ("==", "!=") and isinstance(e.right, Const)
                and e.right.value == 0 and isinstance(e.left, BinOp) and e.left.op == "&"
                and isinstance(e.left.right, Const) and e.left.right.value == 1
                and isinstance(e.left.left, BinOp) and e.left.left.op == ">>"
                and _is_var(e.left.left.right, self.var)):
            self.uses += 1
            shifted = e.left.left
            masked = BinOp("&", shifted.left, Name(self.bit, U8, "local"), shifted.type)
            return replace(e, left=masked)
        return e

    def visit_BinOp(self, e: BinOp) -> Expr:
        e = self.generic_visit(e)
        if (e.op == "<<" and isinstance(e.left, Const) and e.left.value == 1
                and _is_var(e.right, self.var)):
            self.uses += 1
            bit_name = Name(self.bit, U8, "local")
            return bit_name if e.type == U8 else Cast(bit_name, e.type)
        return e


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
