"""Value ranges of IR expressions, so renderers can leave out wraps that never happen.

This is an over-approximation: if `value_range(e)` says [lo, hi], the exact
(unwrapped) value of e is always inside it. A backend may skip the wrap of
an operation whose exact result provably fits its type.

The ranges also learn from the tests that guard a statement (flow-sensitive
narrowing): inside `if 0 < t.hp < 5:`, and below `if t.hp == 0: return`, the
field's range is narrower. A walker of statements says what it enters and
leaves (`assuming` for a branch, `after` below each statement); what a
statement may change (an assignment, a call of a function that assigns
fields) is forgotten at once.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from .builtins import BLINKLIB
from .nodes import (
    BOOL,
    Assign,
    BinOp,
    BoolOp,
    Call,
    Cast,
    Compare,
    Cond,
    Const,
    Expr,
    For,
    Function,
    If,
    Index,
    IntType,
    Local,
    Name,
    Param,
    Program,
    Stmt,
    UnOp,
)
from .visitor import Renderer, iter_children
from .walk import leaves, walk_exprs, walk_stmts

Range = tuple[int, int]


_MIRRORED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_NEGATED = {">=": "<", ">": "<=", "<": ">=", "<=": ">", "==": "!=", "!=": "=="}


#: Calls whose result their argument bounds: the SDK's random(n) (a builtin: True) and the
#: engine's draw_below(n) (a program function: False), the two forms of t.random().
_DRAWS = {"random": True, "draw_below": False}


def type_range(t: IntType) -> Range:
    return (0, 1) if t == BOOL else (t.min, t.max)


class Ranges:
    def __init__(self, program: Program) -> None:
        self.globals = {g.name: (g.range or type_range(g.type)) for g in program.globals}
        #: Ranges of the current function's parameters and loop variables.
        self.env: dict[str, Range] = {}
        #: Narrower ranges of expressions where a test guards them (a branch, or below
        #: `if test: return`), as long as nothing assigns what they read.
        self.pinned: dict[Expr, Range] = {}
        #: The globals (scalars and arrays) each function may assign, with those of its callees.
        self.writes = _global_writes(program)
        self._of = _RangeOf(self)

    def enter(self, f: Function) -> None:
        """Learn the ranges of f's parameters and of loop variables nothing else assigns."""
        self.pinned = {}
        env = {p.name: p.range for p in f.params if p.range is not None}
        # Loop bounds are read in this function's environment, never in the previous one's
        # (a local of the same name there may have had a narrower range).
        self.env = dict(env)
        assigned = set()
        loops: dict[str, Range] = {}
        for s in walk_stmts(f.body):
            if isinstance(s, Local) or (isinstance(s, Assign) and isinstance(s.target, Name)
                                        and s.target.scope == "local"):
                assigned.add(s.name if isinstance(s, Local) else s.target.name)
            elif isinstance(s, For):
                if isinstance(s.start, Const) and isinstance(s.stop, Const):
                    lo, hi = s.start.value, s.stop.value - 1
                else:
                    lo, hi = 0, max(0, self.of(s.stop)[1] - 1)
                old = loops.get(s.var)
                loops[s.var] = (lo, hi) if old is None else (min(old[0], lo), max(old[1], hi))
                if s.bit is not None:  # 1 << var, kept by the loop (constant bounds)
                    env[s.bit] = (1 << max(lo, 0), 1 << max(hi, 0))
        for name, r in loops.items():
            if name not in assigned:
                env[name] = r
        self.env = env
        # Locals: the union of the ranges of every value assigned to them, each value's range
        # knowing the tests that guard its assignment and still hold there.
        values: dict[str, list] = {}
        types: dict[str, IntType] = {}
        for s, facts in _assignments(f.body, self.assigned):
            # (a call in the value that assigns what a test read runs before the value is known)
            facts = _still_true(facts, self._call_writes(s.value))
            if isinstance(s, Local):
                values.setdefault(s.name, []).append((s.value, facts))
                types[s.name] = s.type
            else:
                values.setdefault(s.target.name, []).append((s.value, facts))
        ranged = [name for name in values if types.get(name) is not None and name not in loops]
        if not self._ascend(ranged, values, types):
            self._descend(ranged, values, types)

    def _call_writes(self, e: Expr) -> set[tuple[str, str]]:
        """The globals the program's functions called in e may assign."""
        out: set[tuple[str, str]] = set()
        for node in walk_exprs(e):
            if isinstance(node, Call) and not node.builtin:
                out |= self.writes.get(node.func, {_ANY_GLOBAL})
        if _ANY_GLOBAL in out:
            out |= {("global", n) for n in self.globals}
        return out

    def _union(self, exprs: list, t: IntType) -> Range:
        """The range of the values `exprs` (each with the tests that guard it), or t's range
        when one can leave it."""
        los, his = zip(*(self._under(e, facts) for e, facts in exprs), strict=True)
        tlo, thi = type_range(t)
        if min(los) < tlo or max(his) > thi:
            return (tlo, thi)  # it can wrap: keep the whole type
        return (min(los), max(his))

    def _ascend(self, names: list[str], values: dict, types: dict) -> bool:
        """Ranges of the locals from below: each local's range from the values assigned to it
        that read no local still unknown, widened until every value assigned to each local lies
        in its range (then they hold for the whole run: `pick = t.random(4)`, then `pick -= 1`
        below `if pick == 0: break`, is 0..4). False, and self.env as it was, when that takes
        too many steps."""
        saved = dict(self.env)
        for name in names:
            self.env.pop(name, None)
        unknown = set(names)
        for _ in range(8):
            for name in names:
                known = [(e, facts) for e, facts in values[name]
                         if not _local_reads(e, facts) & unknown]
                if not known:
                    continue
                r = self._union(known, types[name])
                if name in self.env:
                    r = _join(r, self.env[name])
                self.env[name] = r
                unknown.discard(name)
            if not unknown and all(
                    _join(self._union(values[n], types[n]), self.env[n]) == self.env[n]
                    for n in names):
                return True
        self.env = saved
        return False

    def _descend(self, names: list[str], values: dict, types: dict) -> None:
        """Ranges of the locals from their types' ranges down: each step stays sound."""
        for _ in range(4):
            changed = False
            for name in names:
                r = self._union(values[name], types[name])
                if self.env.get(name) != r:
                    self.env[name] = r
                    changed = True
            if not changed:
                break

    def of(self, e: Expr) -> Range:
        if self.pinned and e in self.pinned:
            return self.pinned[e]
        return self._of.visit(e)

    def _draw(self, e: Call) -> Range:
        """A random draw bounded by its argument: the SDK's random(n) is 0..n; the engine's
        draw_below(n) (t.random(n - 1) of a game without randomize()) is 0..n-1, and n = 0
        stands for 65,536."""
        lo, hi = self.of(e.args[0])
        top = type_range(e.type)[1]
        if e.builtin:
            return (0, min(max(hi, 0), top))
        return (0, hi - 1) if lo >= 1 and hi <= top else (0, top)

    def _under(self, e: Expr, facts: tuple[tuple[Expr, bool], ...]) -> Range:
        """e's range knowing how the tests of the branches around it came out."""
        if not facts:
            return self.of(e)
        test, outcome = facts[0]
        with self.assuming(test, outcome):
            return self._under(e, facts[1:])

    def _comparison(self, test: Expr) -> tuple[int, int, int] | None:
        """(lo, hi, c) for `x op c` when x is repeatable (a test that draws a random number
        teaches nothing and must still be evaluated) and both sides keep their values in the
        type the comparison is made in (-129 compared as uint32 is 4,294,967,167)."""
        if not (isinstance(test, Compare) and isinstance(test.right, Const)
                and repeatable(test.left)):
            return None
        lo, hi = self.of(test.left)
        c = test.right.value
        t = test.optype
        if t == BOOL or not (self.fits((lo, hi), t) and self.fits((c, c), t)):
            return None
        return lo, hi, c

    def decided(self, test: Expr) -> bool | None:
        """The outcome of a comparison with a constant that the ranges already know, or None."""
        known = self._comparison(test)
        if known is None:
            return None
        lo, hi, c = known
        always = {"<": hi < c, "<=": hi <= c, ">": lo > c, ">=": lo >= c,
                  "==": lo == hi == c, "!=": c < lo or c > hi}
        never = {"<": lo >= c, "<=": lo > c, ">": hi <= c, ">=": hi < c,
                 "==": c < lo or c > hi, "!=": lo == hi == c}
        if always.get(test.op):
            return True
        if never.get(test.op):
            return False
        return None

    def _branch(self, e: Cond, taken: bool) -> Range:
        """A branch's range, knowing the test's outcome when it compares something to a constant."""
        with self.assuming(e.test, taken):
            return self.of(e.body if taken else e.orelse)

    @contextmanager
    def assuming(self, test: Expr, outcome: bool) -> Iterator[None]:
        """Within the block, ranges know that `test` came out as `outcome` (what a comparison
        with a constant, `and`, `or` and `not` of them teach; other tests teach nothing)."""
        saved = self.pinned
        self.pinned = dict(saved)
        try:
            self.learn(test, outcome)
            yield
        finally:
            self.pinned = saved

    @contextmanager
    def scope(self) -> Iterator[None]:
        """What is learned within the block (below an `if ...: return` in it) is forgotten at
        its end."""
        saved = self.pinned
        self.pinned = dict(saved)
        try:
            yield
        finally:
            self.pinned = saved

    def learn(self, test: Expr, outcome: bool) -> None:
        """From here on (until the scope ends or something assigns what it reads), `test`
        came out as `outcome`."""
        if isinstance(test, UnOp) and test.op == "not":
            self.learn(test.operand, not outcome)
            return
        if isinstance(test, BoolOp):
            if (test.op == "and") == outcome:  # all of them came out so
                for v in test.values:
                    self.learn(v, outcome)
            return
        if (isinstance(test, Compare) and isinstance(test.left, Const)
                and not isinstance(test.right, Const)):
            # `c < x` is `x > c` (min() and max() compare this way round).
            test = replace(test, left=test.right, right=test.left, op=_MIRRORED[test.op])
        known = self._comparison(test)
        if known is None:
            return
        lo, hi, c = known
        op = test.op if outcome else _NEGATED[test.op]
        if op == ">=":
            lo = max(lo, c)
        elif op == ">":
            lo = max(lo, c + 1)
        elif op == "<":
            hi = min(hi, c - 1)
        elif op == "<=":
            hi = min(hi, c)
        elif op == "==":
            lo = hi = c
        elif op == "!=" and c == lo:
            lo += 1
        elif op == "!=" and c == hi:
            hi -= 1
        if lo > hi:
            return  # that outcome cannot happen; any range is sound
        self.pinned[test.left] = (lo, hi)

    def forget(self, s: Stmt) -> None:
        """Drop what running s may change: the pins of expressions that read a local it
        assigns, or a global it (or a function it calls) may assign."""
        if not self.pinned:
            return
        written = self.assigned(s)
        for e in [e for e in self.pinned if _reads(e) & written]:
            del self.pinned[e]

    def after(self, s: Stmt) -> None:
        """Below s in its block: forget what s may change; below `if test: return` (a branch
        that never falls through), the test came out the other way."""
        self.forget(s)
        if isinstance(s, If) and leaves(s.body) != leaves(s.orelse) and not (
                _reads(s.test) & self.assigned(s)):
            self.learn(s.test, not leaves(s.body))

    def assigned(self, s: Stmt) -> set[tuple[str, str]]:
        """What running s may assign: ("local", name) and ("global", name) (arrays too)."""
        out: set[tuple[str, str]] = set()
        for node in walk_stmts((s,)):
            if isinstance(node, Local):
                out.add(("local", node.name))
            elif isinstance(node, Assign):
                t = node.target
                if isinstance(t, Index):
                    out.add(("global", t.array))
                else:
                    out.add(("global" if t.scope == "global" else "local", t.name))
            elif isinstance(node, For):
                out.add(("local", node.var))
                if node.bit is not None:
                    out.add(("local", node.bit))
            elif isinstance(node, Call) and not node.builtin:
                out |= self.writes.get(node.func, {_ANY_GLOBAL})
        if _ANY_GLOBAL in out:
            out |= {("global", n) for n in self.globals}
        return out

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
        if op == "&" and (a[0] >= 0 or b[0] >= 0):
            # x & m keeps only bits of m: a non-negative m bounds it, whatever x is (in two's
            # complement a negative x has every high bit set, and m has none).
            return (0, min(r[1] for r in (a, b) if r[0] >= 0))
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


