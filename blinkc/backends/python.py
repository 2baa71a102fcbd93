"""The Python backend: IR → a Python tile program for the emulator.

The generated class has the shape the world expects of any tile program
(`setup`, `loop`, and the optional `quiet_until`, `display`, `state` hooks)
and talks to the tile only through the blinklib API object, exactly as the
C++ does. Every operation wraps to its IR type unless the value ranges show
it cannot overflow, so the arithmetic is the tile's.
"""

from __future__ import annotations

import keyword
from typing import Any

from ..blinklib.arith import c_div, c_mod
from ..ir.nodes import (
    BOOL,
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
    If,
    Index,
    IntType,
    Local,
    Name,
    Program,
    Return,
    Stmt,
    UnOp,
)
from ..ir.ranges import Ranges
from ..ir.visitor import Renderer
from .drive import drive


def _wrap(code: str, t: IntType) -> str:
    mask = (1 << t.bits) - 1
    if t.signed:
        half = 1 << (t.bits - 1)
        return f"(((({code}) + {half}) & {mask}) - {half})"  # whole: it may be an operand
    return f"(({code}) & {mask})"


def _ident(name: str) -> str:
    return f"{name}_" if keyword.iskeyword(name) else name


class PythonRenderer(Renderer):
    def __init__(self, program: Program) -> None:
        self.p = program
        self.ranges = Ranges(program)
        self.lines: list[str] = []

    # ------------------------------------------------------------ expressions
    def conv(self, e: Expr, t: IntType) -> str:
        """e's value converted to t (wrapped only if it might not fit; to bool: non-zero, as
        C converts, unless e is a truth value already)."""
        code = self.expr(e)
        if t == BOOL:
            return code if e.type == BOOL else f"({code} != 0)"
        if self.ranges.fits(self.ranges.of(e), t):
            return code
        return _wrap(code, t)

    def expr(self, e: Expr) -> str:
        return self.visit(e)

    def visit_Const(self, e: Const) -> str:
        return ("True" if e.value else "False") if e.is_bool else str(e.value)

    def visit_Name(self, e: Name) -> str:
        return f"self.{e.name}" if e.scope == "global" else _ident(e.name)

    def visit_Index(self, e: Index) -> str:
        return f"self.{e.array}[{self.expr(e.index)}]"

    def visit_BinOp(self, e: BinOp) -> str:
        a, b = self.conv(e.left, e.type), self.conv(e.right, e.type)
        ra, rb = self.ranges.operand(e.left, e.type), self.ranges.operand(e.right, e.type)
        if e.op in ("//", "%") and not (ra[0] >= 0 and rb[0] > 0):
            code = f"_c{'div' if e.op == '//' else 'mod'}({a}, {b})"
        else:
            code = f"({a} {e.op} {b})"
        if self.ranges.fits(self.ranges.exact(e), e.type):
            return code
        return _wrap(code, e.type)

    def visit_UnOp(self, e: UnOp) -> str:
        if e.op == "not":
            return f"(not {self.expr(e.operand)})"
        if e.op not in ("-", "~"):
            raise ValueError(f"unknown unary operator {e.op!r}")
        return _wrap(f"{e.op}{self.conv(e.operand, e.type)}", e.type)

    def visit_Compare(self, e: Compare) -> str:
        return f"({self.conv(e.left, e.optype)} {e.op} {self.conv(e.right, e.optype)})"

    def visit_BoolOp(self, e: BoolOp) -> str:
        return "(" + f" {e.op} ".join(self.expr(v) for v in e.values) + ")"

    def visit_Cond(self, e: Cond) -> str:
        return f"({self.conv(e.body, e.type)} if {self.expr(e.test)} else {self.conv(e.orelse, e.type)})"

    def visit_Cast(self, e: Cast) -> str:
        if e.type == BOOL:
            return f"({self.expr(e.value)} != 0)"
        return self.conv(e.value, e.type)

    def visit_Call(self, e: Call) -> str:
        args = ", ".join(self.expr(a) for a in e.args)
        return f"api.{e.func}({args})" if e.builtin else f"self.f_{e.func}({args})"

    # ------------------------------------------------------------- statements
    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def block(self, body: tuple[Stmt, ...], depth: int) -> None:
        if not body:
            self.emit(depth, "pass")
        for s in body:
            self.visit(s, depth)

    def visit_Local(self, s: Local, depth: int) -> None:
        self.emit(depth, f"{_ident(s.name)} = {self.conv(s.value, s.type)}")

    def visit_Assign(self, s: Assign, depth: int) -> None:
        target = self.expr(s.target)
        if s.clamp is not None:
            lo, hi = s.clamp
            self.emit(depth, f"{target} = min(max({self.expr(s.value)}, {lo}), {hi})")
        else:
            self.emit(depth, f"{target} = {self.conv(s.value, s.target.type)}")

    def visit_If(self, s: If, depth: int) -> None:
        self.emit(depth, f"if {self.expr(s.test)}:")
        self.block(s.body, depth + 1)
        orelse = s.orelse
        while len(orelse) == 1 and isinstance(orelse[0], If):
            inner = orelse[0]
            self.emit(depth, f"elif {self.expr(inner.test)}:")
            self.block(inner.body, depth + 1)
            orelse = inner.orelse
        if orelse:
            self.emit(depth, "else:")
            self.block(orelse, depth + 1)

    def visit_For(self, s: For, depth: int) -> None:
        self.emit(depth, f"for {_ident(s.var)} in range({self.expr(s.start)}, {self.expr(s.stop)}):")
        if s.bit is not None:
            self.emit(depth + 1, f"{_ident(s.bit)} = 1 << {_ident(s.var)}")
        self.block(s.body, depth + 1)

    def visit_Return(self, s: Return, depth: int) -> None:
        self.emit(depth, "return" if s.value is None else f"return {self.expr(s.value)}")

    def visit_ExprStmt(self, s: ExprStmt, depth: int) -> None:
        self.emit(depth, self.expr(s.value))

    def visit_Break(self, s: Break, depth: int) -> None:
        self.emit(depth, "break")

    def visit_Continue(self, s: Continue, depth: int) -> None:
        self.emit(depth, "continue")

    def function(self, f: Function) -> None:
        self.ranges.enter(f)
        params = "".join(f", {_ident(p.name)}" for p in f.params)
        self.emit(1, f"def f_{f.name}(self{params}):")
        if f.doc:
            self.emit(2, repr(f.doc.splitlines()[0]))
        self.emit(2, "api = self.api")
        self.block(f.body, 2)
        self.emit(0, "")

    # ---------------------------------------------------------------- program
    def render(self) -> str:
        p = self.p
        self.emit(0, f'"""Tile program for {p.name}, generated by blinkc from {p.source}. Do not edit."""')
        self.emit(0, "")
        self.emit(0, "from blinkc.backends.python import _cdiv, _cmod")
        self.emit(0, "")
        self.emit(0, "")
        self.emit(0, "class Program:")
        self.emit(1, f"GAME = {p.name!r}")
        fields = tuple(g.name for g in p.state_fields)
        self.emit(1, f"FIELDS = {fields!r}")
        d = drive(p)
        messages, floods = d.messages, d.floods
        wide_messages, flood_values = d.wide_messages, d.flood_values
        self.emit(1, f"MESSAGES = {messages!r}  # code of each message, as check --verbose names them")
        self.emit(1, f"FLOODS = {floods!r}")
        consts = dict((n, v) for n, v, _ in p.constants)
        if "CODE_SHIFT" in consts:  # where tx_code[f] keeps the code on the wire (protocol.py)
            self.emit(1, f"TX_CODE = ({consts['CODE_SHIFT']}, {consts['CODE_MASK']}, "
                         f"{consts.get('TX_WAIT', 128)})  # (shift, mask, the awaiting-ack bit)")
        if wide_messages or flood_values:
            self.emit(1, f"WIDE_MESSAGES = {wide_messages!r}  # label: (code, value from its lo, data codes)")
            self.emit(1, f"FLOOD_VALUES = {flood_values!r}  # label: (flood, value from its lo)")
        self.emit(0, "")
        self.emit(1, "def __init__(self, **initial):")
        self.emit(2, "self.api = None")
        for g in p.globals:
            init = f"[{g.init[0]}] * {g.size}" if g.size is not None else repr(g.init)
            self.emit(2, f"self.{g.name} = {init}")
        self.emit(2, "for name, value in initial.items():")
        if any(g.size is not None for g in p.state_fields):
            # A per-face field's setting is a list of six: each tile keeps its own copy.
            self.emit(3, "setattr(self, name, list(value) if isinstance(value, list) else value)")
        else:
            self.emit(3, "setattr(self, name, value)")
        self.emit(0, "")
        self.emit(1, "def setup(self, api):")
        self.emit(2, "self.api = api")
        self.emit(2, "self.f_setup()")
        self.emit(0, "")
        self.emit(1, "def loop(self, api):")
        self.emit(2, "self.f_loop()")
        self.emit(0, "")
        self.emit(1, "def quiet_until(self, api):")
        self.emit(2, "return self.f_engine_quiet_until()")
        self.emit(0, "")
        self.emit(1, "def idle(self, api):")
        self.emit(2, "return bool(self.f_engine_idle())")
        self.emit(0, "")
        self.emit(1, "def send(self, label, face):")
        self.emit(2, '"""Queue MESSAGES[label] out of face, as a handler\'s t.send would (the explorer)."""')
        # (A game with messages confined to a group sends through its group's check: it
        # bounces a send outside the group, and passes any other on.)
        if wide_messages:
            self.emit(2, "if label in self.WIDE_MESSAGES:")
            self.emit(3, "code, value, chunks = self.WIDE_MESSAGES[label]")
            self.emit(3, f"self.f_{d.send_wide}(code, value, chunks, face)")
            self.emit(3, "return")
        self.emit(2, f"self.f_{d.send}(self.MESSAGES[label], face)")
        self.emit(0, "")
        self.emit(1, "def start_flood(self, name):")
        self.emit(2, '"""Start flood `name`, as a handler\'s t.flood would (the explorer)."""')
        if flood_values:
            self.emit(2, "if name in self.FLOOD_VALUES:")
            self.emit(3, f"self.f_{d.flood_start_with}(*self.FLOOD_VALUES[name])")
            self.emit(3, "return")
        self.emit(2, f"self.f_{d.flood_start}(self.FLOODS[name])")
        self.emit(0, "")
        if "flood_within" in {f.name for f in p.functions}:
            self.emit(1, "def flood_within_faces(self, k):")
            self.emit(2, '"""Bit f: flood k\'s group lets a wave cross face f now (the explorer)."""')
            self.emit(2, "return sum(1 << f for f in range(6) if self.f_flood_within(k, f))")
            self.emit(0, "")
        self.emit(1, "def links(self, api):")
        self.emit(2, '"""Bit f: face f has a working session with its neighbour."""')
        self.emit(2, "return self.f_engine_links()")
        self.emit(0, "")
        self.emit(1, "def display(self, api):")
        self.emit(2, "self.f_display()")
        self.emit(0, "")
        self.emit(1, "def value(self, api, name):")
        self.emit(2, '"""A derived value of the game, e.g. value(api, \'illegal\')."""')
        self.emit(2, 'return getattr(self, "f_value_" + name)()')
        self.emit(0, "")
        self.emit(1, "def state(self):")
        self.emit(2, "return {")
        for g in p.state_fields:
            v = "v" if g.size is not None else f"self.{g.name}"
            if g.is_bool:
                value = f"bool({v})"
            elif g.enum is not None:
                value = f"{p.enums[g.enum]!r}[{v}]"
            else:
                value = v
            if g.size is not None:  # a per-face field: a list of six
                value = f"list(self.{g.name})" if value == "v" else f"[{value} for v in self.{g.name}]"
            self.emit(3, f"{g.name!r}: {value},")
        self.emit(2, "}")
        self.emit(0, "")
        for f in p.functions:
            self.function(f)
        return "\n".join(self.lines) + "\n"


def _cdiv(a: int, b: int) -> int:
    return c_div(a, b)


def _cmod(a: int, b: int) -> int:
    return c_mod(a, b)


def generate_python(program: Program) -> str:
    """The Python source of a tile program for `program`."""
    return PythonRenderer(program).render()


def program_class(program: Program) -> type:
    """Compile the generated source and return its Program class."""
    source = generate_python(program)
    namespace: dict[str, Any] = {"__name__": f"blinkc_generated_{program.name}"}
    exec(compile(source, f"<blinkc python backend: {program.name}>", "exec"), namespace)
    cls = namespace["Program"]
    cls.SOURCE = source
    return cls
