"""Fuzzing the optimiser: random games compute the same values optimised or not.

Hypothesis writes small random games (source text): fields of random ranges
(signed and unsigned, 8 to 32 bits, bools, faces), helpers with typed
parameters, and one or more `@game.derived` functions made of random
statements (locals assigned and reassigned in branches, byte-minded locals
read only through their low byte, `+=`-style updates, if/elif/else, face
loops and `range` loops with break/continue and bounds held in fields or
locals, early returns, field assignments that clamp) over random expressions
(+ - * // % & | ^ << >> ~, comparisons and chains, `a if c else b`, `and`/
`or`/`not`, `bit(x, f)`, `1 << f`, `opposite`/`cw`/`ccw` and `% 6`,
min/max/abs, masks such as `& 255`, `t.now`, constants that wrap in 16 bits),
and a display that computes colours from them. Each game is compiled twice,
with the whole optimiser and with none of it, and its derived values are
computed for random field values and random clocks by:

- the Python backend, on the optimised IR (what the emulator runs),
- the Python backend, on the unoptimised IR,
- a reference interpreter of the IR written here, which wraps every
  operation to its type and trusts no value range (so a wrong range, which
  both renderers would use to leave out a wrap, shows too),

and, for a few games (a C++ build each), the C++ backend compiled for the
host; the backends' pixels must agree too. Any difference is a bug of the
optimiser or of a renderer. (The host's int is 32 bits: what only the tile's
16-bit int would get wrong is not seen here.)

Kept out, because the DSL accepts them but they mean different things in
Python and C++ (not the optimiser's doing): reading a loop variable after
its loop (C++ leaves it one past the end), a local read before any
assignment, loop stops beyond 255 (the loop variable is a byte), and derived
values that assign fields read amid other reads (C++ leaves the order of
operands open): only the last derived value assigns fields, and only the
display reads it, first.

The default tier runs 30 games (4 C++ builds), the long tier 480 (48), always the same
sample; BLINKC_FUZZ_RUNS=<n> makes the long tier n fresh random games (and n // 10 C++
builds, or BLINKC_FUZZ_NATIVE_RUNS).
A failure prints the game and the inputs (there is no shrinking: it takes
minutes on whole programs); `pytest -s` prints how many games compiled.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

from blinkc.backends.python import program_class
from blinkc.blinklib.api import Blinklib
from blinkc.blinklib.arith import c_div, c_mod
from blinkc.dsl import lowering as lowering_module
from blinkc.dsl.errors import GameErrors
from blinkc.dsl.loader import compile_game
from blinkc.ir.nodes import (
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
    ExprStmt,
    For,
    Function,
    If,
    IntType,
    Local,
    Name,
    Program,
    Return,
    UnOp,
)

from ..tiers import tiered

#: Games per run in the long tier: a fixed sample (the same each time), fresh random ones
#: when asked for; the default tier runs a fixed smaller sample.
RUNS = int(os.environ.get("BLINKC_FUZZ_RUNS", "480"))
NATIVE_RUNS = int(os.environ.get("BLINKC_FUZZ_NATIVE_RUNS", str(max(6, RUNS // 10))))
DERANDOMIZE = "BLINKC_FUZZ_RUNS" not in os.environ
INPUTS = 12  # field values and clocks per game

# ------------------------------------------------------------------ generating games
#: Field declarations: (type text, lowest value, highest value).
FIELD_TYPES = [
    ("range(0, 2)", 0, 1), ("range(0, 6)", 0, 5), ("range(0, 100)", 0, 99),
    ("range(0, 256)", 0, 255), ("range(3, 200)", 3, 199), ("range(0, 1000)", 0, 999),
    ("range(0, 65536)", 0, 65535), ("range(0, 70000)", 0, 69999),
    ("range(-50, 50)", -50, 49), ("range(-40000, 40000)", -40000, 39999),
    ("range(-32768, 32768)", -32768, 32767), ("range(-2**31, 2**31)", -2**31, 2**31 - 1),
    ("range(0, 2**32)", 0, 2**32 - 1), ("bool", 0, 1), ("Face", 0, 5),
]
#: Result types of derived values: every width and signedness the DSL can declare.
RESULT_TYPES = ["range(-2**31, 2**31)", "range(0, 2**32)", "range(0, 256)", "range(-32768, 32768)",
                "range(0, 65536)", "range(-100, 100)", "bool", "range(0, 6)"]
CONSTANTS = [0, 1, 2, 3, 5, 6, 7, 8, 15, 16, 31, 40, 63, 64, 100, 127, 128, 200, 255, 256, 300,
             1000, 4095, 32767, 32768, 40000, 65535, 65536, 70000, 100000, 2**31 - 1, 2**31,
             2**32 - 1, -1, -2, -3, -6, -100, -128, -129, -256, -1000, -32768, -32769, -70000]
BINOPS = ["+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>"]
CMPOPS = ["==", "!=", "<", "<=", ">", ">="]
AUGOPS = ["+=", "-=", "*=", "&=", "|=", "^=", "<<=", ">>=", "//=", "%="]


@dataclass
class Scope:
    """What an expression may read at one point of a function."""

    locals: list[str] = field(default_factory=list)
    #: Loop variables, nested innermost last.
    loop_vars: list[str] = field(default_factory=list)
    in_loop: bool = False
    #: A helper's parameters (read, never assigned).
    params: list[str] = field(default_factory=list)

    def child(self, **changes) -> Scope:
        s = Scope(list(self.locals), list(self.loop_vars), self.in_loop, list(self.params))
        for k, v in changes.items():
            setattr(s, k, v)
        return s


class Writer:
    """Writes one random game, drawing every choice from hypothesis."""

    def __init__(self, draw) -> None:
        self.draw = draw
        self.fields: list[tuple[str, str, int, int]] = []
        self.derived: list[tuple[str, str]] = []
        self.names = 0
        self.declared: set[str] = set()  # annotated locals of the function being written
        self.statements = 0
        #: Whether the function being written may assign fields (see game()).
        self.assigns_fields = False
        #: The derived value that assigns fields, if any: read once, by the display, first.
        self.mutator: str | None = None
        #: Helpers written so far: (name, parameter annotations); calls nest at most twice.
        self.helpers: list[tuple[str, list[str]]] = []
        self.helper_depth = 0
        #: Inside min(), max(), abs() and chained comparisons: no t.now (not pure for the DSL).
        self.pure = 0

    def pick(self, options):
        return self.draw(st.sampled_from(options))

    def chance(self, p: float) -> bool:
        return self.draw(st.integers(0, 999)) < p * 1000

    # ------------------------------------------------------------ expressions
    def leaf(self, scope: Scope) -> str:
        kinds = ["const", "field", "field"] + (["now"] if not self.pure else [])
        if scope.locals:
            kinds += ["local"] * 3
        if scope.loop_vars:
            kinds += ["loop"] * 2
        if self.derived:
            kinds.append("derived")
        if scope.params:
            kinds += ["param"] * 3
        if self.helpers and not self.pure and self.helper_depth < 2:
            kinds.append("helper")
        kind = self.pick(kinds)
        if kind == "param":
            return self.pick(scope.params)
        if kind == "helper":
            name, params = self.pick(self.helpers)
            self.helper_depth += 1
            try:
                args = "".join(f", {self.expr(scope, 1)}" for _ in params)
            finally:
                self.helper_depth -= 1
            return f"{name}(t{args})"
        if kind == "const":
            return str(self.pick(CONSTANTS))
        if kind == "field":
            return "t." + self.pick(self.fields)[0]
        if kind == "now":
            return self.pick(["t.now", "(t.now >> 3)", "(t.now & 255)", "(t.now >> 24)"])
        if kind == "local":
            name = self.pick(scope.locals)
            if name.startswith("b"):
                # A byte-minded local: read only through its low byte (demanded.py narrows it).
                return (f"(({name} {self.pick(['+', '-', '*', '^', '|', '&'])} {self.leaf(scope)})"
                        f" & {self.pick([1, 15, 127, 255])})")
            return name
        if kind == "loop":
            return self.pick(scope.loop_vars)
        return "t." + self.pick(self.derived)[0]

    def expr(self, scope: Scope, depth: int) -> str:
        if depth <= 0 or self.chance(0.2):
            return self.leaf(scope)
        kind = self.pick(["bin"] * 6 + ["cmp", "cond", "unary", "mask", "bit", "shift1", "minmax",
                                        "abs", "boolop", "face"])
        sub = lambda: self.expr(scope, depth - 1)  # noqa: E731
        if kind == "bin":
            op = self.pick(BINOPS)
            if op in ("//", "%"):
                return f"({sub()} {op} {self.divisor(scope, depth - 1)})"
            if op in ("<<", ">>"):
                return f"({sub()} {op} {self.shift(scope, depth - 1)})"
            return f"({sub()} {op} {sub()})"
        if kind == "cmp":
            if self.chance(0.15):
                first = sub()
                with self.pure_only():
                    return f"({first} {self.pick(CMPOPS)} {sub()} {self.pick(CMPOPS)} {self.leaf(scope)})"
            return f"({sub()} {self.pick(CMPOPS)} {sub()})"
        if kind == "cond":
            return f"({sub()} if {self.test(scope, depth - 1)} else {sub()})"
        if kind == "unary":
            return f"({self.pick(['-', '~', 'not '])}{sub()})"
        if kind == "mask":
            return f"({sub()} & {self.pick([1, 3, 7, 15, 63, 127, 255, 511, 1023, 65535, 0x7FFF])})"
        if kind == "bit":
            index = self.pick(scope.loop_vars) if scope.loop_vars and self.chance(0.7) \
                else self.shift(scope, depth - 1)
            return f"bit({sub()}, {index})"
        if kind == "shift1":
            index = self.pick(scope.loop_vars) if scope.loop_vars and self.chance(0.8) \
                else self.shift(scope, depth - 1)
            return f"(1 << {index})"
        if kind == "minmax":
            with self.pure_only():
                return f"{self.pick(['min', 'max'])}({sub()}, {sub()})"
        if kind == "face":
            # Face arithmetic: (x + k) % 6 with x small, which the optimiser turns into a compare.
            face = self.pick(scope.loop_vars) if scope.loop_vars and self.chance(0.7) \
                else f"({sub()} & {self.pick([3, 7])})"
            how = self.pick(["opposite", "cw", "ccw", "cw2", "ccw2", "mod"])
            if how == "opposite":
                return f"opposite({face})"
            if how in ("cw", "ccw"):
                return f"{how}({face})"
            if how in ("cw2", "ccw2"):
                return f"{how[:-1]}({face}, {self.pick([0, 1, 2, 3, 5, 6, 7])})"
            return f"(({face} + {self.pick([1, 2, 3, 5, 6, 9])}) % {self.pick([6, 8, 11])})"
        if kind == "abs":
            with self.pure_only():
                return f"abs({sub()})"
        return f"({sub()} {self.pick(['and', 'or'])} {sub()})"

    @contextmanager
    def pure_only(self):
        self.pure += 1
        try:
            yield
        finally:
            self.pure -= 1

    def test(self, scope: Scope, depth: int) -> str:
        if self.chance(0.6):
            return f"{self.expr(scope, depth)} {self.pick(CMPOPS)} {self.expr(scope, max(depth - 1, 0))}"
        if scope.loop_vars and self.chance(0.5):
            return f"bit({self.expr(scope, depth)}, {self.pick(scope.loop_vars)})"
        return self.expr(scope, depth)

    def divisor(self, scope: Scope, depth: int) -> str:
        # Never 0 (C leaves it undefined) nor -1 (INT_MIN // -1 traps on the host).
        if self.chance(0.6):
            return str(self.pick([2, 3, 4, 5, 6, 7, 8, 10, 16, 64, 100, 256, 1000, 4096, 65536,
                                  -2, -3, -6, -256]))
        return f"(({self.expr(scope, depth)} & {self.pick([7, 31, 255])}) + 1)"

    def shift(self, scope: Scope, depth: int) -> str:
        # 0..15: defined for every type a shift computes in (int and wider).
        if scope.loop_vars and self.chance(0.3):
            return self.pick(scope.loop_vars)
        if self.chance(0.6):
            return str(self.pick([0, 1, 2, 3, 4, 5, 7, 8, 9, 12, 15]))
        return f"({self.expr(scope, depth)} & {self.pick([1, 3, 7, 15])})"

    # ------------------------------------------------------------- statements
    def block(self, scope: Scope, depth: int, count: int, indent: str) -> list[str]:
        lines: list[str] = []
        for _ in range(count):
            lines += self.stmt(scope, depth, indent)
            if lines and lines[-1].strip().startswith(("return", "break", "continue")):
                break
        return lines or [indent + "pass"]

    def fresh(self) -> str:
        self.names += 1
        return f"{'b' if self.chance(0.3) else 'x'}{self.names}"

    def stmt(self, scope: Scope, depth: int, indent: str) -> list[str]:
        self.statements += 1
        kinds = ["new"] * 3 + (["field"] if self.assigns_fields else [])
        if scope.locals:
            kinds += ["set", "aug", "aug"]
        if depth > 0 and self.statements < 30:
            kinds += ["if", "if", "faces", "range"]
        if scope.in_loop:
            kinds += ["jump"]
        kinds += ["return"]
        kind = self.pick(kinds)
        e = lambda: self.expr(scope, self.draw(st.integers(1, 3)))  # noqa: E731
        if kind == "new":
            name = self.fresh()
            if self.chance(0.15):
                line = f"{indent}{name}: {self.pick(['u8', 'u16', 'u32', 'i16', 'i32'])} = {e()}"
            else:
                line = f"{indent}{name} = {e()}"
            scope.locals.append(name)
            return [line]
        if kind == "field":
            # Ranged fields clamp what they are given (unless it provably fits).
            name = self.pick(self.fields)[0]
            if self.chance(0.5):
                return [f"{indent}t.{name} {self.pick(['+=', '-=', '|=', '&=', '^='])} {e()}"]
            return [f"{indent}t.{name} = {e()}"]
        if kind == "set":
            return [f"{indent}{self.pick(scope.locals)} = {e()}"]
        if kind == "aug":
            op = self.pick(AUGOPS)
            if op in ("//=", "%="):
                value = self.divisor(scope, 1)
            elif op in ("<<=", ">>="):
                value = self.shift(scope, 1)
            else:
                value = e()
            return [f"{indent}{self.pick(scope.locals)} {op} {value}"]
        if kind == "jump":
            return [f"{indent}if {self.test(scope, 1)}:",
                    f"{indent}    {self.pick(['break', 'continue'])}"]
        if kind == "return":
            if self.chance(0.6):
                return []  # a return at the top would end the function too often
            return [f"{indent}if {self.test(scope, 2)}:", f"{indent}    return {e()}"]
        if kind == "if":
            lines = [f"{indent}if {self.test(scope, 2)}:"]
            lines += self.block(scope.child(), depth - 1, self.draw(st.integers(1, 3)), indent + "    ")
            if self.chance(0.3):
                lines.append(f"{indent}elif {self.test(scope, 2)}:")
                lines += self.block(scope.child(), depth - 1, self.draw(st.integers(1, 2)),
                                    indent + "    ")
            if self.chance(0.5):
                lines.append(f"{indent}else:")
                lines += self.block(scope.child(), depth - 1, self.draw(st.integers(1, 3)),
                                    indent + "    ")
            return lines
        var = "fgh"[len(scope.loop_vars)] if kind == "faces" else "ijk"[len(scope.loop_vars)]
        inner = scope.child(loop_vars=[*scope.loop_vars, var], in_loop=True)
        if kind == "faces":
            head = f"{indent}for {var} in faces():"
        else:
            lo = self.pick(["0", "1", "2", "3"])
            # Bounds must be 8 or 16-bit values (and small: the loop variable is a byte).
            small = [f"(t.{n} & 7)" for n, _d, lo, hi in self.fields if -32768 <= lo and hi <= 65535]
            # A field as it is, negative included (range() to a negative stop is empty). Not
            # beyond 255: the loop variable is a byte (the DSL does not refuse it, see below).
            small += [f"t.{n}" for n, d, lo, hi in self.fields
                      if -32768 <= lo and hi <= 100 and d != "bool"]
            hi = self.pick(["0", "1", "3", "6", "8", *small, *scope.loop_vars])
            pre = []
            if self.chance(0.3):
                # A bound held in a local (its range is the function's own business). A few
                # names only, so functions share them: each must see its own.
                bound = self.pick(["n", "m"])
                if bound in self.declared:
                    pre = [f"{indent}{bound} = ({self.expr(scope, 2)}) & 7"]
                else:
                    self.declared.add(bound)
                    pre = [f"{indent}{bound}: {self.pick(['i16', 'u8'])} = ({self.expr(scope, 2)}) & 7"]
                if bound not in scope.locals:
                    scope.locals.append(bound)
                hi = bound
            head = f"{indent}for {var} in range({lo}, {hi}):" if self.chance(0.7) \
                else f"{indent}for {var} in range({hi}):"
            return [*pre, head, *self.block(inner, depth - 1, self.draw(st.integers(1, 4)), indent + "    ")]
        return [head, *self.block(inner, depth - 1, self.draw(st.integers(1, 4)), indent + "    ")]

    # ------------------------------------------------------------------ game
    def game(self) -> str:
        for k in range(self.draw(st.integers(1, 4))):
            decl, lo, hi = self.pick(FIELD_TYPES)
            self.fields.append((f"a{k}", decl, lo, hi))
        lines = ["from blinkc.dsl import *", "", 'game = Game("fuzz")']
        for name, decl, lo, _hi in self.fields:
            default = {"bool": "False", "Face": "0"}.get(decl, str(lo))
            lines.append(f"{name} = game.field({decl}, default={default})")
        for k in range(self.draw(st.integers(0, 2))):
            # Helpers of the game file: parameters (int, Face, bool, or none given), no range.
            params = [self.pick(["int", "Face", "bool", ""]) for _ in range(self.draw(st.integers(1, 2)))]
            self.names = 0
            self.declared = set()
            self.statements = 0
            scope = Scope(params=[f"p{j}" for j in range(len(params))])
            body = self.block(scope, 1, self.draw(st.integers(0, 4)), "    ")
            final = f"    return {self.expr(scope, self.draw(st.integers(1, 3)))}"
            heads = "".join(f", p{j}: {a}" if a else f", p{j}" for j, a in enumerate(params))
            ret = self.pick(["int", "Face", "bool"])
            lines += ["", "", f"def h{k}(t{heads}) -> {ret}:", *body, final]
            self.helpers.append((f"h{k}", params))
        count = self.draw(st.integers(1, 3))
        for k in range(count):
            # The last derived value may assign fields (they clamp). Nothing else reads it but
            # the display's first line: C++ leaves the order of operands and arguments open,
            # so a value with side effects read amid other reads would mean two things.
            self.assigns_fields = k == count - 1 and self.chance(0.6)
            result = self.pick(RESULT_TYPES)
            self.names = 0
            self.declared = set()
            self.statements = 0
            scope = Scope()
            body = self.block(scope, 2, self.draw(st.integers(1, 7)), "    ")
            final = f"    return {self.expr(scope, self.draw(st.integers(1, 4)))}"
            if scope.locals and self.chance(0.6):
                # Make every local's last value count (byte-minded ones through their low byte).
                seen = " ^ ".join(f"({x} & 255)" if x.startswith("b") else x for x in scope.locals)
                final = f"{final} ^ {seen}"
            lines += ["", "", f"@game.derived({result})", f"def v{k}(t):", *body, final]
            if self.assigns_fields:
                self.mutator = f"v{k}"
            else:
                self.derived.append((f"v{k}", result))
            self.assigns_fields = False
        lines += ["", "", "@game.display", "def look(t):", *self.display(), ""]
        return "\n".join(lines)

    def display(self) -> list[str]:
        """A display that reads every derived value (or they are pruned) and computes colours
        from them: casts to bytes, colour locals, loops setting faces."""
        self.names = 0
        self.declared = set()
        self.statements = 0
        scope = Scope()
        e = lambda: self.expr(scope, self.draw(st.integers(0, 2)))  # noqa: E731
        reads = [f"t.{name}" for name, _ in self.derived]
        first = []
        if self.mutator is not None:
            first = [f"    d = t.{self.mutator}"]
            reads.append("d")
        uses = " or ".join(f"{r} == {self.pick(CONSTANTS[:8])}" for r in reads)
        colour = self.pick(["RED", "OFF", "BLUE", "WHITE", "makeColorRGB(200, 140, 70)"])
        lines = [*first, "    c = OFF", f"    if {uses}:", f"        c = {colour}",
                 f"    t.color({self.pick(range(6))}, c)",
                 f"    t.color({self.pick(range(6))}, makeColorRGB({e()}, {e()}, {e()}))"]
        if self.chance(0.5):
            scope.loop_vars.append("f")
            lines += ["    for f in faces():",
                      f"        if {self.test(scope, 1)}:",
                      f"            t.color(f, {self.pick(['dim', 'lighten'])}({colour}, {e()}))"]
        return lines


@st.composite
def games(draw) -> tuple[str, list[tuple[str, str, int, int]], list[str]]:
    w = Writer(draw)
    text = w.game()
    return text, w.fields, [name for name, _ in w.derived] + ([w.mutator] if w.mutator else [])


def inputs(fields) -> st.SearchStrategy:
    def value(lo: int, hi: int) -> st.SearchStrategy:
        return st.one_of(st.sampled_from([lo, hi, max(lo, min(hi, 0)), max(lo, min(hi, 255))]),
                         st.integers(lo, hi))

    now = st.one_of(st.sampled_from([0, 1, 255, 256, 65535, 65536, 2**31 - 1, 2**31, 2**32 - 1]),
                    st.integers(0, 2**32 - 1))
    return st.tuples(st.fixed_dictionaries({n: value(lo, hi) for n, _d, lo, hi in fields}), now)


# ---------------------------------------------------------- the reference interpreter
class Undefined(Exception):
    """The program does something C leaves undefined (a shift too far, a division by 0)."""


class _Return(Exception):
    def __init__(self, value):
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


def _conv(v: int, t: IntType) -> int:
    return int(v != 0) if t == BOOL else t.wrap(v)


class Interpreter:
    """The IR's meaning (nodes.py), evaluated directly: every operation wraps to its type."""

    def __init__(self, program: Program, fields: dict[str, int], now: int) -> None:
        self.functions = {f.name: f for f in program.functions}
        self.globals = {g.name: g.init for g in program.globals if g.size is None}
        self.globals.update(fields)
        self.now = now

    def call(self, name: str, args: tuple[int, ...] = ()) -> int:
        f: Function = self.functions[name]
        env = {p.name: a for p, a in zip(f.params, args, strict=True)}
        try:
            self.block(f.body, env)
        except _Return as r:
            return r.value
        raise AssertionError(f"{name} ended without a value")

    def block(self, body, env) -> None:
        for s in body:
            self.stmt(s, env)

    def stmt(self, s, env) -> None:
        if isinstance(s, Local):
            env[s.name] = _conv(self.expr(s.value, env), s.type)
        elif isinstance(s, Assign):
            v = self.expr(s.value, env)
            v = min(max(v, s.clamp[0]), s.clamp[1]) if s.clamp else _conv(v, s.target.type)
            if not isinstance(s.target, Name):
                raise NotImplementedError(s)
            (env if s.target.scope != "global" else self.globals)[s.target.name] = v
        elif isinstance(s, If):
            self.block(s.body if self.expr(s.test, env) else s.orelse, env)
        elif isinstance(s, For):
            start, stop = self.expr(s.start, env), self.expr(s.stop, env)
            for k in range(start, stop):
                env[s.var] = k
                if s.bit is not None:
                    env[s.bit] = (1 << k) & 255
                try:
                    self.block(s.body, env)
                except _Break:
                    break
                except _Continue:
                    continue
        elif isinstance(s, Return):
            raise _Return(None if s.value is None else self.expr(s.value, env))
        elif isinstance(s, Break):
            raise _Break
        elif isinstance(s, Continue):
            raise _Continue
        elif isinstance(s, ExprStmt):
            self.expr(s.value, env)
        else:
            raise NotImplementedError(s)

    def expr(self, e, env) -> int:
        if isinstance(e, Const):
            return _conv(e.value, e.type)
        if isinstance(e, Name):
            return int(env[e.name] if e.scope != "global" else self.globals[e.name])
        if isinstance(e, BinOp):
            t = e.type
            a, b = _conv(self.expr(e.left, env), t), _conv(self.expr(e.right, env), t)
            if e.op in ("//", "%"):
                if b == 0:
                    raise Undefined("division by zero")
                return t.wrap(c_div(a, b) if e.op == "//" else c_mod(a, b))
            if e.op in ("<<", ">>"):
                if not 0 <= b < t.bits:
                    raise Undefined(f"shift by {b} in {t.c_name}")
                return t.wrap(a << b if e.op == "<<" else a >> b)
            return t.wrap({"+": a + b, "-": a - b, "*": a * b, "&": a & b, "|": a | b,
                           "^": a ^ b}[e.op])
        if isinstance(e, UnOp):
            v = self.expr(e.operand, env)
            if e.op == "not":
                return int(not v)
            v = _conv(v, e.type)
            return e.type.wrap(-v if e.op == "-" else ~v)
        if isinstance(e, Compare):
            a, b = _conv(self.expr(e.left, env), e.optype), _conv(self.expr(e.right, env), e.optype)
            return int({"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b,
                        ">=": a >= b}[e.op])
        if isinstance(e, BoolOp):
            for v in e.values:
                if bool(self.expr(v, env)) == (e.op == "or"):
                    return int(e.op == "or")
            return int(e.op == "and")
        if isinstance(e, Cond):
            return _conv(self.expr(e.body if self.expr(e.test, env) else e.orelse, env), e.type)
        if isinstance(e, Cast):
            return _conv(self.expr(e.value, env), e.type)
        if isinstance(e, Call):
            if e.builtin and e.func == "millis":
                return self.now
            if not e.builtin:
                return _conv(self.call(e.func, tuple(self.expr(a, env) for a in e.args)), e.type)
        raise NotImplementedError(e)