_ANY_GLOBAL = ("global", "*")  # a call of a function the program does not have


def _reads(e: Expr) -> set[tuple[str, str]]:
    """The variables e reads, as `Ranges.assigned` names them."""
    out: set[tuple[str, str]] = set()
    for n in walk_exprs(e):
        if isinstance(n, Name):
            out.add(("global" if n.scope == "global" else "local", n.name))
        elif isinstance(n, Index):
            out.add(("global", n.array))
        elif isinstance(n, Call) and not n.builtin:
            out.add(_ANY_GLOBAL)  # never pinned (not repeatable); for safety
    return out


def _global_writes(program: Program) -> dict[str, set[tuple[str, str]]]:
    """The globals each function may assign, itself or through the functions it calls."""
    direct: dict[str, set[tuple[str, str]]] = {}
    calls: dict[str, set[str]] = {}
    for f in program.functions:
        mine: set[tuple[str, str]] = set()
        callees: set[str] = set()
        for node in walk_stmts(f.body):
            if isinstance(node, Assign):
                t = node.target
                if isinstance(t, Index):
                    mine.add(("global", t.array))
                elif t.scope == "global":
                    mine.add(("global", t.name))
            elif isinstance(node, Call) and not node.builtin:
                callees.add(node.func)
        direct[f.name], calls[f.name] = mine, callees
    writes = {name: set(w) for name, w in direct.items()}
    changed = True
    while changed:
        changed = False
        for name, callees in calls.items():
            for c in callees:
                more = writes.get(c, {_ANY_GLOBAL})
                if not more <= writes[name]:
                    writes[name] |= more
                    changed = True
    return writes


