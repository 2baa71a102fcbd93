"""Pruning the lowered game: what the tile never runs is not in the Program.

The steps, repeated until nothing changes: `if CONSTANT:` keeps only the branch it takes
(the engine's per-game switches, such as RANDOMIZED) and what follows a `return` that is then
unconditional goes; a call of a function that only returns a constant is that constant (the
engine's `unsettled()` of a game without messages), and `and`/`or` of a constant are folded;
a call with constant arguments of an engine function of one statement is that statement
(`timer_running(TIMER_PULSE)` is `(timer_on & (1 << TIMER_PULSE)) != 0`: the shift is then a
constant, where the function's own `1 << k` is a shift loop on the AVR);
calls of functions left empty are dropped (a dispatch with no handler); only the functions
reachable from the entry points are kept; and an engine variable that nothing reads but its
own updates (the coin's state in a game that never tosses it) goes with those updates, and so
does a local that nothing reads but its own updates once the rest is folded (loop()'s
`waiting` in a game without messages, the coin's `seed` once its state goes). Then only the
globals the kept functions use are kept.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from ..ir.builtins import BLINKLIB
from ..ir.nodes import (
    Assign,
    BoolOp,
    Call,
    Const,
    Expr,
    ExprStmt,
    For,
    Function,
    GlobalVar,
    If,
    Index,
    Local,
    Name,
    Return,
    Stmt,
)
from ..ir.visitor import Transformer
from ..ir.walk import calls, global_names, walk_exprs, walk_stmts

#: Entry points: what the SDK calls, and the hooks the emulator reads.
ROOTS = ("setup", "loop", "display", "engine_quiet_until", "engine_idle", "engine_links")


def prune(functions: Iterable[Function], globals_: Iterable[GlobalVar],
          kept: frozenset[str] = frozenset()) -> tuple[tuple[Function, ...], tuple[GlobalVar, ...]]:
    """The functions and globals the tile runs; `kept` names functions kept even when empty
    or never called (hooks the protocol explorer watches or calls)."""
    globals_ = tuple(globals_)
    fns = list(functions)
    while True:
        before = fns
        fns = [_with_body(f, fold_constant_ifs(f.body)) for f in fns]
        fns = fold_constant_calls(fns, kept)
        fns = inline_constant_calls(fns, kept)
        fns = drop_empty_calls(fns, kept)
        fns = reachable(fns, kept)
        fns = without_dead_stores(fns, {g.name for g in globals_ if g.role != "state"})
        fns = [_with_body(f, without_unread_locals(f.body)) for f in fns]
        if fns == before:
            break
    kept_fns = tuple(fns)
    used = {n for f in kept_fns for n in global_names(f.body)}
    return kept_fns, tuple(g for g in globals_ if g.role == "state" or g.name in used)


def reachable(functions: list[Function], kept: frozenset[str]) -> list[Function]:
    """The functions reachable from the entry points (and `kept`)."""
    by_name = {f.name: f for f in functions}
    reached: set[str] = set()
    todo = [r for r in (*ROOTS, *sorted(kept)) if r in by_name]
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        todo += [c.func for c in calls(by_name[name].body)
                 if not c.builtin and c.func in by_name and c.func not in reached]
    return [f for f in functions if f.name in reached]


def fold_constant_calls(functions: list[Function], kept: frozenset[str]) -> list[Function]:
    """A call without arguments of an engine function whose body is `return CONSTANT` is the
    constant;
    `and`/`or` with a constant operand are folded (so `if unsettled() and coin():` of a
    game without messages is `if False:`, and goes)."""
    consts = {f.name: f.body[0].value for f in functions
              if len(f.body) == 1 and isinstance(f.body[0], Return)
              and isinstance(f.body[0].value, Const) and not f.params and f.role == "engine"
              and f.name not in ROOTS and f.name not in kept}
    if not consts:
        return functions
    folding = _FoldCalls(consts)
    return [_with_body(f, folding.visit_block(f.body)) for f in functions]


def inline_constant_calls(functions: list[Function], kept: frozenset[str]) -> list[Function]:
    """A call whose arguments are all constants, of an engine function whose body is one
    statement (a `return` of a value, or an assignment when the call is a statement of its
    own) that reads no parameter after changing anything, is that statement with the
    constants in place of the parameters."""
    small = {f.name: f for f in functions
             if f.role == "engine" and f.params and len(f.body) == 1
             and f.name not in ROOTS and f.name not in kept
             and ((isinstance(f.body[0], Return) and f.body[0].value is not None
                   and f.ret is not None)
                  or (isinstance(f.body[0], Assign) and f.ret is None))}
    if not small:
        return functions
    inlining = _InlineCalls(small)
    return [_with_body(f, inlining.visit_block(f.body)) for f in functions]


class _InlineCalls(Transformer):
    def __init__(self, small: dict[str, Function]) -> None:
        self.small = small

    def _callee(self, e: Call) -> Function | None:
        f = self.small.get(e.func)
        if f is None or e.builtin or not all(isinstance(a, Const) for a in e.args):
            return None
        return f

    def visit_Call(self, e: Call) -> Expr:
        e = self.generic_visit(e)
        f = self._callee(e)
        if f is None or not isinstance(f.body[0], Return):
            return e
        assert f.body[0].value is not None
        return _Substitute(f, e.args).visit(f.body[0].value)

    def visit_ExprStmt(self, s: ExprStmt) -> Stmt:
        s = self.generic_visit(s)
        if not isinstance(s.value, Call):
            return s
        f = self._callee(s.value)
        if f is None or not isinstance(f.body[0], Assign):
            return s
        done = _Substitute(f, s.value.args).visit(f.body[0])
        return replace(done, loc=s.loc)


class _Substitute(Transformer):
    """A function's statement or expression with its arguments for its parameters."""

    def __init__(self, f: Function, args: tuple[Expr, ...]) -> None:
        self.args = {p.name: a for p, a in zip(f.params, args, strict=True)}

    def visit_Name(self, e: Name) -> Expr:
        if e.scope == "param" and e.name in self.args:
            return self.args[e.name]
        return e


