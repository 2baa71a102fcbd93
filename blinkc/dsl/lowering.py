"""Lower a game's declarations, handlers and blinkc's engine into one IR Program.

This is where the DSL's sugar is given its one meaning, in steps: declarations are
checked and become globals; the face-value wire is allocated (wire.py); handlers,
helpers and the protocol engine (protocol.py, DSL source) are compiled; the dispatch
around the handlers is generated (dispatch.py); the checks and lints read the result
(lints.py); what the tile never runs is pruned (prune.py); the optimiser runs last.
"""

from __future__ import annotations

import ast
import functools
import inspect
import io
import linecache
import os
import re
import tokenize
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..blinklib.api import CLOCK_KEYS, PROGRAM_NAMES, START_KEY
from ..blinklib.timer import NEVER
from ..ir.nodes import (
    BOOL,
    U8,
    U16,
    Call,
    ExprStmt,
    For,
    Function,
    GlobalVar,
    If,
    IntType,
    Program,
    Return,
    SrcLoc,
    Stmt,
    WideValue,
)
from ..ir.optimize import optimize
from ..ir.probes import with_probes
from ..ir.ranges import with_param_ranges
from ..ir.walk import calls, walk_stmts
from .compiler import FunctionCompiler, Signature, Symbols, parse_function
from .dispatch import WATCHED_FACES, gather_return_type, generate_dispatch, watched
from .errors import DslError
from .game import BUTTON_EVENTS, EVENTS, Enum, EnumMember, FieldDecl, Game, Handler, TimerDecl
from .lints import run_lints
from .prune import prune
from .settings import queue_len, random_source
from .symbols import game_symbols
from .types import TYPE_NAMES, storage_type
from .wire import (
    FLOOD_SAME_MS,
    GRACE_TICK_MS,
    Wire,
    allocate,
    back_same_units,
    flood_back_units,
    value_range,
)

ENGINE_FILE = Path(__file__).with_name("protocol.py")
#: Where the engine's code that blinkc writes per game comes from.
BLINKC_LOC = SrcLoc("blinkc", 0)
#: The engine's calls into the game that the protocol explorer watches (and flood_within,
#: which it calls to know a flood's group).
OBSERVABLE_HOOKS = frozenset({"on_flood", "on_flood_done", "bounce", "on_neighbor_joined",
                              "on_neighbor_left", "flood_within"})


@dataclass
class Lowered:
    program: Program | None
    errors: list[DslError]
    warnings: list[DslError]
    notes: list[str] = field(default_factory=list)
    #: Warnings silenced by a `# blinkc: ignore` comment on their line.
    silenced: list[DslError] = field(default_factory=list)