def _assignments(body: tuple, assigned, facts: tuple = ()) -> Iterator[tuple]:
    """Each assignment to a local, with the outcomes of the enclosing `if` tests (and of those
    above it in its blocks that leave when they pass: `if x == 0: break`) that still hold
    there: nothing between the test and the assignment (nor the loop around it, from one turn
    to the next) assigns what the test reads. `assigned(stmt)` is what a statement may assign
    (`Ranges.assigned`)."""
    for s in body:
        if isinstance(s, Local) or (isinstance(s, Assign) and isinstance(s.target, Name)
                                    and s.target.scope == "local"):
            yield s, facts
        elif isinstance(s, If):
            yield from _assignments(s.body, assigned, (*facts, (s.test, True)))
            yield from _assignments(s.orelse, assigned, (*facts, (s.test, False)))
        elif isinstance(s, For):
            yield from _assignments(s.body, assigned, _still_true(facts, assigned(s)))
        facts = _still_true(facts, assigned(s))
        if isinstance(s, If) and leaves(s.body) != leaves(s.orelse) and not (
                _reads(s.test) & assigned(s)):
            facts = (*facts, (s.test, not leaves(s.body)))  # below `if x == 0: return`: x != 0


def _join(a: Range, b: Range) -> Range:
    return (min(a[0], b[0]), max(a[1], b[1]))


