"""The explorer's probes: what `blinkc explore`'s monitor learns from a tile's protocol engine,
and where (docs/protocol.md, "How it is checked").

The explorer's build of a game (`compile_game(..., observable=True)`) calls
`blinkc_probe(kind, v0, ..., v4)` at the entry or the exit of each engine function the
monitor watches, with the values it reads there (a queue's length before and after a send, a
wide message's value as it arrives, a flood's value, a gather's subtree and total). Both
backends render the calls: the Python tile hands them to its api (`Blinklib.probe`), the C++
tile to the callback its library was given (`blinkc_set_probe`, blinklib_host.cpp), and both
world engines hand them on, with the tile and the world time, to their probe observers
(`Engine.add_probe_observer`). So the monitor's checks read one stream of events, whichever
engine runs whichever tiles.

Only that build has them: a game compiled for the tile (and its sketch, and the golden files)
has no probe, byte for byte.

Each kind is declared once, here: its engine functions, entry or exit, and its values by
name (`POINTS`). The sketch's enum of kinds (BLINKC_PROBE_SEND, ...) is generated from it,
and the monitor reads the values by these names.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import IntEnum

from .nodes import (
    BOOL,
    U8,
    U16,
    BinOp,
    Call,
    Compare,
    Const,
    Expr,
    ExprStmt,
    For,
    Function,
    If,
    Index,
    Name,
    Program,
    Return,
    SrcLoc,
    Stmt,
)
from .walk import walk_stmts

#: The values a probe carries after its kind (unused ones are 0): blinkc_probe()'s arity in
#: the host runtime (blinkc_extras.h) is 1 + VALUES.
VALUES = 5
#: The runtime function the probes call.
FUNCTION = "blinkc_probe"


class ProbeKind(IntEnum):
    """What happened; the values of each are POINTS'."""

    SEND = 0           # send_code() called
    SEND_WIDE = 1      # send_wide() called
    SENT = 2           # send_code() or send_wide() returns
    GROUPED = 3        # send_grouped() or send_wide_grouped() called (a message of a group)
    GROUPED_DONE = 4   # ... returns
    BOUNCE = 5         # bounce(): the engine tells the game a message did not go
    DELIVER = 6        # deliver(): a code arrived
    LINK_END = 7       # link_end(): a face's session is over ...
    LINK_ENDED = 8     # ... and what was still waiting for it has bounced
    FLOOD_START = 9    # flood_start(): this tile starts a flood (or it merges)
    FLOOD_ENTER = 10   # on_flood(): a flood reached this tile, its handler runs ...
    FLOOD_ENTERED = 11  # ... and has run
    FLOOD_DONE = 12    # on_flood_done(): a flood started here has reached every tile


class _Builder:
    """IR of the values a probe reads, in one engine function of one program (a value the
    program does not have, such as a gather's total in a game without gathers, is 0)."""

    def __init__(self, program: Program, fn: Function) -> None:
        self.fn = fn
        self.globals = {g.name: g for g in program.globals}
        self.functions = {f.name: f for f in program.functions}
        self.consts = {k: v for k, v, _ in program.constants}

    def param(self, *names: str) -> Expr:
        """The function's parameter of the first of `names` it has."""
        for p in self.fn.params:
            if p.name in names:
                return Name(p.name, p.type, "param")
        raise KeyError(f"{self.fn.name}() has no parameter {' or '.join(names)}")

    def scalar(self, name: str) -> Expr:
        g = self.globals.get(name)
        return Const(0, U16) if g is None else Name(name, g.type, "global")

    def at(self, array: str, index: Expr) -> Expr:
        g = self.globals.get(array)
        return Const(0, U16) if g is None else Index(array, index, g.type)

    def slot(self, parity: Expr) -> Expr:
        """Flood k's slot of `parity`: 2k + parity (protocol.py, SLOTS_PER_FLOOD)."""
        k = self.param("k")
        return BinOp("+", BinOp("*", Const(2, U8), k, U8), parity, U8)

    def last(self, flip: bool = False) -> Expr:
        """flood_last[k] (the slot this tile entered last), or its other slot."""
        last = self.at("flood_last", self.param("k"))
        return BinOp("^", last, Const(1, U8), U8) if flip else last

    def within(self) -> Expr:
        """message_within(code, face): whether the message's group lets it out of the face (1
        in a game without groups of messages)."""
        if "message_within" not in self.functions:
            return Const(1, U8)
        return Call("message_within", (self.param("code"), self.param("face")), BOOL,
                    is_bool=True)

    def fresh(self) -> Expr:
        """Both slots of flood k idle: a start is a new flood, not one that merges."""
        both = BinOp("|", self.at("flood_parent", self.slot(Const(0, U8))),
                     self.at("flood_parent", self.slot(Const(1, U8))), U8)
        return Compare("==", both, Const(self.consts.get("NO_PARENT", 0), U8), U8)


Value = Callable[[_Builder], Expr]


@dataclass(frozen=True)
class Point:
    """Where a kind of probe is: at the entry or the exit of each of `functions`; `values`:
    each value's name and how the engine's state gives it."""

    kind: ProbeKind
    functions: tuple[str, ...]
    at: str  # "entry" | "exit"
    values: tuple[tuple[str, Value], ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self.values)


def _code(b: _Builder) -> Expr:
    return b.param("code")


