"""The C++ backend: IR → one Arduino sketch for the Blinks SDK.

Small pure functions render expressions (as trees, printed by cexpr.py with the
parentheses C++ and a reader need), statements and functions; the Jinja2 template
`templates/sketch.ino.j2` lays the sketch out. The output uses fixed-width types so
the host and the ATmega168PB agree, casts only where a value could leave its type (the
same value ranges the Python backend uses), and says which game line each function and
statement came from.
"""

from __future__ import annotations

import functools
import linecache
import os
import re
import textwrap
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import jinja2

from .. import __version__
from ..blinklib.color import NAMED as NAMED_COLOURS
from ..blinklib.color import channels
from ..dsl.derived import parse_key
from ..ir import probes
from ..ir.nodes import (
    BOOL,
    I16,
    I32,
    U8,
    U16,
    U32,
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
    Symbol,
    UnOp,
)
from ..ir.ranges import Ranges, repeatable
from ..ir.types import COLOR, ColorType
from ..ir.visitor import Renderer
from ..ir.walk import global_names, walk_stmts
from .cexpr import (
    Binary,
    CExpr,
    Num,
    Word,
    call,
    chain,
    ctype,
    printed,
    show,
    uncast,
)
from .cexpr import Cast as CCast
from .cexpr import Cond as CCond
from .cexpr import Index as CIndex
from .cexpr import Unary as CUnary
from .drive import drive
from .layout import LINE_WIDTH, Code, as_code
from .layout import folded as fold_line
from .scopes import Scopes, over_faces, scopes

TEMPLATES = Path(__file__).resolve().parent / "templates"

#: Names the generated code must not take (C++ keywords, blinklib and Arduino names, and
#: the functions of <math.h>, which Arduino.h includes: a field called `round` would clash
#: with round()). Arduino's function-like macros (bit(), sq(), ...) do not touch a variable.
RESERVED = set("""
alignas alignof and asm auto bool break case catch char class const constexpr continue default
delete do double else enum explicit export extern false float for friend goto if inline int long
mutable namespace new noexcept not nullptr operator or private protected public register return
short signed sizeof static struct switch template this throw true try typedef typename union
unsigned using virtual void volatile while xor byte word boolean
millis random randomize map dim lighten makeColorRGB makeColorHSB setColor setColorOnFace
setFaceColor sin8_C isAlone buttonDown buttonPressed buttonReleased Timer Color FACE_COUNT
RED ORANGE YELLOW GREEN CYAN BLUE MAGENTA WHITE OFF min max abs
cw ccw opposite bit_of blinkc_color BLINKC_RGB5 BLINKC_SMALL_LOOPS BLINKC_HOST BLINKC_EXPORT
HIGH LOW INPUT OUTPUT PI HALF_PI TWO_PI DEG_TO_RAD RAD_TO_DEG NULL
cos sin tan fabs fmod modf sqrt cbrt hypot square floor ceil frexp ldexp exp cosh sinh tanh acos
asin atan atan2 log log10 pow isnan isinf isfinite copysign signbit fdim fma fmax fmin trunc
lround lrint round
""".split())

#: Engine functions kept out of line (avr-gcc 5.4 inlines them where they cost more than a
#: call: measured on Pirates & Lasers, docs/building.md). Each is called from several places.
NOT_INLINED = frozenset({"flood_answered", "flood_receive"})

#: blinklib functions that some SDK releases lack: the sketch carries its own copy.
LOCAL_HELPERS = {"lighten": "blinkc_lighten"}

#: The C names of the numbers blinkc derives from the game's declarations (dsl/derived.py),
#: around their owners' names: (prefix, suffix) of each role.
DERIVED_NAMES = {
    "payload_mask": ("", "_PAYLOAD_MASK"),  # SURVEY_PAYLOAD_MASK
    "payload_max": ("", "_MAX"),  # SURVEY_MAX
    "chunks": ("", "_CHUNKS"),  # SURVEY_CHUNKS
    "codes_end": ("MSG_", "_END"),  # MSG_PULSE_END
    "value_mask": ("", "_MASK"),  # LEVEL_MASK
    "value_shift": ("", "_SHIFT"),  # LEVEL_SHIFT
}


def _probe_name(kind: probes.ProbeKind) -> str:
    return f"BLINKC_PROBE_{kind.name}"


def _state_field(macro: str, game_name: str, c_name: str) -> tuple[str, str]:
    """The entry of a field in the host's state table: under the game's name."""
    if game_name == c_name:
        return macro, c_name
    return f"{macro}_AS", f'"{game_name}", {c_name}'


def literal(value: int, t: IntType) -> CExpr:
    if t == BOOL:
        return Word("true" if value else "false")
    if isinstance(t, ColorType):
        # The pixel word built at compile time (the template defines BLINKC_RGB5): one
        # 16-bit load where MAKECOLOR_5BIT_RGB would store three bit-fields at run time.
        return call("BLINKC_RGB5", *(Num(c) for c in channels(value)))
    return Num(value, literal_suffix(value))


def literal_suffix(value: int) -> str:
    """The suffix that gives a literal beyond the tile's int a type that holds it (the literal
    itself would be long or unsigned in C anyway: the suffix says it on the host as well)."""
    if value > 0xFFFF:
        return "UL" if value > 0x7FFFFFFF else "L"
    return "U" if value > 0x7FFF else ""


def const_literal(value: int, t: IntType) -> str:
    return show(literal(value, t))


@dataclass
class Line:
    depth: int
    text: Code | str  # (a Code knows where a long line may be broken)
    loc: SrcLoc | None = None


