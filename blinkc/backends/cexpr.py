"""C++ expressions as a small tree, and their printer.

The C++ backend builds an expression's tree from the IR, then prints it once: each operand is
printed knowing the precedence of the operator it goes into, so parentheses appear where C++
needs them to keep the tree, and where a careful author adds them for the reader (what
`-Wparentheses` warns of: `a & b == c`, `a + b << c`, `a && b || c`; and nested `?:`). The
tree is never printed and read back: whatever the backend asks of an expression (is it a cast,
a plain literal), it asks of the tree.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir.types import BOOL, ColorType, IntType
from .layout import Break, Code


def ctype(t: IntType | None) -> str:
    """The C++ type of an IR type (None: a function that returns nothing)."""
    if t is None:
        return "void"
    if isinstance(t, ColorType):
        return "Color"
    if t == BOOL:
        return "bool"
    return t.c_name


@dataclass(frozen=True, slots=True)
class Num:
    """An integer literal: `5`, `32768U`, `100000L`; a negative one is `-5`."""

    value: int
    suffix: str = ""


@dataclass(frozen=True, slots=True)
class Word:
    """A name (a variable, a constant, `true`): one operand nothing can split."""

    text: str


@dataclass(frozen=True, slots=True)
class Cast:
    """`(type)value`. `result` marks the cast that brings an arithmetic result back to its
    type (`(uint16_t)(1U * a + b)`), as against one that converts an operand to a type."""

    type: IntType
    value: CExpr
    result: bool = False


@dataclass(frozen=True, slots=True)
class Unary:
    op: str  # ! ~ -
    operand: CExpr


@dataclass(frozen=True, slots=True)
class Binary:
    """`left op right`, op one of C++'s binary operators (`&&`, `||` too). `wraps` marks
    arithmetic that wraps on purpose, computed in unsigned (`1U * a + b`)."""

    op: str
    left: CExpr
    right: CExpr
    wraps: bool = False


@dataclass(frozen=True, slots=True)
class Cond:
    test: CExpr
    body: CExpr
    orelse: CExpr


@dataclass(frozen=True, slots=True)
class Call:
    """`func(args)`; func may name a template's instance (`blinkc_at_most<uint8_t>`)."""

    func: str
    args: tuple[CExpr, ...]


@dataclass(frozen=True, slots=True)
class Index:
    """`base[index]` (base a name, or an element of a table: `table[row][i]`)."""

    base: CExpr
    index: CExpr


CExpr = Num | Word | Cast | Unary | Binary | Cond | Call | Index


def call(func: str, *args: CExpr) -> Call:
    return Call(func, args)


def chain(op: str, values: list[CExpr]) -> CExpr:
    """`a op b op c`, grouped from the left as C++ groups it (`&&`, `||`)."""
    out = values[0]
    for v in values[1:]:
        out = Binary(op, out, v)
    return out


# How tightly each kind of expression binds (C++'s precedence; higher binds tighter).
COMMA, ASSIGN, COND, OR, AND, BIT_OR, BIT_XOR, BIT_AND, EQUALITY, RELATION, SHIFT, ADD, MUL, \
    UNARY, POSTFIX = range(1, 16)

BINARY = {
    "*": MUL, "/": MUL, "%": MUL, "+": ADD, "-": ADD, "<<": SHIFT, ">>": SHIFT,
    "<": RELATION, "<=": RELATION, ">": RELATION, ">=": RELATION, "==": EQUALITY,
    "!=": EQUALITY, "&": BIT_AND, "^": BIT_XOR, "|": BIT_OR, "&&": AND, "||": OR,
}
_BITWISE = {"&", "^", "|"}
_SHIFTS = {"<<", ">>"}
_COMPARISONS = {op for op, p in BINARY.items() if p in (RELATION, EQUALITY)}


def precedence(e: CExpr) -> int:
    if isinstance(e, Binary):
        return BINARY[e.op]
    if isinstance(e, Cond):
        return COND
    if isinstance(e, Cast | Unary) or (isinstance(e, Num) and e.value < 0):
        return UNARY
    return POSTFIX