class GameLowering:
    def __init__(self, game: Game, module_globals: dict[str, Any], source: str,
                 observable: bool = False) -> None:
        self.game = game
        #: Keep the engine's hooks even when empty (blinkc.explore watches them).
        self.kept = OBSERVABLE_HOOKS if observable else frozenset()
        #: The explorer's build: its engine reports to the monitor (ir/probes.py).
        self.observable = observable
        self.g = module_globals
        self.source = source
        self.errors: list[DslError] = list(game.problems)
        self.warnings: list[DslError] = []
        #: randomize: True, False, None (when the game draws) or "clock" (settings.py).
        self.random_source = random_source(game, self.err)
        self.sym = Symbols(own_random=self.random_source is False or self.random_source == "clock")
        self.functions: list[Function] = []
        self.globals: list[GlobalVar] = []
        self.constants: list[tuple[str, int, str]] = []
        self.wire = Wire()
        #: Whether setup() calls randomize() (resolve_randomize).
        self.randomize = self.random_source is True
        self.handlers_by_event: dict[str, list[Handler]] = {}
        #: Each group predicate's function and the group it is ("a message's group (within=)").
        self.within_what: dict[str, str] = {}

    def err(self, loc: SrcLoc, msg: str, hint: str = "") -> None:
        self.errors.append(DslError(loc, msg, hint))

    def warn(self, loc: SrcLoc, msg: str, hint: str = "") -> None:
        self.warnings.append(DslError(loc, msg, hint, severity="warning"))

    # --------------------------------------------------------------------- run
    def lower(self) -> Lowered:
        """The game as one IR Program, or every problem found; never an exception (a bug of
        blinkc's own is reported as one error, at the game's line)."""
        try:
            return self._lower()
        except DslError as exc:
            return Lowered(None, [*self.errors, exc], self.warnings)
        except Exception as exc:  # a blinkc bug: say so, without a traceback
            if os.environ.get("BLINKC_DEBUG"):
                raise
            where = next((e.loc for e in self.errors), self.game.loc)
            return Lowered(None, [*self.errors, DslError(
                where, f"blinkc failed on this game (internal error: {type(exc).__name__}: {exc})",
                "this is a bug in blinkc, not in the game: please report it with the game file "
                "(BLINKC_DEBUG=1 shows where it happened)")], self.warnings)

    def _lower(self) -> Lowered:
        self.name_declarations()
        self.declare_fields()
        self.declare_timers()
        self.group_handlers()
        self.wire = allocate(self.game, self.handlers_by_event.get("broadcast", []),
                             self.err)
        self.sym.messages, self.sym.floods = self.wire.messages, self.wire.floods
        self.sym.wide = self.wire.wide
        self.sym.grouped = {id(m) for m in self.game.messages if m.within is not None}
        room = queue_len(self.game, lambda *_: None)
        for m in self.game.messages:
            chunks = self.wire.wide.get(id(m))
            if chunks is not None and chunks + 1 > room:
                self.err(m.loc, f"the wide message {m.name!r} takes {chunks + 1} places in the "
                                f"queue (its {chunks} data codes and its code), but the queue "
                                f"has {room}",
                         f'make room: Game("{self.game.name}", queue_len={max(12, chunks + 1)})')
        if self.kept and self.wire.data_bits:  # (the explorer sends wide values itself)
            self.kept = self.kept | {"send_code", "send_wide", "flood_start_with"}
        if self.sym.grouped:
            # (A scenario's or the explorer's `send` goes through the group too: kept even when
            # the game's own code never sends a message of a group.)
            self.kept = self.kept | {"send_grouped", "message_within"} | (
                {"send_wide_grouped"} if any(id(m) in self.wire.wide for m in self.game.messages
                                             if m.within is not None) else set())
        if self.errors:
            return Lowered(None, self.errors, self.warnings)
        engine_tree = ast.parse(ENGINE_FILE.read_text(), filename=str(ENGINE_FILE))
        self.declare_engine(engine_tree)
        self.declare_generated()
        handler_fns = {id(h.fn) for h in self.game.handlers}
        module = self.g.get("__name__")
        for name, v in self.g.items():
            if (callable(v) and getattr(v, "__module__", None) == module and id(v) not in handler_fns
                    and hasattr(v, "__code__")):
                self.sym.helper_candidates[name] = v
        self.compile_handlers()
        self.compile_within()
        self.compile_helpers()
        self.resolve_randomize()
        self.compile_engine(engine_tree)
        self.without_protocol()
        self.functions += generate_dispatch(self.game, self.sym, self.wire, self.handlers_of,
                                            self.handler_fns, self.within_fns, self.randomize,
                                            self.message_within_fns)
        self.check_field_names()
        silenced = run_lints(self)
        if self.errors:
            return Lowered(None, self.errors, self.warnings, silenced=silenced)
        functions, globals_ = prune(self.functions, self.globals, self.kept)
        enums = {e.name: e.members for e in self.game.enums if e.name}
        symbols = game_symbols(self.game, self.wire, self.g, self.source, functions)
        program = optimize(Program(self.game.name, self.source, globals_, functions,
                                   tuple(self.constants), tuple(self.wire.layout), tuple(self.wire.codes),
                                   enums, self.randomize, symbols, self.wide_values()))
        if self.observable:
            program = with_probes(program)
        return Lowered(program, self.errors, self.warnings, silenced=silenced)

    def wide_values(self) -> tuple[WideValue, ...]:
        out = []
        for m in self.game.messages:
            if id(m) in self.wire.wide:
                code, payload, _ = self.wire.messages[id(m)]
                out.append(WideValue("message", m.name, code, payload.start, payload.stop - 1,
                                     self.wire.wide[id(m)]))
        for k, chunks in sorted(self.wire.flood_chunks.items()):
            fl = self.game.floods[k]
            assert fl.payload is not None
            out.append(WideValue("gather" if fl.combine else "flood", fl.name, k,
                                 fl.payload.start, fl.payload.stop - 1, chunks, fl.combine or ""))
        return tuple(out)

    # ---------------------------------------------------------- declarations
    def name_declarations(self) -> None:
        for name, value in self.g.items():
            if isinstance(value, FieldDecl | TimerDecl | Enum) and not name.startswith("_"):
                if not value.name:
                    value.name = name
        for f in self.game.fields:
            if not f.name and not self._lost_name(f, "field"):
                self.err(f.loc, "this field has no name",
                         "bind it to a module-level name: hp = game.field(range(0, 6), default=5)")
        for f in self.game.fields:
            if f.name in (*CLOCK_KEYS, START_KEY):
                what = "the tile's start state" if f.name == START_KEY else "the tile's clock"
                self.err(f.loc, f"a field cannot be called {f.name!r}: layouts and scenarios "
                                f"use {f.name}= for {what}, so it could never be set there",
                         "give the field another name")
        for t in self.game.timers:
            if not t.name and not self._lost_name(t, "timer"):
                self.err(t.loc, "this timer has no name", "bind it: flash = game.timer()")
        for decl, what in [(f, "field") for f in self.game.fields] + \
                [(t, "timer") for t in self.game.timers]:
            if decl.name in PROGRAM_NAMES:
                self.err(decl.loc, f"a {what} cannot be called {decl.name!r}: the emulator "
                                   f"drives the game's program through {decl.name}, which "
                                   f"the {what} would hide",
                         f"give the {what} another name")

    def check_field_names(self) -> None:
        """A field is a global of the sketch: it cannot share its name with a function there
        (the game's handlers and helpers, the engine's and the generated dispatch's) or with
        one of the engine's globals."""
        functions = {f.name for f in self.functions}
        for f in self.game.fields:
            if f.name in self.sym.engine_globals:
                self.err(f.loc, f"a field cannot be called {f.name!r}: blinkc's protocol engine "
                                "keeps a variable of that name on the tile",
                         "give the field another name")
            elif f.name in functions:
                self.err(f.loc, f"a field cannot be called {f.name!r}: the sketch has a "
                                "function of that name (blinkc's protocol engine or the dispatch "
                                "it generates), which the field would clash with in C++",
                         "give the field another name")

    def _lost_name(self, decl: Any, what: str) -> bool:
        """A declaration whose name was bound again later (`hp = game.field(...)`, then
        `def hp(t)`): say so (True), rather than that it has no name."""
        line = linecache.getline(decl.loc.file, decl.loc.line)
        m = re.match(r"\s*([A-Za-z_]\w*)\s*(?::[^=]*)?=", line)
        if not m or m.group(1) not in self.g:
            return False
        name, now = m.group(1), self.g[m.group(1)]
        roles = {"derived": "derived value", "broadcast": "broadcast value"}
        handler = next((h for h in self.game.handlers if h.fn is now), None)
        if handler is not None:
            taker = f"the {roles.get(handler.event, 'handler')} {name}()"
        elif inspect.isfunction(now):
            taker = f"the function {name}()"
        else:
            taker = f"{type(now).__name__} {now!r}"
        where = getattr(getattr(now, "__code__", None), "co_firstlineno", None)
        self.err(decl.loc, f"the {what} {name!r} has lost its name to {taker}"
                           + (f" (line {where})" if where else ""),
                 f"rename one of them: the game reads the {what} as t.{name}")
        return True

    def declare_fields(self) -> None:
        seen: set[str] = set()
        for f in self.game.fields:
            if not f.name:
                continue
            if f.name in seen:
                self.err(f.loc, f"two fields are named {f.name!r}", "rename one of them")
            seen.add(f.name)
            self._reserved(f.loc, f.name, "a field")
            rng = value_range(f.type)
            if rng is None:
                self.err(f.loc, f"field {f.name!r} has an unsupported type {f.type!r}",
                         "use range(lo, hi), bool, Face, or a kinds enum")
                continue
            default = f.default
            if default is None:
                default = 0 if rng[0] <= 0 <= rng[1] else rng[0]
            if isinstance(default, EnumMember):
                if isinstance(f.type, Enum) and default.enum is not f.type:
                    self.err(f.loc, f"the default of {f.name!r} belongs to another kind")
                elif not isinstance(f.type, Enum):
                    self.err(f.loc, f"the default of {f.name!r} is one of {default.enum.name}'s "
                                    "kinds, not a number",
                             f"give a number: default={rng[0] if rng[0] > 0 else 0}, or make it "
                             f"a kinds field: game.field({default.enum.name})")
                    continue
                default = default.value
            elif isinstance(f.type, Enum) and f.default is not None:
                first = f"{f.type.name}.{f.type.members[0]}" if f.type.members else f.type.name
                self.err(f.loc, f"the default of {f.name!r} is a number, not one of "
                                f"{f.type.name}'s kinds", f"name the member: default={first}")
                continue
            if isinstance(default, bool):
                default = int(default)
            if f.per_face and isinstance(default, list | tuple):
                self.err(f.loc, f"the default of the per-face field {f.name!r} is one value, "
                                "which every face starts with",
                         "give one value (default=0), and set faces apart in @game.setup")
                continue
            if not isinstance(default, int) or not rng[0] <= default <= rng[1]:
                self.err(f.loc, f"the default of {f.name!r} ({f.default!r}) is outside its range "
                                f"{rng[0]}..{rng[1]}",
                         "pick a default inside the range; note range(0, 6) is 0..5")
                continue
            if self._too_wide(f.loc, f"field {f.name!r}", rng):
                continue
            if not self._per_face_ok(f):
                continue
            t = BOOL if f.type is bool else storage_type(*rng)
            g = GlobalVar(f.name, t, (default,) * 6 if f.per_face else default, f.loc,
                          size=6 if f.per_face else None, range=rng, role="state", doc=f.doc,
                          is_bool=f.type is bool,
                          enum=f.type.name if isinstance(f.type, Enum) else None)
            self.globals.append(g)
            self.sym.fields[f.name] = g
            if isinstance(f.type, Enum):
                self.sym.field_enums[f.name] = f.type

    def _per_face_ok(self, f: FieldDecl) -> bool:
        """per_face is True or False, and a per-face field is not broadcast (a face value
        carries one value to every neighbour, not one of six)."""
        if not isinstance(f.per_face, bool):
            self.err(f.loc, f"per_face= is True or False, not {f.per_face!r}",
                     f"{f.name} = game.field(..., per_face=True): six values, one per face")
            return False
        if f.per_face and f.broadcast:
            self.err(f.loc, f"the per-face field {f.name!r} cannot be broadcast: neighbours "
                            "read one value from a tile, not one of six",
                     "broadcast a value computed from it instead: @game.broadcast(...) "
                     "def ...(t), or a scalar field")
            return False
        return True

    def _too_wide(self, loc: SrcLoc, what: str, rng: tuple[int, int]) -> bool:
        """A range no 32-bit type holds (the tile's widest): an error."""
        lo, hi = rng
        if (lo >= -(1 << 31) and hi < (1 << 31)) or (lo >= 0 and hi < (1 << 32)):
            return False
        self.err(loc, f"{what} needs more than 32 bits: {lo:,}..{hi:,}",
                 "the tile holds at most 32 bits: range(-2**31, 2**31) or range(0, 2**32)")
        return True

    def _reserved(self, loc: SrcLoc, name: str, what: str) -> None:
        if name in _TILE_NAMES:
            self.err(loc, f"{what} cannot be named {name!r}: t.{name} is the tile's own",
                     "give it another name")


    def declare_timers(self) -> None:
        if len(self.game.timers) > 8:
            self.err(self.game.timers[8].loc, "a game may have at most 8 timers")
        for k, t in enumerate(self.game.timers):
            self.sym.timers[id(t)] = k
            self._reserved(t.loc, t.name, "a timer")
            if t.name:
                self.sym.timer_names[t.name] = k

    def group_handlers(self) -> None:
        for h in self.game.handlers:
            self.handlers_by_event.setdefault(h.event, []).append(h)
        for ev in ("display", "setup", "loop"):
            hs = self.handlers_by_event.get(ev, [])
            for extra in hs[1:]:
                self.err(extra.loc, f"a game has one @game.{ev} function",
                         f"merge the {ev} functions into one")
        # One handler per event (and message, flood, timer): a second one would run too, in
        # the order of the file, which is rarely what was meant. Guards that exclude each
        # other (alone=True and alone=False) are two handlers of two events.
        seen: list[Handler] = []
        for h in self.game.handlers:
            if h.event in ("display", "setup", "loop"):
                continue
            if h.event in ("derived", "broadcast"):
                self._reserved(h.loc, h.fn.__name__, f"a {h.event} value")
                first = next((o for o in seen if o.event in ("derived", "broadcast")
                              and o.fn.__name__ == h.fn.__name__), None)
                if first is not None:
                    self.err(h.loc, f"two {'derived' if h.event == first.event else 'computed'} "
                                    f"values are named {h.fn.__name__!r} (the first at line "
                                    f"{first.loc.line})", "rename one of them")
                elif h.event == "broadcast" and h.fn.__name__ in {f.name for f in self.game.fields}:
                    self.err(h.loc, f"{h.fn.__name__!r} is both a field and a broadcast value",
                             "rename one of them")
                seen.append(h)
                continue
            first = next((o for o in seen if o.event == h.event and o.target is h.target
                          and (o.alone is None or h.alone is None or o.alone == h.alone)), None)
            seen.append(h)
            if first is None:
                continue
            target = getattr(h.target, "name", "")
            decorator = f"@game.on_{h.event}" + (f"({target})" if target else "")
            self.err(h.loc, f"a second {decorator} handler (the first is {first.fn.__name__}() "
                            f"at line {first.loc.line}): both would run, one after the other",
                     "merge them into one function"
                     + (" (or guard them with alone=True and alone=False)"
                        if h.event in BUTTON_EVENTS else ""))



    # ------------------------------------------------------------------ engine
    def declare_engine(self, tree: ast.Module) -> None:
        consts = {
            "CODE_SHIFT": self.wire.code_shift, "CODE_MASK": self.wire.code_mask,
            "ACK_SHIFT": self.wire.ack_shift, "FLOOD_CODE": self.wire.flood_code,
            "HELLO": self.wire.hello, "PROTOCOL": int(self.wire.n_codes > 1),
            "RANDOMIZED": 0,  # (resolve_randomize() sets it once the game's code is compiled)
            "CLOCK_MIXED": int(self.random_source == "clock"),
            "N_FLOODS": len(self.game.floods), "N_FLOOD_SLOTS": 2 * len(self.game.floods),
            "N_FLOOD_CODES": 4 * len(self.game.floods), "FLOOD_CODES_SHIFT": 2,
            "N_TIMERS": len(self.game.timers),
            "QUEUE_LEN": queue_len(self.game, self.err), "GRACE_UNITS": self.wire.grace_units, "NEVER": NEVER,
            "FLOOD_SAME_UNITS": FLOOD_SAME_MS // GRACE_TICK_MS,
            "FLOOD_BACK_UNITS": flood_back_units(self.wire.grace_units),
            "BACK_SAME_UNITS": back_same_units(self.wire.grace_units),
            "STARTER": 128, "TX_WAIT": 128, "TX_RELEASE": 64,
            "LINK_UP": 1, "LINK_SEEN": 2, "LINK_HEARD": 4,
            "NO_PARENT": 0, "ALL_FACES": 63, "SERIAL_LEN": 9, "COIN_TAPS": 0xB400,
            "SAME_WINDOW": 64, "BACK_WINDOW": 128, "BOTH_WINDOWS": 192,
            "GROUPS": int(any(fl.within is not None for fl in self.game.floods)),
            "WIDE_FLOODS": int(bool(self.wire.flood_chunks)),
            "DATA_CODE": self.wire.data_code, "DATA_BITS": self.wire.data_bits,
            "DATA_MASK": (1 << self.wire.data_bits) - 1,
            "GATHERS": int(any(fl.combine is not None for fl in self.game.floods)),
            "FLOOD_VALUES": int(any(fl.payload is not None and fl.combine is None
                                    for fl in self.game.floods)),
            "EVERY_PASS": int(bool(self.handlers_by_event.get("loop"))),
            # (codes 1..flood_code - 1 are the messages' and their data codes)
            "ONE_CODE": int(self.wire.flood_code == 2),
            "BOUNCES_HEARD": int(bool(self.handlers_by_event.get("bounce")) or self.observable),
        }
        # The protocol's own numbers: its module constants (`NAME = 5  # what it is`).
        notes = _line_comments(ENGINE_FILE.read_text())
        own = {n.targets[0].id: (n.value.value, notes.get(n.lineno, "")) for n in tree.body
               if isinstance(n, ast.Assign) and len(n.targets) == 1
               and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Constant)
               and type(n.value.value) is int}
        consts.update({k: v for k, (v, _) in own.items()})
        self.sym.constants.update(consts)
        docs = {k: doc for k, (_, doc) in own.items()}
        docs |= {
            "CODE_SHIFT": "first bit of the message code in a face value",
            "CODE_MASK": "the message code's bits, after shifting",
            "ACK_SHIFT": "the handshake's ack bit",
            "FLOOD_CODE": "code of the first flood's wave (its echo is the next code)",
            "N_FLOODS": "floods the game declares",
            "N_FLOOD_SLOTS": "two slots per flood (told apart by a parity bit in its codes)",
            "N_TIMERS": "timers the game declares",
            "N_FLOOD_CODES": "a wave and an echo per flood slot",
            "FLOOD_CODES_SHIFT": "flood k's codes: FLOOD_CODE + 4k .. 4k + 3 (a wave and an echo "
                                 "per slot)",
            "HELLO": "the code a face shows while it has no session",
            "PROTOCOL": "the game sends messages or floods",
            "RANDOMIZED": "the game calls randomize() at power-up",
            "CLOCK_MIXED": "the game's draws are the tile's own sequence mixed with the clock",
            "QUEUE_LEN": "messages that can wait for a busy face (a full queue bounces)",
            "GRACE_UNITS": f"a face without a working session is gone after "
                           f"{(self.wire.grace_units) * GRACE_TICK_MS:,}-"
                           f"{(self.wire.grace_units + 1) * GRACE_TICK_MS:,} ms (in 256 ms units)",
            "NEVER": "no deadline",
            "TX_WAIT": "tx_code[f]: our code is on the wire, awaiting the neighbour's ack",
            "TX_RELEASE": "tx_code[f]: our code withdrawn, awaiting the ack's clearing",
            "LINK_UP": "link_state[f]: a session with the neighbour on face f is running",
            "LINK_SEEN": "link_state[f]: no session yet, and the neighbour's HELLO seen",
            "LINK_HEARD": "link_state[f]: face f heard its neighbour in the last 200 ms",
            "FLOOD_SAME_UNITS": f"a wave over a face that was gone when this tile entered its slot, "
                                f"less than {FLOOD_SAME_MS:,} ms after, is that same flood",
            "FLOOD_BACK_UNITS": "a wave over a face that came back lately is the flood this tile "
                                "entered in its slot up to "
                                f"{flood_back_units(self.wire.grace_units) * GRACE_TICK_MS:,} "
                                "ms after",
            "BACK_SAME_UNITS": "... if it comes less than this after the face came back (in "
                               "256 ms units)",
            "STARTER": "flood_parent of a wave this tile started (bit 7: no face's bit)",
            "NO_PARENT": "flood_parent (and flood_from) of a slot with no flood under way",
            "ALL_FACES": "a bit for each of the six faces",
            "SERIAL_LEN": "bytes of the tile's serial number (getSerialNumberByte)",
            "COIN_TAPS": "the taps of the coin's 16-bit Galois LFSR (x^16 + x^14 + x^13 + x^11 + 1)",
            "SAME_WINDOW": "flood_skipped bit 6: FLOOD_SAME_UNITS have not passed since the tile entered",
            "BACK_WINDOW": "flood_skipped bit 7: FLOOD_BACK_UNITS have not passed since the tile entered",
            "BOTH_WINDOWS": "SAME_WINDOW | BACK_WINDOW: both windows open (the tile just entered)",
            "GROUPS": "some flood is confined to a group (within=)",
            "WIDE_FLOODS": "some flood's waves or echoes carry a value (data codes first)",
            "DATA_CODE": "the first data code (the bits of a wide value)",
            "DATA_BITS": "the bits of a wide value each data code carries",
            "DATA_MASK": "the bits of one data code",
            "GATHERS": "some flood is a gather (its echoes carry a combined value)",
            "FLOOD_VALUES": "some flood's waves carry a value",
            "EVERY_PASS": "the game's @game.loop runs on every pass: the tile is never quiet",
            "ONE_CODE": "the one message code: the queue keeps a count per face",
            "BOUNCES_HEARD": "bounce() runs code: the game's @game.on_bounce, or the explorer's probe",
        }
        # (Switches only where they are 1: a game without groups or wide values is built
        # exactly as before.)
        wide = int(self.wire.data_bits > 0)
        optional = {"GROUPS": consts["GROUPS"], "WIDE_FLOODS": consts["WIDE_FLOODS"],
                    "DATA_CODE": wide, "DATA_BITS": wide, "DATA_MASK": wide,
                    "GATHERS": consts["GATHERS"], "FLOOD_VALUES": consts["FLOOD_VALUES"],
                    "EVERY_PASS": consts["EVERY_PASS"], "ONE_CODE": consts["ONE_CODE"],
                    "BOUNCES_HEARD": consts["BOUNCES_HEARD"]}
        self.constants = [(k, v, docs[k]) for k, v in consts.items() if optional.get(k, 1)]
        for node in tree.body:
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                name = node.target.id
                t, size = self._engine_type(node.annotation, consts)
                init = node.value.value if isinstance(node.value, ast.Constant) else 0
                loc = SrcLoc("protocol.py", node.lineno)
                g = GlobalVar(name, t, (int(init),) * size if size is not None else int(init),
                              loc, size=size, role="engine", is_bool=t == BOOL,
                              doc=notes.get(node.lineno, ""))
                self.globals.append(g)
                self.sym.engine_globals[name] = g
            elif isinstance(node, ast.FunctionDef):
                params = tuple(self._engine_type(a.annotation, consts)[0] for a in node.args.args)
                ret = None
                if node.returns is not None and not (
                        isinstance(node.returns, ast.Constant) and node.returns.value is None):
                    ret = self._engine_type(node.returns, consts)[0]
                self.sym.functions[node.name] = Signature(params, ret, ret == BOOL)

    def resolve_randomize(self) -> None:
        """randomize() at power-up when the game asks (randomize=True), or by default when
        its code draws random numbers: a game that draws none does not carry it (and the
        engine's coin, if it has one, tosses its own sequence seeded from the serial number)."""
        if self.random_source is None:
            self.randomize = any(c.builtin and c.func in ("random", "randomWord")
                                 for f in self.functions for c in calls(f.body))
        else:
            self.randomize = self.random_source is True
        self.sym.constants["RANDOMIZED"] = int(self.randomize)
        self.constants = [(k, int(self.randomize) if k == "RANDOMIZED" else v, doc)
                          for k, v, doc in self.constants]

    def without_protocol(self) -> None:
        """A game that sends no messages or floods has no sessions, so the engine's transmit()
        would only ever show the broadcast values on every face: loop() calls
        publish_values() instead, one setValueSentOnAllFaces() (nothing at all without
        broadcast values: a face value starts at 0), and the queue, the handshake and the
        flood scans transmit() calls are pruned with it."""
        if self.sym.constants["PROTOCOL"]:
            return
        body: tuple[Stmt, ...] = ()
        if self.wire.broadcast:
            value = Call("broadcast_bits", (), U8)
            body = (ExprStmt(Call("setValueSentOnAllFaces", (value,), None, builtin=True),
                             BLINKC_LOC),)
        publish = Function("publish_values", (), None, body, BLINKC_LOC,
                           "Show the broadcast values on every face (the game sends nothing).",
                           "engine")
        self.functions = [_calling(f, "transmit", "publish_values") for f in self.functions]
        self.functions.append(publish)

    @staticmethod
    def _engine_type(ann: ast.expr | None, consts: dict[str, int]) -> tuple[IntType, int | None]:
        if isinstance(ann, ast.Name):
            return TYPE_NAMES[ann.id], None
        assert isinstance(ann, ast.Subscript) and isinstance(ann.value, ast.Name), ast.dump(ann)
        size_node = ann.slice
        size = size_node.value if isinstance(size_node, ast.Constant) else consts[size_node.id]
        return TYPE_NAMES[ann.value.id], max(1, int(size))

    def declare_generated(self) -> None:
        f = self.sym.functions
        f["deliver"] = Signature((U8, U8, U8), None)
        f["bounce"] = Signature((U8, U8), None)
        f["buttons"] = Signature((), None)
        f["on_flood"] = Signature((U8,), None)
        f["on_flood_done"] = Signature((U8,), None)
        f["flood_within"] = Signature((U8, U8), BOOL, True)
        f["message_within"] = Signature((U8, U8), BOOL, True)
        f["send_grouped"] = Signature((U8, U8), None)
        f["send_wide_grouped"] = Signature((U8, U16, U8, U8), None)
        f["flood_chunks"] = Signature((U8, U8), U8)
        f["gather_identity"] = Signature((U8,), U16)
        f["gather_combine"] = Signature((U8, U16, U16), U16)
        f["on_timer"] = Signature((U8,), None)
        f["on_neighbor_joined"] = Signature((U8,), None)
        f["on_neighbor_left"] = Signature((U8,), None)
        f["every_pass"] = Signature((), None)
        f["broadcast_bits"] = Signature((), U8)
        f["display"] = Signature((), None)
        f["setup"] = Signature((), None)
        for name, (lo, hi), _loc, _what in self.wire.broadcast:
            t = BOOL if (lo, hi) == (0, 1) and self._is_bool_broadcast(name) else storage_type(lo, hi)
            getter = f"neighbor_{name}"
            f[getter] = Signature((U8,), t, t == BOOL)
            self.sym.neighbor_getters[name] = getter
            kinds = self._kinds_of_broadcast(name)
            if kinds is not None:
                self.sym.neighbor_enums[name] = kinds
            self.sym.pure.add(getter)
        for h in self.game.handlers:
            if h.event in ("derived", "broadcast"):
                rng = value_range(h.value_type)
                if rng is None:
                    if h.event == "derived":
                        self.err(h.loc, f"@game.derived({h.value_type!r}) needs a type like "
                                        "bool or range(0, 4)")
                    continue
                if self._too_wide(h.loc, f"{h.fn.__name__}()", rng):
                    continue
                t = BOOL if h.value_type is bool else storage_type(*rng)
                fname = f"value_{h.fn.__name__}"
                f[fname] = Signature((), t, t == BOOL)
                self.sym.derived[h.fn.__name__] = fname
                self.sym.pure.add(fname)
                if isinstance(h.value_type, Enum):
                    self.sym.derived_enums[h.fn.__name__] = h.value_type
        self.sym.pure |= {"timer_running", "timer_remaining"}
        self.declare_watched()

    def declare_watched(self) -> None:
        """What @game.on_neighbor_changed compares with: the value each neighbour showed at
        the last pass, and which faces had one (only in a game with such a handler)."""
        hs = self.handlers_by_event.get("neighbor_changed", [])
        for h in hs:
            name = h.target.name if isinstance(h.target, FieldDecl) else h.target.__name__
            getter = self.sym.neighbor_getters.get(name)
            if getter is None or watched(name) in self.sym.engine_globals:
                continue  # (not broadcast: refused where it was declared; a second: refused)
            t = self.sym.functions[getter].ret
            assert t is not None
            self._engine_global(GlobalVar(watched(name), t, (0,) * 6, h.loc, size=6,
                                          doc=f"the {name} the neighbour on face f showed "
                                              "at the last pass", is_bool=t == BOOL))
        if hs:
            self._engine_global(GlobalVar(WATCHED_FACES, U8, 0, hs[0].loc,
                                          doc="bit f: a neighbour was on face f at the last "
                                              "pass"))

    def _engine_global(self, g: GlobalVar) -> None:
        self.globals.append(g)
        self.sym.engine_globals[g.name] = g

    def _kinds_of_broadcast(self, name: str) -> Enum | None:
        for fd in self.game.fields:
            if fd.name == name and isinstance(fd.type, Enum):
                return fd.type
        for h in self.handlers_by_event.get("broadcast", []):
            if h.fn.__name__ == name and isinstance(h.value_type, Enum):
                return h.value_type
        return None

    def _is_bool_broadcast(self, name: str) -> bool:
        for fd in self.game.fields:
            if fd.name == name:
                return fd.type is bool
        for h in self.handlers_by_event.get("broadcast", []):
            if h.fn.__name__ == name:
                return h.value_type is bool
        return False

    def compile_engine(self, tree: ast.Module) -> None:
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef):
                continue
            sig = self.sym.functions[node.name]
            params = [(a.arg, t) for a, t in zip(node.args.args, sig.params, strict=True)]
            fc = FunctionCompiler(self.sym, file="protocol.py", line0=1, node=node, name=node.name,
                                  params=params, ret=sig.ret, role="engine", tile=None,
                                  pyglobals={}, engine=True, errors=self.errors,
                                  ret_is_bool=sig.is_bool)
            # The engine's conventions: `face` is a face, `k` indexes floods or timers, `s`
            # flood slots.
            counts = {"face": 6, "k": max(len(self.game.floods), len(self.game.timers), 1),
                      "s": max(2 * len(self.game.floods), 1)}
            ranges = [(0, counts[n] - 1) if n in counts else None for n, _ in params]
            self.functions.append(with_param_ranges(fc.compile(), ranges))

    # ---------------------------------------------------------------- handlers
    def compile_helpers(self) -> None:
        """Compile the game's helper functions that handlers called (and those they call)."""
        done: set[str] = set()
        while True:
            todo = [n for n in self.sym.helpers if n not in done]
            if not todo:
                return
            for name in todo:
                done.add(name)
                fn = self.sym.helper_candidates[name]
                fname, sig, takes_tile = self.sym.helpers[name]
                self.sym.functions[fname] = sig
                node, file, first = parse_function(fn)
                names = [a.arg for a in node.args.args]
                tile = names[0] if takes_tile else None
                rest = names[1:] if takes_tile else names
                fc = FunctionCompiler(self.sym, file=file, line0=first, node=node, name=fname,
                                      params=list(zip(rest, sig.params, strict=True)), ret=sig.ret,
                                      role="helper", tile=tile, pyglobals=fn.__globals__,
                                      errors=self.errors, ret_is_bool=sig.is_bool)
                compiled = fc.compile()
                if sig.ret is not None and not _always_returns(compiled.body):
                    self.err(compiled.loc, f"{name}() must return a value on every path",
                             "end it with a return")
                self.functions.append(compiled)

    def compile_within(self) -> None:
        """Compile each group predicate, `def within(t, face) -> bool`, of a flood or a message
        as a function of the face (flood_within and message_within dispatch to it). It only
        looks, like a derived value: the engine calls it whenever a wave comes or goes, the
        dispatch whenever a message of the group is sent."""
        self.within_fns: dict[int, str] = {}
        self.message_within_fns: dict[int, str] = {}
        done: dict[int, str] = {}  # id(predicate) -> its function (floods may share one)
        decls = [("flood", kk, fl, self.within_fns) for kk, fl in enumerate(self.game.floods)]
        decls += [("message", mm, m, self.message_within_fns)
                  for mm, m in enumerate(self.game.messages)]
        for what, index, decl, into in decls:
            pred = decl.within
            if pred is None:
                continue
            if id(pred) in done:
                into[index] = done[id(pred)]
                continue
            try:
                node, file, first = parse_function(pred)
            except DslError as e:
                self.errors.append(e)
                continue
            loc = SrcLoc(file, first + node.lineno - 1)
            args = node.args
            names = [a.arg for a in args.args]
            group = f"{pred.__name__}(), the group of {what} {decl.name!r},"
            if args.vararg or args.kwarg or args.kwonlyargs or args.defaults or len(names) != 2:
                self.err(loc, f"{group} takes (t, face): the tile and one of its faces",
                         f"def {pred.__name__}(t, face):\n    return t.ship and "
                         "t.neighbor(face).ship")
                continue
            fname = f"within_{pred.__name__}"
            if fname in self.sym.functions:
                fname = f"{fname}_{what}_{index}"
            self.sym.functions[fname] = Signature((U8,), BOOL, True)
            self.within_what[fname] = f"a {what}'s group (within=)"
            fc = FunctionCompiler(self.sym, file=file, line0=first, node=node, name=fname,
                                  params=[(names[1], U8)], ret=BOOL, role="within",
                                  tile=names[0], pyglobals=pred.__globals__, errors=self.errors,
                                  ret_is_bool=True)
            fc.bool_only = group
            compiled = with_param_ranges(fc.compile(), [(0, 5)])
            if not _always_returns(compiled.body):
                self.err(loc, f"{pred.__name__}() must return True or False on every path",
                         "end it with a return")
            self.functions.append(compiled)
            into[index] = done[id(pred)] = fname

    def compile_handlers(self) -> None:
        counters: dict[str, int] = {}
        self.handler_fns: dict[int, str] = {}
        for h in self.game.handlers:
            expected = EVENTS[h.event]
            # The value a handler gets besides the face: a message's payload, a valued
            # flood's value, a gather's total (its range is the declaration's payload).
            carried: range | None = getattr(h.target, "payload", None)
            combine = getattr(h.target, "combine", None)
            if h.event == "message" and carried is not None:
                expected = (*expected, "payload")
            elif h.event == "flood" and carried is not None and combine is None:
                expected = (*expected, "value")
            elif h.event == "flood_done" and combine is not None:
                expected = (*expected, "total")
            elif h.event not in ("flood", "message"):
                carried = None
            try:
                node, file, first = parse_function(h.fn)
            except DslError as e:
                self.errors.append(e)
                continue
            h.loc = SrcLoc(file, first + node.lineno - 1)  # the def line, not the decorator
            args = node.args
            names = [a.arg for a in args.args]
            if (args.vararg or args.kwarg or args.kwonlyargs or args.defaults
                    or len(names) != 1 + len(expected)):
                want = ", ".join(["t", *expected])
                self.err(h.loc, f"a {h.event.replace('_', ' ')} handler takes ({want})",
                         f"def {h.fn.__name__}({want}):")
                continue
            if h.event in ("message", "bounce") and id(h.target) not in self.sym.messages:
                self.err(h.loc, f"@game.on_{h.event}() needs a message",
                         'declare it: Laser = game.message("Laser")')
                continue
            if h.event in ("flood", "flood_done") and id(h.target) not in self.sym.floods:
                self.err(h.loc, f"@game.on_{h.event}() needs a flood",
                         'declare it: Reset = game.flood("Reset")')
                continue
            if h.event == "timer" and id(h.target) not in self.sym.timers:
                self.err(h.loc, "@game.on_timer() needs a timer", "declare it: flash = game.timer()")
                continue
            params = [(n, U8) for n in names[1:]]
            param_ranges = [(0, 5)] * len(EVENTS[h.event])  # faces
            if len(expected) > len(EVENTS[h.event]):
                assert carried is not None
                lo, hi = carried.start, carried.stop - 1
                params[-1] = (params[-1][0], storage_type(lo, hi))
                param_ranges.append((lo, hi))
            ret = None
            ret_bool = False
            if h.event == "flood" and combine not in (None, "count"):
                # A gather's handler returns this tile's value.
                assert carried is not None
                ret = gather_return_type(carried)
            if h.event in ("derived", "broadcast"):
                fname = self.sym.derived.get(h.fn.__name__)
                if fname is None:
                    continue
                sig = self.sym.functions[fname]
                ret, ret_bool = sig.ret, sig.is_bool
                role = "derived"
            elif h.event == "display":
                fname, role = "show", "display"
            elif h.event == "setup":
                fname, role = "game_setup", "handler"
            elif h.event == "loop":
                fname, role = "game_loop", "handler"
            else:
                # The author's own name reads best in generated code; avoid clashes only.
                fname = h.fn.__name__
                taken = set(self.sym.functions) | set(self.handler_fns.values()) | {"loop", "setup"}
                if fname in taken or fname in self.sym.helper_candidates:
                    fname = f"{fname}_{h.event}"
                n = counters[fname] = counters.get(fname, 0) + 1
                if n > 1:
                    fname = f"{fname}_{n}"
                role = "handler"
            fc = FunctionCompiler(self.sym, file=file, line0=first, node=node, name=fname,
                                  params=params, ret=ret, role=role, tile=names[0],
                                  pyglobals=h.fn.__globals__, errors=self.errors,
                                  ret_is_bool=ret_bool)
            if h.event in ("derived", "broadcast") and isinstance(h.value_type, Enum):
                fc.ret_enum = h.value_type
            fn = fc.compile()
            fn = with_param_ranges(fn, param_ranges)
            if ret is not None and not _always_returns(fn.body):
                if h.event == "flood":
                    self.err(h.loc, f"{h.fn.__name__}() must return this tile's value for the "
                                    f"gather {h.target.name!r} on every path",
                             f"end it with a return: 0..{h.target.payload.stop - 1}, which "
                             f"the gather combines ({h.target.combine})")
                else:
                    self.err(h.loc, f"{h.fn.__name__}() must return a value on every path",
                             "end it with a return")
            self.functions.append(fn)
            self.handler_fns[id(h)] = fname

    def handlers_of(self, event: str) -> list[Handler]:
        return [h for h in self.handlers_by_event.get(event, []) if id(h) in self.handler_fns]