class CppRenderer(Renderer):
    def __init__(self, program: Program, line_directives: bool = False) -> None:
        self.p = program
        #: The game sends messages or floods (the engine's PROTOCOL constant).
        self.runs_protocol = any(k == "PROTOCOL" and v for k, v, _ in program.constants)
        #: Emit `#line` so that compiler messages and debuggers point at the game's lines.
        self.line_directives = line_directives
        self.ranges = Ranges(program)
        self.names = self._names()
        self.symbols, self.enum_names = self._symbol_names()
        #: The values of the symbols: the game's, and the engine's constants.
        self.values = {s.key: s.value for s in program.symbols}
        self.values.update({f"engine:{k}": v for k, v, _ in program.constants})
        #: The symbols the rendered code says (declared in the sketch).
        self.said: set[str] = set()
        #: The SDK's colours the code says (RED, WHITE), with their values.
        self.sdk_colours: dict[str, int] = {}
        self.needs_signed_div = False
        self.needs_clamp = False
        #: Say `(uint8_t)(a + b)` where a sum fits a byte (not inside an index).
        self.byte_hints = True
        #: The parameter types of the program's functions (arguments are converted to them).
        self.params = {f.name: tuple(p.type for p in f.params) for f in program.functions}
        #: The return type of the function being rendered.
        self.ret: IntType | None = None
        #: The helpers the sketch uses (the face turns cw, ccw, opposite; bit_of).
        self.helpers: set[str] = set()
        #: The function being written: its parameters and locals that a global would hide.
        self.own: dict[str, str] = {}
        #: Where the function being written declares its locals.
        self.scopes = Scopes()
        #: The engine's arrays that are rows of a table: (table, row constant) (`context`).
        self.rows: dict[str, tuple[str, str]] = {}

    def _names(self) -> dict[str, str]:
        out = {}
        taken = set(RESERVED)
        for n in [g.name for g in self.p.globals] + [f.name for f in self.p.functions]:
            out[n] = n if n not in taken or n in ("setup", "loop") else f"{n}_"
        return out

    def _symbol_names(self) -> tuple[dict[str, str], dict[str, str]]:
        """C names for what the game names (HULL, MSG_REPAIR, FLOOD_SUNK, TIMER_PULSE,
        FULL_HP) and for its kinds' enums (Piece): its own names, made unique."""
        taken = set(RESERVED) | set(self.names.values()) | {k for k, _, _ in self.p.constants}
        for f in self.p.functions:  # a local of the same name would hide a constant
            taken |= {p.name for p in f.params}
            taken |= {n.name for n in walk_stmts(f.body) if isinstance(n, Local)}
            taken |= {n.var for n in walk_stmts(f.body) if isinstance(n, For)}

        def unique(n: str) -> str:
            while n in taken:
                n += "_"
            taken.add(n)
            return n

        symbols: dict[str, str] = {f"engine:{k}": k for k, _, _ in self.p.constants}
        enums: dict[str, str] = {}
        for s in self.p.symbols:
            group, _, what = s.key.partition(":")
            if group == "kind":
                enum, _, member = what.partition(".")
                if enum not in enums:
                    enums[enum] = unique(enum)
                symbols[s.key] = unique(member)
            elif group in ("message", "flood", "timer"):
                prefix = {"message": "MSG", "flood": "FLOOD", "timer": "TIMER"}[group]
                symbols[s.key] = unique(f"{prefix}_{_upper_snake(what)}")
            elif (derived := parse_key(s.key)) is not None:
                role, owners = derived
                words = "_".join(_upper_snake(name) for _, name in owners)
                prefix, suffix = DERIVED_NAMES[role]
                symbols[s.key] = unique(f"{prefix}{words}{suffix}")
            else:
                symbols[s.key] = unique(what)
        return symbols, enums

    def named(self, e: Const, stored: bool = False) -> CExpr | None:
        """The C name of a constant the game names (`MSG_LASER + 3` for an offset), or None.
        `stored`: C converts it to a type that holds its value at once (it is stored, passed
        or returned, or compared with a 32-bit variable), so the name's own type is moot."""
        if e.name is None:
            return None
        key, offset = e.name, 0
        m = re.fullmatch(r"(.*?)([+-]\d+)", key)
        if m is not None:
            key, offset = m.group(1), int(m.group(2))
        ident = self.symbols.get(key)
        value = self.values.get(key)
        sdk = key[len("const:"):] if key.startswith("const:") else ""
        if (ident is None and isinstance(e.type, ColorType) and not offset
                and NAMED_COLOURS.get(sdk) == e.value):
            self.sdk_colours[sdk] = e.value  # RED, WHITE: the SDK's, as pixel words
            return Word(sdk)
        if ident is None or value is None or value + offset != e.value:
            return None
        if isinstance(e.type, ColorType):
            return Word(ident) if offset == 0 else None
        if not -32768 <= e.value <= 32767 and not (stored and not offset):
            # Beyond int the literal's type (32768U, 100000L) says how C computes with it:
            # the name, in that type (1U * COIN_TAPS is an unsigned int, as 46080U is).
            suffix = literal_suffix(e.value)
            return Binary("*", Num(1, suffix), Word(ident)) if suffix and not offset else None
        if offset:
            return Binary("+" if offset > 0 else "-", Word(ident), Num(abs(offset)))
        return Word(ident)

    def name(self, n: str) -> str:
        return self.names.get(n, n if n not in RESERVED else f"{n}_")

    def state_field(self, g: GlobalVar) -> tuple[str, str]:
        return _state_field("BLINKC_FIELD" if g.size is None else "BLINKC_ARRAY_FIELD",
                            g.name, self.name(g.name))

    def local(self, n: str) -> str:
        """The C name of a parameter or local of the function being written."""
        return self.own.get(n) or self.name(n)

    def own_names(self, f: Function) -> dict[str, str]:
        """The parameters and locals of `f` named like a global variable (`def got(t, face,
        total): t.total = total`), or like a function `f` calls (a gather handler `mine`
        beside on_flood()'s local `mine`), renamed so that they do not hide it: `total_`."""
        hidden = {g.name for g in self.p.globals}
        hidden |= {e.func for e in walk_stmts(f.body) if isinstance(e, Call) and not e.builtin}
        mine = [p.name for p in f.params] + [n for n, _ in self.locals_of(f)]
        out: dict[str, str] = {}
        for n in mine:
            if n in hidden:
                c = f"{n}_"
                while c in self.names or c in mine:
                    c += "_"
                out[n] = c
        return out

    # ------------------------------------------------------------ expressions
    def conv(self, e: Expr, t: IntType) -> CExpr:
        """e's value as type t: a cast only where the value might not fit."""
        if (isinstance(e, Const) and t.bits == 32 and t.signed and not isinstance(t, ColorType)
                and 0x7FFF < e.value <= 0xFFFF):
            # 32768U is 16 bits on the tile but 32 on the host, where it would turn a 32-bit
            # signed comparison or sum unsigned: say long, as the tile computes it.
            return Num(e.value, "L")
        code = self.expr(e)
        if t == BOOL or isinstance(t, ColorType) or self.ranges.fits(self.ranges.of(e), t):
            return code
        # (int16_t)(uint16_t)x is (int16_t)x: both reduce x modulo 2**16.
        return CCast(t, uncast(code, t.bits))

    def expr(self, e: Expr) -> CExpr:
        return self.visit(e)

    def visit_Const(self, e: Const, stored: bool = False) -> CExpr:
        named = self.named(e, stored)
        if named is not None:
            self.said.add(re.sub(r"[+-]\d+$", "", e.name or ""))
            return named
        if e.folded is not None and e.type != BOOL and not isinstance(e.type, ColorType):
            said = set(self.said)
            folded = self.folded(e.folded)
            if folded is not None and folded[1] == e.value:
                return folded[0]
            self.said = said  # (the names of an expression not used are not said)
        return literal(e.value, e.type)

    def folded(self, e: Expr) -> tuple[CExpr, int] | None:
        """A constant folded from named ones, as the expression of names it was folded from
        (`1 << ACK_SHIFT`, `(uint8_t)~LINK_HEARD`) and the value C gives it, or None when C
        might compute it otherwise than the literal: every step must be an int on the tile
        (16 bits) and on the host alike, so only names of byte constants (which promote to int
        on both) and int-sized values in every step."""
        def in_int(v: int) -> bool:
            return -32768 <= v <= 32767

        if isinstance(e, Const):
            if e.type == BOOL or isinstance(e.type, ColorType):
                return None
            name = self.named(e) if 0 <= e.value <= 255 else None
            if name is not None:
                self.said.add(re.sub(r"[+-]\d+$", "", e.name or ""))
                return name, e.value
            if e.folded is not None:
                return self.folded(e.folded)
            return (Num(e.value), e.value) if 0 <= e.value <= 32767 else None
        if isinstance(e, UnOp) and e.op == "~":
            inner = self.folded(e.operand)
            return None if inner is None else (CUnary("~", inner[0]), ~inner[1])
        if isinstance(e, Cast) and e.type == U8 and not e.is_bool:
            inner = self.folded(e.value)
            return None if inner is None else (CCast(U8, inner[0]), inner[1] & 0xFF)
        if isinstance(e, BinOp) and e.op in _FOLDED_OPS:
            left, right = self.folded(e.left), self.folded(e.right)
            if left is None or right is None:
                return None
            a, b = left[1], right[1]
            if e.op in ("<<", ">>") and not (a >= 0 and 0 <= b < 15):
                return None
            v = _FOLDED_OPS[e.op](a, b)
            return (Binary(e.op, left[0], right[0]), v) if in_int(v) else None
        return None

    def visit_Name(self, e: Name) -> CExpr:
        return Word(self.name(e.name) if e.scope == "global" else self.local(e.name))

    def visit_Index(self, e: Index) -> CExpr:
        # An index is an address offset: no byte hints in it (they cost code there).
        with self.hints(False):
            index = self.arg(e.index, U8)
        if e.array in self.rows:  # a row of an engine table
            table, row = self.rows[e.array]
            return CIndex(CIndex(Word(table), Word(row)), index)
        return CIndex(Word(self.name(e.array)), index)

    def visit_BinOp(self, e: BinOp) -> CExpr:
        return self.binop(e)

    def visit_UnOp(self, e: UnOp) -> CExpr:
        if e.op == "not":
            return CUnary("!", self.expr(e.operand))
        if e.op == "-":
            # Always cast back: -(-32768) is 32768 in the host's int, -32768 in the tile's.
            return CCast(e.type, CUnary("-", self.conv(e.operand, e.type)), result=True)
        if e.op != "~":
            raise ValueError(f"unknown unary operator {e.op!r}")
        if e.type == I16 and _promotes_to_int(e.operand):
            # C complements the operand promoted to int: 16 bits on the tile, and on the
            # host a wider int with the same value.
            return CUnary("~", self.expr(e.operand))
        return CCast(e.type, CUnary("~", self.conv(e.operand, e.type)), result=True)

    def visit_Compare(self, e: Compare) -> CExpr:
        with self.hints(True):  # a comparison is where a byte-sized sum pays
            return Binary(e.op, self.compared(e.left, e.right, e.optype),
                          self.compared(e.right, e.left, e.optype))

    def compared(self, e: Expr, other: Expr, t: IntType) -> CExpr:
        """e as an operand of a comparison in type t with `other`. A named constant beside a
        32-bit signed variable is said by its name alone: C converts it to the variable's type
        (long on the tile, int on the host), as the IR compares (`mine > POINTS_MAX`, where its
        literal must say 65535L)."""
        if (isinstance(e, Const) and t == I32 and isinstance(other, Name | Index | Call)
                and other.type == I32 and 0 <= e.value <= 0xFFFF
                and self.named(e, stored=True) is not None):
            return self.visit_Const(e, stored=True)
        return self.conv(e, t)

    def visit_BoolOp(self, e: BoolOp) -> CExpr:
        return chain("&&" if e.op == "and" else "||", [self.expr(v) for v in e.values])

    def visit_Cond(self, e: Cond) -> CExpr:
        turn = self.turn(e) or self.next_wrapped(e)
        if turn is not None:
            return turn
        with self.ranges.assuming(e.test, True):
            body = self.conv(e.body, e.type)
        with self.ranges.assuming(e.test, False):
            orelse = self.conv(e.orelse, e.type)
        return CCond(self.expr(e.test), body, orelse)

    def visit_Cast(self, e: Cast) -> CExpr:
        if e.type == BOOL:
            return Binary("!=", self.expr(e.value), Num(0))
        return self.conv(e.value, e.type)

    def visit_Call(self, e: Call) -> CExpr:
        if e.builtin and e.func == probes.FUNCTION:  # (the explorer's build: its kind by name)
            kind = probes.ProbeKind(_value(e.args[0]))
            return call(probes.FUNCTION, Word(_probe_name(kind)), *map(self.expr, e.args[1:]))
        func = LOCAL_HELPERS.get(e.func, e.func) if e.builtin else self.name(e.func)
        # The SDK's functions take the types the IR converted their arguments to.
        params = self.params.get(e.func) if not e.builtin else tuple(a.type for a in e.args)
        if params is None or len(params) != len(e.args):
            return call(func, *map(self.expr, e.args))
        return call(func, *(self.arg(a, t) for a, t in zip(e.args, params, strict=True)))

    def next_wrapped(self, e: Cond) -> CExpr | None:
        """`x + 1 >= n ? x + 1 - n : x + 1` (what the optimiser makes of `(x + 1) % n`) for a
        byte x in 0..n-1, as the sketch's helper: next_wrapped(x, n)."""
        test = e.test
        n = _value(test.right) if isinstance(test, Compare) and test.op == ">=" else None
        if n is None or not 1 < n <= 255 or n == 6:  # (a face's turn is cw())
            return None
        total, minus = _uncast(test.left), _uncast(e.body)
        if not (isinstance(total, BinOp) and total.op == "+" and _value(total.right) == 1
                and repeatable(total) and isinstance(minus, BinOp) and minus.op == "-"
                and _value(minus.right) == n and _uncast(minus.left) == total
                and _uncast(e.orelse) == total and e.type != BOOL
                and not isinstance(e.type, ColorType)):
            return None
        x = total.left
        lo, hi = self.ranges.of(x)
        if lo < 0 or hi > n - 1:
            return None
        self.helpers.add("next_wrapped")
        return call("next_wrapped", self.arg(x, U8), self.arg(test.right, U8))

    def turn(self, e: Cond) -> CExpr | None:
        """`f + n >= 6 ? f + n - 6 : f + n` (what the optimiser makes of `(f + n) % 6`), for
        faces f and n in 0..5, as the sketch's face helpers: cw(f, n), ccw(f), opposite(f)."""
        test = e.test
        if not (isinstance(test, Compare) and test.op == ">=" and _value(test.right) == 6):
            return None
        total = _uncast(test.left)
        minus = _uncast(e.body)
        if not (isinstance(total, BinOp) and total.op == "+" and repeatable(total)
                and isinstance(minus, BinOp) and minus.op == "-" and _value(minus.right) == 6
                and _uncast(minus.left) == total and _uncast(e.orelse) == total):
            return None
        face, steps = total.left, total.right
        if isinstance(face, Const) and not isinstance(steps, Const):
            face, steps = steps, face
        for part in (face, steps):
            lo, hi = self.ranges.of(part)
            if lo < 0 or hi > 5:
                return None
        f = self.arg(face, U8)
        n = _value(steps)
        if n == 3:
            self.helpers.add("opposite")
            return call("opposite", f)
        if n in (4, 5):
            self.helpers.add("ccw")
            return call("ccw", f) if n == 5 else call("ccw", f, Num(2))
        self.helpers.add("cw")
        return call("cw", f) if n == 1 else call("cw", f, self.arg(steps, U8))

    def binop(self, e: BinOp, byte_hint: bool = True) -> CExpr:
        t = e.type
        a, b = self.conv(e.left, t), self.conv(e.right, t)
        c_op = "/" if e.op == "//" else e.op
        if e.op in ("//", "%") and t.signed:
            lo = self.ranges.operand(e.left, t)[0]
            d_lo, d_hi = self.ranges.operand(e.right, t)
            if lo <= t.min and d_lo <= -1 <= d_hi:
                # MIN / -1 overflows (C leaves it undefined; the host traps): it wraps, as the
                # tile's divide routine and the emulator compute it (docs/dsl.md: Numbers).
                self.needs_signed_div = True
                if e.op == "//":
                    return call(f"blinkc_div<{ctype(t)}, u{ctype(t)}>", a, b)
                return call(f"blinkc_mod<{ctype(t)}>", a, b)
        exact = self.ranges.exact(e)
        bit = self.bit_of(e, 8 if 0 <= exact[0] and exact[1] <= 255 else 0)
        if bit is not None:
            return bit
        if self.ranges.fits(exact, t):
            if (e.op in ("+", "-", "*", "<<") and 0 <= exact[0] and exact[1] <= 255 and byte_hint
                    and self.byte_hints):
                # C would compute in int; the value fits a byte, and saying so lets the
                # 8-bit AVR compare and subtract in one register instead of two.
                return CCast(U8, Binary(c_op, a, b), result=True)
            if e.op in ("+", "-", "*", "<<") and not self.ranges.fits(exact, I16):
                # The value fits t, not the tile's 16-bit int: operands narrower than int
                # (a byte local, say) would compute in int and overflow, so compute in t.
                a = CCast(t, a)
            return Binary(c_op, a, b)
        if e.op in ("+", "-") and t in (U16, U32) and any(
                _unsigned_leaf(x, code, t) for x, code in ((e.left, a), (e.right, b))):
            # An operand of the unsigned type: the tile computes in unsigned arithmetic, the
            # host too or in its wider int (no overflow); the conversion keeps the same bits.
            return CCast(t, Binary(c_op, a, b), result=True)
        if e.op in ("+", "-", "*", "<<"):
            # Wrap-around on purpose: compute in unsigned arithmetic (no signed overflow, which
            # C leaves undefined), then convert to the result type: the same bits on tile and host.
            suffix = "UL" if t.bits > 16 else "U"
            if (isinstance(e.left, Const) and e.left.value >= 0 and isinstance(a, Num)
                    and not a.suffix):
                return CCast(t, Binary(c_op, Num(a.value, suffix), b), result=True)  # 1U << n
            wrapped = Binary(c_op, Binary("*", Num(1, suffix), a), b, wraps=True)
            return CCast(t, wrapped, result=True)
        return CCast(t, Binary(c_op, a, b), result=True)

    # ------------------------------------------------------------- statements
    def block(self, body: tuple[Stmt, ...], depth: int, out: list[Line]) -> None:
        """The statements of a block; each is rendered knowing what the tests above it in
        the block teach (below `if hp == 0: return`, hp is not 0)."""
        with self.ranges.scope():
            for s in body:
                self.stmt(s, depth, out)
                self.ranges.after(s)

    def stmt(self, s: Stmt, depth: int, out: list[Line]) -> None:
        self.visit(s, depth, out)

    def visit_Local(self, s: Local, depth: int, out: list[Line]) -> None:
        declare = f"{ctype(s.type)} " if id(s) in self.scopes.in_place else ""
        value = printed(self.into(s.value, s.type))
        out.append(Line(depth, f"{declare}{self.local(s.name)} = " + value + ";", s.loc))

    def visit_Assign(self, s: Assign, depth: int, out: list[Line]) -> None:
        out.append(Line(depth, self.assign(s), s.loc))

    def visit_If(self, s: If, depth: int, out: list[Line]) -> None:
        out.append(Line(depth, "if (" + self.test(s.test) + ") {", s.loc))
        with self.ranges.assuming(s.test, True):
            self.block(s.body, depth + 1, out)
        orelse = s.orelse
        with ExitStack() as chain:
            chain.enter_context(self.ranges.assuming(s.test, False))
            while len(orelse) == 1 and isinstance(orelse[0], If):
                inner = orelse[0]
                out.append(Line(depth, "} else if (" + self.test(inner.test) + ") {", inner.loc))
                with self.ranges.assuming(inner.test, True):
                    self.block(inner.body, depth + 1, out)
                chain.enter_context(self.ranges.assuming(inner.test, False))
                orelse = inner.orelse
            if orelse:
                out.append(Line(depth, "} else {"))
                self.block(orelse, depth + 1, out)
        out.append(Line(depth, "}"))

    def visit_For(self, s: For, depth: int, out: list[Line]) -> None:
        self.ranges.forget(s)  # what one turn changes is not known on the next
        var = self.local(s.var)
        start = show(self.expr(s.start))
        stop = self.expr(s.stop)
        if not isinstance(s.stop, Const):
            # Python evaluates range(stop) once, before the loop: so must we.
            end = self.conv(s.stop, s.start.type)
            if self.ranges.of(s.stop)[0] < 0 and repeatable(s.stop):
                # range() to a negative stop is empty; as a byte, -5 would be 251 turns.
                end = CCond(Binary("<", stop, Num(0)), Num(0), end)
            declare = f"{ctype(s.start.type)} " if id(s) in self.scopes.ends_in_place else ""
            out.append(Line(depth, f"{declare}{var}_end = " + printed(end) + ";", s.loc))
            stop = Word(f"{var}_end")
        if id(s) in self.scopes.face_loops:  # the loop's own variable, as the SDK spells it
            out.append(Line(depth, f"FOREACH_FACE({var}) {{", s.loc))
            self.block(s.body, depth + 1, out)
            out.append(Line(depth, "}"))
            return
        if over_faces(s):
            stop = Word("FACE_COUNT")
        test = show(Binary("<", Word(var), stop))
        declare = f"{ctype(s.start.type)} " if id(s) in self.scopes.own_loops else ""
        if s.bit is not None:
            # The bit moves along with the variable: no shift by a variable amount.
            bit = self.local(s.bit)
            first = 1 << s.start.value  # type: ignore[union-attr]
            out.append(Line(depth, f"for ({declare}{var} = {start}, {bit} = {first}; {test}; "
                                   f"{var}++, {bit} <<= 1) {{", s.loc))
        else:
            out.append(Line(depth, f"for ({declare}{var} = {start}; {test}; {var}++) {{", s.loc))
        self.block(s.body, depth + 1, out)
        out.append(Line(depth, "}"))

    def visit_Return(self, s: Return, depth: int, out: list[Line]) -> None:
        if s.value is None:
            out.append(Line(depth, "return;", s.loc))
            return
        value = self.expr(s.value) if self.ret is None else self.into(s.value, self.ret)
        out.append(Line(depth, "return " + printed(value) + ";", s.loc))

    def visit_ExprStmt(self, s: ExprStmt, depth: int, out: list[Line]) -> None:
        out.append(Line(depth, printed(self.expr(s.value)) + ";", s.loc))

    def visit_Break(self, s: Break, depth: int, out: list[Line]) -> None:
        out.append(Line(depth, "break;", s.loc))

    def visit_Continue(self, s: Continue, depth: int, out: list[Line]) -> None:
        out.append(Line(depth, "continue;", s.loc))

    def assign(self, s: Assign) -> Code | str:
        target = show(self.expr(s.target))
        t = s.target.type
        if s.clamp is not None:
            counter = self.counter(s)
            return counter if counter is not None else f"{target} = " + printed(self.clamped(s)) + ";"
        compound = self.compound(s)
        if compound is not None:
            op, rhs = compound
            if op in ("+", "-") and rhs == Num(1):
                return f"{target}{op}{op};"
            return f"{target} {op}= " + printed(rhs) + ";"
        return f"{target} = " + printed(self.into(s.value, t)) + ";"

    def compound(self, s: Assign) -> tuple[str, CExpr] | None:
        """(op, right) when `target = target op right` can be written `target op= right`:
        C computes it in the operands' promoted type and converts to the target's type, as
        the assignment does; it must compute the same low bits, without overflowing."""
        target, t = s.target, s.target.type
        if t == BOOL or isinstance(t, ColorType) or not repeatable(target):
            return None
        value = _widened(s.value, t.bits)
        if not (isinstance(value, BinOp) and _widened(value.left, t.bits) == target
                and value.type.bits >= t.bits and not isinstance(value.type, ColorType)):
            return None
        if value.op in ("&", "|", "^"):
            # Only the target's low bits of the right operand count.
            if t.bits <= 16:
                return value.op, self.low(value.right, t.bits)
            return value.op, self.conv(value.right, value.type)
        exact = self.ranges.exact(value)
        bt = value.type
        if value.op in ("//", "%") and bt.signed and self.ranges.operand(value.left, bt)[0] < 0:
            return None  # C's and the tile's signed division may differ at MIN / -1
        if value.op in ("+", "-") and bt == t and not t.signed and t.bits >= 16 and (
                t.bits == 32 or (-(1 << 31) <= exact[0] and exact[1] < (1 << 31))):
            pass  # unsigned arithmetic on the tile (int on the host holds it): wraps alike
        elif value.op in ("*", "<<") and bt == t == U32:
            pass  # unsigned long arithmetic: wraps alike
        elif not self.ranges.fits(exact, bt):
            return None  # it wraps, and C's int might overflow first
        elif value.op in ("+", "-", "*", "<<") and not self.ranges.fits(exact, I16):
            return None  # beyond the tile's int: C would overflow before converting
        return ("/" if value.op == "//" else value.op), self.conv(value.right, bt)

    def low(self, e: Expr, bits: int) -> CExpr:
        """e where only its low `bits` bits (at most 16) count: the right operand of `&=`,
        `|=`, `^=` (C's int and the tile's 16-bit int compute those bits alike)."""
        e = _widened(e, bits)
        if isinstance(e, UnOp) and e.op == "~":
            return CUnary("~", self.low(e.operand, bits))
        if isinstance(e, BinOp) and e.op in ("&", "|", "^"):
            return Binary(e.op, self.low(e.left, bits), self.low(e.right, bits))
        bit = self.bit_of(e, bits) if isinstance(e, BinOp) else None
        if bit is not None:
            return bit
        if isinstance(e, BinOp) and e.op == "<<" and isinstance(e.left, Const) and e.left.value >= 0:
            lo, hi = self.ranges.operand(e.right, e.type)
            if 0 <= lo and hi < 16:  # an unsigned shift is defined up to 15 on the tile
                suffix = "" if self.ranges.fits(self.ranges.exact(e), I16) else "U"
                return Binary("<<", Num(e.left.value, suffix), self.conv(e.right, e.type))
        return self.expr(e)

    def counter(self, s: Assign) -> Code | None:
        """A field counted up or down by one that stops at the end of its range:
        `if (x < hi) x++;` (x is in its range, so only x == hi would leave it)."""
        lo, hi = s.clamp  # type: ignore[misc]
        value = _widened(s.value, s.target.type.bits)
        if not (isinstance(value, BinOp) and value.op in ("+", "-") and _value(value.right) == 1
                and _widened(value.left, s.target.type.bits) == s.target):
            return None
        xlo, xhi = self.ranges.of(s.target)
        if not (lo <= xlo and xhi <= hi):
            return None
        target = self.expr(s.target)
        if value.op == "+":
            test, step = Binary("<", target, literal(hi, s.target.type)), "++"
        else:
            test, step = Binary(">", target, literal(lo, s.target.type)), "--"
        return "if (" + printed(test, 1) + f") {show(target)}{step};"

    def bit_of(self, e: BinOp, bits: int) -> CExpr | None:
        """`1 << n` for a variable n in 0..255, where only its low byte counts (bits is 8; 0:
        not so): bit_of(n), the sketch's one copy of the shift loop (0 from n = 8 on, as the
        low byte of 1 << n is)."""
        if not (bits == 8 and e.op == "<<" and _value(e.left) == 1
                and not isinstance(e.right, Const)):
            return None
        lo, hi = self.ranges.of(e.right)
        if lo < 0 or hi > 255:
            return None
        self.helpers.add("bit_of")
        return call("bit_of", self.arg(e.right, U8))

    def clamped(self, s: Assign) -> CExpr:
        """A field's value kept in its range, compared in the narrowest type that holds it."""
        lo, hi = s.clamp  # type: ignore[misc]
        self.needs_clamp = True
        vr = self.ranges.of(s.value)
        t = _holding(min(vr[0], lo), max(vr[1], hi))
        value = self.expr(s.value)
        if vr[0] >= lo:  # only the top can be crossed
            return call(f"blinkc_at_most<{t}>", value, Num(hi))
        if vr[1] <= hi:
            return call(f"blinkc_at_least<{t}>", value, Num(lo))
        return call(f"blinkc_clamp<{t}>", value, Num(lo), Num(hi))

    def arg(self, e: Expr, t: IntType) -> CExpr:
        """e passed to a parameter of type t (which C converts it to)."""
        return self.into(e, t) if t is not None else self.expr(e)

    @contextmanager
    def hints(self, on: bool) -> Iterator[None]:
        saved, self.byte_hints = self.byte_hints, on
        try:
            yield
        finally:
            self.byte_hints = saved

    def into(self, e: Expr, t: IntType) -> CExpr:
        """e's value stored into a variable (or passed to a parameter, or returned) of type t:
        C converts it to t there (modulo 2**bits, as a cast does), so a cast to t is not
        written out."""
        if t == BOOL or isinstance(t, ColorType):
            return self.conv(e, t)
        e = _widened(e, t.bits)
        if (isinstance(e, Const) and not isinstance(e.type, ColorType) and t.contains(e.value)
                and self.named(e, stored=True) is not None):
            return self.visit_Const(e, stored=True)  # (NEVER, where an operand says 1UL * NEVER)
        bit = self.bit_of(e, t.bits) if isinstance(e, BinOp) else None
        if bit is not None:  # a byte of `1 << n`: the store keeps only its low byte
            return bit
        if isinstance(e, BinOp) and self.ranges.fits(self.ranges.exact(e), t):
            return self.binop(e, byte_hint=False)  # the store says it is a byte
        if (isinstance(e, Cond) and e.type.bits >= t.bits and not isinstance(e.type, ColorType)
                and self.turn(e) is None and self.next_wrapped(e) is None):
            # Each branch is stored: x + 1 >= 3 ? x + 1 - 3 : x + 1 needs no casts in them.
            with self.ranges.assuming(e.test, True):
                body = self.into(e.body, t)
            with self.ranges.assuming(e.test, False):
                orelse = self.into(e.orelse, t)
            return CCond(self.expr(e.test), body, orelse)
        code = uncast(self.conv(e, t), t.bits)
        if isinstance(code, Binary) and code.wraps:
            return CCast(t, code)  # arithmetic that wraps on purpose: the cast says so
        return code

    def test(self, e: Expr) -> Code:
        """e as the test of an `if` (inside its parentheses)."""
        return printed(self.expr(e), 1)

    # --------------------------------------------------------------- functions
    def signature(self, f: Function, host_only: bool = False) -> str:
        used = {n.name for n in walk_stmts(f.body) if isinstance(n, Name) and n.scope == "param"}
        own = self.own_names(f)
        params = ", ".join(f"{ctype(p.type)} {own.get(p.name) or self.name(p.name)}" if p.name in used
                           else f"{ctype(p.type)} /* {p.name} */" for p in f.params) or "void"
        # What only the emulator calls is compiled on the host only, and is not static there:
        # a build that makes Arduino's prototypes (for every function) must not find a static
        # function it never defines.
        storage = "" if f.name in ("setup", "loop") or host_only else "static "
        if f.name in NOT_INLINED and not host_only:
            storage = f"__attribute__((noinline)) {storage}"
        if f.name == "loop" and self.runs_protocol:
            # (It pays for the engine's loops in loop(); without the protocol, loop() is a
            # few calls that avr-gcc inlines into the SDK's main loop, which is smaller:
            # docs/building.md.)
            storage = f"BLINKC_SMALL_LOOPS {storage}"
        return f"{storage}{ctype(f.ret)} {self.name(f.name)}({params})"

    def locals_of(self, f: Function) -> list[tuple[str, IntType]]:
        seen: dict[str, IntType] = {}
        for node in walk_stmts(f.body):
            if isinstance(node, Local) and node.name not in seen:
                seen[node.name] = node.type
            elif isinstance(node, For):
                seen.setdefault(node.var, node.start.type)
                if node.bit is not None:
                    seen.setdefault(node.bit, U8)
                if not isinstance(node.stop, Const):
                    seen.setdefault(f"{node.var}_end", node.start.type)
        return list(seen.items())

    def function(self, f: Function, host_only: bool = False) -> dict:
        self.ranges.enter(f)
        self.ret = f.ret
        self.own = self.own_names(f)
        lines: list[Line] = []
        # Python locals live for the whole function: those not declared where they are first
        # given a value (or by their face loop) are declared at the top.
        self.scopes = scopes(f.body)
        for name, t in self.locals_of(f):
            if name in self.scopes.not_at_top:
                continue
            init = const_literal(0, t) if isinstance(t, ColorType) else "0"
            lines.append(Line(1, f"{ctype(t)} {self.local(name)} = {init};"))
        self.block(f.body, 1, lines)
        # Functions only the emulator calls (engine_idle, ...) are compiled on the host only.
        # The origin of each line only when asked for (with the `#line` directives): by
        # default the function's comment says where it is, and the code reads uncluttered.
        body = _comment_lines(lines) if self.line_directives else _indented(lines)
        head: list[str] = []
        if self.line_directives:
            body = _with_line_directives(lines, body)
            if f.loc.line:
                head = [_line_directive(f.loc)]
        doc = _comment_text(first_sentence(f.doc), f"[{_origin(f.loc)}]")
        return {"signature": self.signature(f, host_only), "doc": doc,
                "origin": _origin(f.loc), "role": f.role, "lines": body, "head": head,
                "host_only": host_only}

    # ----------------------------------------------------------------- program
    def context(self) -> dict:
        p = self.p
        firmware = _reachable(p, ("setup", "loop"))
        uses = {c.func for f in p.functions for c in walk_stmts(f.body) if isinstance(c, Call)}
        used = {n for f in p.functions for n in global_names(f.body)}
        on_tile = {n for f in p.functions if f.name in firmware for n in global_names(f.body)}
        engine = [g for g in p.globals if g.role != "state" and g.name in used and g.name in on_tile]
        self.rows = self.engine_rows(engine)
        # Rendering the functions tells which helpers they need (the face turns, division).
        functions = [self.function(f, f.name not in firmware) for f in p.functions]
        return {
            "name": p.name, "source": p.source, "version": __version__,
            **self.declarations(),
            "layout": [(n, shift, bits, what) for n, shift, bits, what in p.value_layout],
            "codes": p.codes,
            # The engine's constants the code says (its names for the numbers it uses).
            "constants": [(k, _const_type(v), _engine_as_written(k, v), doc)
                          for k, v, doc in p.constants if f"engine:{k}" in self.said],
            "state": [self.global_decl(g) for g in p.globals if g.role == "state"],
            "engine": self.engine_decls(engine),
            # What only the emulator's functions read is on the host only too.
            "host_engine": [self.global_decl(g) for g in p.globals if g.role != "state"
                            and g.name in used and g.name not in on_tile],
            "prototypes": [self.signature(f) + ";" for f in p.functions
                           if f.name not in ("setup", "loop") and f.name in firmware],
            "host_prototypes": [self.signature(f, True) + ";" for f in p.functions
                                if f.name not in ("setup", "loop") and f.name not in firmware],
            "functions": functions,
            "fields": [self.state_field(g) for g in p.state_fields],
            "derived": [(f.name[len("value_"):], self.name(f.name), ctype(f.ret))
                        for f in p.functions if f.role == "derived"],
            "turns": sorted(self.helpers & {"cw", "ccw", "opposite"}),
            "needs_next_wrapped": "next_wrapped" in self.helpers,
            "needs_bit_of": "bit_of" in self.helpers,
            "needs_lighten": "lighten" in uses,
            "needs_skip_frame": "blinkc_skip_frame" in uses,
            # The explorer's build: its probes' kinds, and the explorer's hands on the host.
            "probes": ([(_probe_name(k), int(k)) for k in probes.ProbeKind]
                       if probes.FUNCTION in uses else []),
            "explore": self.explore_hooks() if probes.FUNCTION in uses else [],
            "needs_clamp": self.needs_clamp,  # set while rendering the functions
            "needs_signed_div": self.needs_signed_div,  # set while rendering the functions
        }

    def explore_hooks(self) -> list[str]:
        """The exports the explorer (and a scenario's send and flood steps) drive a native
        tile with: what the Python tile's send() and start_flood() call (backends/drive.py),
        and its flood groups' faces; each one the program has."""
        d = drive(self.p)
        have = {f.name: self.name(f.name) for f in self.p.functions}
        out = []
        export = 'extern "C" BLINKC_EXPORT'
        if d.send in have:
            out.append(f"{export} void blinkc_explore_send(uint8_t code, uint8_t face) "
                       f"{{ {have[d.send]}(code, face); }}")
        if d.wide_messages and d.send_wide in have:
            out.append(f"{export} void blinkc_explore_send_wide(uint8_t code, uint16_t value, "
                       f"uint8_t chunks, uint8_t face) "
                       f"{{ {have[d.send_wide]}(code, value, chunks, face); }}")
        if d.floods and d.flood_start in have:
            out.append(f"{export} void blinkc_explore_flood(uint8_t k) "
                       f"{{ {have[d.flood_start]}(k); }}")
        if d.flood_values and d.flood_start_with in have:
            out.append(f"{export} void blinkc_explore_flood_with(uint8_t k, uint16_t value) "
                       f"{{ {have[d.flood_start_with]}(k, value); }}")
        if "flood_within" in have:
            out.append(f"{export} uint8_t blinkc_explore_flood_faces(uint8_t k) {{\n"
                       f"    uint8_t faces = 0;\n"
                       f"    for (uint8_t f = 0; f < FACE_COUNT; ++f) "
                       f"if ({have['flood_within']}(k, f)) faces |= (uint8_t)(1 << f);\n"
                       f"    return faces;\n}}")
        return out

    def declarations(self) -> dict:
        """The game's names as the sketch declares them: an enum for each kinds, enums for
        the messages, floods and timers, and the module constants the code says."""
        kinds: dict[str, list] = {}
        groups: dict[str, list] = {"message": [], "flood": [], "timer": []}
        constants, colours = [], []
        for s in self.p.symbols:
            group, _, what = s.key.partition(":")
            origin = _origin(s.loc) if s.loc is not None else ""
            note = ": ".join(x for x in (origin, s.doc) if x)
            ident = self.symbols[s.key]
            if group == "kind":
                enum = self.enum_names[what.partition(".")[0]]
                kinds.setdefault(enum, []).append((ident, s.value, origin))
            elif group in groups:
                groups[group].append((ident, s.value, note))
            elif s.key in self.said:
                if parse_key(s.key) is not None:  # a number blinkc derived: its own type
                    constants.append((ctype(s.type), ident, const_literal(s.value, s.type), note))
                elif isinstance(s.type, ColorType):
                    colours.append((ident, const_literal(s.value, s.type), note))
                elif s.type == BOOL:
                    constants.append(("bool", ident, "true" if s.value else "false", note))
                else:
                    constants.append((_const_type(s.value), ident,
                                      _as_written(s) or const_literal(s.value, s.type), note))
        sdk_colours = [(k, const_literal(v, COLOR)) for k, v in sorted(self.sdk_colours.items())]
        lists = {group: ([m for m, _, _ in members], _lines([n for _, _, n in members]))
                 for group, members in (("floods", groups["flood"]), ("timers", groups["timer"]))
                 if members}
        return {"kinds": [(enum, members) for enum, members in kinds.items()],
                "messages": groups["message"], "lists": lists, "game_constants": constants,
                "colours": colours, "sdk_colours": sdk_colours}

    def engine_rows(self, globals_: list[GlobalVar]) -> dict[str, tuple[str, str]]:
        """The engine's zeroed arrays of one type and length as the rows of one array: each
        array's (table, row constant). The AVR then finds a face's (or a flood slot's) entries
        of every row from one address, by displacement, instead of working out each array's
        address again (Pirates & Lasers: 56 bytes of flash less)."""
        rows: dict[tuple[str, int], list[GlobalVar]] = {}
        for g in globals_:
            if g.size is not None and not (any(g.init) if isinstance(g.init, tuple) else g.init):
                rows.setdefault((ctype(g.type), g.size), []).append(g)
        taken = (set(RESERVED) | set(self.names.values()) | set(self.symbols.values())
                 | {k for k, _, _ in self.p.constants})
        out: dict[str, tuple[str, str]] = {}
        for (c_type, size), members in rows.items():
            if len(members) < 2:
                continue
            table = f"engine_{'bytes' if c_type == 'uint8_t' else 'words'}{size}"
            while table in self.names.values():
                table += "_"
            for m in members:
                row = _upper_snake(m.name)
                while row in taken:
                    row += "_ROW" if not row.endswith("_ROW") else "_"
                taken.add(row)
                out[m.name] = (table, row)
        return out

    def engine_decls(self, globals_: list[GlobalVar]) -> list[dict]:
        """The engine's variables; the arrays grouped into tables (`engine_rows`) as the table
        and an enum that names its rows (`engine_bytes6[TX_CODE][f]`)."""
        decls, done = [], set()
        for g in globals_:
            where = self.rows.get(g.name)
            if where is None:
                decls.append(self.global_decl(g))
                continue
            table = where[0]
            if table in done:
                continue
            done.add(table)
            members = [m for m in globals_ if self.rows.get(m.name, ("",))[0] == table]
            decls.append({"decl": f"static {ctype(g.type)} {table}[{len(members)}][{g.size}];",
                          "origin": "generated by blinkc",
                          "notes": "the rows below, one array: an entry of each is found "
                                   "from one address"})
            decls.append({"decl": f"enum : uint8_t {{  // the rows of {table}", "origin": "",
                          "notes": ""})
            for m in members:
                decls.append({"decl": f"    {self.rows[m.name][1]},", "origin": _origin(m.loc),
                              "notes": m.doc})
            decls.append({"decl": "};", "origin": "", "notes": ""})
        return decls

    def global_decl(self, g: GlobalVar) -> dict:
        name = self.name(g.name)
        if g.size is not None:
            values = tuple(g.init) if isinstance(g.init, tuple) else (int(g.init),) * g.size
            if any(values):
                init = ", ".join(self.initial(g, v) for v in values)
                decl = f"static {ctype(g.type)} {name}[{g.size}] = {{{init}}};"
            else:
                decl = f"static {ctype(g.type)} {name}[{g.size}];"  # zeroed at start-up
        else:
            decl = f"static {ctype(g.type)} {name} = {self.initial(g, int(g.init))};"  # type: ignore[arg-type]
        notes = [g.doc] if g.doc else []
        if g.role == "state":
            lo, hi = g.range or (0, 0)
            notes.insert(0, (f"{lo}..{hi}" if not g.is_bool else "bool")
                         + (", one per face" if g.size is not None else ""))
            if g.enum:
                notes.insert(0, " ".join(f"{i}={m}" for i, m in enumerate(self.p.enums[g.enum])))
        return {"decl": decl, "origin": _origin(g.loc), "notes": "; ".join(notes)}


    def initial(self, g: GlobalVar, value: int) -> str:
        """A global's initial value as C: the kind's name for a kinds field."""
        if g.enum is not None and f"kind:{g.enum}.{self.p.enums[g.enum][value]}" in self.symbols:
            return self.symbols[f"kind:{g.enum}.{self.p.enums[g.enum][value]}"]
        return const_literal(value, g.type)


