"""The checks and lints of a lowered game, on the author's code as written (before the
optimiser, so that a warning names what the author wrote): handlers and messages that are
never used, recursion, derived values and displays that change the tile, payloads outside
their range, arithmetic that can wrap, loops that count past a byte, divisors that can be 0,
faces outside 0..5. A warning whose line says `# blinkc: ignore` is silenced.
"""

from __future__ import annotations

import linecache
import re
from contextlib import ExitStack, contextmanager
from typing import Any, Protocol

from ..ir.nodes import (
    BOOL,
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
    Program,
    Return,
    SrcLoc,
    Stmt,
    UnOp,
)
from ..ir.ranges import Ranges, repeatable, with_param_ranges
from ..ir.visitor import Visitor, iter_children
from ..ir.walk import calls, calls_at, walk_exprs, walk_stmts
from .compiler import Symbols
from .errors import DslError
from .game import Game, Handler

#: Roles of the functions the game's author wrote (the rest is the engine and dispatch).
GAME_ROLES = ("handler", "helper", "derived", "display", "within")


class Lowering(Protocol):
    """What the lints read of a game being lowered (blinkc.dsl.lowering.GameLowering)."""

    game: Game
    sym: Symbols
    source: str
    functions: list[Function]
    #: The group each predicate's function is ("a message's group (within=)"), by name.
    within_what: dict[str, str]
    globals: list[GlobalVar]
    warnings: list[DslError]

    def err(self, loc: SrcLoc, msg: str, hint: str = "") -> None: ...

    def warn(self, loc: SrcLoc, msg: str, hint: str = "") -> None: ...

    def handlers_of(self, event: str) -> list[Handler]: ...


def run_lints(low: Lowering) -> list[DslError]:
    """Run every check (errors and warnings go to `low`); returns the warnings silenced."""
    check_usage(low)
    check_recursion(low)
    check_views_are_pure(low)
    check_payloads(low)
    check_ranges(low)
    return silence_ignored(low)


def check_usage(low: Lowering) -> None:
    sent: set[str] = set()
    for fn in low.functions:
        for call in calls(fn.body):
            sent.add(call.func)
    if "show" not in {f.name for f in low.functions}:
        low.warn(low.game.loc, "the game has no @game.display function: the LEDs stay off",
                  "add one: @game.display def look(t): t.color_all(BLUE)")
    handled = {id(h.target) for h in low.handlers_of("message")}
    for m in low.game.messages:
        if id(m) not in handled:
            low.warn(m.loc, f"message {m.name!r} has no @game.on_message handler: "
                             "arriving ones are ignored",
                      f"add @game.on_message({m.name}) def ...(t, face):")
    sent_codes = set()
    for fn in low.functions:
        if fn.role not in GAME_ROLES:
            continue  # the engine forwards codes it was given; only the game sends new ones
        for call in calls(fn.body):
            if call.func in SENDS:
                sent_codes.add(_code_of(call.args[0]))
    for m in low.game.messages:
        base, payload, _ = low.sym.messages[id(m)]
        n = len(payload) if payload is not None and id(m) not in low.sym.wide else 1
        if not any(c is None or base <= c < base + n for c in sent_codes):
            low.warn(m.loc, f"message {m.name!r} is never sent",
                      f"send it with t.send({m.name}, face), or remove it")
    started = {_code_of(c.args[0]) for fn in low.functions for c in calls(fn.body)
               if c.func in ("flood_start", "flood_start_with") and fn.role != "engine"}
    for kk, fl in enumerate(low.game.floods):
        if kk not in started and None not in started:
            low.warn(fl.loc, f"flood {fl.name!r} is never started",
                      f"start it with t.flood({fl.name})")
    for h in low.game.handlers:
        if h.event in ("derived",) and h.fn.__name__ in low.sym.fields:
            low.err(h.loc, f"{h.fn.__name__!r} is both a field and a derived value",
                     "rename one of them")


