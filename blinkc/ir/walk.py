"""Walking the IR: every statement and expression of a body, for analyses (on the children
that `visitor.CHILDREN` declares for each node class)."""

from __future__ import annotations

from collections.abc import Iterator

from .nodes import (
    Break,
    Call,
    Continue,
    Expr,
    If,
    Index,
    Name,
    Return,
    SrcLoc,
    Stmt,
)
from .visitor import children_of


def walk_exprs(e: Expr) -> Iterator[Expr]:
    """e and every expression inside it."""
    return _preorder((e,))  # type: ignore[return-value]


def walk_stmts(body: tuple[Stmt, ...] | list[Stmt]) -> Iterator[Stmt | Expr]:
    """Every statement and every expression in a body, each before what is inside it (for
    analyses). A node of a class the IR does not declare raises UnknownNode."""
    return _preorder(body)


def _preorder(roots: tuple[Stmt | Expr, ...] | list[Stmt]) -> Iterator[Stmt | Expr]:
    """Each node before the nodes inside it, in `iter_children`'s order. With a stack of its
    own: nested generators, one a level, made every analysis of a game several times slower."""
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        yield node
        fields = children_of(node)
        if not fields:
            continue
        inside: list[Stmt | Expr] = []
        for field in fields:
            value = getattr(node, field)
            if isinstance(value, tuple):
                inside.extend(value)
            elif value is not None:
                inside.append(value)
        stack.extend(reversed(inside))


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