_RADIX_LITERAL = re.compile(r"^\s*(\w+)\s*(?::[^=]*)?=\s*(0[bBxX][0-9a-fA-F_]+)\s*(?:#.*)?$")


def _as_written(s: Symbol) -> str | None:
    """A module constant's value in the radix the game wrote it in (`0b010101`, `0xFF`), when
    its line is `NAME = <binary or hex literal>` (C++14, and avr-gcc's C++11, read both)."""
    if s.loc is None or not s.key.startswith("const:") or s.loc.line == 0:
        return None
    m = _RADIX_LITERAL.match(linecache.getline(s.loc.file, s.loc.line))
    if m is None or m.group(1) != s.key[len("const:"):]:
        return None
    literal = m.group(2).replace("_", "")
    return literal if int(literal, 0) == s.value else None


def _engine_as_written(name: str, value: int) -> str:
    """An engine constant's value as its declaration says it: in the radix protocol.py writes
    it in (`TICK_START = 0xFFFFFF00`), with the suffix its decimal literal would have."""
    written = _engine_radix_literals().get(name)
    if written is not None and int(written, 0) == value:
        return written + literal_suffix(value)
    return const_literal(value, _const_type_ir(value))


@functools.cache
def _engine_radix_literals() -> dict[str, str]:
    """protocol.py's constants written in hex or binary, by name (read once, not per sketch)."""
    found = {}
    for line in ENGINE_SOURCE.read_text().splitlines():
        m = _RADIX_LITERAL.match(line)
        if m is not None:
            found.setdefault(m.group(1), m.group(2).replace("_", ""))
    return found