def _for_the_reader(op: str, operand: CExpr) -> bool:
    """Parentheses C++ does not need but a reader (and gcc's -Wparentheses) wants around an
    operand of `op` (`?:` for the conditional): another operator inside `& ^ |`, a sum inside
    a shift, a shift or a comparison inside a comparison, a shift or `& ^ |` inside a logical
    operator or a conditional's test, `&&` inside `||`, and a conditional inside another."""
    if isinstance(operand, Cond):
        return op == "?:"
    if not isinstance(operand, Binary):
        return False
    inner = operand.op
    if op in _BITWISE:
        return inner != op
    if op in _SHIFTS:
        return inner in ("+", "-")
    if op in _COMPARISONS:
        return inner in _COMPARISONS or inner in _SHIFTS
    if op in ("&&", "||", "?:") and (inner in _BITWISE or inner in _SHIFTS):
        return True
    return op == "||" and inner == "&&"


def show(e: CExpr, at_least: int = ASSIGN) -> str:
    """e as C++ text, where it goes into a context that binds operands of at least
    precedence `at_least` (an argument, an initialiser or a statement's: ASSIGN)."""
    w = _Writer(0)
    w.write(e, at_least)
    return w.code().text


def printed(e: CExpr, depth: int = 0) -> Code:
    """e as the code of a statement's part (at ASSIGN), inside `depth` parentheses (1 in
    `if (...)`), with the places a long line may be broken."""
    w = _Writer(depth)
    w.write(e, ASSIGN)
    return w.code()


class _Writer:
    """Writes an expression's text, noting each separator and the parentheses open there."""

    def __init__(self, depth: int) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.depth = depth
        self.breaks: list[Break] = []

    def code(self) -> Code:
        return Code("".join(self.parts), tuple(self.breaks))

    def put(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text)

    def sep(self, text: str) -> None:
        self.breaks.append(Break(self.size, self.depth, text))
        self.put(text)

    def write(self, e: CExpr, at_least: int, within: str = "") -> None:
        """e as an operand of an operator that binds operands of at least `at_least`
        (`within`: that operator, whose reader may want more parentheses)."""
        if precedence(e) < at_least or (within and _for_the_reader(within, e)):
            self.put("(")
            self.depth += 1
            self.bare(e)
            self.depth -= 1
            self.put(")")
        else:
            self.bare(e)

    def bare(self, e: CExpr) -> None:
        if isinstance(e, Num):
            self.put(f"{e.value}{e.suffix}")
        elif isinstance(e, Word):
            self.put(e.text)
        elif isinstance(e, Cast):
            self.put(f"({ctype(e.type)})")
            self.write(e.value, UNARY)
        elif isinstance(e, Unary):
            inner = e.operand
            self.put(e.op)
            if e.op == "-" and ((isinstance(inner, Unary) and inner.op == "-")
                                or (isinstance(inner, Num) and inner.value < 0)):
                self.write(inner, POSTFIX)  # `-(-x)`, not the decrement `--x`
            else:
                self.write(inner, UNARY)
        elif isinstance(e, Binary):
            p = BINARY[e.op]
            # C++ groups each of these operators from the left: a right operand of the same
            # precedence needs its parentheses (a - (b - c)).
            self.write(e.left, p, e.op)
            self.sep(f" {e.op} ")
            self.write(e.right, p + 1, e.op)
        elif isinstance(e, Cond):
            self.write(e.test, OR, "?:")
            self.sep(" ? ")
            self.write(e.body, ASSIGN, "?:")
            self.sep(" : ")
            self.write(e.orelse, COND, "?:")
        elif isinstance(e, Call):
            self.put(f"{e.func}(")
            self.depth += 1
            for i, a in enumerate(e.args):
                if i:
                    self.sep(", ")
                self.write(a, ASSIGN)
            self.depth -= 1
            self.put(")")
        elif isinstance(e, Index):
            self.write(e.base, POSTFIX)
            self.put("[")
            self.write(e.index, ASSIGN)
            self.put("]")
        else:
            raise TypeError(f"not a C++ expression: {e!r}")


def uncast(e: CExpr, bits: int) -> CExpr:
    """e without its outer casts to integer types of at least `bits` bits: where what is done
    with the value reduces it modulo 2**bits anyway, they change nothing."""
    while (isinstance(e, Cast) and e.type != BOOL and not isinstance(e.type, ColorType)
           and e.type.bits >= bits):
        e = e.value
    return e
