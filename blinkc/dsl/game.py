"""What a game author writes: declarations of one tile's state machine.

A game file builds a `Game`, declares its state (`field`), its kinds of
piece (`kinds`), what neighbours can read (`broadcast`), its messages and
floods, timers, and decorates plain functions as handlers. Nothing here runs
game logic: handler bodies are compiled from their source into blinkc's IR
(see `blinkc.dsl.compiler`), and every declaration remembers its file and
line so errors can point at it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..ir.nodes import SrcLoc
from .errors import DslError


def _caller_loc(depth: int = 2) -> SrcLoc:
    frame = sys._getframe(depth)
    return SrcLoc(frame.f_code.co_filename, frame.f_lineno)


class FaceType:
    """The type of a face number, 0..5 (use it as `game.field(Face)`)."""

    def __repr__(self) -> str:
        return "Face"


Face = FaceType()


@dataclass(eq=False)
class Enum:
    """A set of named values, like the kinds of piece. Members are 0, 1, 2, ..."""

    members: tuple[str, ...]
    loc: SrcLoc
    name: str = ""

    def __post_init__(self) -> None:
        for i, m in enumerate(self.members):
            object.__setattr__(self, m, EnumMember(self, m, i))

    def __len__(self) -> int:
        return len(self.members)

    def __getattr__(self, item: str) -> Any:
        raise AttributeError(f"{self.name or 'this kind'} has no member {item!r}; "
                             f"members are {', '.join(self.members)}")


@dataclass(frozen=True, eq=False)
class EnumMember:
    enum: Enum
    name: str
    value: int

    def __repr__(self) -> str:
        return f"{self.enum.name}.{self.name}"


@dataclass(eq=False)
class FieldDecl:
    """A piece of tile state with a declared type, default and (optionally) broadcast."""

    type: Any  # range, bool, Face, Enum
    default: Any
    loc: SrcLoc
    broadcast: bool = False
    doc: str = ""
    name: str = ""


@dataclass(eq=False)
class MessageDecl:
    """A typed message sent out of one face to the neighbour touching it."""

    name: str
    loc: SrcLoc
    payload: range | None = None


@dataclass(eq=False)
class FloodDecl:
    """A wave that reaches every tile of the connected cluster exactly once."""

    name: str
    loc: SrcLoc


@dataclass(eq=False)
class TimerDecl:
    """A one-shot timer (up to 30 s); `t.<timer>.start(ms)`, `.running`, `.remaining`."""

    loc: SrcLoc
    name: str = ""


@dataclass(eq=False)
class Handler:
    event: str
    fn: Callable
    loc: SrcLoc
    target: Any = None  # the message, flood or timer it reacts to
    alone: bool | None = None  # a guard: only when alone (True) / not alone (False)
    value_type: Any = None  # for derived and broadcast values


#: Events a handler can react to, and the parameters its function takes after `t`.
EVENTS: dict[str, tuple[str, ...]] = {
    "setup": (),
    "click": (),
    "double_click": (),
    "multi_click": (),
    "long_press": (),
    "message": ("face",),
    "bounce": ("face",),
    "flood": (),
    "flood_done": (),
    "neighbor_joined": ("face",),
    "neighbor_left": ("face",),
    "timer": (),
    "derived": (),
    "broadcast": (),
    "display": (),
}


#: Windows cannot create files with these names (with or without an extension).
_DEVICE_NAMES = {"con", "prn", "aux", "nul", *(f"{p}{i}" for p in ("com", "lpt") for i in range(1, 10))}


def name_problem(name: Any) -> str | None:
    """Why `name` cannot be a game's name, or None. The name becomes the sketch's folder and
    file (`OUT/<name>/<name>.ino`): Arduino's sketch-name rule (letters, digits, `_`, `-`, `.`,
    a letter or digit first, at most 63 characters), no trailing dot, no Windows device name."""
    if not isinstance(name, str):
        return f"a game's name is a string, not {type(name).__name__} {name!r}"
    if not name:
        return "the game's name is empty"
    bad = sorted({c for c in name if not (c.isascii() and (c.isalnum() or c in "_-."))})
    if bad:
        return (f"the game's name {name!r} has {', '.join(map(repr, bad))} in it: it names the "
                "sketch's folder and file, so it may hold only ASCII letters, digits, '_', '-' and '.'")
    if not name[0].isalnum():
        return f"the game's name {name!r} must start with a letter or a digit"
    if name.endswith("."):
        return f"the game's name {name!r} must not end with '.'"
    if len(name) > 63:
        return f"the game's name is {len(name)} characters long; Arduino allows at most 63"
    if name.split(".")[0].lower() in _DEVICE_NAMES:
        return f"the game's name {name!r} is reserved on Windows (a device name)"
    return None


@dataclass(eq=False)
class Game:
    """One game: the state machine of a single tile, shared by every tile."""

    name: str
    #: Call randomize() at power-up so tiles do not all draw the same numbers.
    randomize: bool = True
    #: How long a face may go without a working session before its neighbour counts as
    #: gone and what was sent there bounces (docs/protocol.md: longer rides out worse
    #: packet loss; shorter notices a tile taken away sooner).
    grace_ms: int = 4000
    loc: SrcLoc = field(default_factory=lambda: _caller_loc(3))
    fields: list[FieldDecl] = field(default_factory=list)
    enums: list[Enum] = field(default_factory=list)
    messages: list[MessageDecl] = field(default_factory=list)
    floods: list[FloodDecl] = field(default_factory=list)
    timers: list[TimerDecl] = field(default_factory=list)
    handlers: list[Handler] = field(default_factory=list)
    problems: list[DslError] = field(default_factory=list)

    def __post_init__(self) -> None:
        problem = name_problem(self.name)
        if problem:
            self.problems.append(DslError(self.loc, problem, 'name it like Game("my_game")'))

    # -------------------------------------------------------------- declarations
    def kinds(self, *members: str) -> Enum:
        """Kinds of piece that share one firmware, e.g. `game.kinds("HULL", "HAZARD")`."""
        return self.enum(*members, _loc=_caller_loc())

    def enum(self, *members: str, _loc: SrcLoc | None = None) -> Enum:
        loc = _loc or _caller_loc()
        names = tuple(members)
        if not names:
            self.problems.append(DslError(loc, "an enum needs at least one member",
                                          'list them: game.kinds("HULL", "HAZARD")'))
        for m in names:
            if not isinstance(m, str) or not m.isidentifier():
                self.problems.append(DslError(loc, f"{m!r} is not a valid member name",
                                              "use identifiers such as HULL"))
        if len(set(names)) != len(names):
            self.problems.append(DslError(loc, "an enum lists the same member twice",
                                          "give every member a different name"))
        e = Enum(tuple(m for m in names if isinstance(m, str)), loc)
        self.enums.append(e)
        return e

    def field(self, type: Any, default: Any = None, *, broadcast: bool = False,
              doc: str = "") -> FieldDecl:
        """State of the tile: `range(lo, hi)`, `bool`, `Face` or a kinds enum."""
        f = FieldDecl(type, default, _caller_loc(), broadcast=broadcast, doc=doc)
        self.fields.append(f)
        return f

    def message(self, name: str, payload: range | None = None) -> MessageDecl:
        """A message sent out of a face: `Laser = game.message("Laser")`.

        `payload=range(n)` carries a small number (the handler gets it as a third argument).
        """
        m = MessageDecl(name, _caller_loc(), payload)
        self.messages.append(m)
        return m

    def flood(self, name: str) -> FloodDecl:
        """A wave reaching every tile of the connected cluster exactly once."""
        f = FloodDecl(name, _caller_loc())
        self.floods.append(f)
        return f

    def timer(self) -> TimerDecl:
        t = TimerDecl(_caller_loc())
        self.timers.append(t)
        return t

    # ----------------------------------------------------------------- handlers
    def _register(self, event: str, fn: Callable, **options: Any) -> Callable:
        if not callable(fn):
            self.problems.append(DslError(_caller_loc(3), f"@{event} decorates a function",
                                          "put the decorator on a def"))
            return fn
        code = fn.__code__
        loc = SrcLoc(code.co_filename, code.co_firstlineno)
        self.handlers.append(Handler(event, fn, loc, **options))
        return fn

    def _decorator(self, event: str, fn: Callable | None, **options: Any):
        if fn is not None:
            return self._register(event, fn, **options)
        return lambda f: self._register(event, f, **options)

    def setup(self, fn: Callable) -> Callable:
        """Runs once at power-up, after the fields have their defaults."""
        return self._register("setup", fn)

    def on_click(self, fn: Callable | None = None, *, alone: bool | None = None):
        """A single click. `alone=True`: only while the tile has no neighbour."""
        return self._decorator("click", fn, alone=alone)

    def on_double_click(self, fn: Callable | None = None, *, alone: bool | None = None):
        return self._decorator("double_click", fn, alone=alone)

    def on_multi_click(self, fn: Callable | None = None, *, alone: bool | None = None):
        """Three or more clicks in a row."""
        return self._decorator("multi_click", fn, alone=alone)

    def on_long_press(self, fn: Callable | None = None, *, alone: bool | None = None):
        return self._decorator("long_press", fn, alone=alone)

    def on_message(self, message: MessageDecl):
        """`def handler(t, face)` (plus `payload` if the message has one)."""
        return lambda fn: self._register("message", fn, target=message)

    def on_bounce(self, message: MessageDecl):
        """`def handler(t, face)`: a message could not be delivered: nobody on that face."""
        return lambda fn: self._register("bounce", fn, target=message)

    def on_flood(self, flood: FloodDecl):
        """Runs exactly once on every tile the flood reaches (the starter included)."""
        return lambda fn: self._register("flood", fn, target=flood)

    def on_flood_done(self, flood: FloodDecl):
        """Runs on the tile that started the flood once every tile has seen it."""
        return lambda fn: self._register("flood_done", fn, target=flood)

    def on_neighbor_joined(self, fn: Callable) -> Callable:
        return self._register("neighbor_joined", fn)

    def on_neighbor_left(self, fn: Callable) -> Callable:
        return self._register("neighbor_left", fn)

    def on_timer(self, timer: TimerDecl):
        return lambda fn: self._register("timer", fn, target=timer)

    def derived(self, value_type: Any):
        """A value computed from the state and the neighbours whenever it is read."""
        return lambda fn: self._register("derived", fn, value_type=value_type)

    def broadcast(self, value_type: Any):
        """A derived value sent to the neighbours: they read it as `t.neighbor(f).<name>`."""
        return lambda fn: self._register("broadcast", fn, value_type=value_type)

    def display(self, fn: Callable) -> Callable:
        """What the LEDs show, recomputed every pass; may animate with `t.now`."""
        return self._register("display", fn)