def _uncast(e: Expr) -> Expr:
    while isinstance(e, Cast) and e.type != BOOL and not isinstance(e.type, ColorType):
        e = e.value
    return e


def _value(e: Expr) -> int | None:
    e = _uncast(e)
    return e.value if isinstance(e, Const) else None


def _widened(e: Expr, bits: int) -> Expr:
    """e without the outer casts that keep at least its low `bits` bits (to integer types: a
    cast to bool or to a colour is no such cast)."""
    while (isinstance(e, Cast) and e.type != BOOL and not isinstance(e.type, ColorType)
           and not isinstance(e.value.type, ColorType) and e.value.type != BOOL
           and e.type.bits >= bits):
        e = e.value
    return e


def _unsigned_leaf(e: Expr, code: CExpr, t: IntType) -> bool:
    """The C expression rendered for e (`code`) is of the unsigned type t (16 or 32 bits): an
    operand converted to t, or a variable, an element or a call of type t."""
    return ((isinstance(code, CCast) and code.type == t and not code.result)
            or (isinstance(e, Name | Index | Call) and e.type == t))


def _promotes_to_int(e: Expr) -> bool:
    """The C expression rendered for e has a type C promotes to int (at most 16 bits, and
    signed if 16): a variable, an element or a call of such a type, or `& | ^` of them."""
    if isinstance(e, BinOp) and e.op in ("&", "|", "^"):
        return _promotes_to_int(e.left) and _promotes_to_int(e.right)
    if isinstance(e, Name | Index | Call) and e.type is not None:
        return not isinstance(e.type, ColorType) and (e.type.bits <= 8 or e.type == I16)
    return False


