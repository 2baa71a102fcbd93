"""blinkc's IR: a small, typed, imperative language that both backends render.

Everything a game means is lowered into these nodes once: the author's
handlers, the generated dispatch, and the neighbour protocol engine. Every
integer has an explicit width and signedness (`IntType`), every operation a
result type in which it wraps, and every node the source location it came
from. The backends are pure renderers of this IR; they make no decisions of
their own about arithmetic, so a game means the same in C++ and in Python.

Arithmetic semantics (the same as C on the ATmega168PB):
- a `BinOp` converts both operands to its `type`, computes exactly, and
  wraps the result to `type` (two's complement);
- `//` and `%` truncate toward zero, like C's `/` and `%`;
- `>>` on a signed type is arithmetic;
- comparisons compare in the operation type (`Compare.optype`);
- assigning to a state field with a declared range clamps into the range.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..blinklib.arith import I16, I32, U8, U16, U32, IntType
from .types import BOOL, BoolType

__all__ = [
    "BOOL",
    "I16",
    "I32",
    "U8",
    "U16",
    "U32",
    "Assign",
    "BinOp",
    "BoolOp",
    "BoolType",
    "Break",
    "Call",
    "Cast",
    "Compare",
    "Cond",
    "Const",
    "Continue",
    "Expr",
    "ExprStmt",
    "For",
    "Function",
    "GlobalVar",
    "If",
    "Index",
    "IntType",
    "Local",
    "Name",
    "Param",
    "Program",
    "Return",
    "SrcLoc",
    "Stmt",
    "Symbol",
    "UnOp",
    "WideValue",
]

@dataclass(frozen=True, slots=True)
class SrcLoc:
    """Where a node came from: the author's file and line."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"




# ----------------------------------------------------------------- expressions
@dataclass(frozen=True, slots=True)
class Const:
    value: int
    type: IntType
    is_bool: bool = False
    #: The name the game (or the engine) gives this value, for readers of generated code: a
    #: `Symbol.key` of the program ("kind:Piece.HULL", "const:FULL_HP", "message:Repair",
    #: "flood:Sunk", "timer:pulse", "engine:QUEUE_LEN"), with an offset when the value is one
    #: ("message:Laser+3"). It does not take part in equality: Const(5) is Const(5).
    name: str | None = field(default=None, compare=False)
    #: The expression of named constants this value was folded from (`1 << ACK_SHIFT` for 32,
    #: `~LINK_HEARD` for 251), for readers of generated code when the value has no name of its
    #: own. Like `name`, it does not take part in equality.
    folded: Expr | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Name:
    """A local, a parameter or a global (scalar) variable."""

    name: str
    type: IntType
    scope: str  # "local" | "param" | "global"
    is_bool: bool = False


@dataclass(frozen=True, slots=True)
class Index:
    """An element of a global array (an engine array, or a per-face field)."""

    array: str
    index: Expr
    type: IntType
    is_bool: bool = False


@dataclass(frozen=True, slots=True)
class BinOp:
    op: str  # + - * // % & | ^ << >>
    left: Expr
    right: Expr
    type: IntType


@dataclass(frozen=True, slots=True)
class UnOp:
    op: str  # "-" | "~" | "not"
    operand: Expr
    type: IntType
    is_bool: bool = False


@dataclass(frozen=True, slots=True)
class Compare:
    op: str  # == != < <= > >=
    left: Expr
    right: Expr
    optype: IntType
    type: IntType = BOOL
    is_bool: bool = True


@dataclass(frozen=True, slots=True)
class BoolOp:
    op: str  # "and" | "or"
    values: tuple[Expr, ...]
    type: IntType = BOOL
    is_bool: bool = True


@dataclass(frozen=True, slots=True)
class Cond:
    test: Expr
    body: Expr
    orelse: Expr
    type: IntType
    is_bool: bool = False


@dataclass(frozen=True, slots=True)
class Cast:
    value: Expr
    type: IntType
    is_bool: bool = False


@dataclass(frozen=True, slots=True)
class Call:
    """A call to a program function or to a runtime (blinklib) function."""

    func: str
    args: tuple[Expr, ...]
    type: IntType | None  # None for void
    builtin: bool = False  # a blinklib/runtime function rather than a program function
    is_bool: bool = False


Expr = Const | Name | Index | BinOp | UnOp | Compare | BoolOp | Cond | Cast | Call


# ------------------------------------------------------------------ statements
@dataclass(frozen=True, slots=True)
class Local:
    """Declare a local variable with an initial value."""

    name: str
    type: IntType
    value: Expr
    loc: SrcLoc


@dataclass(frozen=True, slots=True)
class Assign:
    target: Name | Index
    value: Expr
    loc: SrcLoc
    #: Clamp into this inclusive range on assignment (state fields with a declared range).
    clamp: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class If:
    test: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]
    loc: SrcLoc


