"""Lower a game's declarations, handlers and blinkc's engine into one IR Program.

This is where the DSL's sugar is given its one meaning: message codes and the
face-value bit layout are allocated, handlers are compiled, dispatch
functions are generated, and the protocol engine (engine.py) is compiled
alongside, then everything unreachable is pruned away.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import os
import re
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..backends.ranges import Ranges, repeatable
from ..ir.nodes import (
    BOOL,
    I16,
    U8,
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
    Function,
    GlobalVar,
    If,
    Index,
    IntType,
    Local,
    Name,
    Param,
    Program,
    Return,
    SrcLoc,
    Stmt,
    Symbol,
    UnOp,
)
from ..ir.optimize import optimize
from ..ir.walk import walk_exprs, walk_stmts
from ..runtime.timer import NEVER
from .compiler import ColorConst, FunctionCompiler, Signature, Symbols, parse_function
from .errors import DslError
from .game import EVENTS, Enum, EnumMember, FaceType, FieldDecl, Game, Handler, TimerDecl
from .types import COLOR, TYPE_NAMES, binop, compare, convert, literal_type, storage_type

ENGINE_FILE = Path(__file__).with_name("engine.py")
FACE_VALUE_BITS = 6
#: The engine's link clock ticks every 256 ms (a byte of millis() >> 8).
GRACE_TICK_MS = 256
QUEUE_LEN = 12
#: The engine's calls into the game that the protocol explorer watches.
OBSERVABLE_HOOKS = frozenset({"on_flood", "on_flood_done", "bounce", "on_neighbor_joined",
                              "on_neighbor_left"})
BLINKC = SrcLoc("blinkc", 0)


@dataclass
class Lowered:
    program: Program | None
    errors: list[DslError]
    warnings: list[DslError]
    notes: list[str] = field(default_factory=list)
    #: Warnings silenced by a `# blinkc: ignore` comment on their line.
    silenced: list[DslError] = field(default_factory=list)


def _value_range(decl_type: Any) -> tuple[int, int] | None:
    if decl_type is bool:
        return (0, 1)
    if isinstance(decl_type, FaceType):
        return (0, 5)
    if isinstance(decl_type, Enum):
        return (0, max(0, len(decl_type) - 1))
    if isinstance(decl_type, range) and decl_type.step == 1 and len(decl_type) > 0:
        return (decl_type.start, decl_type.stop - 1)
    return None


def _bits_for(lo: int, hi: int) -> int:
    return max(1, (hi - lo).bit_length())


class GameLowering:
    def __init__(self, game: Game, module_globals: dict[str, Any], source: str,
                 observable: bool = False) -> None:
        self.game = game
        #: Keep the engine's hooks even when empty (blinkc.explore watches them).
        self.kept = OBSERVABLE_HOOKS if observable else frozenset()
        self.g = module_globals
        self.source = source
        self.errors: list[DslError] = list(game.problems)
        self.warnings: list[DslError] = []
        self.sym = Symbols()
        self.functions: list[Function] = []
        self.globals: list[GlobalVar] = []
        self.constants: list[tuple[str, int, str]] = []
        self.layout: list[tuple[str, int, int, str]] = []
        self.codes: list[tuple[int, str]] = []
        self.handlers_by_event: dict[str, list[Handler]] = {}

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
        self.allocate_codes()
        self.declare_timers()
        self.group_handlers()
        self.allocate_bits()
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
        self.compile_helpers()
        self.compile_engine(engine_tree)
        self.generate()
        self.check_usage()
        self.check_recursion()
        self.check_views_are_pure()
        self.check_payloads()
        self.check_ranges()
        silenced = self.silence_ignored()
        if self.errors:
            return Lowered(None, self.errors, self.warnings, silenced=silenced)
        program = self.prune()
        return Lowered(program, self.errors, self.warnings, silenced=silenced)

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
        for t in self.game.timers:
            if not t.name and not self._lost_name(t, "timer"):
                self.err(t.loc, "this timer has no name", "bind it: flash = game.timer()")

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
            rng = _value_range(f.type)
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
            if not isinstance(default, int) or not rng[0] <= default <= rng[1]:
                self.err(f.loc, f"the default of {f.name!r} ({f.default!r}) is outside its range "
                                f"{rng[0]}..{rng[1]}",
                         "pick a default inside the range; note range(0, 6) is 0..5")
                continue
            if self._too_wide(f.loc, f"field {f.name!r}", rng):
                continue
            t = BOOL if f.type is bool else storage_type(*rng)
            g = GlobalVar(f.name, t, default, f.loc, range=rng, role="state", doc=f.doc,
                          is_bool=f.type is bool,
                          enum=f.type.name if isinstance(f.type, Enum) else None)
            self.globals.append(g)
            self.sym.fields[f.name] = g
            if isinstance(f.type, Enum):
                self.sym.field_enums[f.name] = f.type

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

    def allocate_codes(self) -> None:
        code = 1
        names: set[str] = set()
        for m in self.game.messages:
            if m.name in names:
                self.err(m.loc, f"two messages or floods are named {m.name!r}",
                         "give each its own name")
            names.add(m.name)
            n = 1
            if m.payload is not None:
                if not isinstance(m.payload, range) or m.payload.step != 1 or not m.payload:
                    self.err(m.loc, "payload must be a range like range(3)")
                    continue
                n = len(m.payload)
            self.sym.messages[id(m)] = (code, m.payload, m.name)
            for i in range(n):
                label = m.name if m.payload is None else f"{m.name}({m.payload.start + i})"
                self.codes.append((code + i, label))
            code += n
        self.flood_code = code
        for k, fl in enumerate(self.game.floods):
            if fl.name in names:
                self.err(fl.loc, f"two messages or floods are named {fl.name!r}",
                         "give each its own name")
            names.add(fl.name)
            self.sym.floods[id(fl)] = k
            self.codes.append((code, f"{fl.name} (wave)"))
            self.codes.append((code + 1, f"{fl.name} (echo)"))
            code += 2
        self.n_codes = code

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
        for ev in ("display", "setup"):
            hs = self.handlers_by_event.get(ev, [])
            for extra in hs[1:]:
                self.err(extra.loc, f"a game has one @game.{ev} function",
                         f"merge the {ev} functions into one")
        # One handler per event (and message, flood, timer): a second one would run too, in
        # the order of the file, which is rarely what was meant. Guards that exclude each
        # other (alone=True and alone=False) are two handlers of two events.
        seen: list[Handler] = []
        for h in self.game.handlers:
            if h.event in ("display", "setup"):
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
                        if h.event in ("click", "double_click", "multi_click", "long_press") else ""))

    def broadcast_items(self) -> list[tuple[str, tuple[int, int], SrcLoc, str]]:
        items = [(f.name, _value_range(f.type), f.loc, "field") for f in self.game.fields
                 if f.broadcast and f.name and _value_range(f.type)]
        for h in self.handlers_by_event.get("broadcast", []):
            rng = _value_range(h.value_type)
            if rng is None:
                self.err(h.loc, f"@game.broadcast({h.value_type!r}) needs a type like bool or "
                                "range(0, 4)")
                continue
            items.append((h.fn.__name__, rng, h.loc, "value"))
        return items  # type: ignore[return-value]

    def allocate_bits(self) -> None:
        grace = self.game.grace_ms
        if not isinstance(grace, int) or isinstance(grace, bool) or not 1000 <= grace <= 60_000:
            self.err(self.game.loc, f"grace_ms must be a whole number of milliseconds in "
                                    f"1000..60000, not {grace!r}",
                     "Game(\"name\", grace_ms=4000) is the default; see docs/protocol.md")
            grace = 4000
        self.grace_units = grace // GRACE_TICK_MS
        shift = 0
        costs: list[str] = []
        self.broadcast = self.broadcast_items()
        for name, (lo, hi), _loc, what in self.broadcast:
            bits = _bits_for(lo, hi)
            self.layout.append((name, shift, bits, f"broadcast {what} {lo}..{hi}"))
            costs.append(f"{name}: {bits} bit{'s' if bits > 1 else ''}")
            shift += bits
        self.code_shift = shift
        # Codes 1..n_codes-1 are messages and floods; the all-ones code is HELLO (no session).
        code_bits = self.n_codes.bit_length() if self.n_codes > 1 else 0
        self.hello = (1 << code_bits) - 1
        if code_bits:
            self.layout.append(("message code", shift, code_bits,
                                f"0 idle, 1..{self.n_codes - 1} messages and floods, "
                                f"{self.hello} HELLO"))
            costs.append(f"message code: {code_bits} bits for {self.n_codes - 1} codes and HELLO")
            shift += code_bits
            self.ack_shift = shift
            self.layout.append(("ack", shift, 1, "handshake acknowledgement / HELLO seen"))
            costs.append("ack: 1 bit")
            shift += 1
        else:
            self.ack_shift = 8  # no protocol: the ack bit never reaches the 6-bit value
        self.code_mask = (1 << code_bits) - 1
        if shift > FACE_VALUE_BITS:
            self.err(self.game.loc,
                     f"the face value needs {shift} bits but a Blinks face value has 6: "
                     + "; ".join(costs),
                     "broadcast less (e.g. a bool instead of the whole kind), or use fewer "
                     "message types (a payload shares codes)")

    # ------------------------------------------------------------------ engine
    def declare_engine(self, tree: ast.Module) -> None:
        consts = {
            "CODE_SHIFT": self.code_shift, "CODE_MASK": self.code_mask,
            "ACK_SHIFT": self.ack_shift, "FLOOD_CODE": self.flood_code,
            "HELLO": self.hello, "PROTOCOL": int(self.n_codes > 1),
            "RANDOMIZED": int(bool(self.game.randomize)),
            "N_FLOODS": len(self.game.floods), "N_FLOOD_CODES": 2 * len(self.game.floods),
            "N_TIMERS": len(self.game.timers),
            "QUEUE_LEN": QUEUE_LEN, "GRACE_UNITS": self.grace_units, "NEVER": NEVER,
            "STARTER": 7,
        }
        self.sym.constants.update(consts)
        docs = {
            "CODE_SHIFT": "first bit of the message code in a face value",
            "CODE_MASK": "the message code's bits, after shifting",
            "ACK_SHIFT": "the handshake's ack bit",
            "FLOOD_CODE": "code of the first flood's wave (its echo is the next code)",
            "N_FLOODS": "floods the game declares", "N_TIMERS": "timers the game declares",
            "N_FLOOD_CODES": "a wave and an echo per flood",
            "HELLO": "the code a face shows while it has no session",
            "PROTOCOL": "the game sends messages or floods",
            "RANDOMIZED": "the game calls randomize() at power-up",
            "QUEUE_LEN": "messages that can wait for a busy face (a full queue bounces)",
            "GRACE_UNITS": f"a face without a working session is gone after "
                           f"{(self.grace_units) * GRACE_TICK_MS:,}-"
                           f"{(self.grace_units + 1) * GRACE_TICK_MS:,} ms (in 256 ms units)",
            "NEVER": "no deadline",
            "STARTER": "flood_parent of a wave this tile started",
        }
        self.constants = [(k, v, docs[k]) for k, v in consts.items()]
        for node in tree.body:
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                name = node.target.id
                t, size = self._engine_type(node.annotation, consts)
                init = node.value.value if isinstance(node.value, ast.Constant) else 0
                loc = SrcLoc("engine.py", node.lineno)
                g = GlobalVar(name, t, (int(init),) * size if size is not None else int(init),
                              loc, size=size, role="engine", is_bool=t == BOOL)
                self.globals.append(g)
                self.sym.engine_globals[name] = g
            elif isinstance(node, ast.FunctionDef):
                params = tuple(self._engine_type(a.annotation, consts)[0] for a in node.args.args)
                ret = None
                if node.returns is not None and not (
                        isinstance(node.returns, ast.Constant) and node.returns.value is None):
                    ret = self._engine_type(node.returns, consts)[0]
                self.sym.functions[node.name] = Signature(params, ret, ret == BOOL)

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
        f["deliver"] = Signature((U8, U8), None)
        f["bounce"] = Signature((U8, U8), None)
        f["buttons"] = Signature((), None)
        f["on_flood"] = Signature((U8,), None)
        f["on_flood_done"] = Signature((U8,), None)
        f["on_timer"] = Signature((U8,), None)
        f["on_neighbor_joined"] = Signature((U8,), None)
        f["on_neighbor_left"] = Signature((U8,), None)
        f["broadcast_bits"] = Signature((), U8)
        f["display"] = Signature((), None)
        f["setup"] = Signature((), None)
        for name, (lo, hi), _loc, _what in self.broadcast:
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
                rng = _value_range(h.value_type)
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
            fc = FunctionCompiler(self.sym, file="engine.py", line0=1, node=node, name=node.name,
                                  params=params, ret=sig.ret, role="engine", tile=None,
                                  pyglobals={}, engine=True, errors=self.errors,
                                  ret_is_bool=sig.is_bool)
            # The engine's conventions: `face` is a face, `k` indexes floods or timers.
            counts = {"face": 6, "k": max(len(self.game.floods), len(self.game.timers), 1)}
            ranges = [(0, counts[n] - 1) if n in counts else None for n, _ in params]
            self.functions.append(_with_param_ranges(fc.compile(), ranges))

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

    def compile_handlers(self) -> None:
        counters: dict[str, int] = {}
        self.handler_fns: dict[int, str] = {}
        for h in self.game.handlers:
            expected = EVENTS[h.event]
            if h.event == "message" and getattr(h.target, "payload", None) is not None:
                expected = (*expected, "payload")
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
            if h.event == "message" and h.target.payload is not None:
                param_ranges.append((h.target.payload.start, h.target.payload.stop - 1))
            ret = None
            ret_bool = False
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
            fn = _with_param_ranges(fn, param_ranges)
            if ret is not None and not _always_returns(fn.body):
                self.err(h.loc, f"{h.fn.__name__}() must return a value on every path",
                         "end it with a return")
            self.functions.append(fn)
            self.handler_fns[id(h)] = fname

    # -------------------------------------------------------------- generation
    def _fn(self, name: str, params: tuple[Param, ...], ret: IntType | None,
            body: list[Stmt], doc: str) -> None:
        ranged = tuple(Param(p.name, p.type, (0, 5)) if p.name == "face" else p for p in params)
        self.functions.append(Function(name, ranged, ret, tuple(body), BLINKC, doc, "dispatch"))

    def _call_handler(self, h: Handler, args: tuple[Expr, ...]) -> Stmt:
        return ExprStmt(Call(self.handler_fns[id(h)], args, None), h.loc)

    def _handlers(self, event: str) -> list[Handler]:
        return [h for h in self.handlers_by_event.get(event, []) if id(h) in self.handler_fns]

    def generate(self) -> None:
        face, code, k = Name("face", U8, "param"), Name("code", U8, "param"), Name("k", U8, "param")
        # Buttons: read each event the game handles (reading consumes it).
        body: list[Stmt] = []
        for event, api in (("click", "buttonSingleClicked"), ("double_click", "buttonDoubleClicked"),
                           ("multi_click", "buttonMultiClicked"), ("long_press", "buttonLongPressed")):
            hs = self._handlers(event)
            if not hs:
                continue
            test = Call(api, (), BOOL, builtin=True, is_bool=True)
            inner: list[Stmt] = []
            for h in hs:
                stmt = self._call_handler(h, ())
                if h.alone is not None:
                    alone: Expr = Call("isAlone", (), BOOL, builtin=True, is_bool=True)
                    if not h.alone:
                        alone = UnOp("not", alone, BOOL, True)
                    stmt = If(alone, (stmt,), (), h.loc)
                inner.append(stmt)
            body.append(If(test, tuple(inner), (), hs[0].loc))
        self._fn("buttons", (), None, body, "Run the handlers of the button events the game uses.")

        # Messages arriving, and messages that found nobody to take them.
        deliver: list[Stmt] = []
        bounce: list[Stmt] = []
        for m in self.game.messages:
            base, payload, _ = self.sym.messages[id(m)]
            n = len(payload) if payload is not None else 1
            named = f"message:{m.name}"
            if n == 1:
                test: Expr = compare("==", code, Const(base, U8, name=named))
            else:
                test = BoolOp("and", (compare(">=", code, Const(base, U8, name=named)),
                                      compare("<", code, Const(base + n, U8, name=f"{named}+{n}"))))
            payload_arg: tuple[Expr, ...] = ()
            if payload is not None:
                payload_arg = (convert(binop("+", binop("-", code, Const(base, I16, name=named)),
                                             Const(payload.start, I16)), U8),)
            for event, out in (("message", deliver), ("bounce", bounce)):
                calls = [self._call_handler(h, (face, *payload_arg) if event == "message"
                                            else (face,))
                         for h in self._handlers(event) if h.target is m]
                if calls:
                    out.append(If(test, tuple(calls), (), m.loc))
        if self.game.floods:
            # Flood codes come in pairs (wave, echo) from FLOOD_CODE on: one test for them all.
            first = "engine:FLOOD_CODE"
            rel = convert(binop("-", code, Const(self.flood_code, I16, name=first)), U8)
            k_of = convert(binop(">>", rel, Const(1, I16)), U8)
            is_flood = compare(">=", code, Const(self.flood_code, U8, name=first))
            loc = self.game.floods[0].loc
            is_echo = compare("!=", binop("&", rel, Const(1, I16)), Const(0, I16))
            deliver.append(If(is_flood, (If(is_echo,
                (ExprStmt(Call("flood_answered", (k_of, face), None), loc),),
                (ExprStmt(Call("flood_receive", (k_of, face), None), loc),), loc),), (), loc))
            # (A flood's messages never bounce: a link that ends answers its waits itself.)
        self._fn("deliver", (Param("code", U8), Param("face", U8)), None, _chain(deliver),
                 "A message arrived on `face`: run its handler.")
        self._fn("bounce", (Param("code", U8), Param("face", U8)), None, _chain(bounce),
                 "A message could not be delivered out of `face`: nobody is there.")

        for event, fname, doc in (("flood", "on_flood", "Flood k reached this tile."),
                                  ("flood_done", "on_flood_done",
                                   "Flood k, started here, has reached every tile.")):
            stmts = []
            for kk, fl in enumerate(self.game.floods):
                calls = [self._call_handler(h, ()) for h in self._handlers(event) if h.target is fl]
                if calls:
                    stmts.append(If(compare("==", k, Const(kk, U8, name=f"flood:{fl.name}")),
                                    tuple(calls), (), fl.loc))
            self._fn(fname, (Param("k", U8),), None, _chain(stmts), doc)
        stmts = []
        for tk, t in enumerate(self.game.timers):
            calls = [self._call_handler(h, ()) for h in self._handlers("timer") if h.target is t]
            if calls:
                stmts.append(If(compare("==", k, Const(tk, U8, name=f"timer:{t.name}")),
                                tuple(calls), (), t.loc))
        self._fn("on_timer", (Param("k", U8),), None, _chain(stmts), "Timer k has ended.")
        for event in ("neighbor_joined", "neighbor_left"):
            self._fn(f"on_{event}", (Param("face", U8),), None,
                     [self._call_handler(h, (face,)) for h in self._handlers(event)],
                     f"A neighbour {'arrived on' if event.endswith('joined') else 'left'} `face`.")

        # Broadcast values and the getters neighbours use to read them.
        value: Expr = Const(0, U8)
        for (name, (lo, _hi), _loc, what), (_, shift, bits, _) in zip(
                self.broadcast, self.layout, strict=False):
            if what == "field":
                g = self.sym.fields[name]
                src: Expr = Name(name, g.type, "global", g.is_bool)
            else:
                fname = self.sym.derived[name]
                sig = self.sym.functions[fname]
                src = Call(fname, (), sig.ret, is_bool=sig.is_bool)
            part = binop("<<", binop("-", src, Const(lo, I16)), Const(shift, I16))
            value = binop("|", value, part)
            getter = self.sym.neighbor_getters[name]
            sig = self.sym.functions[getter]
            raw = Call("getLastValueReceivedOnFace", (face,), U8, builtin=True)
            got = binop("+", binop("&", binop(">>", raw, Const(shift, I16)),
                                   Const((1 << bits) - 1, I16)), Const(lo, I16))
            if sig.is_bool:
                got = compare("!=", got, Const(0, I16))
            self._fn(getter, (Param("face", U8),), sig.ret,
                     [Return(convert(got, sig.ret), BLINKC)],  # type: ignore[arg-type]
                     f"The {name} the neighbour on `face` broadcasts.")
        self._fn("broadcast_bits", (), U8, [Return(convert(value, U8), BLINKC)],
                 "The broadcast part of this tile's face value.")

        show = self._handlers("display")
        self._fn("display", (), None,
                 [ExprStmt(Call("show", (), None), show[0].loc)] if show else [],
                 "Set the LEDs (every pass).")
        setup: list[Stmt] = [ExprStmt(Call("engine_setup", (), None), BLINKC)]
        if self.game.randomize:
            setup.append(ExprStmt(Call("randomize", (), None, builtin=True), self.game.loc))
        if self._handlers("setup"):
            setup.append(self._call_handler(self._handlers("setup")[0], ()))
        self._fn("setup", (), None, setup, "Runs once at power-up.")

    # ------------------------------------------------------------------ checks
    def check_usage(self) -> None:
        sent: set[str] = set()
        for fn in self.functions:
            for call in _calls(fn.body):
                sent.add(call.func)
        if "show" not in {f.name for f in self.functions}:
            self.warn(self.game.loc, "the game has no @game.display function: the LEDs stay off",
                      "add one: @game.display def look(t): t.color_all(BLUE)")
        handled = {id(h.target) for h in self._handlers("message")}
        for m in self.game.messages:
            if id(m) not in handled:
                self.warn(m.loc, f"message {m.name!r} has no @game.on_message handler: "
                                 "arriving ones are ignored",
                          f"add @game.on_message({m.name}) def ...(t, face):")
        sent_codes = set()
        for fn in self.functions:
            if fn.role not in ("handler", "helper", "derived", "display"):
                continue  # the engine forwards codes it was given; only the game sends new ones
            for call in _calls(fn.body):
                if call.func == "send_code":
                    sent_codes.add(_code_of(call.args[0]))
        for m in self.game.messages:
            base, payload, _ = self.sym.messages[id(m)]
            n = len(payload) if payload is not None else 1
            if not any(c is None or base <= c < base + n for c in sent_codes):
                self.warn(m.loc, f"message {m.name!r} is never sent",
                          f"send it with t.send({m.name}, face), or remove it")
        started = {_code_of(c.args[0]) for fn in self.functions for c in _calls(fn.body)
                   if c.func == "flood_start" and fn.role != "engine"}
        for kk, fl in enumerate(self.game.floods):
            if kk not in started and None not in started:
                self.warn(fl.loc, f"flood {fl.name!r} is never started",
                          f"start it with t.flood({fl.name})")
        for h in self.game.handlers:
            if h.event in ("derived",) and h.fn.__name__ in self.sym.fields:
                self.err(h.loc, f"{h.fn.__name__!r} is both a field and a derived value",
                         "rename one of them")

    def check_recursion(self) -> None:
        """A helper or derived value that calls itself, directly or through others: Python
        would raise RecursionError and the tile overrun its small stack (there is no
        recursion on the tile). Each cycle is reported once, at the call that closes it."""
        game_fns = {f.name: f for f in self.functions if f.role in _GAME_ROLES}
        author = {fname: f"t.{name}" for name, fname in self.sym.derived.items()}
        author.update({fname: f"{name}()" for name, (fname, _, _) in self.sym.helpers.items()})
        calls = {name: [(loc, c.func) for loc, c in _calls_at(f.body) if c.func in game_fns]
                 for name, f in game_fns.items()}
        done: set[str] = set()
        reported: set[frozenset[str]] = set()

        def visit(name: str, path: list[str]) -> None:
            path.append(name)
            for loc, callee in calls[name]:
                if callee in path:
                    cycle = [*path[path.index(callee):], callee]
                    if frozenset(cycle) not in reported:
                        reported.add(frozenset(cycle))
                        self._recursion(loc, [author.get(n, f"{n}()") for n in cycle])
                elif callee not in done:
                    visit(callee, path)
            path.pop()
            done.add(name)

        for name in game_fns:
            if name not in done:
                visit(name, [])

    def _recursion(self, loc: SrcLoc, cycle: list[str]) -> None:
        first = cycle[0]
        through = f": {' -> '.join(cycle)}" if len(cycle) > 2 else ""
        if first.startswith("t."):
            self.err(loc, f"the derived value {first} reads itself{through}: it would be "
                          "computed for ever",
                     "compute it from fields and other values it does not depend on")
        else:
            self.err(loc, f"{first} calls itself{through}: the tile has no room for recursion",
                     "write it as a loop (for i in range(n):) over the steps")

    def check_views_are_pure(self) -> None:
        """Derived values and the display only look: they are computed whenever they are read
        (in no fixed order) and, in the emulator, drawn on demand for idle tiles."""
        by_name = {f.name: f for f in self.functions}
        for fn in self.functions:
            if fn.role not in ("derived", "display"):
                continue
            what = "a derived value" if fn.role == "derived" else "the display"
            seen: set[str] = set()
            todo = [fn]
            while todo:
                f = todo.pop()
                if f.name in seen:
                    continue
                seen.add(f.name)
                effect = _first_effect(f.body)
                if effect is not None:
                    loc, doing = effect
                    self.err(loc, f"{what} cannot change the tile: this {doing}",
                             "it is computed whenever it is read, in no fixed order; change "
                             "fields, send messages and start timers in a handler")
                    break
                todo += [by_name[c.func] for c in _calls(f.body)
                         if not c.builtin and c.func in by_name]

    def check_payloads(self) -> None:
        """A payload always outside its message's range is an error; one that may leave it is
        clamped to the range (docs/dsl.md), with a warning."""
        from ..backends.ranges import Ranges  # late: the backends import the IR this builds

        by_name = {f.name: f for f in self.functions}
        ranges = Ranges(Program(self.game.name, self.source, tuple(self.globals), tuple(self.functions),
                                (), (), (), {}, False))
        for fname, pay, lo, hi, mname, loc in self.sym.payload_sends:
            fn = by_name.get(fname)
            if fn is None:
                continue
            ranges.enter(fn)
            plo, phi = ranges.of(pay)
            if phi < lo or plo > hi:
                self.err(loc, f"this {mname} payload is always outside its range {lo}..{hi} "
                              f"(it is {plo:,}..{phi:,})",
                         f"send a value in {lo}..{hi}, or widen payload=range(...)")
            elif plo < lo or phi > hi:
                self.warn(loc, f"this {mname} payload can be {plo:,}..{phi:,}, outside its range "
                               f"{lo}..{hi}: it is clamped to the range",
                          "make sure the value stays in range (e.g. min(x, hi)), or widen the payload")

    def check_ranges(self) -> None:
        """What value ranges show in the game's own code, as the author wrote it (before the
        optimiser narrows types, so a warning names the types the author's code computes in):
        arithmetic that can wrap around its 8/16/32-bit type (a warning), and loops that can
        count past a byte (an error: loop counters are bytes on the tile)."""
        ranges = _LintRanges(Program(self.game.name, self.source, tuple(self.globals),
                                     tuple(self.functions), (), (), (), {}, False))
        lint = _RangeLint(self, ranges)
        for fn in self.functions:
            if fn.role in _GAME_ROLES:
                lint.function(fn)

    def silence_ignored(self) -> list[DslError]:
        """Drop the warnings whose line says `# blinkc: ignore` (errors stay); return them."""
        kept, silenced = [], []
        for w in self.warnings:
            line = linecache.getline(w.loc.file, w.loc.line) if w.loc.line > 0 else ""
            (silenced if _IGNORE.search(line) else kept).append(w)
        self.warnings[:] = kept
        return silenced

    # ------------------------------------------------------------------- prune
    def drop_empty_calls(self) -> None:
        """Calls to functions with nothing in them are dropped (e.g. a dispatch with no handler)."""
        while True:
            empty = {f.name for f in self.functions
                     if not f.body and f.ret is None and f.name not in ("setup", "loop", "display")
                     and f.name not in self.kept}
            if not empty:
                return
            changed = False
            new_functions = []
            for f in self.functions:
                body = _without_calls(f.body, empty)
                if body != f.body:
                    changed = True
                    f = Function(f.name, f.params, f.ret, body, f.loc, f.doc, f.role)
                new_functions.append(f)
            self.functions = [f for f in new_functions if f.name not in empty]
            if not changed:
                return

    def prune(self) -> Program:
        self.functions = [Function(f.name, f.params, f.ret, _fold_constant_ifs(f.body), f.loc, f.doc,
                                   f.role) for f in self.functions]
        self.drop_empty_calls()
        by_name = {f.name: f for f in self.functions}
        roots = ["setup", "loop", "display", "engine_quiet_until", "engine_idle", "engine_links"]
        keep: list[str] = []
        todo = [r for r in roots if r in by_name]
        while todo:
            name = todo.pop()
            if name in keep:
                continue
            keep.append(name)
            for call in _calls(by_name[name].body):
                if not call.builtin and call.func in by_name and call.func not in keep:
                    todo.append(call.func)
        functions = tuple(f for f in self.functions if f.name in keep)
        used = {n for f in functions for n in _names(f.body)}
        globals_ = tuple(g for g in self.globals if g.role == "state" or g.name in used)
        enums = {e.name: e.members for e in self.game.enums if e.name}
        return optimize(Program(self.game.name, self.source, globals_, functions,
                                tuple(self.constants), tuple(self.layout), tuple(self.codes), enums,
                                self.game.randomize, self.symbols(functions)))

    def symbols(self, functions: tuple[Function, ...]) -> tuple[Symbol, ...]:
        """What the game names, for generated code to say: its kinds, messages, floods and
        timers, and the module constants its code uses (with the lines that define them)."""
        out = [Symbol(f"kind:{e.name}.{m}", i, U8, e.loc)
               for e in self.game.enums if e.name for i, m in enumerate(e.members)]
        for m in self.game.messages:
            if id(m) in self.sym.messages:
                code, payload, _ = self.sym.messages[id(m)]
                doc = "" if payload is None else (
                    f"codes {code}..{code + len(payload) - 1} carry the payload "
                    f"{payload.start}..{payload.stop - 1}")
                out.append(Symbol(f"message:{m.name}", code, U8, m.loc, doc))
        out += [Symbol(f"flood:{fl.name}", k, U8, fl.loc) for k, fl in enumerate(self.game.floods)]
        out += [Symbol(f"timer:{t.name}", k, U8, t.loc) for k, t in enumerate(self.game.timers)
                if t.name]
        used = {n.name for f in functions for n in walk_stmts(f.body)
                if isinstance(n, Const) and n.name and n.name.startswith("const:")}
        lines = _module_constant_lines(self.source)
        for key in sorted(used, key=lambda k: lines.get(k[len("const:"):], (0, ""))[0]):
            ident = key[len("const:"):]
            v = self.g.get(ident)
            if isinstance(v, bool | int) and ident in lines:  # the game's own, not imported
                t = COLOR if isinstance(v, ColorConst) else BOOL if isinstance(v, bool) else (
                    literal_type(v))
                line, comment = lines.get(ident, (0, ""))
                out.append(Symbol(key, int(v), t, SrcLoc(self.source, line) if line else None,
                                  comment))
        return tuple(out)


def _module_constant_lines(path: str) -> dict[str, tuple[int, str]]:
    """Where the game file assigns each module-level name (`FULL_HP = 5  # why`): its line
    and the comment at its end."""
    try:
        source = Path(path).read_text()
        tree = ast.parse(source)
    except (OSError, SyntaxError, ValueError):
        return {}
    lines = source.splitlines()
    out: dict[str, tuple[int, str]] = {}
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) else [])
        for target in targets:
            if isinstance(target, ast.Name) and target.id not in out:
                text = lines[node.lineno - 1] if node.lineno <= len(lines) else ""
                comment = ""
                if node.end_lineno == node.lineno and "#" in text[node.end_col_offset or 0:]:
                    comment = text[node.end_col_offset or 0:].split("#", 1)[1].strip()
                out[target.id] = (node.lineno, comment)
    return out


def _with_param_ranges(fn: Function, ranges: list) -> Function:
    params = tuple(Param(p.name, p.type, r) if r is not None else p
                   for p, r in zip(fn.params, list(ranges) + [None] * len(fn.params), strict=False))
    return Function(fn.name, params, fn.ret, fn.body, fn.loc, fn.doc, fn.role)


def _without_calls(body: tuple[Stmt, ...], names: set[str]) -> tuple[Stmt, ...]:
    out: list[Stmt] = []
    for s in body:
        if isinstance(s, ExprStmt) and isinstance(s.value, Call) and s.value.func in names:
            continue
        if isinstance(s, If):
            s = If(s.test, _without_calls(s.body, names), _without_calls(s.orelse, names), s.loc)
            if not s.body and not s.orelse:
                continue  # conditions have no side effects worth keeping here
        elif isinstance(s, For):
            s = For(s.var, s.start, s.stop, _without_calls(s.body, names), s.loc)
            if not s.body:
                continue
        out.append(s)
    return tuple(out)


def _fold_constant_ifs(body: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
    """`if CONSTANT:` keeps only the branch it takes (the engine's per-game switches)."""
    out: list[Stmt] = []
    for s in body:
        if isinstance(s, If):
            if isinstance(s.test, Const):
                out.extend(_fold_constant_ifs(s.body if s.test.value else s.orelse))
                continue
            s = If(s.test, _fold_constant_ifs(s.body), _fold_constant_ifs(s.orelse), s.loc)
        elif isinstance(s, For):
            s = For(s.var, s.start, s.stop, _fold_constant_ifs(s.body), s.loc)
        out.append(s)
    return tuple(out)


def _chain(stmts: list[Stmt]) -> list[Stmt]:
    """if/elif chain of mutually exclusive tests (each an If with no else)."""
    out: Stmt | None = None
    for s in reversed(stmts):
        assert isinstance(s, If)
        out = If(s.test, s.body, (out,) if out is not None else (), s.loc)
    return [out] if out is not None else []


def _always_returns(body: tuple[Stmt, ...]) -> bool:
    for s in body:
        if isinstance(s, Return):
            return True
        if isinstance(s, If) and s.orelse and _always_returns(s.body) and _always_returns(s.orelse):
            return True
    return False


def _code_of(e: Expr) -> int | None:
    return e.value if isinstance(e, Const) else None


_OP_NAMES = {"+": "sum", "-": "difference", "*": "product", "<<": "shift"}

#: What t.<name> already means: no field, timer or value can take the name.
_TILE_NAMES = frozenset({"now", "alone", "neighbor_mask", "send", "flood", "color", "color_all",
                         "random", "random_word", "has_neighbor", "neighbor"})

#: The comment that silences a warning on its line.
_IGNORE = re.compile(r"#.*\bblinkc:\s*ignore\b")


class _LintRanges(Ranges):
    """The value ranges, a little sharper where the lints need it: `x & m` with m >= 0 is in
    0..m whatever x is (two's complement), so `(x & 7) + 1` is 1..8 even for a signed x."""

    def exact(self, e: BinOp) -> tuple[int, int]:
        if e.op == "&":
            a, b = self.operand(e.left, e.type), self.operand(e.right, e.type)
            tops = [r[1] for r in (a, b) if r[0] >= 0]
            if tops:
                return (0, min(tops))
        return super().exact(e)


class _RangeLint:
    """Walks the author's functions with what the tests around each statement teach the
    ranges (`if d != 0:`, `if f >= 6: return`, `x if c else y`, `a and b`), and reports what
    the ranges show."""

    def __init__(self, lowering: GameLowering, ranges: _LintRanges) -> None:
        self.low = lowering
        self.ranges = ranges
        sym = lowering.sym
        #: Calls that take a face: the argument's position (send_code(code, face), ...).
        self.face_args = {"send_code": 1, "setColorOnFace": 1, "isValueReceivedOnFaceExpired": 0,
                          **{getter: 0 for getter in sym.neighbor_getters.values()}}
        #: Helpers' Face parameters (typed U8): IR name → (author's name, {position: name}).
        self.helper_faces: dict[str, tuple[str, dict[int, str]]] = {}
        for name, (fname, sig, _) in sym.helpers.items():
            fn = next((f for f in lowering.functions if f.name == fname), None)
            if fn is not None:
                faces = {i: p.name for i, (p, t) in enumerate(zip(fn.params, sig.params, strict=True))
                         if t == U8}
                self.helper_faces[fname] = (name, faces)

    def function(self, fn: Function) -> None:
        # Inside a helper, a Face parameter is taken to be 0..5: its callers are checked.
        faces = self.helper_faces.get(fn.name, ("", {}))[1]
        self.ranges.enter(_with_param_ranges(fn, [(0, 5) if i in faces else None
                                                  for i in range(len(fn.params))]))
        self.block(fn.body, ())

    # ------------------------------------------------------------- the walk
    def block(self, body: tuple[Stmt, ...], facts: tuple[tuple[Expr, Any], ...]) -> None:
        """A fact is (test, outcome): a test and how it came out; or (local, (lo, hi)): the
        range of the value a local was just given (until something assigns it again)."""
        for s in body:
            self.stmt(s, facts)
            pin = self.pin(s, facts)
            facts = tuple(f for f in facts if not _invalidates(s, f[0]))
            if (isinstance(s, If) and _leaves(s.body) != _leaves(s.orelse)
                    and not _invalidates(s, s.test)):
                facts = (*facts, (s.test, not _leaves(s.body)))  # `if c: return`: below, not c
            if pin is not None:
                facts = (*facts, pin)

    def pin(self, s: Stmt, facts: tuple[tuple[Expr, Any], ...]) -> tuple[Expr, Any] | None:
        """What a local is right after `x = value` (the ranges alone know only the union of
        everything the function ever assigns it)."""
        if isinstance(s, Local):
            target = Name(s.name, s.type, "local", s.type == BOOL)
        elif isinstance(s, Assign) and isinstance(s.target, Name) and s.target.scope == "local":
            target = s.target
        else:
            return None
        with self.assuming(facts) as live:
            r = self.ranges.of(s.value)
        return (target, r) if live and self.ranges.fits(r, target.type) else None

    def stmt(self, s: Stmt, facts: tuple[tuple[Expr, bool], ...]) -> None:
        self.warned = False  # one overflow warning per statement is enough
        loc = s.loc
        for e in _direct_exprs(s):
            self.expr(e, facts, loc)
        if isinstance(s, If):
            self.block(s.body, (*facts, (s.test, True)))
            self.block(s.orelse, (*facts, (s.test, False)))
        elif isinstance(s, For):
            with self.assuming(facts) as live:
                top = self.ranges.of(s.stop)[1] if live else 0
            if top > 255:
                self.low.err(loc, f"this loop can count to {top:,}: loop counters are bytes on "
                                  "the tile (at most 255)",
                             "keep the stop at most 255, e.g. range(min(n, 255))")
            # What holds before the loop holds in it unless the loop changes it (on any turn).
            self.block(s.body, tuple(f for f in facts if not _invalidates(s, f[0])))

    def expr(self, e: Expr, facts: tuple[tuple[Expr, bool], ...], loc: SrcLoc) -> None:
        """Check e and what is inside it, each part knowing the tests that guard it."""
        self.check(e, facts, loc)
        if isinstance(e, Cond):
            self.expr(e.test, facts, loc)
            self.expr(e.body, (*facts, (e.test, True)), loc)
            self.expr(e.orelse, (*facts, (e.test, False)), loc)
        elif isinstance(e, BoolOp):
            for v in e.values:
                self.expr(v, facts, loc)
                facts = (*facts, (v, e.op == "and"))  # the next is evaluated only if so
        else:
            for part in _parts(e):
                self.expr(part, facts, loc)

    @contextmanager
    def assuming(self, facts: tuple[tuple[Expr, Any], ...]):
        """Ranges as the facts make them; yields False where they cannot all hold (the code
        there never runs: `if f == 7:` in a face loop), which is checked no further."""
        with ExitStack() as stack:
            for test, outcome in _flat(facts):
                if isinstance(outcome, tuple):
                    stack.enter_context(self.pinned(test, outcome))
                    continue
                decided = self.ranges.decided(_const_right(test))
                if decided is not None and decided != outcome:
                    yield False
                    return
                stack.enter_context(self.ranges.assuming(test, outcome))
            yield True

    @contextmanager
    def pinned(self, e: Expr, r: tuple[int, int]):
        pins = self.ranges.pinned
        saved = pins.get(e)
        pins[e] = r
        try:
            yield
        finally:
            if saved is None:
                del pins[e]
            else:
                pins[e] = saved

    # ------------------------------------------------------------ the checks
    def check(self, e: Expr, facts: tuple[tuple[Expr, bool], ...], loc: SrcLoc) -> None:
        if isinstance(e, BinOp) and e.op in ("<<", ">>"):
            with self.assuming(facts) as live:
                if live:
                    self.shift(e, loc)
        if isinstance(e, BinOp) and e.op in _OP_NAMES and not self.warned:
            with self.assuming(facts) as live:
                if live:
                    self.overflow(e, loc)
        elif isinstance(e, BinOp) and e.op in ("//", "%"):
            with self.assuming(facts) as live:
                if live:
                    self.division(e, facts, loc)
        elif isinstance(e, Call) and not e.builtin and e.func in self.helper_faces:
            name, faces = self.helper_faces[e.func]
            with self.assuming(facts) as live:
                for i, param in faces.items() if live else ():
                    self.face(e.args[i], loc, f" ({name}()'s {param})", self.low.warn)
        elif isinstance(e, Call) and e.func in self.face_args and len(e.args) > self.face_args[e.func]:
            with self.assuming(facts) as live:
                if live:
                    self.face(e.args[self.face_args[e.func]], loc)

    def shift(self, e: BinOp, loc: SrcLoc) -> None:
        """A shift by less than 0 or by the type's width or more: C gives it no meaning (the
        tile, the host and the emulator compute different things; Python fails on < 0)."""
        lo, hi = self.ranges.of(e.right)
        bits = e.type.bits
        if (0 <= lo and hi < bits) or _unknown((lo, hi), e.right.type):
            return
        message = f"this shift is by {lo:,}..{hi:,}: in {e.type.c_name} only 0..{bits - 1} mean something"
        hint = f"keep the count in 0..{bits - 1} (e.g. n & {bits - 1}), or test it first"
        if hi < 0 or lo >= bits:
            self.low.err(loc, message, hint)
        else:
            self.low.warn(loc, message, hint)
        self.warned = True  # what it can reach says no more

    def division(self, e: BinOp, facts: tuple[tuple[Expr, bool], ...], loc: SrcLoc) -> None:
        """A divisor that can be 0 is refused: Python would raise, C leaves it undefined (the
        host dies of SIGFPE, the tile computes something). Where the ranges (and the tests
        around it) show it is never 0, the division is defined (docs/dsl.md: Numbers)."""
        lo, hi = self.ranges.of(e.right)
        if not _meets_zero(lo, hi, e.type) or _nonzero(e.right, facts):
            return
        if not e.type.contains(lo) or not e.type.contains(hi):
            lo, hi = e.type.min, e.type.max
        what = "division" if e.op == "//" else "remainder"
        d = _text(e.right)
        self.low.err(loc, f"this {what} can divide by 0: its divisor can be {lo:,}..{hi:,}",
                     f"make sure it is never 0: test it first (if {d} != 0:), or divide by "
                     f"max({d}, 1)")

    def face(self, arg: Expr, loc: SrcLoc, whose: str = "", report: Any = None) -> None:
        """A face is 0..5: a face outside does not exist (the emulator fails on it, the tile
        reads and writes past its six faces' state). A helper's Face parameter is taken to
        be 0..5 inside it, and what its callers pass is warned about (`report`)."""
        inner = arg.value if isinstance(arg, Cast) and arg.type == U8 else arg
        lo, hi = self.ranges.of(inner)
        hint = "keep it in 0..5: cw(f, n) or (f + n) % 6, or test it first (if f < 6:)"
        report = report or self.low.err
        if hi < 0 or lo > 5:
            report(loc, f"this face{whose} is always outside 0..5 (it is {lo:,}..{hi:,})", hint)
        elif lo < 0 or hi > 5:
            report(loc, f"this face{whose} can be {lo:,}..{hi:,}, but faces are 0..5", hint)

    def overflow(self, node: BinOp, loc: SrcLoc) -> None:
        ranges = self.ranges
        if any(_unknown(ranges.of(x), x.type) for x in (node.left, node.right)):
            return  # nothing is known about an operand: a warning would only be noise
        lo, hi = ranges.exact(node)
        if lo < node.type.min or hi > node.type.max:
            worst = hi if hi > node.type.max else lo
            self.low.warn(loc, f"this {_OP_NAMES[node.op]} can reach {worst:,}, beyond "
                               f"{node.type.c_name} ({node.type.min:,}..{node.type.max:,}): "
                               "it wraps around on the tile",
                          "reorder or scale it (e.g. divide first, or shift), or clamp it with min()")
            self.warned = True


def _flat(facts: tuple[tuple[Expr, bool], ...]) -> list[tuple[Expr, bool]]:
    """Facts one comparison each: `a and b` true is a true and b true; `not a` true is a false."""
    out: list[tuple[Expr, Any]] = []
    for test, outcome in facts:
        if isinstance(outcome, tuple):
            out.append((test, outcome))  # a local's range
        elif isinstance(test, BoolOp) and (test.op == "and") == outcome:
            out += _flat(tuple((v, outcome) for v in test.values))
        elif isinstance(test, UnOp) and test.op == "not":
            out += _flat(((test.operand, not outcome),))
        elif not isinstance(test, BoolOp):
            out.append((test, outcome))
    return out


def _meets_zero(lo: int, hi: int, t: IntType) -> bool:
    """Whether a value in lo..hi can be 0 once converted to t (which wraps modulo 2**bits:
    -6 as a uint32_t is 4,294,967,290, 65,536 as a uint16_t is 0)."""
    m = 1 << t.bits
    return -(-lo // m) * m <= hi  # the first multiple of 2**bits from lo on


_MIRRORED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


def _const_right(test: Expr) -> Expr:
    """`7 == f` as `f == 7` (the ranges read comparisons with the constant on the right)."""
    if isinstance(test, Compare) and isinstance(test.left, Const) and not isinstance(test.right, Const):
        return Compare(_MIRRORED[test.op], test.right, test.left, test.optype)
    return test


def _uncast(e: Expr) -> Expr:
    while isinstance(e, Cast) and e.type != BOOL:
        e = e.value
    return e


def _nonzero(e: Expr, facts: tuple[tuple[Expr, bool], ...]) -> bool:
    """A test around e says it is not 0 (`if d != 0:`, `if d:`, `if d == 0: return`)."""
    target = _uncast(e)
    if not repeatable(target):
        return False  # t.random(3) in the test and in the division are two draws
    for test, outcome in _flat(facts):
        if (isinstance(test, Compare) and (test.op, outcome) in {("!=", True), ("==", False)}
                and {type(test.left), type(test.right)} & {Const}):
            other, zero = (test.left, test.right) if isinstance(test.right, Const) else (test.right,
                                                                                        test.left)
            if zero.value == 0 and _uncast(other) == target:
                return True
    return False


def _text(e: Expr) -> str:
    """A divisor as the author would write it, when it is a name (for hints)."""
    e = _uncast(e)
    if isinstance(e, Name):
        return f"t.{e.name}" if e.scope == "global" else e.name
    return "d"


def _parts(e: Expr) -> tuple[Expr, ...]:
    """The expressions directly inside e."""
    if isinstance(e, BinOp | Compare):
        return (e.left, e.right)
    if isinstance(e, UnOp):
        return (e.operand,)
    if isinstance(e, Cast):
        return (e.value,)
    if isinstance(e, Call):
        return e.args
    if isinstance(e, Index):
        return (e.index,)
    return ()


def _leaves(body: tuple[Stmt, ...]) -> bool:
    """The block never falls through to what follows it (return, break or continue)."""
    return bool(body) and (isinstance(body[-1], Return | Break | Continue)
                           or (isinstance(body[-1], If) and _leaves(body[-1].body)
                               and _leaves(body[-1].orelse)))


def _invalidates(s: Stmt, test: Expr) -> bool:
    """Whether running s can change what `test` computes (it assigns a name the test reads,
    or calls a function of the program, which may assign fields, when the test reads one)."""
    reads = {(n.name, n.scope == "global") for n in walk_exprs(test) if isinstance(n, Name)}
    if any(isinstance(n, Call) and not n.builtin for n in walk_exprs(test)):
        return True
    globals_read = any(g for _, g in reads)
    for node in walk_stmts((s,)):
        if isinstance(node, Local) and (node.name, False) in reads:
            return True
        if isinstance(node, Assign) and isinstance(node.target, Name) and (
                node.target.name, node.target.scope == "global") in reads:
            return True
        if globals_read and isinstance(node, Call) and not node.builtin:
            return True
    return False


def _unknown(r: tuple[int, int], t: IntType) -> bool:
    return t.bits >= 16 and r == (t.min, t.max)


def _direct_exprs(s: Stmt):
    """The expressions a statement evaluates itself (not those of nested statements)."""
    if isinstance(s, If):
        return [s.test]
    if isinstance(s, For):
        return [s.start, s.stop]
    if isinstance(s, Assign | Local):
        return [s.value]
    if isinstance(s, Return):
        return [s.value] if s.value is not None else []
    if isinstance(s, ExprStmt):
        return [s.value]
    return []


_EFFECT_CALLS = {"send_code": "sends a message", "flood_start": "starts a flood",
                 "timer_start": "starts a timer", "timer_stop": "stops a timer"}


def _first_effect(body: tuple[Stmt, ...]) -> tuple[SrcLoc, str] | None:
    """Where a function body first changes the tile's state, and how."""
    loc = None
    for node in walk_stmts(body):
        loc = getattr(node, "loc", loc)
        if isinstance(node, Assign) and (isinstance(node.target, Index)
                                         or node.target.scope == "global"):
            name = node.target.array if isinstance(node.target, Index) else node.target.name
            return node.loc, f"assigns t.{name}"
        if isinstance(node, Call) and node.func in _EFFECT_CALLS and loc is not None:
            return loc, _EFFECT_CALLS[node.func]
    return None


#: Roles of the functions the game's author wrote (the rest is the engine and dispatch).
_GAME_ROLES = ("handler", "helper", "derived", "display")


def _calls_at(body: tuple[Stmt, ...]) -> list[tuple[SrcLoc, Call]]:
    """Every call in a body, with the line of the statement it is in."""
    out = []
    loc = None
    for node in walk_stmts(body):
        loc = getattr(node, "loc", loc)
        if isinstance(node, Call) and loc is not None:
            out.append((loc, node))
    return out


def _calls(body: tuple[Stmt, ...]):
    return [n for n in walk_stmts(body) if isinstance(n, Call)]


def _names(body: tuple[Stmt, ...]) -> set[str]:
    out = set()
    for n in walk_stmts(body):
        if isinstance(n, Name) and n.scope == "global":
            out.add(n.name)
        elif isinstance(n, Index):
            out.add(n.array)
    return out


__all__ = ["GRACE_TICK_MS", "GameLowering", "Lowered", "walk_stmts"]
