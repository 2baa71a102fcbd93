"""Walking the IR: every statement and expression of a body, for analyses."""

from __future__ import annotations

from collections.abc import Iterator

from .nodes import (
    Assign,
    BinOp,
    BoolOp,
    Break,
    Call,
    Cast,
    Compare,
    Cond,
    Continue,
    Expr,
    ExprStmt,
    For,
    If,
    Index,
    Local,
    Name,
    Return,
    SrcLoc,
    Stmt,
    UnOp,
)


def walk_exprs(e: Expr) -> Iterator[Expr]:
    """e and every expression inside it."""
    yield e
    if isinstance(e, BinOp | Compare):
        yield from walk_exprs(e.left)
        yield from walk_exprs(e.right)
    elif isinstance(e, UnOp):
        yield from walk_exprs(e.operand)
    elif isinstance(e, Cast):
        yield from walk_exprs(e.value)
    elif isinstance(e, BoolOp):
        for v in e.values:
            yield from walk_exprs(v)
    elif isinstance(e, Cond):
        for v in (e.test, e.body, e.orelse):
            yield from walk_exprs(v)
    elif isinstance(e, Call):
        for a in e.args:
            yield from walk_exprs(a)
    elif isinstance(e, Index):
        yield from walk_exprs(e.index)


def walk_stmts(body: tuple[Stmt, ...] | list[Stmt]) -> Iterator[Stmt | Expr]:
    """Every statement and every expression in a body (for analyses)."""
    for s in body:
        yield s
        if isinstance(s, If):
            yield from walk_exprs(s.test)
            yield from walk_stmts(s.body)
            yield from walk_stmts(s.orelse)
        elif isinstance(s, For):
            yield from walk_exprs(s.start)
            yield from walk_exprs(s.stop)
            yield from walk_stmts(s.body)
        elif isinstance(s, Assign):
            yield from walk_exprs(s.target)
            yield from walk_exprs(s.value)
        elif isinstance(s, Local):
            yield from walk_exprs(s.value)
        elif isinstance(s, Return) and s.value is not None:
            yield from walk_exprs(s.value)
        elif isinstance(s, ExprStmt):
            yield from walk_exprs(s.value)


def calls_at(body: tuple[Stmt, ...]) -> list[tuple[SrcLoc, Call]]:
    """Every call in a body, with the line of the statement it is in."""
    out = []
    loc = None
    for node in walk_stmts(body):
        loc = getattr(node, "loc", loc)
        if isinstance(node, Call) and loc is not None:
            out.append((loc, node))
    return out


def calls(body: tuple[Stmt, ...]) -> list[Call]:
    """Every call in a body."""
    return [n for n in walk_stmts(body) if isinstance(n, Call)]


def global_names(body: tuple[Stmt, ...]) -> set[str]:
    """The globals (variables and arrays) a body reads or writes."""
    out = set()
    for n in walk_stmts(body):
        if isinstance(n, Name) and n.scope == "global":
            out.add(n.name)
        elif isinstance(n, Index):
            out.add(n.array)
    return out


def leaves(body: tuple[Stmt, ...] | list[Stmt]) -> bool:
    """The block never falls through to what follows it: it ends in a return, a break or a
    continue, or in an if of which both branches do."""
    if not body:
        return False
    last = body[-1]
    return (isinstance(last, Return | Break | Continue)
            or (isinstance(last, If) and leaves(last.body) and leaves(last.orelse)))