def _holding(lo: int, hi: int) -> str:
    """The narrowest C type that holds lo..hi."""
    for t in ("uint8_t", "int8_t", "uint16_t", "int16_t", "uint32_t"):
        if lo >= {"uint8_t": 0, "int8_t": -128, "uint16_t": 0, "int16_t": -32768,
                  "uint32_t": 0}[t] and hi <= {"uint8_t": 255, "int8_t": 127, "uint16_t": 65535,
                                             "int16_t": 32767, "uint32_t": 4294967295}[t]:
            return t
    return "int32_t"


def _origin(loc: SrcLoc) -> str:
    if loc.line == 0:
        return "generated by blinkc"
    return f"{Path(loc.file).name}:{loc.line}"


#: Where the protocol engine's source is (SrcLoc names it "protocol.py").
ENGINE_SOURCE = Path(__file__).resolve().parents[1] / "dsl" / "protocol.py"
#: A `#line` back to the sketch's own lines (numbered once the sketch is rendered).
BACK_TO_SKETCH = "#line BLINKC_SKETCH_LINE"


def _line_directive(loc: SrcLoc) -> str:
    """`#line` for a game (or engine) line: the file's absolute path, so that compiler
    messages and avr-gdb find it wherever the compiler runs."""
    path = ENGINE_SOURCE if loc.file == "protocol.py" else Path(loc.file).resolve()
    return f'#line {loc.line} "{_c_string(str(path))}"'


