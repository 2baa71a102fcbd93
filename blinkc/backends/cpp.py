"""The C++ backend: IR → one Arduino sketch for the Blinks SDK.

Small pure functions render expressions, statements and functions; the
Jinja2 template `templates/sketch.ino.j2` lays the sketch out. The output
uses fixed-width types so the host and the ATmega168PB agree, parenthesises
every binary expression, casts only where a value could leave its type (the
same value ranges the Python backend uses), and says which game line each
function and statement came from.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import jinja2

from .. import __version__
from ..dsl.types import ColorType
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
    Program,
    Return,
    SrcLoc,
    Stmt,
    UnOp,
)
from ..ir.walk import walk_stmts
from ..runtime.color import channels
from .ranges import Ranges, repeatable

TEMPLATES = Path(__file__).resolve().parent / "templates"

#: Names the generated code must not take (C++ keywords, blinklib and Arduino names).
RESERVED = set("""
alignas alignof and asm auto bool break case catch char class const constexpr continue default
delete do double else enum explicit export extern false float for friend goto if inline int long
mutable namespace new noexcept not nullptr operator or private protected public register return
short signed sizeof static struct switch template this throw true try typedef typename union
unsigned using virtual void volatile while xor byte word boolean
millis random randomize map dim lighten makeColorRGB makeColorHSB setColor setColorOnFace
setFaceColor sin8_C isAlone buttonDown buttonPressed buttonReleased Timer Color FACE_COUNT
RED ORANGE YELLOW GREEN CYAN BLUE MAGENTA WHITE OFF min max abs
""".split())

#: blinklib functions that some SDK releases lack: the sketch carries its own copy.
LOCAL_HELPERS = {"lighten": "blinkc_lighten"}


def ctype(t: IntType | None) -> str:
    if t is None:
        return "void"
    if isinstance(t, ColorType):
        return "Color"
    if t == BOOL:
        return "bool"
    return t.c_name


def const_literal(value: int, t: IntType) -> str:
    if t == BOOL:
        return "true" if value else "false"
    if isinstance(t, ColorType):
        # The pixel word built at compile time (the template defines BLINKC_RGB5): one
        # 16-bit load where MAKECOLOR_5BIT_RGB would store three bit-fields at run time.
        return "BLINKC_RGB5({}, {}, {})".format(*channels(value))
    if value < 0:
        return f"({value})"
    if value > 0xFFFF:
        return f"{value}UL" if value > 0x7FFFFFFF else f"{value}L"
    if value > 0x7FFF:
        return f"{value}U"
    return str(value)


@dataclass
class Line:
    depth: int
    text: str
    loc: SrcLoc | None = None


class CppRenderer:
    def __init__(self, program: Program) -> None:
        self.p = program
        self.ranges = Ranges(program)
        self.names = self._names()
        self.needs_signed_div = False

    def _names(self) -> dict[str, str]:
        out = {}
        taken = set(RESERVED)
        for n in [g.name for g in self.p.globals] + [f.name for f in self.p.functions]:
            out[n] = n if n not in taken or n in ("setup", "loop") else f"{n}_"
        return out

    def name(self, n: str) -> str:
        return self.names.get(n, n if n not in RESERVED else f"{n}_")

    # ------------------------------------------------------------ expressions
    def conv(self, e: Expr, t: IntType) -> str:
        """e's value as type t: a cast only where the value might not fit."""
        if (isinstance(e, Const) and t.bits == 32 and t.signed and not isinstance(t, ColorType)
                and 0x7FFF < e.value <= 0xFFFF):
            # 32768U is 16 bits on the tile but 32 on the host, where it would turn a 32-bit
            # signed comparison or sum unsigned: say long, as the tile computes it.
            return f"{e.value}L"
        code = self.expr(e)
        if t == BOOL or isinstance(t, ColorType) or self.ranges.fits(self.ranges.of(e), t):
            return code
        return f"({ctype(t)}){code}"

    def expr(self, e: Expr) -> str:
        if isinstance(e, Const):
            return const_literal(e.value, e.type)
        if isinstance(e, Name):
            return self.name(e.name)
        if isinstance(e, Index):
            return f"{self.name(e.array)}[{self.expr(e.index)}]"
        if isinstance(e, BinOp):
            return self.binop(e)
        if isinstance(e, UnOp):
            if e.op == "not":
                return f"(!{self.expr(e.operand)})"
            return f"(({ctype(e.type)})(~{self.conv(e.operand, e.type)}))"
        if isinstance(e, Compare):
            return f"({self.conv(e.left, e.optype)} {e.op} {self.conv(e.right, e.optype)})"
        if isinstance(e, BoolOp):
            op = " && " if e.op == "and" else " || "
            return "(" + op.join(self.expr(v) for v in e.values) + ")"
        if isinstance(e, Cond):
            with self.ranges.assuming(e.test, True):
                body = self.conv(e.body, e.type)
            with self.ranges.assuming(e.test, False):
                orelse = self.conv(e.orelse, e.type)
            return f"({self.expr(e.test)} ? {body} : {orelse})"
        if isinstance(e, Cast):
            if e.type == BOOL:
                return f"({self.expr(e.value)} != 0)"
            return self.conv(e.value, e.type)
        if isinstance(e, Call):
            func = LOCAL_HELPERS.get(e.func, e.func) if e.builtin else self.name(e.func)
            return f"{func}({', '.join(self.expr(a) for a in e.args)})"
        raise TypeError(e)

    def binop(self, e: BinOp) -> str:
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
                    return f"blinkc_div<{ctype(t)}, u{ctype(t)}>({a}, {b})"
                return f"blinkc_mod<{ctype(t)}>({a}, {b})"
        exact = self.ranges.exact(e)
        if self.ranges.fits(exact, t):
            if e.op in ("+", "-", "*", "<<") and 0 <= exact[0] and exact[1] <= 255:
                # C would compute in int; the value fits a byte, and saying so lets the
                # 8-bit AVR compare and subtract in one register instead of two.
                return f"(uint8_t)({a} {c_op} {b})"
            if e.op in ("+", "-", "*", "<<") and not self.ranges.fits(exact, I16):
                # The value fits t, not the tile's 16-bit int: operands narrower than int
                # (a byte local, say) would compute in int and overflow, so compute in t.
                a = f"({ctype(t)}){a}"
            return f"({a} {c_op} {b})"
        if e.op in ("+", "-", "*", "<<"):
            # Wrap-around on purpose: compute in unsigned arithmetic (no signed overflow, which
            # C leaves undefined), then convert to the result type: the same bits on tile and host.
            one = "1UL" if t.bits > 16 else "1U"
            return f"(({ctype(t)})({one} * {a} {c_op} {b}))"
        return f"(({ctype(t)})({a} {c_op} {b}))"

    # ------------------------------------------------------------- statements
    def block(self, body: tuple[Stmt, ...], depth: int, out: list[Line]) -> None:
        for s in body:
            self.stmt(s, depth, out)

    def stmt(self, s: Stmt, depth: int, out: list[Line]) -> None:
        if isinstance(s, Local):
            out.append(Line(depth, f"{self.name(s.name)} = {self.conv(s.value, s.type)};", s.loc))
        elif isinstance(s, Assign):
            target = self.expr(s.target)
            if s.clamp is not None:
                lo, hi = s.clamp
                value = self.expr(s.value)
                vr = self.ranges.of(s.value)
                t = ctype(s.value.type)
                if vr[0] >= lo:  # only the top can be crossed
                    code = f"blinkc_at_most<{t}>({value}, {hi})"
                elif vr[1] <= hi:
                    code = f"blinkc_at_least<{t}>({value}, {lo})"
                else:
                    code = f"blinkc_clamp<{t}>({value}, {lo}, {hi})"
                out.append(Line(depth, f"{target} = {code};", s.loc))
            else:
                out.append(Line(depth, f"{target} = {self.conv(s.value, s.target.type)};", s.loc))
        elif isinstance(s, If):
            out.append(Line(depth, f"if {self.paren(s.test)} {{", s.loc))
            self.block(s.body, depth + 1, out)
            orelse = s.orelse
            while len(orelse) == 1 and isinstance(orelse[0], If):
                inner = orelse[0]
                out.append(Line(depth, f"}} else if {self.paren(inner.test)} {{", inner.loc))
                self.block(inner.body, depth + 1, out)
                orelse = inner.orelse
            if orelse:
                out.append(Line(depth, "} else {"))
                self.block(orelse, depth + 1, out)
            out.append(Line(depth, "}"))
        elif isinstance(s, For):
            var = self.name(s.var)
            start = self.expr(s.start)
            stop = self.expr(s.stop)
            if not isinstance(s.stop, Const):
                # Python evaluates range(stop) once, before the loop: so must we.
                end = self.conv(s.stop, s.start.type)
                if self.ranges.of(s.stop)[0] < 0 and repeatable(s.stop):
                    # range() to a negative stop is empty; as a byte, -5 would be 251 turns.
                    end = f"({stop} < 0 ? 0 : {end})"
                out.append(Line(depth, f"{var}_end = {end};", s.loc))
                stop = f"{var}_end"
            if s.bit is not None:
                # The bit moves along with the variable: no shift by a variable amount.
                bit = self.name(s.bit)
                first = 1 << s.start.value  # type: ignore[union-attr]
                out.append(Line(depth, f"for ({var} = {start}, {bit} = {first}; {var} < {stop}; "
                                       f"{var}++, {bit} <<= 1) {{", s.loc))
            else:
                out.append(Line(depth, f"for ({var} = {start}; {var} < {stop}; {var}++) {{", s.loc))
            self.block(s.body, depth + 1, out)
            out.append(Line(depth, "}"))
        elif isinstance(s, Return):
            out.append(Line(depth, "return;" if s.value is None else f"return {self.expr(s.value)};", s.loc))
        elif isinstance(s, ExprStmt):
            out.append(Line(depth, f"{self.expr(s.value)};", s.loc))
        elif isinstance(s, Break):
            out.append(Line(depth, "break;", s.loc))
        elif isinstance(s, Continue):
            out.append(Line(depth, "continue;", s.loc))
        else:
            raise TypeError(s)

    def paren(self, e: Expr) -> str:
        code = self.expr(e)
        return code if code.startswith("(") and _balanced_outer(code) else f"({code})"

    # --------------------------------------------------------------- functions
    def signature(self, f: Function, host_only: bool = False) -> str:
        used = {n.name for n in walk_stmts(f.body) if isinstance(n, Name) and n.scope == "param"}
        params = ", ".join(f"{ctype(p.type)} {self.name(p.name)}" if p.name in used
                           else f"{ctype(p.type)} /* {p.name} */" for p in f.params) or "void"
        storage = "" if f.name in ("setup", "loop") else "static "
        # Functions only the emulator calls are dropped from the tile's image by the linker.
        attr = "__attribute__((unused)) " if host_only else ""
        return f"{attr}{storage}{ctype(f.ret)} {self.name(f.name)}({params})"

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
        lines: list[Line] = []
        # Python locals live for the whole function: declare them all at the top.
        for name, t in self.locals_of(f):
            init = const_literal(0, t) if isinstance(t, ColorType) else "0"
            lines.append(Line(1, f"{ctype(t)} {self.name(name)} = {init};"))
        self.block(f.body, 1, lines)
        return {"signature": self.signature(f, host_only), "doc": f.doc.splitlines()[0] if f.doc else "",
                "origin": _origin(f.loc), "role": f.role, "lines": _comment_lines(lines)}

    # ----------------------------------------------------------------- program
    def context(self) -> dict:
        p = self.p
        firmware = _reachable(p, ("setup", "loop"))
        uses = {c.func for f in p.functions for c in walk_stmts(f.body) if isinstance(c, Call)}
        # What no code reads any more (the coin's LFSR when the game randomizes) is left out.
        used = {n for f in p.functions for n in _globals_read(f.body)}
        return {
            "name": p.name, "source": p.source, "version": __version__,
            "layout": [(n, shift, bits, what) for n, shift, bits, what in p.value_layout],
            "codes": p.codes,
            "constants": [(k, _const_type(v), const_literal(v, _const_type_ir(v)), doc)
                          for k, v, doc in p.constants],
            "state": [self.global_decl(g) for g in p.globals if g.role == "state"],
            "engine": [self.global_decl(g) for g in p.globals if g.role != "state" and g.name in used],
            "prototypes": [self.signature(f, f.name not in firmware) + ";" for f in p.functions
                           if f.name not in ("setup", "loop")],
            "functions": [self.function(f, f.name not in firmware) for f in p.functions],
            "fields": [self.name(g.name) for g in p.state_fields],
            "derived": [(f.name[len("value_"):], self.name(f.name), ctype(f.ret))
                        for f in p.functions if f.role == "derived"],
            "needs_lighten": "lighten" in uses,
            "needs_skip_frame": "blinkc_skip_frame" in uses,
            "needs_clamp": any(isinstance(s, Assign) and s.clamp for f in p.functions
                               for s in walk_stmts(f.body)),
            "needs_signed_div": self.needs_signed_div,  # set while rendering the functions
        }

    def global_decl(self, g: GlobalVar) -> dict:
        name = self.name(g.name)
        if g.size is not None:
            values = tuple(g.init) if isinstance(g.init, tuple) else (int(g.init),) * g.size
            if any(values):
                init = ", ".join(const_literal(v, g.type) for v in values)
                decl = f"static {ctype(g.type)} {name}[{g.size}] = {{{init}}};"
            else:
                decl = f"static {ctype(g.type)} {name}[{g.size}];"  # zeroed at start-up
        else:
            init = const_literal(int(g.init), g.type)  # type: ignore[arg-type]
            decl = f"static {ctype(g.type)} {name} = {init};"
        notes = [g.doc] if g.doc else []
        if g.role == "state":
            lo, hi = g.range or (0, 0)
            notes.insert(0, f"{lo}..{hi}" if not g.is_bool else "bool")
            if g.enum:
                notes.insert(0, " ".join(f"{i}={m}" for i, m in enumerate(self.p.enums[g.enum])))
        return {"decl": decl, "origin": _origin(g.loc), "notes": "; ".join(notes)}