def check_recursion(low: Lowering) -> None:
    """A helper or derived value that calls itself, directly or through others: Python
    would raise RecursionError and the tile overrun its small stack (there is no
    recursion on the tile). Each cycle is reported once, at the call that closes it."""
    game_fns = {f.name: f for f in low.functions if f.role in GAME_ROLES}
    author = {fname: f"t.{name}" for name, fname in low.sym.derived.items()}
    author.update({fname: f"{name}()" for name, (fname, _, _) in low.sym.helpers.items()})
    calls = {name: [(loc, c.func) for loc, c in calls_at(f.body) if c.func in game_fns]
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
                    _report_recursion(low, loc, [author.get(n, f"{n}()") for n in cycle])
            elif callee not in done:
                visit(callee, path)
        path.pop()
        done.add(name)

    for name in game_fns:
        if name not in done:
            visit(name, [])


def _report_recursion(low: Lowering, loc: SrcLoc, cycle: list[str]) -> None:
    first = cycle[0]
    through = f": {' -> '.join(cycle)}" if len(cycle) > 2 else ""
    if first.startswith("t."):
        low.err(loc, f"the derived value {first} reads itself{through}: it would be "
                      "computed for ever",
                 "compute it from fields and other values it does not depend on")
    else:
        low.err(loc, f"{first} calls itself{through}: the tile has no room for recursion",
                 "write it as a loop (for i in range(n):) over the steps")


def check_views_are_pure(low: Lowering) -> None:
    """Derived values, the display and a flood's group only look: they are computed whenever
    they are read (in no fixed order) and, in the emulator, drawn on demand for idle tiles."""
    by_name = {f.name: f for f in low.functions}
    whats = {"derived": "a derived value", "display": "the display",
             "within": "a flood's group (within=)"}
    for fn in low.functions:
        if fn.role not in whats:
            continue
        what = low.within_what.get(fn.name, whats[fn.role])
        seen: set[str] = set()
        # (function, the game's line that calls into it when it is blinkc's own code)
        todo: list[tuple[Function, SrcLoc | None]] = [(fn, None)]
        while todo:
            f, called_at = todo.pop()
            if f.name in seen:
                continue
            seen.add(f.name)
            effect = _first_effect(f.body)
            if effect is not None:
                loc, doing = effect
                if f.role in _BLINKC_ROLES:  # (blinkc's line says nothing to the author)
                    loc = called_at or loc
                low.err(loc, f"{what} cannot change the tile: this {doing}",
                         "it is computed whenever it is read, in no fixed order; change "
                         "fields, send messages and start timers in a handler")
                break
            for at, c in calls_at(f.body):
                if not c.builtin and c.func in by_name and c.func not in RANDOM_DRAWS:
                    ours = f.role in _BLINKC_ROLES
                    todo.append((by_name[c.func], called_at if ours else at))


def check_payloads(low: Lowering) -> None:
    """A payload always outside its message's range is an error; one that may leave it is
    clamped to the range (docs/dsl.md), with a warning."""

    by_name = {f.name: f for f in low.functions}
    ranges = Ranges(Program(low.game.name, low.source, tuple(low.globals), tuple(low.functions),
                            (), (), (), {}, False))
    for fname, pay, lo, hi, mname, loc in low.sym.payload_sends:
        fn = by_name.get(fname)
        if fn is None:
            continue
        ranges.enter(fn)
        plo, phi = ranges.of(pay)
        if phi < lo or plo > hi:
            low.err(loc, f"this {mname} payload is always outside its range {lo}..{hi} "
                          f"(it is {plo:,}..{phi:,})",
                     f"send a value in {lo}..{hi}, or widen payload=range(...)")
        elif plo < lo or phi > hi:
            low.warn(loc, f"this {mname} payload can be {plo:,}..{phi:,}, outside its range "
                           f"{lo}..{hi}: it is clamped to the range",
                      "make sure the value stays in range (e.g. min(x, hi)), or widen the payload")


def check_ranges(low: Lowering) -> None:
    """What value ranges show in the game's own code, as the author wrote it (before the
    optimiser narrows types, so a warning names the types the author's code computes in):
    arithmetic that can wrap around its 8/16/32-bit type (a warning), and loops that can
    count past a byte (an error: loop counters are bytes on the tile)."""
    ranges = _LintRanges(Program(low.game.name, low.source, tuple(low.globals),
                                 tuple(low.functions), (), (), (), {}, False))
    lint = _RangeLint(low, ranges)
    for fn in low.functions:
        if fn.role in GAME_ROLES:
            lint.function(fn)


def silence_ignored(low: Lowering) -> list[DslError]:
    """Drop the warnings whose line says `# blinkc: ignore` (errors stay); return them."""
    kept, silenced = [], []
    for w in low.warnings:
        line = linecache.getline(w.loc.file, w.loc.line) if w.loc.line > 0 else ""
        (silenced if _IGNORE.search(line) else kept).append(w)
    low.warnings[:] = kept
    return silenced


def _code_of(e: Expr) -> int | None:
    return e.value if isinstance(e, Const) else None


_OP_NAMES = {"+": "sum", "-": "difference", "*": "product", "<<": "shift"}


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


class _RangeLint(Visitor):
    """Walks the author's functions with what the tests around each statement teach the
    ranges (`if d != 0:`, `if f >= 6: return`, `x if c else y`, `a and b`), and reports what
    the ranges show."""

    def __init__(self, lowering: Lowering, ranges: _LintRanges) -> None:
        self.low = lowering
        self.ranges = ranges
        sym = lowering.sym
        #: Calls that take a face: the argument's position (send_code(code, face), ...).
        self.face_args = {"send_code": 1, "send_grouped": 1, "send_wide": 3,
                          "send_wide_grouped": 3, "setColorOnFace": 1,
                          "isValueReceivedOnFaceExpired": 0,
                          **{getter: 0 for getter in sym.neighbor_getters.values()}}
        #: Per-face fields: their index is a face.
        self.per_face = {name for name, g in sym.fields.items() if g.size is not None}
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
        self.ranges.enter(with_param_ranges(fn, [(0, 5) if i in faces else None
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
        self.visit(s, facts)

    def _statement(self, s: Stmt, facts: tuple[tuple[Expr, bool], ...]) -> None:
        """Check the expressions the statement evaluates itself."""
        self.warned = False  # one overflow warning per statement is enough
        for e in _direct_exprs(s):
            self.expr(e, facts, s.loc)

    visit_Local = visit_Assign = visit_Return = visit_ExprStmt = _statement
    visit_Break = visit_Continue = _statement

    def visit_If(self, s: If, facts: tuple[tuple[Expr, bool], ...]) -> None:
        self._statement(s, facts)
        self.block(s.body, (*facts, (s.test, True)))
        self.block(s.orelse, (*facts, (s.test, False)))

    def visit_For(self, s: For, facts: tuple[tuple[Expr, bool], ...]) -> None:
        self._statement(s, facts)
        with self.assuming(facts) as live:
            top = self.ranges.of(s.stop)[1] if live else 0
        if top > 255:
            self.low.err(s.loc, f"this loop can count to {top:,}: loop counters are bytes on "
                                "the tile (at most 255)",
                         "keep the stop at most 255, e.g. range(min(n, 255))")
        # What holds before the loop holds in it unless the loop changes it (on any turn).
        self.block(s.body, tuple(f for f in facts if not _invalidates(s, f[0])))

    def expr(self, e: Expr, facts: tuple[tuple[Expr, bool], ...], loc: SrcLoc) -> None:
        """Check e and what is inside it, each part knowing the tests that guard it."""
        self.visit(e, facts, loc)

    def generic_visit(self, e: Expr, facts: tuple[tuple[Expr, bool], ...],  # type: ignore[override]
                      loc: SrcLoc) -> None:
        self.check(e, facts, loc)
        for part in iter_children(e):
            self.expr(part, facts, loc)

    def visit_Cond(self, e: Cond, facts: tuple[tuple[Expr, bool], ...], loc: SrcLoc) -> None:
        self.check(e, facts, loc)
        self.expr(e.test, facts, loc)
        self.expr(e.body, (*facts, (e.test, True)), loc)
        self.expr(e.orelse, (*facts, (e.test, False)), loc)

    def visit_BoolOp(self, e: BoolOp, facts: tuple[tuple[Expr, bool], ...], loc: SrcLoc) -> None:
        self.check(e, facts, loc)
        for v in e.values:
            self.expr(v, facts, loc)
            facts = (*facts, (v, e.op == "and"))  # the next is evaluated only if so

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
        elif isinstance(e, Index) and e.array in self.per_face:
            with self.assuming(facts) as live:
                if live:
                    self.face(e.index, loc, f" (the index of t.{e.array}[...])")

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
    if isinstance(s, Assign) and isinstance(s.target, Index):
        return [s.value, s.target]  # the target's index is evaluated too
    if isinstance(s, Assign | Local):
        return [s.value]
    if isinstance(s, Return):
        return [s.value] if s.value is not None else []
    if isinstance(s, ExprStmt):
        return [s.value]
    return []


#: The roles of blinkc's own functions (protocol.py and the generated dispatch).
_BLINKC_ROLES = ("engine", "dispatch")

#: The engine's draws (t.random() without randomize()): a view may draw as it may call the
#: SDK's random(), which moves the SDK's sequence just as these move the tile's own.
RANDOM_DRAWS = frozenset({"draw_below", "draw_word", "coin"})

#: The calls a t.send() becomes (a message of a group goes through send_grouped).
SENDS = ("send_code", "send_wide", "send_grouped", "send_wide_grouped")

_EFFECT_CALLS = {**dict.fromkeys(SENDS, "sends a message"), "flood_start": "starts a flood",
                 "flood_start_with": "starts a flood", "timer_start": "starts a timer",
                 "timer_stop": "stops a timer"}


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
