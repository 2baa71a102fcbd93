"""What a game author writes: declarations of one tile's state machine.

A game file builds a `Game`, declares its state (`field`), its kinds of
piece (`kinds`), what neighbours can read (`broadcast`), its messages and
floods, timers, and decorates plain functions as handlers. Nothing here runs
game logic: handler bodies are compiled from their source into blinkc's IR
(see `blinkc.dsl.compiler`), and every declaration remembers its file and
line so errors can point at it.
"""

from __future__ import annotations

import inspect
import linecache
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..ir.nodes import SrcLoc
from .errors import DslError, MisspeltName, did_you_mean


def _caller_loc(depth: int = 2) -> SrcLoc:
    frame = sys._getframe(depth)
    return SrcLoc(frame.f_code.co_filename, frame.f_lineno)


def _assigned_name(loc: SrcLoc) -> str:
    """The name a declaration's line binds (`Piece = game.kinds(...)`: "Piece"), or ""."""
    line = linecache.getline(loc.file, loc.line)
    m = re.match(r"\s*([A-Za-z_]\w*)\s*(?::[^=]*)?=[^=]", line)
    return m.group(1) if m else ""


class FaceType:
    """The type of a face number, 0..5 (use it as `game.field(Face)`)."""

    def __repr__(self) -> str:
        return "Face"


Face = FaceType()


class ColorAnnotation:
    """The type of a colour, for a helper's parameters and result (`def h(t) -> Color:`)."""

    def __repr__(self) -> str:
        return "Color"


Color = ColorAnnotation()


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
        if item.startswith("__"):
            raise AttributeError(item)  # Python's own protocols (copy, pickle...)
        name = self.name or "this kind"
        hint = did_you_mean(item, self.members, f"{name}.{{}}")
        raise MisspeltName(f"{name} has no member {item!r}",
                           hint or f"its members are {', '.join(self.members)}")


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
    #: Six values, one per face (`t.<name>[f]`), rather than one.
    per_face: bool = False


@dataclass(eq=False)
class MessageDecl:
    """A typed message sent out of one face to the neighbour touching it (or, with a group,
    only to a neighbour for which `within(t, face)` holds when it is sent)."""

    name: str
    loc: SrcLoc
    payload: range | None = None
    #: `def within(t, face) -> bool`, or None: the message may go out of any face.
    within: Any = None


@dataclass(eq=False)
class FloodDecl:
    """A wave that reaches every tile of the connected cluster exactly once (or of its group:
    the tiles joined to the starter by links where `within(t, face)` holds)."""

    name: str
    loc: SrcLoc
    #: `def within(t, face) -> bool`, or None: the flood crosses every link.
    within: Any = None
    #: The value the wave carries (`payload=range(...)`), or None; for a gather, the values
    #: its tiles contribute and its total.
    payload: range | None = None
    #: A gather's combination ("sum", "min", "max", "or", "count"), or None: a plain flood.
    combine: str | None = None


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


#: The button's events (a handler of each may be guarded with alone=True / alone=False).
BUTTON_EVENTS = ("press", "release", "click", "double_click", "multi_click", "long_press", "long_long_press")

#: How a gather combines its tiles' values (each with its identity: the value of no tile).
GATHER_COMBINES = ("sum", "min", "max", "or", "count")