class _FoldCalls(Transformer):
    """Calls of constant functions as their constants, bottom up; `and`/`or` of constants
    decided."""

    def __init__(self, consts: dict[str, Const]) -> None:
        self.consts = consts

    def visit_Call(self, e: Call) -> Expr:
        e = self.generic_visit(e)
        if not e.builtin and not e.args and e.func in self.consts:
            c = self.consts[e.func]
            return Const(c.value, e.type or c.type, e.is_bool, c.name)
        return e

    def visit_BoolOp(self, e: BoolOp) -> Expr:
        e = self.generic_visit(e)
        values: list[Expr] = []
        for v in e.values:
            if isinstance(v, Const):
                if bool(v.value) == (e.op == "or"):   # False and ..., True or ...: decided
                    return Const(int(e.op == "or"), e.type, True) if not values else \
                        BoolOp(e.op, (*values, v), e.type, e.is_bool)
                continue  # True and x, False or x: x
            values.append(v)
        if not values:
            return Const(int(e.op == "and"), e.type, True)
        if len(values) == 1 and values[0].is_bool:
            return values[0]
        if len(values) != len(e.values):
            return BoolOp(e.op, tuple(values), e.type, e.is_bool)
        return e

    def visit_ExprStmt(self, s: ExprStmt) -> ExprStmt | tuple[()]:
        s = self.generic_visit(s)
        if not isinstance(s.value, Call):
            return ()  # a call folded to its constant: it did nothing else
        return s


def without_dead_stores(functions: list[Function], candidates: set[str]) -> list[Function]:
    """An engine variable that is only ever read by the statements that update it (and
    nothing else they do is seen) is dead: those statements go."""
    dead: set[str] = set()
    # (Each function's globals once: a function that does not name g cannot read it.)
    named = [(f, global_names(f.body)) for f in functions]
    for g in sorted(candidates):
        using = [f for f, names in named if g in names]
        if using and all(_reads_only_in_updates(f.body, g) for f in using):
            dead.add(g)
    if not dead:
        return functions
    return [_with_body(f, _without_updates(f.body, dead)) for f in functions]