@dataclass(frozen=True, slots=True)
class For:
    """for var in range(start, stop): body   (var is a uint8 local).

    `bit`, when set, names a uint8 local the loop keeps equal to `1 << var`
    (the optimiser introduces it for loops over faces: see loop_bits.py).
    """

    var: str
    start: Expr
    stop: Expr
    body: tuple[Stmt, ...]
    loc: SrcLoc
    bit: str | None = None


@dataclass(frozen=True, slots=True)
class Return:
    value: Expr | None
    loc: SrcLoc


@dataclass(frozen=True, slots=True)
class ExprStmt:
    value: Call
    loc: SrcLoc


@dataclass(frozen=True, slots=True)
class Break:
    loc: SrcLoc


@dataclass(frozen=True, slots=True)
class Continue:
    loc: SrcLoc


Stmt = Local | Assign | If | For | Return | ExprStmt | Break | Continue


# --------------------------------------------------------------------- program
@dataclass(frozen=True, slots=True)
class Param:
    name: str
    type: IntType
    #: The values callers pass (e.g. a face: 0..5), when narrower than the type.
    range: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class Function:
    name: str
    params: tuple[Param, ...]
    ret: IntType | None
    body: tuple[Stmt, ...]
    loc: SrcLoc
    doc: str = ""
    #: "handler", "engine", "dispatch", "display", "derived", "hook"
    role: str = "engine"


@dataclass(frozen=True, slots=True)
class GlobalVar:
    """A variable in the tile's RAM: a state field, protocol state, a timer."""

    name: str
    type: IntType
    init: int | tuple[int, ...]  # a tuple for arrays
    loc: SrcLoc
    size: int | None = None  # array length, None for a scalar
    #: Declared inclusive range of a state field (assignments clamp into it).
    range: tuple[int, int] | None = None
    role: str = "engine"  # "state" | "engine" | "timer"
    doc: str = ""
    is_bool: bool = False
    #: For a field of a kinds enum: the enum's name (its members are in Program.enums).
    enum: str | None = None


@dataclass(frozen=True, slots=True)
class Symbol:
    """A value the game names: a kind, a message's code, a flood, a timer, a module constant
    (what `Const.name` refers to), and where the game declares it."""

    key: str  # "kind:Piece.HULL", "message:Repair", "flood:Sunk", "timer:pulse", "const:FULL_HP"
    value: int
    type: IntType
    loc: SrcLoc | None = None
    doc: str = ""


@dataclass(frozen=True, slots=True)
class WideValue:
    """A message sent in the wide form, a flood with a value or a gather: what the emulator's
    drivers send and the protocol explorer checks arrive intact."""

    kind: str  # "message", "flood" or "gather"
    name: str
    #: The message's code, or the flood's index k.
    code: int
    lo: int
    hi: int
    #: The data codes that carry a value (its bits from `lo`, high bits first).
    chunks: int
    #: A gather's combination ("sum", "min", "max", "or", "count"), else "".
    combine: str = ""

    def samples(self) -> tuple[int, ...]:
        """A few values to send: a mix of ones and zeros across every data code, the top,
        the bottom."""
        pattern = self.lo + (0xA5A5 & ((1 << (self.hi - self.lo).bit_length()) - 1))
        if pattern > self.hi:
            pattern = self.lo + (self.hi - self.lo) * 2 // 3
        return tuple(dict.fromkeys((pattern, self.hi, self.lo)))


@dataclass(frozen=True, slots=True)
class Program:
    """A whole tile program: globals, functions, and what describes them."""

    name: str
    source: str  # the game file
    globals: tuple[GlobalVar, ...]
    functions: tuple[Function, ...]
    #: Named integer constants the generated code declares (name, value, comment).
    constants: tuple[tuple[str, int, str], ...] = ()
    #: The face-value bit layout: (field name, shift, bits, what it is).
    value_layout: tuple[tuple[str, int, int, str], ...] = ()
    #: Message codes on the wire: (code, name).
    codes: tuple[tuple[int, str], ...] = ()
    #: Kinds (enum names) and their members, for views and traces.
    enums: dict[str, tuple[str, ...]] = field(default_factory=dict)
    randomize: bool = False
    #: The values the game names (kinds, messages, floods, timers, the module constants its
    #: code uses), which `Const.name` refers to.
    symbols: tuple[Symbol, ...] = ()
    #: The values wider than a code (docs/protocol.md): one per message sent in the wide
    #: form, valued flood and gather.
    wide_values: tuple[WideValue, ...] = ()

    def function(self, name: str) -> Function:
        for f in self.functions:
            if f.name == name:
                return f
        raise KeyError(name)


    @property
    def state_fields(self) -> tuple[GlobalVar, ...]:
        return tuple(g for g in self.globals if g.role == "state")