# -------------------------------------------------------------------------- checking
def compile_both(text: str, folder: Path) -> tuple[Program, Program] | None:
    """The game compiled with the whole optimiser and without it (None if the DSL refuses it)."""
    path = folder / "fuzz.py"
    path.write_text(text)
    try:
        optimised = compile_game(path)
    except GameErrors:
        return None
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(lowering_module, "optimize", lambda program: program)
        plain = compile_game(path)
    return optimised, plain


def python_values(cls, names, fields, now) -> list[int]:
    tile = cls()
    api = Blinklib()
    tile.setup(api)
    for k, v in fields.items():
        setattr(tile, k, v)
    api.now = now
    values = [int(tile.value(api, n)) for n in names]
    tile.display(api)
    return values + list(api.pixels)


def reference_values(program, names, fields, now) -> list[int]:
    # One tile: a derived value may assign a field the next one reads.
    tile = Interpreter(program, fields, now)
    return [tile.call(f"value_{n}") for n in names]


def _describe(text, fields, now, results) -> str:
    lines = [text, f"fields={fields!r} now={now}"]
    lines += [f"{k:>22}: {v}" for k, v in results.items()]
    return "\n".join(lines)


STATS = {"drawn": 0, "compiled": 0, "inputs": 0}


def check_game(text, fields, names, tmp_path, data, native: bool = False) -> None:
    STATS["drawn"] += 1
    both = compile_both(text, tmp_path)
    assume(both is not None)
    STATS["compiled"] += 1
    optimised, plain = both
    opt_cls, plain_cls = program_class(optimised), program_class(plain)
    native_tile = None
    if native:
        from blinkc.native.game import native_class

        native_tile = native_class(optimised, tmp_path / "fuzz.py")
    for _ in range(INPUTS):
        values, now = data.draw(inputs(fields))
        try:
            reference = reference_values(plain, names, values, now)
        except Undefined:
            continue  # C gives this no meaning: nothing to compare
        STATS["inputs"] += 1
        # Derived values, then (for the backends) the six pixels the display sets.
        results = {
            "reference (plain IR)": reference,
            "reference (optimised)": reference_values(optimised, names, values, now),
            "python (plain IR)": python_values(plain_cls, names, values, now),
            "python (optimised)": python_values(opt_cls, names, values, now),
        }
        if native_tile is not None:
            results["c++ (optimised)"] = native_values(native_tile, names, values, now)
        norm = {k: tuple(v & 0xFFFFFFFF for v in vs) for k, vs in results.items()}
        assert len({v[:len(names)] for v in norm.values()}) == 1, \
            _describe(text, values, now, results)
        assert len({v for k, v in norm.items() if not k.startswith("reference")}) == 1, \
            _describe(text, values, now, results)