def _face(b: _Builder) -> Expr:
    return b.param("face", "f")


def _queue_len(b: _Builder) -> Expr:
    # (A game with one message code counts its queue per face: queue_total() adds them up.)
    if b.consts.get("ONE_CODE"):
        return Call("queue_total", (), U8)
    return b.scalar("queue_len")


def _k(b: _Builder) -> Expr:
    return b.param("k")


_SEND = (("code", _code), ("face", _face), ("queue_len", _queue_len))

POINTS: tuple[Point, ...] = (
    Point(ProbeKind.SEND, ("send_code",), "entry", (*_SEND, ("within", _Builder.within))),
    Point(ProbeKind.SEND_WIDE, ("send_wide",), "entry",
          (*_SEND, ("within", _Builder.within), ("value", lambda b: b.param("value")))),
    # (chunks: the data codes a wide message takes in the queue before its own code; 0 for a
    # plain one)
    Point(ProbeKind.SENT, ("send_code",), "exit", (*_SEND, ("chunks", lambda b: Const(0, U8)))),
    Point(ProbeKind.SENT, ("send_wide",), "exit", (*_SEND, ("chunks", lambda b: b.param("chunks")))),
    Point(ProbeKind.GROUPED, ("send_grouped", "send_wide_grouped"), "entry",
          (*_SEND, ("within", _Builder.within))),
    Point(ProbeKind.GROUPED_DONE, ("send_grouped", "send_wide_grouped"), "exit", _SEND),
    Point(ProbeKind.BOUNCE, ("bounce",), "entry", (("code", _code), ("face", _face))),
    # (wide_rx: the data codes lately received on the face, whose low bits are a wide
    # message's value)
    Point(ProbeKind.DELIVER, ("deliver",), "entry",
          (("code", _code), ("face", _face), ("wide_rx", lambda b: b.at("wide_rx", _face(b))))),
    Point(ProbeKind.LINK_END, ("link_end",), "entry", (("face", _face),)),
    Point(ProbeKind.LINK_ENDED, ("link_end",), "exit", (("face", _face),)),
    # (value: a valued flood's value, in the slot it will start in)
    Point(ProbeKind.FLOOD_START, ("flood_start",), "entry",
          (("k", _k), ("fresh", _Builder.fresh),
           ("value", lambda b: b.at("flood_value", b.slot(b.last(flip=True)))))),
    # (value: the value the tile runs a valued flood with; acc: a gather's value of this tile)
    Point(ProbeKind.FLOOD_ENTER, ("on_flood",), "entry",
          (("k", _k), ("value", lambda b: b.at("flood_value", b.slot(b.last()))))),
    Point(ProbeKind.FLOOD_ENTERED, ("on_flood",), "exit",
          (("k", _k), ("acc", lambda b: b.at("flood_acc", b.slot(b.last()))))),
    # (total: what a gather started here brought back)
    Point(ProbeKind.FLOOD_DONE, ("on_flood_done",), "entry",
          (("k", _k), ("total", lambda b: b.at("flood_acc", b.at("flood_own", _k(b)))))),
)

#: Each kind's value names (the monitor reads the values by them).
NAMES: dict[ProbeKind, tuple[str, ...]] = {}
for _p in POINTS:
    assert len(_p.values) <= VALUES, _p
    assert NAMES.setdefault(_p.kind, _p.names) == _p.names, f"{_p.kind.name}: one set of names"


def with_probes(program: Program) -> Program:
    """The program with a probe at every point of POINTS its functions have."""
    return replace(program, functions=tuple(_probed(program, f) for f in program.functions))


def has_probes(program: Program) -> bool:
    """Whether the program was built with probes (the explorer's build)."""
    return any(isinstance(c, Call) and c.builtin and c.func == FUNCTION
               for f in program.functions for c in walk_stmts(f.body))


def _probed(program: Program, fn: Function) -> Function:
    entry = [_call(program, fn, p) for p in POINTS if fn.name in p.functions and p.at == "entry"]
    leave = [_call(program, fn, p) for p in POINTS if fn.name in p.functions and p.at == "exit"]
    if not entry and not leave:
        return fn
    assert not leave or fn.ret is None, f"{fn.name}(): a probe at its exit needs a void function"
    body = fn.body
    if leave:
        body = _before_returns(body, tuple(leave))
        if not body or not isinstance(body[-1], Return):
            body = (*body, *leave)
    return replace(fn, body=(*entry, *body))


def _call(program: Program, fn: Function, point: Point) -> Stmt:
    b = _Builder(program, fn)
    values = [value(b) for _, value in point.values]
    values += [Const(0, U16)] * (VALUES - len(values))
    return ExprStmt(Call(FUNCTION, (Const(int(point.kind), U8), *values), None, builtin=True),
                    SrcLoc(fn.loc.file, fn.loc.line))


def _before_returns(body: tuple[Stmt, ...], probes: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
    out: list[Stmt] = []
    for s in body:
        if isinstance(s, Return):
            out += [*probes, s]
        elif isinstance(s, If):
            out.append(replace(s, body=_before_returns(s.body, probes),
                               orelse=_before_returns(s.orelse, probes)))
        elif isinstance(s, For):
            out.append(replace(s, body=_before_returns(s.body, probes)))
        else:
            out.append(s)
    return tuple(out)