def _still_true(facts: tuple, written: set) -> tuple:
    """The facts whose tests read nothing in `written`."""
    return tuple(fact for fact in facts if not _reads(fact[0]) & written)


def _local_reads(e: Expr, facts: tuple) -> set[str]:
    """The locals an assigned value and the tests guarding it read."""
    out = set()
    for x in (e, *(test for test, _ in facts)):
        out |= {name for scope, name in _reads(x) if scope == "local"}
    return out


class _RangeOf(Renderer):
    """The range of an expression (without the pins: `Ranges.of` looks at those first)."""

    def __init__(self, ranges: Ranges) -> None:
        self.ranges = ranges

    def visit_Const(self, e: Const) -> Range:
        return (e.value, e.value)

    def visit_Name(self, e: Name) -> Range:
        r = self.ranges
        if e.is_bool:
            return (0, 1)
        if e.scope == "global" and e.name in r.globals:
            return r.globals[e.name]
        if e.scope != "global" and e.name in r.env:
            return r.env[e.name]
        return type_range(e.type)

    def visit_Index(self, e: Index) -> Range:
        if not e.is_bool and e.array in self.ranges.globals:
            return self.ranges.globals[e.array]  # a per-face field's declared range
        return (0, 1) if e.is_bool else type_range(e.type)

    def visit_Call(self, e: Call) -> Range:
        if e.args and _DRAWS.get(e.func) == e.builtin:
            return self.ranges._draw(e)
        if e.type is None:
            return (0, 0)
        return (0, 1) if e.is_bool else type_range(e.type)

    def visit_Compare(self, e: Compare | BoolOp) -> Range:
        return (0, 1)

    visit_BoolOp = visit_Compare

    def visit_UnOp(self, e: UnOp) -> Range:
        return (0, 1) if e.op == "not" else type_range(e.type)

    def visit_Cast(self, e: Cast) -> Range:
        inner = self.ranges.of(e.value)
        return inner if self.ranges.fits(inner, e.type) else type_range(e.type)

    def visit_Cond(self, e: Cond) -> Range:
        a, b = self.ranges._branch(e, True), self.ranges._branch(e, False)
        r = (min(a[0], b[0]), max(a[1], b[1]))
        # The branch taken is converted to the conditional's type, as a cast converts.
        return r if self.ranges.fits(r, e.type) else type_range(e.type)

    def visit_BinOp(self, e: BinOp) -> Range:
        r = self.ranges.exact(e)
        return r if self.ranges.fits(r, e.type) else type_range(e.type)


