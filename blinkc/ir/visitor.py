"""One walker of the IR: a `Visitor` and a `Transformer` with one method per node class.

As Python's `ast.NodeVisitor`/`ast.NodeTransformer`: `visit(node)` calls `visit_<Class>`
(`visit_BinOp`, `visit_If`); each of those recurses into the node's children by default, so a
pass writes only the methods of the nodes it cares about. Extra arguments of `visit` are
passed along (`visit(e, low)` in the demanded-bits analysis).

A node of a class this module does not know (a new IR node) has no default method: every
pass raises `UnknownNode` on it until the class is given its children in `CHILDREN` below
(and a default method here), and each pass that must treat it specially is given its method.
So adding a node cannot be silently ignored by a pass written before it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any, get_args

from .nodes import (
    Assign,
    BinOp,
    BoolOp,
    Break,
    Call,
    Cast,
    Compare,
    Cond,
    Const,
    Continue,
    Expr,
    ExprStmt,
    For,
    If,
    Index,
    Local,
    Name,
    Return,
    Stmt,
    UnOp,
)

#: The fields of each node class that hold nodes (an expression, a block or a tuple of
#: expressions), in the order a walk visits them.
CHILDREN: dict[type, tuple[str, ...]] = {
    Const: (),
    Name: (),
    Index: ("index",),
    BinOp: ("left", "right"),
    UnOp: ("operand",),
    Compare: ("left", "right"),
    BoolOp: ("values",),
    Cond: ("test", "body", "orelse"),
    Cast: ("value",),
    Call: ("args",),
    Local: ("value",),
    Assign: ("target", "value"),
    If: ("test", "body", "orelse"),
    For: ("start", "stop", "body"),
    Return: ("value",),
    ExprStmt: ("value",),
    Break: (),
    Continue: (),
}

EXPR_CLASSES: tuple[type, ...] = get_args(Expr)
STMT_CLASSES: tuple[type, ...] = get_args(Stmt)


class UnknownNode(TypeError):
    """A pass met a node of a class it has no method for."""

    def __init__(self, walker: object, node: object) -> None:
        cls = type(node).__name__
        super().__init__(f"{type(walker).__name__} has no visit_{cls}: the IR node class {cls} "
                         f"is not known to this pass (give it a method, and its children in "
                         f"blinkc/ir/visitor.py CHILDREN)")
        self.node = node


def children_of(node: object) -> tuple[str, ...]:
    """The child fields of a node; UnknownNode for a class the IR does not declare."""
    try:
        return CHILDREN[type(node)]
    except KeyError:
        raise UnknownNode(children_of, node) from None


def iter_children(node: object) -> Iterator[Any]:
    """The nodes directly inside `node` (expressions and statements), in walk order."""
    for fld in children_of(node):
        value = getattr(node, fld)
        if isinstance(value, tuple):
            yield from value
        elif value is not None:
            yield value


class Visitor:
    """Walks the IR: `visit(node, *args)` calls `visit_<Class>(node, *args)`. Each default
    method visits the node's children (with the same arguments) and returns None."""

    def visit(self, node: Any, *args: Any) -> Any:
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is None or (type(node) not in CHILDREN and not _declared_by(self, node)):
            raise UnknownNode(self, node)
        return method(node, *args)

    def generic_visit(self, node: Any, *args: Any) -> None:
        for child in iter_children(node):
            self.visit(child, *args)

    def visit_block(self, body: tuple[Stmt, ...], *args: Any) -> None:
        for s in body:
            self.visit(s, *args)


class Transformer(Visitor):
    """Rewrites the IR: each default method returns the node with its children rewritten (the
    same object when nothing changed). A statement's method may return a tuple of statements,
    which takes its place in the block (an empty tuple drops it)."""

    def generic_visit(self, node: Any, *args: Any) -> Any:  # type: ignore[override]
        changes: dict[str, Any] = {}
        for fld in children_of(node):
            value = getattr(node, fld)
            if value is None:
                continue
            if isinstance(value, tuple):
                new: Any = (self.visit_block(value, *args) if value and isinstance(value[0], STMT_CLASSES)
                            else tuple(self.visit(v, *args) for v in value))
            else:
                new = self.visit(value, *args)
            if new is not value:
                changes[fld] = new
        return replace(node, **changes) if changes else node

    def visit_block(self, body: tuple[Stmt, ...], *args: Any) -> tuple[Stmt, ...]:  # type: ignore[override]
        out: list[Stmt] = []
        for s in body:
            new = self.visit(s, *args)
            out.extend(new if isinstance(new, tuple) else (new,))
        if len(out) == len(body) and all(a is b for a, b in zip(out, body, strict=True)):
            return body  # unchanged: the same block
        return tuple(out)


class Renderer(Visitor):
    """A walker that must say something for every node (a backend's printer): a node class it
    has no method for raises UnknownNode rather than rendering as nothing."""

    def generic_visit(self, node: Any, *args: Any) -> Any:
        raise UnknownNode(self, node)


def _default(self: Visitor, node: Any, *args: Any) -> Any:
    return self.generic_visit(node, *args)


# The default method of each node class the IR declares: its children (a pass's own
# generic_visit, where it has one).
for _cls in CHILDREN:
    setattr(Visitor, "visit_" + _cls.__name__, _default)


def _declared_by(walker: Visitor, node: object) -> bool:
    """The walker's own class (not Visitor or Transformer) has a method for node's class."""
    name = "visit_" + type(node).__name__
    return any(name in vars(cls) for cls in type(walker).__mro__
               if cls not in (Visitor, Transformer, object))