def _update_of(s: Stmt, g: str) -> bool:
    """The statement only changes global g (and locals of its own loops), with no calls
    other than the SDK's pure functions."""
    if isinstance(s, Assign):
        if isinstance(s.target, Name) and s.target.scope != "global":
            return False
        target = s.target.array if isinstance(s.target, Index) else s.target.name
        return target == g and _quiet(s.value) and (
            not isinstance(s.target, Index) or _quiet(s.target.index))
    if isinstance(s, If):
        return _quiet(s.test) and all(_update_of(b, g) for b in (*s.body, *s.orelse))
    if isinstance(s, For):
        return _quiet(s.start) and _quiet(s.stop) and all(_update_of(b, g) for b in s.body)
    return False


def _quiet(e: Expr) -> bool:
    """No side effects: calls only of the SDK's pure functions."""
    return all(not isinstance(x, Call) or (x.builtin and x.func in BLINKLIB and BLINKLIB[x.func].pure)
               for x in walk_exprs(e))


def _reads_only_in_updates(body: tuple[Stmt, ...], g: str) -> bool:
    for s in body:
        if _update_of(s, g):
            continue
        if isinstance(s, If):
            if _reads(s.test, g) or not _reads_only_in_updates(s.body, g) \
                    or not _reads_only_in_updates(s.orelse, g):
                return False
        elif isinstance(s, For):
            if _reads(s.start, g) or _reads(s.stop, g) or not _reads_only_in_updates(s.body, g):
                return False
        elif g in global_names((s,)):
            return False
    return True


def _reads(e: Expr, g: str) -> bool:
    return any((isinstance(x, Name) and x.scope == "global" and x.name == g)
               or (isinstance(x, Index) and x.array == g) for x in walk_exprs(e))


def _without_updates(body: tuple[Stmt, ...], dead: set[str]) -> tuple[Stmt, ...]:
    out: list[Stmt] = []
    for s in body:
        if any(_update_of(s, g) for g in dead):
            continue
        if isinstance(s, If):
            s = If(s.test, _without_updates(s.body, dead), _without_updates(s.orelse, dead), s.loc)
        elif isinstance(s, For):
            s = replace(s, body=_without_updates(s.body, dead))
        out.append(s)
    return tuple(out)