def _with_line_directives(lines: list[Line], text: list[str]) -> list[str]:
    """The body's lines, each line that comes from a game (or engine) line preceded by a
    `#line` for it; lines blinkc adds (declarations, braces) count on from there."""
    out: list[str] = []
    expected: tuple[str, int] | None = None  # where the compiler thinks the next line is
    for ln, written in zip(lines, text, strict=True):
        if ln.loc is not None and ln.loc.line:
            if (ln.loc.file, ln.loc.line) != expected:
                out.append(_line_directive(ln.loc))
                expected = (ln.loc.file, ln.loc.line)
        elif ln.loc is not None and expected is not None:  # code blinkc generates
            out.append(BACK_TO_SKETCH)
            expected = None
        out.append(written)
        if expected is not None:
            expected = (expected[0], expected[1] + 1)
    out.append(BACK_TO_SKETCH)
    return out


def _number_sketch_lines(text: str, sketch: str) -> str:
    """Each BACK_TO_SKETCH as the `#line` of the sketch's next line."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line == BACK_TO_SKETCH:
            lines[i] = f'#line {i + 2} "{_c_string(sketch)}"'
    return "\n".join(lines)


def _c_string(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def _indented(lines: list[Line]) -> list[str]:
    return [fold_line("    " * ln.depth + ln.text) for ln in lines]


#: How wide a comment of blinkc's may run (code and comment lines stay within 120 columns).
COMMENT_WIDTH = 100
_SENTENCE_END = re.compile(r"(?<!e\.g)(?<!i\.e)(?<!etc)[.!?](?=\s|$)")


def first_sentence(doc: str) -> str:
    """The first sentence of a docstring (its first paragraph's lines joined), as a
    function's comment: its first line alone may stop mid-sentence."""
    paragraph = " ".join(doc.strip().split("\n\n")[0].split())
    m = _SENTENCE_END.search(paragraph)
    return paragraph[:m.end()] if m else paragraph


def _comment_text(text: str, tail: str) -> list[str]:
    """`text` as the lines of a // comment, wrapped at COMMENT_WIDTH, then `tail` (on the last
    line where it fits within 117 columns, the 120 less the `// `)."""
    lines = textwrap.wrap(text, COMMENT_WIDTH, break_long_words=False, break_on_hyphens=False)
    if lines and len(lines[-1]) + 2 + len(tail) <= 117:
        lines[-1] = f"{lines[-1]}  {tail}"
    else:
        lines.append(tail)
    return lines


def _comment_lines(lines: list[Line]) -> list[str]:
    """Indent, and note the source line where it changes (trailing comments)."""
    out = []
    last = None
    for ln in lines:
        text = "    " * ln.depth + as_code(ln.text).text
        if ln.loc is not None and ln.loc.line and (ln.loc.file, ln.loc.line) != last:
            last = (ln.loc.file, ln.loc.line)
            text = f"{text}  // {Path(ln.loc.file).name}:{ln.loc.line}"
        out.append(text)
    return out


def _lines(origins: list[str]) -> str:
    """pirates_lasers.py:44, pirates_lasers.py:45 -> pirates_lasers.py:44, 45."""
    out, last = [], None
    for o in origins:
        file, _, line = o.rpartition(":")
        out.append(line if file == last else o)
        last = file
    return ", ".join(out)


def _upper_snake(name: str) -> str:
    """BeamFlash, beam_flash, Beam -> BEAM_FLASH, BEAM_FLASH, BEAM."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).upper()


def _reachable(p: Program, roots: tuple[str, ...]) -> set[str]:
    by_name = {f.name: f for f in p.functions}
    seen: set[str] = set()
    todo = [r for r in roots if r in by_name]
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        for c in walk_stmts(by_name[n].body):
            if isinstance(c, Call) and not c.builtin and c.func in by_name:
                todo.append(c.func)
    return seen


#: The operators of a folded constant's expression, as C computes them on ints.
_FOLDED_OPS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b,
}


def _const_type_ir(v: int) -> IntType:
    from ..dsl.types import literal_type

    return literal_type(v)


def _const_type(v: int) -> str:
    """The C type of a named constant: one that computes as its literal does on the tile.
    A byte promotes to int; 256..32,767 is an int, as the literal (and the IR) has it: as a
    uint16_t (an unsigned int on the tile) it would make a comparison with a negative int
    unsigned there and signed on the host."""
    if 0 <= v <= 255:
        return "uint8_t"
    if -0x8000 <= v <= 0x7FFF:
        return "int16_t"
    if 0 <= v <= 0xFFFF:
        return "uint16_t"
    return "uint32_t" if v >= 0 else "int32_t"


def with_note(code: str, note: str) -> str:
    """A declaration with its comment: after it where the line stays within LINE_WIDTH,
    else above it (wrapped)."""
    if not note:
        return code
    if len(code) + len("  // ") + len(note) <= LINE_WIDTH:
        return f"{code}  // {note}"
    indent = code[:len(code) - len(code.lstrip())]
    return "\n".join(indent + line for line in comment(note, width=LINE_WIDTH - len(indent)).split("\n")) \
        + "\n" + code


def enum_of(members: list[str], note: str) -> str:
    """An anonymous enum of the members with its comment: on one line, or one member a line
    where that runs past LINE_WIDTH."""
    line = with_note(f"enum : uint8_t {{ {', '.join(members)} }};", note)
    if max(len(x) for x in line.split("\n")) <= LINE_WIDTH:
        return line
    return "\n".join([with_note("enum : uint8_t {", note), *(f"    {m}," for m in members), "};"])


def comment(text: str | list[str], first: str = "", width: int = LINE_WIDTH) -> str:
    """`first` + text as // lines within `width` (continued lines indented under it); a
    list is a list of items, kept whole and separated by commas."""
    width = width - 3 - len(first)
    if isinstance(text, list):
        lines = [""]
        for i, item in enumerate(text):
            item += "," if i < len(text) - 1 else ""
            if lines[-1] and len(lines[-1]) + 1 + len(item) > width:
                lines.append(item)
            else:
                lines[-1] = f"{lines[-1]} {item}" if lines[-1] else item
    else:
        lines = textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)
    return "\n".join(f"// {first if i == 0 else ' ' * len(first)}{ln}" for i, ln in enumerate(lines))


@functools.cache
def _environment() -> jinja2.Environment:
    """One environment for every sketch, so the template is compiled once a process."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=False,
                             keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined)
    env.filters["with_note"] = with_note
    env.filters["comment"] = comment
    env.filters["enum_of"] = enum_of
    return env