def _balanced_outer(code: str) -> bool:
    depth = 0
    for i, ch in enumerate(code):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and i < len(code) - 1:
            return False
    return True


def _origin(loc: SrcLoc) -> str:
    if loc.line == 0:
        return "generated by blinkc"
    return f"{Path(loc.file).name}:{loc.line}"


def _comment_lines(lines: list[Line]) -> list[str]:
    """Indent, and note the source line where it changes (trailing comments)."""
    out = []
    last = None
    for ln in lines:
        text = "    " * ln.depth + ln.text
        if ln.loc is not None and ln.loc.line and (ln.loc.file, ln.loc.line) != last:
            last = (ln.loc.file, ln.loc.line)
            text = f"{text}  // {Path(ln.loc.file).name}:{ln.loc.line}"
        out.append(text)
    return out


def _globals_read(body: tuple[Stmt, ...]) -> set[str]:
    out = set()
    for n in walk_stmts(body):
        if isinstance(n, Name) and n.scope == "global":
            out.add(n.name)
        elif isinstance(n, Index):
            out.add(n.array)
    return out


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


def _const_type_ir(v: int) -> IntType:
    from ..dsl.types import literal_type

    return literal_type(v)


def _const_type(v: int) -> str:
    if 0 <= v <= 255:
        return "uint8_t"
    if 0 <= v <= 0xFFFF:
        return "uint16_t"
    return "uint32_t" if v >= 0 else "int32_t"


def _environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=False,
                              keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                              undefined=jinja2.StrictUndefined)


def generate_cpp(program: Program) -> str:
    """The Arduino sketch (.ino text) for a program."""
    return _environment().get_template("sketch.ino.j2").render(**CppRenderer(program).context())


def generate_sketch(game_path: str | Path, out_dir: str | Path) -> Path:
    """Compile a game and write `out_dir/<game>/<game>.ino`; returns the .ino path."""
    from ..dsl.loader import compile_game

    program = compile_game(game_path)
    folder = Path(out_dir) / program.name
    folder.mkdir(parents=True, exist_ok=True)
    ino = folder / f"{program.name}.ino"
    ino.write_text(generate_cpp(program))
    return ino