def without_unread_locals(body: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
    """A local that nothing in the body reads but its own updates goes, with every store to
    it, when no store has a side effect (its value calls only the SDK's pure functions)."""
    quiet: dict[str, bool] = {}  # local -> every store to it is quiet
    loop_vars: set[str] = set()
    for n in walk_stmts(body):
        if isinstance(n, Local):
            quiet[n.name] = quiet.get(n.name, True) and _quiet(n.value)
        elif isinstance(n, Assign) and isinstance(n.target, Name) and n.target.scope == "local":
            quiet[n.target.name] = quiet.get(n.target.name, True) and _quiet(n.value)
        elif isinstance(n, For):
            loop_vars.update(v for v in (n.var, n.bit) if v)
    unread = {name for name, q in quiet.items()
              if q and name not in loop_vars and not _read_outside_updates(body, name)}
    if not unread:
        return body
    return _without_stores(body, unread)


def _local_update_of(s: Stmt, x: str) -> bool:
    """The statement only changes local x (a quiet store to it, or tests and loops of only
    those), so what it reads of x matters to nobody else."""
    if isinstance(s, Local):
        return s.name == x and _quiet(s.value)
    if isinstance(s, Assign):
        return (isinstance(s.target, Name) and s.target.scope == "local"
                and s.target.name == x and _quiet(s.value))
    if isinstance(s, If):
        return (_quiet(s.test) and bool(s.body or s.orelse)
                and all(_local_update_of(b, x) for b in (*s.body, *s.orelse)))
    if isinstance(s, For):
        return (_quiet(s.start) and _quiet(s.stop) and bool(s.body)
                and all(_local_update_of(b, x) for b in s.body))
    return False


def _read_outside_updates(body: tuple[Stmt, ...], x: str) -> bool:
    """Something other than x's own updates reads local x."""
    for s in body:
        if _local_update_of(s, x):
            continue
        if isinstance(s, If):
            if _reads_local(s.test, x) or _read_outside_updates(s.body, x) \
                    or _read_outside_updates(s.orelse, x):
                return True
        elif isinstance(s, For):
            if _reads_local(s.start, x) or _reads_local(s.stop, x) \
                    or _read_outside_updates(s.body, x):
                return True
        elif any(isinstance(n, Name) and n.scope == "local" and n.name == x
                 and not (isinstance(s, (Assign, Local)) and n is getattr(s, "target", None))
                 for n in walk_stmts((s,))):
            return True
    return False


def _reads_local(e: Expr, x: str) -> bool:
    return any(isinstance(n, Name) and n.scope == "local" and n.name == x for n in walk_exprs(e))


def _without_stores(body: tuple[Stmt, ...], names: set[str]) -> tuple[Stmt, ...]:
    out: list[Stmt] = []
    for s in body:
        if isinstance(s, Local) and s.name in names:
            continue
        if isinstance(s, Assign) and isinstance(s.target, Name) and s.target.scope == "local" \
                and s.target.name in names:
            continue
        if isinstance(s, If):
            emptied = bool(s.body or s.orelse)
            s = If(s.test, _without_stores(s.body, names), _without_stores(s.orelse, names), s.loc)
            if emptied and not s.body and not s.orelse and _quiet(s.test):
                continue  # (it only stored to those locals)
        elif isinstance(s, For):
            emptied = bool(s.body)
            s = replace(s, body=_without_stores(s.body, names))
            if emptied and not s.body and _quiet(s.start) and _quiet(s.stop):
                continue  # (it only stored to those locals)
        out.append(s)
    return tuple(out)


def drop_empty_calls(functions: list[Function], kept: frozenset[str]) -> list[Function]:
    """Calls of functions with nothing in them are dropped, and the functions with them."""
    while True:
        empty = {f.name for f in functions
                 if not f.body and f.ret is None and f.name not in ("setup", "loop", "display")
                 and f.name not in kept}
        if not empty:
            return functions
        functions = [_with_body(f, without_calls(f.body, empty)) for f in functions
                     if f.name not in empty]


def without_calls(body: tuple[Stmt, ...], names: set[str]) -> tuple[Stmt, ...]:
    out: list[Stmt] = []
    for s in body:
        if isinstance(s, ExprStmt) and isinstance(s.value, Call) and s.value.func in names:
            continue
        if isinstance(s, If):
            s = If(s.test, without_calls(s.body, names), without_calls(s.orelse, names), s.loc)
            if not s.body and not s.orelse:
                continue  # conditions have no side effects worth keeping here
        elif isinstance(s, For):
            s = For(s.var, s.start, s.stop, without_calls(s.body, names), s.loc)
            if not s.body:
                continue
        out.append(s)
    return tuple(out)


def fold_constant_ifs(body: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
    """`if CONSTANT:` keeps only the branch it takes; nothing after a `return` is kept."""
    out: list[Stmt] = []
    for s in body:
        if isinstance(s, If):
            if isinstance(s.test, Const):
                out.extend(fold_constant_ifs(s.body if s.test.value else s.orelse))
                if out and isinstance(out[-1], Return):
                    break   # the branch taken returns: the rest can never run
                continue
            s = If(s.test, fold_constant_ifs(s.body), fold_constant_ifs(s.orelse), s.loc)
        elif isinstance(s, For):
            s = For(s.var, s.start, s.stop, fold_constant_ifs(s.body), s.loc)
        out.append(s)
        if isinstance(s, Return):
            break
    return tuple(out)


def _with_body(f: Function, body: tuple[Stmt, ...]) -> Function:
    if body is f.body:
        return f
    return Function(f.name, f.params, f.ret, body, f.loc, f.doc, f.role)
