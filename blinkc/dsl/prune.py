"""Pruning the lowered game: what the tile never runs is not in the Program.

Three steps, in order: `if CONSTANT:` keeps only the branch it takes (the engine's per-game
switches, such as RANDOMIZED) and what follows a `return` that is then unconditional goes;
calls of functions left empty are dropped (a dispatch with no handler), repeatedly; and only
the functions reachable from the entry points (and the globals they use) are kept.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..ir.nodes import Call, Const, ExprStmt, For, Function, GlobalVar, If, Return, Stmt
from ..ir.walk import calls, global_names

#: Entry points: what the SDK calls, and the hooks the emulator reads.
ROOTS = ("setup", "loop", "display", "engine_quiet_until", "engine_idle", "engine_links")


def prune(functions: Iterable[Function], globals_: Iterable[GlobalVar],
          kept: frozenset[str] = frozenset()) -> tuple[tuple[Function, ...], tuple[GlobalVar, ...]]:
    """The functions and globals the tile runs; `kept` names functions kept even when empty
    or never called (hooks the protocol explorer watches or calls)."""
    fns = [_with_body(f, fold_constant_ifs(f.body)) for f in functions]
    fns = drop_empty_calls(fns, kept)
    by_name = {f.name: f for f in fns}
    reached: set[str] = set()
    todo = [r for r in (*ROOTS, *sorted(kept)) if r in by_name]
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        todo += [c.func for c in calls(by_name[name].body)
                 if not c.builtin and c.func in by_name and c.func not in reached]
    kept_fns = tuple(f for f in fns if f.name in reached)
    used = {n for f in kept_fns for n in global_names(f.body)}
    return kept_fns, tuple(g for g in globals_ if g.role == "state" or g.name in used)


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