class _Repeatable(Renderer):
    """Whether an expression has the same value wherever it appears: see `repeatable`."""

    def visit_Call(self, e: Call) -> bool:
        builtin = BLINKLIB.get(e.func) if e.builtin else None
        return builtin is not None and builtin.pure and all(self.visit(a) for a in e.args)

    def visit_Const(self, e: Expr) -> bool:
        return True

    visit_Name = visit_Const

    def _operands(self, e: Expr) -> bool:
        return all(self.visit(c) for c in iter_children(e))

    visit_BinOp = visit_Compare = visit_UnOp = visit_Cast = visit_Index = _operands
    visit_BoolOp = visit_Cond = _operands


_REPEATABLE = _Repeatable()


def repeatable(e: Expr) -> bool:
    """True when e has the same value wherever it appears (in one pass), so what a test taught
    about it still holds in the branch. Not so for a call that draws a random number or reads
    a button event, nor for a call of the program's own functions (which may do either)."""
    return _REPEATABLE.visit(e)


def with_param_ranges(fn: Function, ranges: list) -> Function:
    """`fn` with its parameters' ranges set (None: leave that parameter's as it is)."""
    params = tuple(Param(p.name, p.type, r) if r is not None else p
                   for p, r in zip(fn.params, list(ranges) + [None] * len(fn.params), strict=False))
    return Function(fn.name, params, fn.ret, fn.body, fn.loc, fn.doc, fn.role)