def shown_path(path: str | Path) -> str:
    """The game file as the sketch names it: relative to the current folder (where it was
    given), not as an absolute path that would make the sketch differ between checkouts."""
    p = Path(path)
    if p.is_absolute():
        try:
            p = Path(os.path.relpath(p, Path.cwd()))
        except ValueError:  # another drive
            p = Path(p.name)
    return p.as_posix()


def generate_cpp(program: Program, *, source: str | Path | None = None,
                 line_directives: bool = False, sketch_file: str | Path | None = None) -> str:
    """The Arduino sketch (.ino text) for a program. `source` names the game file in the
    header (by default: its path relative to the current folder). `line_directives` emits
    `#line` before the code of each game line, so that compiler messages and avr-gdb point
    at the game file (and at blinkc's protocol.py for the protocol); what blinkc adds counts in
    the sketch's own lines again (`sketch_file`, by default <game>.ino)."""
    context = CppRenderer(program, line_directives).context()
    context["source"] = str(source) if source is not None else shown_path(program.source)
    text = _environment().get_template("sketch.ino.j2").render(**context)
    if line_directives:
        text = _number_sketch_lines(text, str(sketch_file or f"{program.name}.ino"))
    return text


def sketch_path(out_dir: str | Path, program: Program) -> Path:
    """Where a game's sketch goes: `out_dir/<game>/<game>.ino` (the Arduino IDE's layout)."""
    return Path(out_dir) / program.name / f"{program.name}.ino"