def native_values(cls, names, fields, now) -> list[int]:
    tile = cls()
    api = Blinklib()
    tile.setup(api)
    for k, v in fields.items():
        tile._cells[k].value = v
    api.now = now
    values = [int(tile.value(api, n)) for n in names]
    tile.display(api)
    return values + list(api.pixels)


# No shrinking: it takes minutes on whole programs, and the failure prints the game and inputs.
SETTINGS = dict(deadline=None, database=None, suppress_health_check=list(HealthCheck),
                phases=[Phase.explicit, Phase.generate], derandomize=DERANDOMIZE)


@tiered(30, RUNS)
def test_optimised_and_plain_ir_compute_the_same_derived_values(size, tmp_path_factory):
    @settings(max_examples=size, **SETTINGS)
    @given(game=games(), data=st.data())
    def same(game, data):
        text, fields, names = game
        check_game(text, fields, names, tmp_path_factory.mktemp("fuzz"), data)

    same()


@tiered(4, NATIVE_RUNS)
def test_the_cpp_rendering_computes_the_same_derived_values(size, tmp_path_factory):
    from ..tools import require_tool

    require_tool("g++")

    @settings(max_examples=size, **SETTINGS)
    @given(game=games(), data=st.data())
    def same(game, data):
        text, fields, names = game
        check_game(text, fields, names, tmp_path_factory.mktemp("fuzz"), data, native=True)

    same()


@pytest.fixture(scope="module", autouse=True)
def _report():
    yield
    # Seen with `pytest -s`: how many games the DSL accepted, and how many inputs were compared.
    print(f"\noptimiser fuzz: {STATS['compiled']}/{STATS['drawn']} games compiled, "
          f"{STATS['inputs']} inputs compared")