def _calling(f: Function, old: str, new: str) -> Function:
    """f with its calls of `old` (statements of their own) calling `new` instead."""
    def swap(body: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
        out: list[Stmt] = []
        for s in body:
            if isinstance(s, ExprStmt) and s.value.func == old and not s.value.builtin:
                s = ExprStmt(Call(new, s.value.args, s.value.type), s.loc)
            elif isinstance(s, If):
                s = If(s.test, swap(s.body), swap(s.orelse), s.loc)
            elif isinstance(s, For):
                s = For(s.var, s.start, s.stop, swap(s.body), s.loc, s.bit)
            out.append(s)
        return tuple(out)
    body = swap(f.body)
    return f if body == f.body else Function(f.name, f.params, f.ret, body, f.loc, f.doc, f.role)


def _always_returns(body: tuple[Stmt, ...]) -> bool:
    for s in body:
        if isinstance(s, Return):
            return True
        if isinstance(s, If) and s.orelse and _always_returns(s.body) and _always_returns(s.orelse):
            return True
    return False


#: What t.<name> already means: no field, timer or value can take the name.
_TILE_NAMES = frozenset({"now", "alone", "neighbor_mask", "send", "flood", "color", "color_all",
                         "random", "random_word", "has_neighbor", "neighbor"})




__all__ = ["GRACE_TICK_MS", "GameLowering", "Lowered", "walk_stmts"]


@functools.lru_cache(maxsize=2)
def _line_comments(source: str) -> Mapping[int, str]:
    """The comment of each line of the protocol's source that has one: its trailing comment,
    or else the comment just above it where that begins with its name, so that the sketch says what
    each protocol variable is, as it says what a game's field is. (Kept for the next game: every
    game reads the same source, and tokenizing it was a twentieth of a lowering.)"""
    lines = source.splitlines()
    trailing: dict[int, str] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT and lines[tok.start[0] - 1][:tok.start[1]].strip():
            trailing[tok.start[0]] = tok.string.lstrip("#").strip()
    out: dict[int, str] = {}
    above: list[str] = []
    for no, text in enumerate(lines, start=1):
        stripped = text.strip()
        if stripped.startswith("#"):
            body = stripped.lstrip("#").strip()
            above = [] if body.startswith(("---", "ruff:")) else [*above, body]
            continue
        name = stripped.split(":")[0].strip()
        # The paragraph above only where it is this variable's own ("tx_code[f] is ...").
        note = trailing.get(no) or (" ".join(above) if above and above[0].startswith(name) else "")
        if stripped and note:
            out[no] = note
        above = []
    return MappingProxyType(out)  # shared by every game: read-only