#: Events a handler can react to, and the parameters its function takes after `t`.
EVENTS: dict[str, tuple[str, ...]] = {
    "setup": (),
    "loop": (),
    "press": (),
    "release": (),
    "click": (),
    "double_click": (),
    "multi_click": (),
    "long_press": (),
    "long_long_press": (),
    "message": ("face",),
    "bounce": ("face",),
    "flood": (),
    "flood_done": (),
    "neighbor_joined": ("face",),
    "neighbor_left": ("face",),
    "neighbor_changed": ("face",),
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
    #: Call randomize() at power-up so tiles do not all draw the same numbers: True, False,
    #: or None (the default) for "when the game draws random numbers" (t.random(),
    #: t.random_word()), so that a game that draws none does not pay for it; "clock" draws
    #: from the tile's own sequence mixed with the clock at each draw (docs/dsl.md).
    randomize: bool | str | None = None
    #: How long a face may go without a working session before its neighbour counts as
    #: gone and what was sent there bounces (docs/protocol.md: longer rides out worse
    #: packet loss; shorter notices a tile taken away sooner).
    grace_ms: int = 4000
    #: How many messages can wait for their face (a byte of RAM each); a send that finds the
    #: queue full bounces (docs/dsl.md).
    queue_len: int = 12
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
        e = Enum(tuple(m for m in names if isinstance(m, str)), loc, _assigned_name(loc))
        self.enums.append(e)
        return e

    def field(self, type: Any, default: Any = None, *, broadcast: bool = False,
              per_face: bool = False, doc: str = "") -> FieldDecl:
        """State of the tile: `range(lo, hi)`, `bool`, `Face` or a kinds enum.

        `per_face=True` keeps six values of the type, one per face, read and written as
        `t.<name>[f]`; every face starts at `default`."""
        f = FieldDecl(type, default, _caller_loc(), broadcast=broadcast, doc=doc,
                      per_face=per_face)
        self.fields.append(f)
        return f

    def message(self, name: str, payload: range | None = None, *,
                within: Callable[..., bool] | None = None) -> MessageDecl:
        """A message sent out of a face: `Laser = game.message("Laser")`.

        `payload=range(n)` carries a small number (the handler gets it as a third argument).
        `within=pred`, a `def pred(t, face) -> bool`: a send out of a face where the predicate
        does not hold is not transmitted but bounces at once (docs/dsl.md).
        """
        m = MessageDecl(name, _caller_loc(), payload, within)
        self._check_name(m.loc, name, "message", "Laser")
        self._check_within(m, name, "message", "Hail")
        self.messages.append(m)
        return m

    def _check_name(self, loc: SrcLoc, name: Any, what: str, example: str) -> None:
        if not isinstance(name, str) or not name.isidentifier():
            self._problem(loc, f"a {what}'s name is a word such as {example!r}, not {name!r}",
                          f'{example} = game.{what}("{example}")')

    def flood(self, name: str, *, within: Callable[..., bool] | None = None,
              payload: range | None = None) -> FloodDecl:
        """A wave reaching every tile of the connected cluster exactly once.

        `within=pred`, a `def pred(t, face) -> bool`: only over links where the predicate
        holds, on the tile that sends the wave and on the one that gets it (docs/dsl.md).
        `payload=range(...)`: the wave carries a value, `t.flood(F, value)`, which every
        tile's `@game.on_flood(F)` handler gets."""
        return self._flood(FloodDecl(name, _caller_loc(2), within, payload), name, "flood",
                           "Reset")

    def gather(self, name: str, combine: str = "sum", *, payload: range = range(0, 256),
               within: Callable[..., bool] | None = None) -> FloodDecl:
        """A flood that comes back to its starter with a value combined over every tile it
        reached, once each: `combine` is "sum", "min", "max", "or" or "count"; each tile's
        `@game.on_flood(G)` handler returns its value (in `payload`, from 0), and the
        starter's `@game.on_flood_done(G)` handler gets the total (docs/dsl.md)."""
        f = FloodDecl(name, _caller_loc(2), within, payload, combine)
        if combine not in GATHER_COMBINES:
            self._problem(f.loc, f"a gather combines with one of "
                                 f"{', '.join(map(repr, GATHER_COMBINES))}, not {combine!r}",
                          f'{name} = game.gather("{name}", combine="sum")')
            f.combine = "sum"
        return self._flood(f, name, "gather", "Count")

    def _flood(self, f: FloodDecl, name: str, what: str, example: str) -> FloodDecl:
        self._check_name(f.loc, name, what, example)
        self._check_within(f, name, what, example)
        self.floods.append(f)
        return f

    def _check_within(self, decl: MessageDecl | FloodDecl, name: Any, what: str,
                      example: str) -> None:
        """A group's predicate is a function (its signature is checked when it is compiled)."""
        within = decl.within
        if within is not None and not inspect.isfunction(within):
            shown = name if isinstance(name, str) and name.isidentifier() else example
            self._problem(decl.loc, f"within= takes a function of the tile and a face, not "
                                    f"{_describe(within)}",
                          "def same_ship(t, face):\n    return t.ship and t.neighbor(face).ship\n"
                          f'{shown} = game.{what}("{shown}", within=same_ship)')
            decl.within = None

    def timer(self) -> TimerDecl:
        t = TimerDecl(_caller_loc())
        self.timers.append(t)
        return t

    # ----------------------------------------------------------------- handlers
    # Every decorator checks how it is used, where it is used (the decorator's line):
    # a decorator that needs an argument but got the function (`@game.on_message`
    # without the message) would otherwise make the handler vanish.
    def _problem(self, loc: SrcLoc, message: str, hint: str = "") -> None:
        self.problems.append(DslError(loc, message, hint))

    def _register(self, event: str, fn: Any, loc: SrcLoc | None = None, **options: Any) -> Any:
        loc = loc or _caller_loc(3)
        decorator = f"@game.{_DECORATORS.get(event, event)}"
        if not inspect.isfunction(fn):
            what = "a class" if inspect.isclass(fn) else f"{type(fn).__name__} {fn!r}"
            self._problem(loc, f"{decorator} decorates a def function, not {what}",
                          f"put it on a def: {decorator}\ndef handle(t): ...")
            return fn
        code = fn.__code__
        if fn.__name__ == "<lambda>":
            self._problem(SrcLoc(code.co_filename, code.co_firstlineno),
                          "a handler is a def function, not a lambda",
                          f"write it out: {decorator}\ndef handle(t): ...")
            return fn
        self.handlers.append(Handler(event, fn, SrcLoc(code.co_filename, code.co_firstlineno),
                                     **options))
        return fn

    def _plain(self, event: str, fn: Any, **options: Any) -> Any:
        """A decorator that takes no argument: `@game.display` and `@game.display()` alike."""
        loc = _caller_loc(3)
        if fn is None:
            return lambda f: self._register(event, f, loc, **options)
        return self._register(event, fn, loc, **options)

    def _decorator(self, event: str, fn: Any, alone: Any) -> Any:
        loc = _caller_loc(3)
        if alone is not None and not isinstance(alone, bool):
            self._problem(loc, f"alone= is True or False, not {alone!r}",
                          f"@game.on_{event}(alone=True): only while the tile has no neighbour; "
                          "alone=False: only while it has one")
            alone = None
        if fn is not None:
            return self._register(event, fn, loc, alone=alone)
        return lambda f: self._register(event, f, loc, alone=alone)

    def _targeted(self, event: str, target: Any, want: type, example: str, **options: Any) -> Any:
        """A decorator that names what it reacts to: `@game.on_message(Ping)`."""
        loc = _caller_loc(3)
        decorator = f"@game.{_DECORATORS[event]}"
        noun = _TARGET_NOUNS[want]
        if inspect.isfunction(target):
            self._problem(loc, f"{decorator} needs the {noun} it handles",
                          f"name it: {decorator}({self._example(want, example)})")
            return target  # keeps the function bound to its name; nothing is registered
        if not isinstance(target, want):
            self._problem(loc, f"{decorator}() takes a {noun}, not {_describe(target)}",
                          _wrong_target_hint(target, self._example(want, example), decorator))
            return lambda f: f
        return lambda f: self._register(event, f, loc, target=target, **options)

    def _example(self, want: type, fallback: str) -> str:
        declared = {MessageDecl: self.messages, FloodDecl: self.floods, TimerDecl: self.timers}[want]
        return next((d.name for d in declared if d.name), fallback)

    def _valued(self, event: str, value_type: Any) -> Any:
        loc = _caller_loc(3)
        if inspect.isfunction(value_type):
            self._problem(loc, f"@game.{event} needs the type of its value",
                          f"give it: @game.{event}(bool), or a range such as "
                          f"@game.{event}(range(0, 4))")
            return value_type
        return lambda fn: self._register(event, fn, loc, value_type=value_type)

    def setup(self, fn: Callable | None = None) -> Any:
        """Runs once at power-up, after the fields have their defaults."""
        return self._plain("setup", fn)

    def loop(self, fn: Callable | None = None) -> Any:
        """Runs on every pass (after the button's handlers), as an SDK sketch's loop() does;
        a tile with one is never idle, so use it only for what cannot wait for an event."""
        return self._plain("loop", fn)

    def on_press(self, fn: Callable | None = None, *, alone: bool | None = None):
        """The button went down (every press, at once: a click is only known once it is
        let go and no second click follows). `alone=True`: only while the tile has no
        neighbour."""
        return self._decorator("press", fn, alone)

    def on_release(self, fn: Callable | None = None, *, alone: bool | None = None):
        """The button was let go (every release, at once: the SDK's `buttonReleased()`)."""
        return self._decorator("release", fn, alone)

    def on_click(self, fn: Callable | None = None, *, alone: bool | None = None):
        """A single click. `alone=True`: only while the tile has no neighbour."""
        return self._decorator("click", fn, alone)

    def on_double_click(self, fn: Callable | None = None, *, alone: bool | None = None):
        return self._decorator("double_click", fn, alone)

    def on_multi_click(self, fn: Callable | None = None, *, alone: bool | None = None):
        """Three or more clicks in a row."""
        return self._decorator("multi_click", fn, alone)

    def on_long_press(self, fn: Callable | None = None, *, alone: bool | None = None):
        """The button held 1.2 s (the SDK's long press)."""
        return self._decorator("long_press", fn, alone)

    def on_long_long_press(self, fn: Callable | None = None, *, alone: bool | None = None):
        """The button held 3 s (the SDK's long-long press; a long press came before it)."""
        return self._decorator("long_long_press", fn, alone)

    def on_message(self, message: MessageDecl):
        """`def handler(t, face)` (plus `payload` if the message has one)."""
        return self._targeted("message", message, MessageDecl, "Ping")

    def on_bounce(self, message: MessageDecl):
        """`def handler(t, face)`: a message could not be delivered: nobody on that face."""
        return self._targeted("bounce", message, MessageDecl, "Ping")

    def on_flood(self, flood: FloodDecl):
        """Runs exactly once on every tile the flood reaches (the starter included)."""
        return self._targeted("flood", flood, FloodDecl, "Reset")

    def on_flood_done(self, flood: FloodDecl):
        """Runs on the tile that started the flood once every tile has seen it."""
        return self._targeted("flood_done", flood, FloodDecl, "Reset")

    def on_neighbor_joined(self, fn: Callable | None = None) -> Any:
        return self._plain("neighbor_joined", fn)

    def on_neighbor_left(self, fn: Callable | None = None) -> Any:
        return self._plain("neighbor_left", fn)

    def on_neighbor_changed(self, value: Any):
        """`def handler(t, face)`: what `t.neighbor(face).<value>` reads changed: the neighbour
        there shows another value, or a neighbour came to that face or left it. `value` is a
        field declared with broadcast=True, or a @game.broadcast value."""
        loc = _caller_loc(2)
        decorator = "@game.on_neighbor_changed"
        hint = f"name it: {decorator}({self._broadcast_example()})"
        if inspect.isfunction(value) and not self._is_broadcast(value):
            self._problem(loc, f"{decorator} needs the broadcast value it watches", hint)
            return value  # keeps the function bound to its name; nothing is registered
        if isinstance(value, FieldDecl) and not value.broadcast:
            self._problem(loc, f"{decorator}() watches what neighbours broadcast, and this "
                               "field is not broadcast",
                          "declare it with broadcast=True, so that neighbours can read it")
            return lambda f: f
        if not isinstance(value, FieldDecl) and not inspect.isfunction(value):
            self._problem(loc, f"{decorator}() takes a broadcast field or value, not "
                               f"{_describe(value)}", hint)
            return lambda f: f
        return lambda f: self._register("neighbor_changed", f, loc, target=value)

    def _is_broadcast(self, fn: Any) -> bool:
        return any(h.fn is fn and h.event == "broadcast" for h in self.handlers)

    def _broadcast_example(self) -> str:
        return next((f.name or _assigned_name(f.loc) for f in self.fields if f.broadcast),
                    None) or next(
            (h.fn.__name__ for h in self.handlers if h.event == "broadcast"), "kind")

    def on_timer(self, timer: TimerDecl):
        return self._targeted("timer", timer, TimerDecl, "flash")

    def derived(self, value_type: Any):
        """A value computed from the state and the neighbours whenever it is read."""
        return self._valued("derived", value_type)

    def broadcast(self, value_type: Any):
        """A derived value sent to the neighbours: they read it as `t.neighbor(f).<name>`."""
        return self._valued("broadcast", value_type)

    def display(self, fn: Callable | None = None) -> Any:
        """What the LEDs show, recomputed every pass; may animate with `t.now`."""
        return self._plain("display", fn)


#: The decorator of each event, as the author writes it.
_DECORATORS = {e: e if e in ("setup", "loop", "derived", "broadcast", "display") else f"on_{e}"
               for e in EVENTS}

_TARGET_NOUNS = {MessageDecl: "message", FloodDecl: "flood", TimerDecl: "timer"}


def _describe(value: Any) -> str:
    for cls, noun in _TARGET_NOUNS.items():
        if isinstance(value, cls):
            return f"the {noun} {value.name!r}" if value.name else f"a {noun}"
    if isinstance(value, Enum | EnumMember | FieldDecl):
        return f"the {'kinds' if isinstance(value, Enum) else type(value).__name__} {value!r}"
    return f"{type(value).__name__} {value!r}"


def _wrong_target_hint(target: Any, example: str, decorator: str) -> str:
    name = getattr(target, "name", "") or "it"
    usage = f"{decorator}({example})"
    if isinstance(target, FloodDecl):
        return f"{usage}; for a flood: @game.on_flood({name}) or @game.on_flood_done({name})"
    if isinstance(target, MessageDecl):
        return f"{usage}; for a message: @game.on_message({name}) or @game.on_bounce({name})"
    if isinstance(target, TimerDecl):
        return f"{usage}; for a timer: @game.on_timer({name})"
    return usage
