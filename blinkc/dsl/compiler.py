"""Compile Python function bodies (the DSL subset) into typed IR.

The same front end compiles the game author's handlers and blinkc's own
protocol engine (`protocol.py`, in "engine mode", which may also touch the
engine's globals and call blinklib directly). Anything outside the subset is
rejected with the file, the line, and a hint about what to write instead.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..blinklib.arith import promote
from ..blinklib.color import dim as _dim
from ..blinklib.color import lighten as _lighten
from ..blinklib.color import makeColorHSB as _hsb
from ..blinklib.color import makeColorRGB as _rgb
from ..blinklib.color import rgb5 as _rgb5
from ..blinklib.mathfns import sin8_C as _sin8
from ..ir.builtins import BLINKLIB
from ..ir.nodes import (
    BOOL,
    I16,
    I32,
    U8,
    U16,
    U32,
    Assign,
    BinOp,
    Break,
    Call,
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
    Return,
    SrcLoc,
    Stmt,
    UnOp,
)
from .derived import derived_key
from .errors import DslError, did_you_mean
from .game import Enum, EnumMember, FieldDecl
from .types import (
    COLOR,
    TYPE_NAMES,
    ColorType,
    binop,
    bool_op,
    compare,
    cond,
    convert,
    is_bool,
    is_pure,
    literal_type,
    named,
    not_,
    truth,
)


class ColorConst(int):
    """A colour constant authors use (RED, makeColorRGB(...) at module level, ...)."""


#: What `FunctionCompiler.kind_of` says of a value that is certainly a number, not a kind.
NUMBER = "number"


@dataclass(frozen=True)
class Signature:
    params: tuple[IntType, ...]
    ret: IntType | None
    is_bool: bool = False


@dataclass
class Symbols:
    """What a function body may refer to besides its own locals."""

    fields: dict[str, GlobalVar] = field(default_factory=dict)
    field_enums: dict[str, Any] = field(default_factory=dict)  # field name → Enum
    engine_globals: dict[str, GlobalVar] = field(default_factory=dict)
    constants: dict[str, int] = field(default_factory=dict)
    functions: dict[str, Signature] = field(default_factory=dict)
    derived: dict[str, str] = field(default_factory=dict)  # t.<name> → function
    #: Derived values and broadcasts whose type is a kinds enum: name → Enum.
    derived_enums: dict[str, Any] = field(default_factory=dict)
    neighbor_enums: dict[str, Any] = field(default_factory=dict)
    neighbor_getters: dict[str, str] = field(default_factory=dict)  # .<name> → function
    timers: dict[int, int] = field(default_factory=dict)  # id(TimerDecl) → index
    timer_names: dict[str, int] = field(default_factory=dict)  # t.<name> → index
    messages: dict[int, tuple[int, range | None, str]] = field(default_factory=dict)
    floods: dict[int, int] = field(default_factory=dict)  # id(FloodDecl) → index
    #: id(MessageDecl) of each message sent in the wide form → its data codes.
    wide: dict[int, int] = field(default_factory=dict)
    #: id(MessageDecl) of each message confined to a group (within=): sent through
    #: send_grouped / send_wide_grouped, which bounce a send outside the group.
    grouped: set[int] = field(default_factory=set)
    #: Every t.send(...) with a payload: (function, payload, lo, hi, message, where), for the lint.
    payload_sends: list[tuple[str, Any, int, int, str, Any]] = field(default_factory=list)
    pure: set[str] = field(default_factory=set)
    #: Plain functions of the game module that handlers may call: name → function.
    helper_candidates: dict[str, Callable] = field(default_factory=dict)
    #: Helpers called so far: name → (IR function name, signature, takes the tile first).
    helpers: dict[str, tuple[str, Signature, bool]] = field(default_factory=dict)
    #: Helpers whose unannotated result is being inferred (compiling their body to see).
    inferring: set[str] = field(default_factory=set)
    #: The game said randomize=False: t.random() draws from the engine's own sequence.
    own_random: bool = False


def below(limit: Expr) -> Expr:
    """limit + 1 as a u16 (0 for 65535), the bound draw_below() takes for t.random(limit);
    `x - c + 1` folds to `x - (c - 1)` (exact in u16's arithmetic, modulo 65,536)."""
    if isinstance(limit, Const) and limit.name and "+" not in limit.name and limit.value < 65535:
        # (named, so that the sketch says draw_below(EMERGE_DRIFT + 1), not draw_below(201))
        return Const(limit.value + 1, U16, name=f"{limit.name}+1")
    if (isinstance(limit, BinOp) and limit.op == "-" and isinstance(limit.right, Const)
            and limit.right.value >= 1 and limit.type.bits >= 16):
        return convert(binop("-", limit.left, Const(limit.right.value - 1, limit.right.type)), U16)
    return convert(binop("+", convert(limit, U16), Const(1, U16)), U16)


class _Skip(Exception):
    """Abandon the current statement (its error has been recorded)."""


@dataclass
class _Symbol:
    """A Python-level object met in an expression (a message, an enum, a function...)."""

    value: Any


_SUBSET_HINT = "see docs/dsl.md for the Python subset handler bodies may use"

_STATEMENT_HINTS: dict[type, tuple[str, str]] = {
    ast.While: ("while loops are not allowed (the tile must never hang)",
                "loop over a fixed range instead: for f in faces(): or for i in range(n):"),
    ast.Try: ("try/except is not available on the tile", "check the condition with if instead"),
    ast.With: ("with blocks are not available on the tile", _SUBSET_HINT),
    ast.Raise: ("raise is not available on the tile",
                "there are no exceptions on the tile; handle the case with if"),
    ast.Import: ("imports inside a handler are not allowed",
                 "import at the top of the game file; handlers may use module constants"),
    ast.ImportFrom: ("imports inside a handler are not allowed",
                     "import at the top of the game file; handlers may use module constants"),
    ast.Global: ("global is not needed and not allowed",
                 "keep state in fields: hp = game.field(range(0, 6), default=5), then t.hp"),
    ast.Nonlocal: ("nonlocal is not allowed", "keep state in fields and use t.<field>"),
    ast.Delete: ("del is not available on the tile", "assign a value instead"),
    ast.Assert: ("assert is not available on the tile", "check the condition with if"),
    ast.FunctionDef: ("functions cannot be defined inside a handler",
                      "define helpers at the top level of the game file"),
    ast.ClassDef: ("classes cannot be defined inside a handler", _SUBSET_HINT),
    ast.AsyncFunctionDef: ("async is not available on the tile", _SUBSET_HINT),
}

_EXPR_HINTS: dict[type, tuple[str, str]] = {
    ast.Lambda: ("lambda is not available in handler bodies", "write a helper function"),
    ast.ListComp: ("comprehensions are not available on the tile", "use a for loop"),
    ast.SetComp: ("comprehensions are not available on the tile", "use a for loop"),
    ast.DictComp: ("comprehensions are not available on the tile", "use a for loop"),
    ast.GeneratorExp: ("generators are not available on the tile", "use a for loop"),
    ast.List: ("lists are not available in handler bodies (no heap on the tile)",
               "declare a field per value, or use a bit mask field"),
    ast.Dict: ("dicts are not available on the tile", "use fields or if/elif"),
    ast.Set: ("sets are not available on the tile", "use a bit mask field: range(0, 64)"),
    ast.Tuple: ("tuples are not available in handler bodies", "use one value at a time"),
    ast.JoinedStr: ("strings are not available on the tile", "use numbers and colours"),
    ast.Await: ("await is not available on the tile", _SUBSET_HINT),
    ast.Yield: ("yield is not available on the tile", _SUBSET_HINT),
    ast.NamedExpr: ("the := operator is not supported", "assign on its own line"),
    ast.Starred: ("*args are not supported", "pass each argument"),
    ast.Slice: ("slices are not supported", _SUBSET_HINT),
}

_BINOPS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%",
    ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>",
}
_CMPOPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}


def parse_function(fn: Callable) -> tuple[ast.FunctionDef, str, int]:
    """The AST of a function, its file, and the file line of the AST's line 1.

    Raises DslError for what blinkc cannot compile: a function without source in the game
    file, a lambda, an `async def`."""
    code = getattr(fn, "__code__", None)
    where = SrcLoc(code.co_filename, code.co_firstlineno) if code else SrcLoc("<game>", 0)
    name = getattr(fn, "__name__", "")
    if name == "<lambda>":
        raise DslError(where, "a lambda cannot be compiled for the tile",
                       "write it as a def at the top level of the game file")
    try:
        lines, first = inspect.getsourcelines(fn)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):
        raise DslError(where, f"cannot read the source of {name or 'this function'}()",
                       "handlers and helpers must be written in the game file") from None
    node = tree.body[0] if tree.body else None
    file = inspect.getsourcefile(fn) or where.file
    if isinstance(node, ast.AsyncFunctionDef):
        raise DslError(SrcLoc(file, first + node.lineno - 1), "async def is not available on the tile",
                       f"write a plain def: def {node.name}({ast.unparse(node.args)}):")
    if not isinstance(node, ast.FunctionDef):
        raise DslError(where, f"{name or 'this'} is not a def function",
                       "handlers and helpers are plain def functions of the game file")
    return node, file, first


class FunctionCompiler:
    """Compiles one function body into an IR `Function`."""

    def __init__(self, symbols: Symbols, *, file: str, line0: int, node: ast.FunctionDef,
                 name: str, params: list[tuple[str, IntType]], ret: IntType | None,
                 role: str, tile: str | None, pyglobals: dict[str, Any],
                 engine: bool = False, errors: list[DslError] | None = None,
                 ret_is_bool: bool = False) -> None:
        self.sym = symbols
        self.file = file
        self.line0 = line0
        self.node = node
        self.func_name = name
        self.params = params
        self.ret = ret
        self.ret_is_bool = ret_is_bool
        self.role = role
        self.tile = tile
        self.pyglobals = pyglobals
        self.engine = engine
        self.errors = errors if errors is not None else []
        self.locals: dict[str, IntType] = {}
        self.local_bool: set[str] = set()
        self.param_types = dict(params)
        self.loop_depth = 0
        #: Locals that have a value on every path to here (Python would raise NameError
        #: reading any other; the tile would read a stale or zero value).
        self.defined: set[str] = set()
        #: Loop variables whose loop is over: Python leaves them at the last value, the tile
        #: one past it, so reading them is refused until they are assigned again.
        self.finished_loops: set[str] = set()
        #: Locals that hold one of a kinds' members on every assignment so far (None: not so).
        self.local_kinds: dict[str, Any] = {}
        #: The kinds enum a derived value gives, if its type is one.
        self.ret_enum: Any = None
        #: What must return a bool and nothing else (a flood's within=), named for the error;
        #: elsewhere a number returned as a bool means "not zero".
        self.bool_only: str = ""
        #: Locals whose assignment failed (its error recorded): reading them is no new error.
        self.unknown: set[str] = set()
        #: The types of the values returned, when compiling to infer a helper's result.
        self.returned: list[IntType] | None = None

    # ------------------------------------------------------------------ helpers
    def loc(self, node: ast.AST) -> SrcLoc:
        return SrcLoc(self.file, self.line0 + getattr(node, "lineno", 1) - 1)

    def fail(self, node: ast.AST, message: str, hint: str = "") -> _Skip:
        self.errors.append(DslError(self.loc(node), message, hint))
        return _Skip()

    def compile(self) -> Function:
        body = self.block(self.node.body)
        return Function(self.func_name, tuple(Param(n, t) for n, t in self.params), self.ret,
                        tuple(body), self.loc(self.node), ast.get_docstring(self.node) or "",
                        self.role)

    # --------------------------------------------------------------- statements
    def block(self, nodes: list[ast.stmt]) -> list[Stmt]:
        out: list[Stmt] = []
        for n in nodes:
            try:
                out.extend(self.stmt(n))
            except _Skip:
                # What it would have given a value is not known either: its uses are not
                # errors of their own (the error above is the cause).
                self.unknown |= {t.id for t in ast.walk(n) if isinstance(t, ast.Name)
                                 and isinstance(t.ctx, ast.Store)} - set(self.locals)
        return out

    def stmt(self, n: ast.stmt) -> list[Stmt]:
        loc = self.loc(n)
        if isinstance(n, ast.Pass):
            return []
        if isinstance(n, ast.Expr):
            if isinstance(n.value, ast.Constant) and isinstance(n.value.value, str):
                return []  # a docstring or a string used as a comment
            e = self.expr(n.value, void_ok=True)
            if not isinstance(e, Call):
                raise self.fail(n, "this expression does nothing",
                                "did you mean an assignment (=) rather than a comparison (==)?")
            return [ExprStmt(e, loc)]
        if isinstance(n, ast.Assign):
            if len(n.targets) != 1 or isinstance(n.targets[0], ast.Tuple | ast.List):
                raise self.fail(n, "assign one value at a time", "write a = 1 and b = 2 on two lines")
            return self.assign(n.targets[0], self.expr(n.value), loc, n, self.kind_of(n.value))
        if isinstance(n, ast.AnnAssign):
            if not isinstance(n.target, ast.Name) or n.value is None:
                raise self.fail(n, "annotated assignments must be `name: type = value`")
            t = self.type_annotation(n.annotation)
            name = n.target.id
            if name in self.locals or name in self.param_types:
                raise self.fail(n, f"{name!r} is already declared", "declare each local once")
            value = self.expr(n.value)
            self.locals[name] = t
            self._gets_value(name)
            if t == BOOL:
                self.local_bool.add(name)
            return [Local(name, t, convert(value, t), loc)]
        if isinstance(n, ast.AugAssign):
            op = _BINOPS.get(type(n.op))
            if op is None:
                raise self.fail(n, "this operator is not supported", "use + - * // % & | ^ << >>")
            current = self.expr(self.load_version(n.target))
            value = self.expr(n.value)
            self.check_arith(n, op, current, value)
            return self.assign(n.target, binop(op, current, value), loc, n, NUMBER)
        if isinstance(n, ast.If):
            test = truth(self.expr(n.test))
            before = set(self.defined)
            body = self.block(n.body)
            after_body, self.defined = self.defined, set(before)
            orelse = self.block(n.orelse)
            after_orelse = self.defined
            if isinstance(test, Const):
                self.defined = after_body if test.value else after_orelse
                return body if test.value else orelse
            self.defined = _merge_paths((after_body, _exits(n.body)),
                                        (after_orelse, _exits(n.orelse)))
            return [If(test, tuple(body), tuple(orelse), loc)]
        if isinstance(n, ast.For):
            return self.for_loop(n, loc)
        if isinstance(n, ast.Return):
            return [self.return_(n, loc)]
        if isinstance(n, ast.Break | ast.Continue):
            if not self.loop_depth:
                raise self.fail(n, "break/continue outside a loop")
            return [Break(loc) if isinstance(n, ast.Break) else Continue(loc)]
        hint = _STATEMENT_HINTS.get(type(n))
        if hint:
            raise self.fail(n, *hint)
        raise self.fail(n, f"this statement ({type(n).__name__}) is not supported", _SUBSET_HINT)

    def _gets_value(self, name: str) -> None:
        self.defined.add(name)
        self.finished_loops.discard(name)

    def load_version(self, target: ast.expr) -> ast.expr:
        """The target of `x += e` read as a value."""
        copy = ast.fix_missing_locations(ast.copy_location(
            ast.parse(ast.unparse(target), mode="eval").body, target))
        for node in ast.walk(copy):
            node.lineno = target.lineno  # type: ignore[attr-defined]
        return copy

    def assign(self, target: ast.expr, value: Expr, loc: SrcLoc, node: ast.AST,
               kind: Any = None) -> list[Stmt]:
        if isinstance(target, ast.Name):
            name = target.id
            if name not in self.local_kinds:
                self.local_kinds[name] = kind if name not in self.locals else None
            elif self.local_kinds[name] is not kind:
                self.local_kinds[name] = None
            if name in self.param_types:
                raise self.fail(node, f"cannot assign to the parameter {name!r}",
                                "copy it into a new local first")
            if self.engine and name in self.sym.engine_globals:
                g = self.sym.engine_globals[name]
                if g.size is not None:
                    raise self.fail(node, f"{name} is an array", "assign one element: a[i] = v")
                return [Assign(Name(name, g.type, "global", g.is_bool), convert(value, g.type), loc)]
            if name in self.locals:
                t = self.locals[name]
                self._gets_value(name)
                return [Assign(Name(name, t, "local", name in self.local_bool),
                               convert(value, t), loc)]
            if value.type is None:
                raise self.fail(node, "this call gives no value to assign")
            if isinstance(value.type, ColorType):
                t = COLOR
            elif is_bool(value):
                t = BOOL
                self.local_bool.add(name)
            else:
                t = promote(value.type)
            if name in self.pyglobals and not self.engine:
                raise self.fail(node, f"{name!r} is a module-level name; handlers cannot change it",
                                f"keep changing state in a field: t.{name} (declare it with "
                                "game.field)")
            self.locals[name] = t
            self._gets_value(name)
            return [Local(name, t, convert(value, t), loc)]
        if isinstance(target, ast.Attribute) and self.is_tile(target.value):
            attr = target.attr
            g = self.sym.fields.get(attr)
            if g is None:
                if attr in self.sym.derived:
                    raise self.fail(node, f"t.{attr} is computed, it cannot be assigned",
                                    "assign the fields it is computed from")
                if attr in self.sym.timer_names:
                    raise self.fail(node, f"t.{attr} is a timer",
                                    f"start it with t.{attr}.start(ms)")
                if attr in ("now", "alone", "neighbor_mask"):
                    raise self.fail(node, f"t.{attr} is read from the tile, it cannot be assigned",
                                    "keep what you need in a field")
                raise self.fail(node, f"the tile has no field {attr!r}",
                                self.suggest_field(attr, writable=True))
            if g.size is not None:
                raise self.fail(node, f"t.{attr} holds six values, one per face: assign one "
                                      "face at a time",
                                f"t.{attr}[f] = ..., or for every face: for f in faces(): "
                                f"t.{attr}[f] = ...")
            self.check_value_into(node, f"t.{attr}", attr, value, kind)
            clamp = g.range if g.range is not None and not self.fits(value, g.range) else None
            v = convert(value, g.type) if clamp is None else value
            return [Assign(Name(attr, g.type, "global", g.is_bool), v, loc, clamp)]
        if isinstance(target, ast.Subscript) and self.engine:
            arr = self.array(target)
            return [Assign(arr, convert(value, arr.type), loc)]
        if isinstance(target, ast.Subscript):
            element = self.per_face(target)
            if not is_pure(element.index, self.sym.pure):
                # `t.x[t.random(5)] += 1` would draw twice: once to read, once to write.
                raise self.fail(node, "a per-face index you assign must not have side effects",
                                "store it in a local first: f = t.random(5)")
            g = self.sym.fields[element.array]
            self.check_value_into(node, f"t.{element.array}[...]", element.array, value, kind)
            clamp = g.range if not self.fits(value, g.range) else None  # type: ignore[arg-type]
            v = convert(value, g.type) if clamp is None else value
            return [Assign(element, v, loc, clamp)]
        raise self.fail(node, "you can assign to a local name or to a field t.<field>",
                        "for example: t.hp = 5")

    def check_value_into(self, node: ast.AST, where: str, field: str, value: Expr,
                         kind: Any) -> None:
        """A field (or one face of a per-face field) holds numbers or its kinds, never a
        colour."""
        if isinstance(value.type, ColorType):
            raise self.fail(node, "a colour cannot be stored in a field",
                            "compute the colour in the display function")
        self.check_kind_into(node, where, self.sym.field_enums.get(field), kind,
                             f"store it in a field of that kind: {field} = game.field"
                             f"({getattr(kind, 'name', '')})")

    @staticmethod
    def fits(value: Expr, rng: tuple[int, int]) -> bool:
        return isinstance(value, Const) and rng[0] <= value.value <= rng[1]

    def for_loop(self, n: ast.For, loc: SrcLoc) -> list[Stmt]:
        if not isinstance(n.target, ast.Name):
            raise self.fail(n, "loop over one name", "for f in faces():")
        if n.orelse:
            raise self.fail(n, "for ... else is not supported", "use a flag variable")
        it = n.iter
        if not isinstance(it, ast.Call) or not isinstance(it.func, ast.Name) or it.keywords:
            raise self.fail(n, "loops run over faces() or range(...)",
                            "for f in faces(): or for i in range(3):")
        fname = it.func.id
        if fname == "faces" and not it.args:
            start, stop = Const(0, I16), Const(6, I16)
        elif fname == "range" and 1 <= len(it.args) <= 2:
            args = [self.expr(a) for a in it.args]
            start, stop = (Const(0, I16), args[0]) if len(args) == 1 else (args[0], args[1])
            for a in (start, stop):
                if is_bool(a) or isinstance(a.type, ColorType) or a.type.bits > 16:
                    raise self.fail(n, "range() needs small whole numbers", "range(0, 6)")
        else:
            raise self.fail(n, "loops run over faces() or range(...)",
                            "for f in faces(): or for i in range(3):")
        var = n.target.id
        if var in self.param_types or (var in self.locals and self.locals[var] != U8):
            raise self.fail(n, f"the loop variable {var!r} is already used for something else",
                            "pick a new name for the loop variable")
        if isinstance(stop, Const) and isinstance(start, Const) and stop.value <= start.value:
            return []
        self.locals[var] = U8
        before = set(self.defined)
        self._gets_value(var)
        self.loop_depth += 1
        try:
            body = self.block(n.body)
        finally:
            self.loop_depth -= 1
        # The body may not run at all: only what had a value before the loop still has one.
        self.defined = before - {var}
        self.finished_loops.add(var)
        return [For(var, convert(start, U8), stop, tuple(body), loc)]

    def return_(self, n: ast.Return, loc: SrcLoc) -> Return:
        if n.value is None:
            if self.ret is not None:
                raise self.fail(n, "this function must return a value")
            return Return(None, loc)
        if self.ret is None:
            raise self.fail(n, "handlers do not return values", "just `return` to stop early")
        value = self.expr(n.value)
        if self.returned is not None:  # (inferring an unannotated helper's result)
            self.returned.append(value.type)
            return Return(value, loc)
        if self.ret_enum is not None:
            self.check_kind_into(n, f"{self.node.name}()", self.ret_enum, self.kind_of(n.value), "",
                                 verb="gives")
        if isinstance(self.ret, ColorType) != isinstance(value.type, ColorType):
            if self.role == "helper" and isinstance(value.type, ColorType):
                raise self.fail(n, f"{self.node.name}() returns a colour here, a number "
                                   "elsewhere" if self.node.returns is None else
                                f"{self.node.name}() returns a colour, but says it gives "
                                "a number", "a helper gives one kind of value: "
                                f"def {self.node.name}({ast.unparse(self.node.args)}) -> Color:")
            raise self.fail(n, "this returns the wrong kind of value")
        if self.bool_only and not is_bool(value):
            raise self.fail(n, f"{self.bool_only} returns True or False, not "
                               f"{ast.unparse(n.value)}",
                            "return a comparison or a bool: t.ship and t.neighbor(face).ship")
        if self.ret_is_bool and not is_bool(value):
            value = truth(value)
        return Return(convert(value, self.ret), loc)

    # -------------------------------------------------------------------- faces
    def face(self, n: ast.expr) -> Expr:
        """A face argument (0..5): a number, never a colour, a kind or a bool; a constant one
        must exist (computed ones are checked against their value ranges by the lint)."""
        e = self.expr(n)
        text = ast.unparse(n)
        kind = self.kind_of(n)
        if isinstance(e.type, ColorType):
            raise self.fail(n, f"{text} is a colour, not a face", "faces are 0..5")
        if kind is not None and kind is not NUMBER:
            raise self.fail(n, f"{text} is one of {kind.name}'s kinds, not a face", "faces are 0..5")
        if is_bool(e):
            raise self.fail(n, f"{text} is a bool, not a face", "faces are 0..5")
        if isinstance(e, Const) and not 0 <= e.value <= 5:
            raise self.fail(n, f"face {e.value} does not exist: faces are 0..5",
                            "count faces from 0; cw(f), ccw(f) and opposite(f) stay in 0..5")
        return convert(e, U8)

    # -------------------------------------------------------------------- kinds
    def kind_of(self, n: ast.expr) -> Any:
        """What an expression is, as far as its words show: a kinds `Enum` (one of its
        members), NUMBER (certainly not a kind: literals, number fields, arithmetic), or None
        (cannot tell: a call, a local assigned different things)."""

        if isinstance(n, ast.Constant):
            return NUMBER if isinstance(n.value, int) else None
        if isinstance(n, ast.Name):
            if n.id in self.local_kinds:
                return self.local_kinds[n.id]
            if n.id in self.locals or n.id in self.param_types or n.id not in self.pyglobals:
                return None
            v = self.pyglobals[n.id]
            if isinstance(v, EnumMember):
                return v.enum
            return NUMBER if isinstance(v, int) and not isinstance(v, ColorConst) else None
        if isinstance(n, ast.Attribute):
            if self.is_tile(n.value):
                if n.attr in self.sym.field_enums:
                    return self.sym.field_enums[n.attr]
                if n.attr in self.sym.derived_enums:
                    return self.sym.derived_enums[n.attr]
                return NUMBER if n.attr in self.sym.fields or n.attr in self.sym.derived else None
            if (isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Attribute)
                    and self.is_tile(n.value.func.value) and n.value.func.attr == "neighbor"):
                return self.sym.neighbor_enums.get(n.attr, NUMBER)
            if isinstance(n.value, ast.Name) and isinstance(self.pyglobals.get(n.value.id), Enum):
                member = getattr(self.pyglobals[n.value.id], n.attr, None) \
                    if n.attr in self.pyglobals[n.value.id].members else None
                return member.enum if isinstance(member, EnumMember) else None
            return None
        if isinstance(n, ast.Call):
            f = n.func
            if (isinstance(f, ast.Attribute) and f.attr == "next" and isinstance(f.value, ast.Attribute)
                    and self.is_tile(f.value.value)):
                return self.sym.field_enums.get(f.value.attr)
            if isinstance(f, ast.Attribute) and f.attr == "next" and isinstance(f.value, ast.Subscript):
                return self.kind_of(f.value)
            return None
        if (isinstance(n, ast.Subscript) and isinstance(n.value, ast.Attribute)
                and self.is_tile(n.value.value)):
            attr = n.value.attr
            if attr in self.sym.field_enums:
                return self.sym.field_enums[attr]
            return NUMBER if attr in self.sym.fields else None
        if isinstance(n, ast.IfExp):
            a, b = self.kind_of(n.body), self.kind_of(n.orelse)
            return a if a is b else NUMBER if NUMBER in (a, b) else None
        if isinstance(n, ast.BinOp | ast.UnaryOp | ast.Compare | ast.BoolOp):
            return NUMBER
        return None

    def check_kind_into(self, n: ast.AST, where: str, want: Any, got: Any, number_hint: str,
                        verb: str = "holds") -> None:
        """A kinds field (or derived kinds value) takes its kinds' members only; a number
        field no kinds' member."""
        if want is not None:
            first = f"{want.name}.{want.members[0]}" if want.members else want.name
            if got is NUMBER:
                hint = (f"{where} = {first}" if verb == "holds" else f"return {first}")
                if where.startswith("t.") and verb == "holds":
                    hint += f" (or {where}.next() for the next one)"
                raise self.fail(n, f"{where} {verb} one of {want.name}'s kinds, not a number", hint)
            if got is not None and got is not want:
                raise self.fail(n, f"{where} {verb} one of {want.name}'s kinds, not one of "
                                   f"{got.name}'s", f"use one of {', '.join(want.members)}: {first}")
        elif got is not None and got is not NUMBER and verb == "holds":
            raise self.fail(n, f"{where} is a number, not one of {got.name}'s kinds", number_hint)

    # -------------------------------------------------------------- expressions
    def is_tile(self, node: ast.expr) -> bool:
        return self.tile is not None and isinstance(node, ast.Name) and node.id == self.tile

    def expr(self, n: ast.expr, void_ok: bool = False) -> Expr:
        e = self.expr_or_symbol(n)
        if isinstance(e, _Symbol):
            v = e.value
            if isinstance(v, tuple) and v[:1] == ("timer",):
                raise self.fail(n, f"t.{v[2]} is a timer, not a value",
                                f"t.{v[2]}.running (a bool) or t.{v[2]}.remaining (ms)")
            what = getattr(v, "name", None) or type(v).__name__
            raise self.fail(n, f"{what} is not a value here",
                            "messages are sent with t.send(Msg, face); floods with t.flood(F)")
        if not void_ok and isinstance(e, Call) and e.type is None:
            what = ast.unparse(n.func) if isinstance(n, ast.Call) else ast.unparse(n)
            raise self.fail(n, f"{what}() gives no value",
                            "call it on a line of its own; a helper that computes a value "
                            "says so: def h(t) -> int: ... return x")
        return e

    def number(self, n: ast.AST, e: Expr, what: str) -> Expr:
        """e where a number is needed: not a colour."""
        if isinstance(e.type, ColorType):
            raise self.fail(n, f"{what} is a number, not a colour",
                            "colours are only made (makeColorRGB...), dimmed and shown")
        return e

    def expr_or_symbol(self, n: ast.expr) -> Expr | _Symbol:
        if isinstance(n, ast.Constant):
            v = n.value
            if isinstance(v, bool):
                return Const(int(v), BOOL, True)
            if isinstance(v, int):
                try:
                    return Const(v, literal_type(v))
                except OverflowError:
                    raise self.fail(n, f"{v} is too large for the tile (32-bit at most)") from None
            if isinstance(v, float):
                raise self.fail(n, "there is no floating point on the tile",
                                "use whole numbers; scale them (e.g. tenths) if needed")
            if isinstance(v, str):
                raise self.fail(n, "strings are not available on the tile",
                                "use numbers, kinds (game.kinds) and colours")
            raise self.fail(n, f"{v!r} is not a value the tile knows", "use a number or a bool")
        if isinstance(n, ast.Name):
            return self.name(n)
        if isinstance(n, ast.Attribute):
            return self.attribute(n)
        if isinstance(n, ast.Subscript):
            if self.engine:
                return self.array(n)
            return self.per_face(n)
        if isinstance(n, ast.BinOp):
            op = _BINOPS.get(type(n.op))
            if op is None:
                if isinstance(n.op, ast.Div):
                    raise self.fail(n, "/ gives a fraction; there is no floating point on the tile",
                                    "use // for whole-number division")
                if isinstance(n.op, ast.Pow):
                    raise self.fail(n, "** is not available on the tile",
                                    "multiply, or shift: 1 << n is 2 to the n")
                raise self.fail(n, "this operator is not supported", "use + - * // % & | ^ << >>")
            left, right = self.expr(n.left), self.expr(n.right)
            self.check_arith(n, op, left, right)
            return binop(op, left, right)
        if isinstance(n, ast.UnaryOp):
            v = self.expr(n.operand)
            if isinstance(n.op, ast.Not):
                return not_(v)
            if isinstance(v.type, ColorType):
                raise self.fail(n, "colours cannot be computed with",
                                "use dim(), lighten() and makeColorRGB()")
            if isinstance(n.op, ast.UAdd):
                return v
            if isinstance(n.op, ast.USub):
                return binop("-", Const(0, I16), v)
            t = promote(v.type)
            if isinstance(v, Const):
                return Const(t.wrap(~v.value), t, folded=UnOp("~", v, t) if named(v) else None)
            return UnOp("~", v, t)
        if isinstance(n, ast.BoolOp):
            return bool_op("and" if isinstance(n.op, ast.And) else "or",
                           [self.expr(v) for v in n.values])
        if isinstance(n, ast.Compare):
            return self.comparison(n)
        if isinstance(n, ast.IfExp):
            test, body, orelse = self.expr(n.test), self.expr(n.body), self.expr(n.orelse)
            if isinstance(body.type, ColorType) != isinstance(orelse.type, ColorType):
                raise self.fail(n, "both branches must be colours, or both numbers")
            return cond(test, body, orelse)
        if isinstance(n, ast.Call):
            return self.call(n)
        hint = _EXPR_HINTS.get(type(n))
        if hint:
            raise self.fail(n, *hint)
        raise self.fail(n, f"this expression ({type(n).__name__}) is not supported", _SUBSET_HINT)

    def check_arith(self, n: ast.AST, op: str, left: Expr, right: Expr) -> None:
        if isinstance(left.type, ColorType) or isinstance(right.type, ColorType):
            raise self.fail(n, "colours cannot be computed with",
                            "use dim(c, brightness), lighten(c, amount) or makeColorRGB(r, g, b)")
        if op in ("//", "%") and isinstance(right, Const) and right.value == 0:
            raise self.fail(n, "division by zero", "divide by a number that is never 0")
        if op in ("<<", ">>") and isinstance(right, Const):
            t = promote(left.type)
            if not 0 <= right.value < t.bits:
                raise self.fail(n, f"a shift by {right.value} has no meaning in {t.c_name} "
                                   f"({t.bits} bits): C leaves it undefined",
                                f"shift by 0..{t.bits - 1}")

    def comparison(self, n: ast.Compare) -> Expr:
        parts: list[Expr] = []
        left_node = n.left
        left = self.expr(left_node)
        for op_node, right_node in zip(n.ops, n.comparators, strict=True):
            op = _CMPOPS.get(type(op_node))
            if op is None:
                if isinstance(op_node, ast.Is | ast.IsNot):
                    raise self.fail(n, "'is' compares identity, which the tile does not have",
                                    "use == or !=")
                raise self.fail(n, "'in' is not available on the tile",
                                "compare with == and combine with or")
            right = self.expr(right_node)
            if isinstance(left.type, ColorType) or isinstance(right.type, ColorType):
                raise self.fail(n, "colours cannot be compared")
            if len(n.ops) > 1 and not is_pure(right, self.sym.pure):
                raise self.fail(n, "a chained comparison would evaluate this twice",
                                "store it in a local first")
            parts.append(compare(op, left, right))
            left = right
        return parts[0] if len(parts) == 1 else bool_op("and", parts)

    def name(self, n: ast.Name) -> Expr | _Symbol:
        ident = n.id
        if ident in self.unknown and ident not in self.locals:
            raise _Skip()  # (its assignment failed, with an error of its own)
        if ident in self.locals:
            if ident in self.finished_loops:
                raise self.fail(n, f"the loop variable {ident!r} is read after its loop",
                                "the tile leaves it one past its last value, Python at the last "
                                "one; keep what you need in another local inside the loop")
            if ident not in self.defined:
                raise self.fail(n, f"{ident!r} may have no value here: it is only given one "
                                   "on some paths (in a branch or a loop)",
                                f"give it a value first, before the if or the loop: {ident} = 0")
            return Name(ident, self.locals[ident], "local", ident in self.local_bool)
        if ident in self.param_types:
            t = self.param_types[ident]
            return Name(ident, t, "param", t == BOOL)  # a bool parameter is tested as itself
        if ident == self.tile:
            raise self.fail(n, f"{ident} is the tile; use one of its fields, e.g. {ident}.hp")
        if self.engine:
            if ident in self.sym.engine_globals:
                g = self.sym.engine_globals[ident]
                if g.size is not None:
                    raise self.fail(n, f"{ident} is an array; index it")
                return Name(ident, g.type, "global", g.is_bool)
            if ident in self.sym.constants:
                v = self.sym.constants[ident]
                return Const(v, literal_type(v), name=f"engine:{ident}")
        if ident in self.pyglobals:
            return self.python_value(n, self.pyglobals[ident], ident)
        builtins = __builtins__ if isinstance(__builtins__, dict) else vars(__builtins__)
        if ident in ("True", "False"):
            return Const(int(ident == "True"), BOOL, True)
        if ident in builtins:
            raise self.fail(n, f"{ident} is not available on the tile", _SUBSET_HINT)
        hint = ""
        if ident in self.sym.fields or ident in self.sym.derived:
            hint = f"fields are read through the tile: {self.tile or 't'}.{ident}"
        raise self.fail(n, f"unknown name {ident!r}", hint or self.suggest_name(ident))

    def suggest_name(self, ident: str) -> str:
        """The hint for an unknown name: the closest local, parameter or module name (a field
        is read through the tile), or the usual advice."""

        fields = {k for k, v in self.pyglobals.items() if isinstance(v, FieldDecl)}
        names = [*self.locals, *self.param_types, *(k for k in self.pyglobals
                                                    if not k.startswith("_") and k not in fields)]
        tile = self.tile or "t"
        hint = did_you_mean(ident, names) or did_you_mean(ident, fields, f"{tile}.{{}}")
        return f"check the spelling: {hint}" if hint else "define it, or check the spelling"

    def python_value(self, n: ast.AST, v: Any, ident: str | None = None) -> Expr | _Symbol:
        """A module-level Python value used in a body: constants become IR constants (named
        after the module's name for them, `ident`, so generated code can say it)."""

        name = f"const:{ident}" if ident is not None else None
        if isinstance(v, ColorConst):
            return Const(int(v), COLOR, name=name)
        if isinstance(v, bool):
            return Const(int(v), BOOL, True, name=name)
        if isinstance(v, EnumMember):
            return Const(v.value, U8, name=f"kind:{v.enum.name}.{v.name}" if v.enum.name else None)
        if isinstance(v, int):
            try:
                return Const(v, literal_type(v), name=name)
            except OverflowError:
                raise self.fail(n, f"{v} is too large for the tile") from None
        if isinstance(v, float | str):
            raise self.fail(n, f"{type(v).__name__} constants are not available on the tile",
                            "use whole numbers")
        return _Symbol(v)

    def attribute(self, n: ast.Attribute) -> Expr | _Symbol:
        if self.is_tile(n.value):
            return self.tile_attribute(n)
        # t.<timer>.running / .remaining
        if (isinstance(n.value, ast.Attribute) and self.is_tile(n.value.value)
                and n.value.attr in self.sym.timer_names):
            k = self.sym.timer_names[n.value.attr]
            timer = Const(k, U8, name=f"timer:{n.value.attr}")
            if n.attr == "running":
                return Call("timer_running", (timer,), BOOL, is_bool=True)
            if n.attr == "remaining":
                return Call("timer_remaining", (timer,), U16)
            raise self.fail(n, f"timers have .running and .remaining, not .{n.attr}",
                            did_you_mean(n.attr, ("running", "remaining"), ".{}")
                            or f"t.{n.value.attr}.start(ms) starts it")
        # t.neighbor(f).<broadcast>
        if (isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Attribute)
                and self.is_tile(n.value.func.value) and n.value.func.attr == "neighbor"):
            call = n.value
            if len(call.args) != 1 or call.keywords:
                raise self.fail(n, "t.neighbor(face) takes one face")
            getter = self.sym.neighbor_getters.get(n.attr)
            if getter is None:
                known = ", ".join(sorted(self.sym.neighbor_getters)) or "none declared"
                raise self.fail(n, f"neighbours cannot read {n.attr!r}: it is not broadcast",
                                did_you_mean(n.attr, self.sym.neighbor_getters, ".{}")
                                or f"declare it with broadcast=True or @game.broadcast "
                                   f"(broadcast now: {known})")
            sig = self.sym.functions[getter]
            return Call(getter, (self.face(call.args[0]),), sig.ret,
                        is_bool=sig.is_bool)
        base = self.expr_or_symbol(n.value)
        if isinstance(base, _Symbol):
            try:
                return self.python_value(n, getattr(base.value, n.attr))
            except AttributeError as exc:
                raise self.fail(n, str(exc), getattr(exc, "hint", "")) from None
        raise self.fail(n, f"numbers have no attribute .{n.attr}", _SUBSET_HINT)

    def tile_attribute(self, n: ast.Attribute) -> Expr | _Symbol:
        attr = n.attr
        g = self.sym.fields.get(attr)
        if g is not None and g.size is not None:
            raise self.fail(n, f"t.{attr} holds six values, one per face: read one at a time",
                            f"index it with a face: t.{attr}[f]")
        if g is not None:
            return Name(attr, g.type, "global", g.is_bool)
        if attr in self.sym.derived:
            fname = self.sym.derived[attr]
            sig = self.sym.functions[fname]
            return Call(fname, (), sig.ret, is_bool=sig.is_bool)
        if attr == "now":
            return Call("millis", (), U32, builtin=True)
        if attr == "alone":
            return Call("isAlone", (), BOOL, builtin=True, is_bool=True)
        if attr == "neighbor_mask":
            return Call("neighbor_mask", (), U8)
        if attr in self.sym.timer_names:
            return _Symbol(("timer", self.sym.timer_names[attr], attr))
        raise self.fail(n, f"the tile has no field {attr!r}", self.suggest_field(attr))

    def suggest_field(self, attr: str, writable: bool = False) -> str:
        """The hint for an unknown t.<attr>: the closest name the tile has, or how to declare it."""
        names = list(self.sym.fields) + ([] if writable else [
            *self.sym.derived, *self.sym.timer_names, "now", "alone", "neighbor_mask"])
        return (did_you_mean(attr, names, "t.{}")
                or f"declare it: {attr} = game.field(range(0, 10), default=0)")

    def per_face(self, n: ast.Subscript) -> Index:
        """`t.<field>[face]`: one face's value of a per-face field. The index is a face, checked
        as every face is (a constant outside 0..5 here, a computed one by the range lint):
        an index outside would read and write other variables on the tile."""
        owner = n.value
        if not (isinstance(owner, ast.Attribute) and self.is_tile(owner.value)):
            raise self.fail(n, "only per-face fields can be indexed",
                            "declare six values, one per face: game.field(range(0, 4), "
                            "per_face=True), then t.<field>[f]; or use bit masks with >> and &")
        attr = owner.attr
        g = self.sym.fields.get(attr)
        if g is None or g.size is None:
            if g is None and (attr in self.sym.derived or attr in self.sym.timer_names
                              or attr in _TILE_VALUES):
                raise self.fail(n, f"t.{attr} is one value, not one per face",
                                "only fields declared with per_face=True are indexed")
            if g is None:
                raise self.fail(n, f"the tile has no field {attr!r}", self.suggest_field(attr))
            raise self.fail(n, f"t.{attr} is one value, not one per face: it cannot be indexed",
                            f"declare it per face to keep six values: {attr} = game.field(..., "
                            f"per_face=True); or read it whole: t.{attr}")
        return Index(attr, self.face(n.slice), g.type, g.is_bool)

    def array(self, n: ast.Subscript) -> Index:
        if not isinstance(n.value, ast.Name) or n.value.id not in self.sym.engine_globals:
            raise self.fail(n, "only engine arrays can be indexed")
        g = self.sym.engine_globals[n.value.id]
        if g.size is None:
            raise self.fail(n, f"{n.value.id} is not an array")
        return Index(n.value.id, convert(self.expr(n.slice), U8), g.type)

    def type_annotation(self, n: ast.expr) -> IntType:
        if isinstance(n, ast.Name) and n.id in TYPE_NAMES:
            return TYPE_NAMES[n.id]
        raise self.fail(n, "unknown type", "use u8, u16, u32, i16, i32 or bool")

    # --------------------------------------------------------------------- calls
    def call(self, n: ast.Call) -> Expr:
        f = n.func
        if isinstance(f, ast.Attribute) and self.is_tile(f.value):
            return self.tile_method(n, f.attr)
        if isinstance(f, ast.Attribute):
            # t.<timer>.start(ms) / .stop(); t.<enum field>.next()
            if isinstance(f.value, ast.Attribute) and self.is_tile(f.value.value):
                owner = f.value.attr
                if owner in self.sym.timer_names:
                    return self.timer_method(n, self.sym.timer_names[owner], owner, f.attr)
                if owner in self.sym.field_enums and f.attr == "next":
                    if n.args or n.keywords:
                        raise self.fail(n, f"t.{owner}.next() takes no arguments",
                                        f"t.{owner}.next() is the next kind (after the last, the first)")
                    enum = self.sym.field_enums[owner]
                    g = self.sym.fields[owner]
                    if g.size is not None:
                        raise self.fail(n, f"t.{owner} holds six kinds, one per face",
                                        f"the next kind of one face: t.{owner}[f].next()")
                    cur = Name(owner, g.type, "global")
                    return convert(binop("%", binop("+", cur, Const(1, I16)),
                                         Const(len(enum), I16)), g.type)
            # t.<per-face kinds field>[f].next()
            if (isinstance(f.value, ast.Subscript) and isinstance(f.value.value, ast.Attribute)
                    and self.is_tile(f.value.value.value) and f.attr == "next"
                    and f.value.value.attr in self.sym.field_enums):
                if n.args or n.keywords:
                    raise self.fail(n, "next() takes no arguments")
                element = self.per_face(f.value)
                enum = self.sym.field_enums[element.array]
                return convert(binop("%", binop("+", element, Const(1, I16)),
                                     Const(len(enum), I16)), element.type)
            raise self.fail(n, "this method is not available", _SUBSET_HINT)
        if not isinstance(f, ast.Name):
            raise self.fail(n, "this call is not supported", _SUBSET_HINT)
        name = f.id
        if n.keywords and name not in ("send",):
            raise self.fail(n, f"{name}() takes no keyword arguments here", "pass them in order")
        if name in self.locals or name in self.param_types:
            raise self.fail(n, f"{name} is a number, not a function")
        intrinsic = getattr(self, f"fn_{name}", None)
        if intrinsic is not None and (name not in self.pyglobals or _is_dsl_helper(self.pyglobals[name])):
            return intrinsic(n, [self.expr(a) for a in n.args])
        if self.engine and name in TYPE_NAMES:
            (arg,) = [self.expr(a) for a in n.args]
            return convert(arg, TYPE_NAMES[name])
        if self.engine and name in self.sym.functions:
            return self.program_call(n, name)
        if self.engine and name in BLINKLIB:
            b = BLINKLIB[name]
            args = [self.expr(a) for a in n.args]
            if len(args) != len(b.params):
                raise self.fail(n, f"{name}() takes {len(b.params)} arguments")
            return Call(name, tuple(convert(a, t) for a, t in zip(args, b.params, strict=True)),
                        b.ret, builtin=True, is_bool=b.is_bool)
        helper = self.sym.helper_candidates.get(name)
        if helper is not None and self.pyglobals.get(name) is helper:
            return self.helper_call(n, name)
        if name in self.pyglobals and callable(self.pyglobals[name]):
            raise self.fail(n, f"{name}() is a Python function the tile cannot run",
                            "handlers may call the blinkc functions listed in docs/dsl.md")
        builtins = __builtins__ if isinstance(__builtins__, dict) else vars(__builtins__)
        if name in builtins:
            raise self.fail(n, f"{name}() is not available on the tile", _SUBSET_HINT)
        raise self.fail(n, f"unknown function {name}()", _SUBSET_HINT)

    def helper_call(self, n: ast.Call, name: str) -> Call:
        """A call to a helper function of the game file (compiled as its own IR function)."""
        if name not in self.sym.helpers:
            self.sym.helpers[name] = helper_signature(self, self.sym.helper_candidates[name], n)
        fname, sig, takes_tile = self.sym.helpers[name]
        arg_nodes = list(n.args)
        if takes_tile:
            if not arg_nodes or not self.is_tile(arg_nodes[0]):
                raise self.fail(n, f"{name}() takes the tile first", f"{name}({self.tile or 't'}, ...)")
            arg_nodes = arg_nodes[1:]
        if len(arg_nodes) != len(sig.params):
            raise self.fail(n, f"{name}() takes {len(sig.params)} values, not {len(arg_nodes)}")
        args = [self.expr(a) if isinstance(t, ColorType)
                else self.number(a, self.expr(a), f"an argument of {name}()")
                for a, t in zip(arg_nodes, sig.params, strict=True)]
        for a, e, t in zip(arg_nodes, args, sig.params, strict=True):
            if isinstance(t, ColorType) and not isinstance(e.type, ColorType):
                raise self.fail(a, f"{ast.unparse(a)} is a number, but {name}() takes a colour "
                                   "there", "pass a colour: RED, makeColorRGB(r, g, b), dim(c, b)...")
        return Call(fname, tuple(convert(a, t) for a, t in zip(args, sig.params, strict=True)),
                    sig.ret, is_bool=sig.is_bool)

    def program_call(self, n: ast.Call, name: str) -> Call:
        sig = self.sym.functions[name]
        args = [self.expr(a) for a in n.args]
        if len(args) != len(sig.params):
            raise self.fail(n, f"{name}() takes {len(sig.params)} arguments, not {len(args)}")
        return Call(name, tuple(convert(a, t) for a, t in zip(args, sig.params, strict=True)),
                    sig.ret, is_bool=sig.is_bool)

    def tile_method(self, n: ast.Call, method: str) -> Expr:
        args = n.args
        if method == "send":
            return self.send(n)
        if n.keywords:
            raise self.fail(n, f"t.{method}() takes no keyword arguments")
        if method == "flood":
            if len(args) not in (1, 2):
                raise self.fail(n, "t.flood(Flood) takes the flood to start",
                                "and its value, for a flood with a payload: t.flood(Flood, value)")
            v = self.expr_or_symbol(args[0])
            k = self.sym.floods.get(id(v.value)) if isinstance(v, _Symbol) else None
            if k is None:
                raise self.fail(n, "t.flood() needs a flood", 'declare it: Reset = game.flood("Reset")')
            decl = v.value
            kc = Const(k, U8, name=f"flood:{decl.name}")
            if decl.payload is None or decl.combine is not None:
                if len(args) == 2:
                    what = "gather" if decl.combine else "flood"
                    raise self.fail(n, f"the {what} {decl.name} carries no value: t.flood({decl.name})",
                                    "a gather's tiles give their values from @game.on_flood"
                                    if decl.combine else
                                    f'declare one: game.flood("{decl.name}", payload=range(16))')
                return Call("flood_start", (kc,), None)
            if len(args) == 1:
                raise self.fail(n, f"the flood {decl.name} carries a value: pass it",
                                f"t.flood({decl.name}, value)")
            value = self.wide_payload(n, args[1], decl.payload, decl.name, "value")
            return Call("flood_start_with", (kc, value), None)
        if method in ("color", "color_all"):
            want = 2 if method == "color" else 1
            if len(args) != want:
                raise self.fail(n, "t.color(face, colour) / t.color_all(colour)")
            vals = [self.expr(a) for a in args[:-1]] + [self.expr(args[-1])]
            colour = vals[-1]
            if not isinstance(colour.type, ColorType):
                raise self.fail(n, "that is a number, not a colour",
                                "use RED, makeColorRGB(r, g, b), dim(c, b)...")
            if method == "color_all":
                return Call("setColor", (colour,), None, builtin=True)
            return Call("setColorOnFace", (colour, self.face(args[0])), None, builtin=True)
        if method == "random":
            if len(args) != 1:
                raise self.fail(n, "t.random(limit) takes the largest value to draw")
            limit = self.number(args[0], self.expr(args[0]), "t.random()'s limit")
            if self.sym.own_random:
                return Call("draw_below", (below(limit),), U16)
            return Call("random", (convert(limit, U16),), U16, builtin=True)
        if method == "random_word":
            if args:
                raise self.fail(n, "t.random_word() takes no arguments")
            if self.sym.own_random:
                return Call("draw_word", (), U16)
            return Call("randomWord", (), U16, builtin=True)
        if method == "has_neighbor":
            if len(args) != 1:
                raise self.fail(n, "t.has_neighbor(face) takes one face")
            expired = Call("isValueReceivedOnFaceExpired", (self.face(args[0]),),
                           BOOL, builtin=True, is_bool=True)
            return not_(expired)
        if method == "neighbor":
            raise self.fail(n, "t.neighbor(face) is read through a broadcast value",
                            "t.neighbor(f).kind, for a field declared with broadcast=True")
        methods = ("send", "flood", "color", "color_all", "random", "random_word", "has_neighbor",
                   "neighbor")
        raise self.fail(n, f"the tile has no method {method}()",
                        did_you_mean(method, methods, "t.{}()")
                        or f"tile methods: {', '.join(methods)}")

    def send(self, n: ast.Call) -> Call:
        call = self._send(n)
        m = self.expr_or_symbol(n.args[0])
        if isinstance(m, _Symbol) and id(m.value) in self.sym.grouped:
            # A message confined to a group: a send outside it bounces at once.
            return Call({"send_code": "send_grouped", "send_wide": "send_wide_grouped"}[call.func],
                        call.args, None)
        return call

    def _send(self, n: ast.Call) -> Call:
        kw = {k.arg: k.value for k in n.keywords}
        if "within" in kw:
            raise self.fail(n, "t.send() takes no within=: a message's group is part of the "
                               "message's declaration",
                            'Hail = game.message("Hail", within=same_ship): every t.send(Hail, '
                            "face) then bounces where same_ship(t, face) does not hold")
        args = list(n.args)
        if not args:
            raise self.fail(n, "t.send(Message, face) needs a message")
        m = self.expr_or_symbol(args[0])
        info = self.sym.messages.get(id(m.value)) if isinstance(m, _Symbol) else None
        if info is None:
            raise self.fail(n, "t.send() needs a message as its first argument",
                            'declare it: Laser = game.message("Laser")')
        code, payload, mname = info
        rest = args[1:]
        for key in ("face", "payload"):
            if key in kw and len(rest) > ("face", "payload").index(key):
                raise self.fail(n, f"t.send() is given its {key} twice",
                                f"t.send({mname}, face[, payload]) or t.send({mname}, face=f)")
        face_node = kw.pop("face", rest.pop(0) if rest else None)
        pay_node = kw.pop("payload", rest.pop(0) if rest else None)
        if face_node is None:
            raise self.fail(n, f"t.send({mname}, face) needs the face to send out of")
        if kw or rest:
            raise self.fail(n, "t.send(Message, face[, payload]) takes no other arguments")
        face = self.face(face_node)
        if payload is None:
            if pay_node is not None:
                raise self.fail(n, f"{mname} carries no payload",
                                f'declare one: game.message("{mname}", payload=range(4))')
            return Call("send_code", (Const(code, U8, name=f"message:{mname}"), face), None)
        if pay_node is None:
            raise self.fail(n, f"{mname} carries a payload: pass it",
                            f"t.send({mname}, face, value)")
        if id(m.value) in self.sym.wide:
            value = self.wide_payload(n, pay_node, payload, mname, "payload")
            chunks = Const(self.sym.wide[id(m.value)], U8,
                           name=derived_key("chunks", ("message", mname)))  # (CARGO_CHUNKS)
            return Call("send_wide", (Const(code, U8, name=f"message:{mname}"), value, chunks,
                                      face), None)
        pay = self.expr(pay_node)
        if isinstance(pay.type, ColorType):
            raise self.fail(n, "a colour cannot be a payload",
                            f"send a number in {payload.start}..{payload.stop - 1}; the "
                            "receiver can pick the colour")
        lo, hi = payload.start, payload.stop - 1
        if isinstance(pay, Const) and pay.value not in payload:
            raise self.fail(n, f"payload {pay.value} is outside {mname}'s range {lo}..{hi}",
                            f"send a value in {lo}..{hi}, or widen payload=range(...)")
        if not is_pure(pay, self.sym.pure):
            raise self.fail(n, "a payload must not have side effects",
                            "store t.random(...) in a local first")
        # A payload outside its range would be another message's code: it is clamped to the
        # range (the clamp disappears where the value ranges prove it cannot bind, and the
        # lint reports a payload that is always outside).
        self.sym.payload_sends.append((self.func_name, pay, lo, hi, mname, self.loc(n)))
        clamped = cond(compare(">", pay, Const(hi, I16)), Const(hi, I16),
                       cond(compare("<", pay, Const(lo, I16)), Const(lo, I16), pay))
        if isinstance(clamped, Const):  # the code of that payload: MSG_LASER + 3
            offset = clamped.value - lo
            return Call("send_code", (Const(code + offset, U8, name=f"message:{mname}"
                                            + (f"+{offset}" if offset else "")), face), None)
        base = Const(code - lo, I16, name=f"message:{mname}" + (f"-{lo}" if lo else ""))
        # (Not folded when the base is 0: the sum says which message the code is.)
        total = binop("+", base, clamped) if base.value else BinOp("+", base, clamped, I16)
        return Call("send_code", (convert(total, U8), face), None)

    def wide_payload(self, n: ast.Call, node: ast.expr, payload: range, name: str,
                     what: str) -> Expr:
        """A wide value to send, clamped into `payload` and offset to 0 (a u16)."""
        pay = self.expr(node)
        lo, hi = payload.start, payload.stop - 1
        if isinstance(pay.type, ColorType):
            raise self.fail(n, f"a colour cannot be a {what}",
                            f"send a number in {lo}..{hi}; the receiver can pick the colour")
        if isinstance(pay, Const) and pay.value not in payload:
            raise self.fail(n, f"{what} {pay.value} is outside {name}'s range {lo}..{hi}",
                            f"send a value in {lo}..{hi}, or widen payload=range(...)")
        if not is_pure(pay, self.sym.pure):
            raise self.fail(n, f"a {what} must not have side effects",
                            "store t.random(...) in a local first")
        self.sym.payload_sends.append((self.func_name, pay, lo, hi, name, self.loc(n)))
        wide = I32 if hi > 32767 or lo < -32768 else I16
        clamped = cond(compare(">", pay, Const(hi, wide)), Const(hi, wide),
                       cond(compare("<", pay, Const(lo, wide)), Const(lo, wide), pay))
        if lo:
            clamped = binop("-", convert(clamped, wide), Const(lo, wide))
        return convert(clamped, U16)

    def timer_method(self, n: ast.Call, k: int, name: str, method: str) -> Call:
        args = [self.expr(a) for a in n.args]
        if method == "start":
            if len(args) != 1:
                raise self.fail(n, f"t.{name}.start(ms) takes a duration in milliseconds")
            ms = self.number(n, args[0], f"t.{name}.start()'s duration")
            if isinstance(ms, Const) and not 0 <= ms.value <= 30000:
                raise self.fail(n, f"timers run 0..30000 ms, not {ms.value}",
                                "for longer waits, count in a field")
            return Call("timer_start", (Const(k, U8, name=f"timer:{name}"), convert(ms, U16)), None)
        if method == "stop" and not args:
            return Call("timer_stop", (Const(k, U8, name=f"timer:{name}"),), None)
        raise self.fail(n, f"timers have .start(ms), .stop(), .running and .remaining, "
                           f"not .{method}()", did_you_mean(method, ("start", "stop"), ".{}()"))

    # ------------------------------------------------------------- intrinsics
    def _want(self, n: ast.Call, args: list[Expr], count: int, usage: str) -> None:
        if len(args) != count:
            raise self.fail(n, f"{usage} takes {count} argument{'s' if count != 1 else ''}")

    def _numbers(self, n: ast.AST, args: list[Expr]) -> None:
        for a in args:
            if isinstance(a.type, ColorType):
                raise self.fail(n, "this needs numbers, not colours")

    def fn_min(self, n: ast.Call, args: list[Expr]) -> Expr:
        return self._minmax(n, args, "<")

    def fn_max(self, n: ast.Call, args: list[Expr]) -> Expr:
        return self._minmax(n, args, ">")

    def _minmax(self, n: ast.Call, args: list[Expr], op: str) -> Expr:
        if len(args) < 2:
            raise self.fail(n, "min()/max() take two or more numbers")
        self._numbers(n, args)
        for a in args:
            if not is_pure(a, self.sym.pure):
                raise self.fail(n, "min()/max() arguments must not have side effects",
                                "store t.random(...) in a local first")
        best = args[0]
        for a in args[1:]:
            best = cond(compare(op, a, best), a, best)
        return best

    def fn_abs(self, n: ast.Call, args: list[Expr]) -> Expr:
        self._want(n, args, 1, "abs()")
        self._numbers(n, args)
        (a,) = args
        if not is_pure(a, self.sym.pure):
            raise self.fail(n, "abs() argument must not have side effects")
        return cond(compare("<", a, Const(0, I16)), binop("-", Const(0, I16), a), a)

    def fn_opposite(self, n: ast.Call, args: list[Expr]) -> Expr:
        self._want(n, args, 1, "opposite(face)")
        self._numbers(n, args)
        return convert(binop("%", binop("+", args[0], Const(3, I16)), Const(6, I16)), U8)

    def fn_cw(self, n: ast.Call, args: list[Expr]) -> Expr:
        if len(args) not in (1, 2):
            raise self.fail(n, "cw(face, steps=1) turns a face clockwise")
        self._numbers(n, args)
        steps = args[1] if len(args) == 2 else Const(1, I16)
        return convert(binop("%", binop("+", args[0], steps), Const(6, I16)), U8)

    def fn_ccw(self, n: ast.Call, args: list[Expr]) -> Expr:
        if len(args) not in (1, 2):
            raise self.fail(n, "ccw(face, steps=1) turns a face anticlockwise")
        self._numbers(n, args)
        steps = args[1] if len(args) == 2 else Const(1, I16)
        back = binop("-", Const(6, I16), binop("%", steps, Const(6, I16)))
        return convert(binop("%", binop("+", args[0], back), Const(6, I16)), U8)

    def fn_bit(self, n: ast.Call, args: list[Expr]) -> Expr:
        """bit(mask, i): is bit i of mask set."""
        self._want(n, args, 2, "bit(mask, i)")
        self._numbers(n, args)
        self.check_arith(n, ">>", args[0], args[1])
        return truth(binop("&", binop(">>", args[0], args[1]), Const(1, I16)))

    def fn_makeColorRGB(self, n: ast.Call, args: list[Expr]) -> Expr:
        self._want(n, args, 3, "makeColorRGB(r, g, b)")
        return self._colour(n, "makeColorRGB", args, (U8, U8, U8), _rgb)

    def fn_makeColorHSB(self, n: ast.Call, args: list[Expr]) -> Expr:
        self._want(n, args, 3, "makeColorHSB(hue, saturation, brightness)")
        return self._colour(n, "makeColorHSB", args, (U8, U8, U8), _hsb)

    def fn_rgb5(self, n: ast.Call, args: list[Expr]) -> Expr:
        """rgb5(r, g, b): a colour from 5-bit channels 0..31 (constants only)."""
        self._want(n, args, 3, "rgb5(r, g, b)")
        if not all(isinstance(a, Const) and 0 <= a.value <= 31 for a in args):
            raise self.fail(n, "rgb5() takes constant channels 0..31",
                            "use makeColorRGB() for computed colours")
        return Const(_rgb5(*(a.value for a in args)), COLOR)  # type: ignore[union-attr]

    def fn_dim(self, n: ast.Call, args: list[Expr]) -> Expr:
        self._want(n, args, 2, "dim(colour, brightness)")
        return self._colour(n, "dim", args, (COLOR, U8), _dim)

    def fn_lighten(self, n: ast.Call, args: list[Expr]) -> Expr:
        self._want(n, args, 2, "lighten(colour, amount)")
        return self._colour(n, "lighten", args, (COLOR, U8), _lighten)

    def _colour(self, n: ast.Call, func: str, args: list[Expr], types: tuple[IntType, ...],
                fold: Callable[..., int]) -> Expr:
        def kind(t: IntType) -> str:
            return "a colour" if isinstance(t, ColorType) else "a number"

        for a, t in zip(args, types, strict=True):
            if isinstance(t, ColorType) != isinstance(a.type, ColorType):
                raise self.fail(n, f"{func}() takes {kind(t)} where you passed {kind(a.type)}")
        conv = tuple(convert(a, t) for a, t in zip(args, types, strict=True))
        if all(isinstance(a, Const) for a in conv):
            return Const(fold(*(a.value for a in conv)), COLOR)  # type: ignore[union-attr]
        return Call(func, conv, COLOR, builtin=True)

    def fn_sin8(self, n: ast.Call, args: list[Expr]) -> Expr:
        self._want(n, args, 1, "sin8(angle)")
        (a,) = args
        a = convert(a, U8)
        if isinstance(a, Const):
            return Const(_sin8(a.value), U8)
        return Call("sin8_C", (a,), U8, builtin=True)


_ANNOTATIONS: dict[str, IntType] = {"int": I16, "bool": BOOL, "Face": U8, "Color": COLOR}


def gives_value(node: ast.FunctionDef) -> bool:
    """Whether a function's own body (not a function defined in it) has `return <value>`."""
    todo: list[ast.AST] = list(node.body)
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Return) and n.value is not None:
            return True
        if not isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            todo += ast.iter_child_nodes(n)
    return False


def helper_signature(caller: FunctionCompiler, fn: Callable, call: ast.Call) -> tuple[str, Signature, bool]:
    """The IR signature of a game helper: parameters typed by annotation (int by default)."""
    try:
        node, _file, _first = parse_function(fn)
    except DslError as e:
        caller.errors.append(e)
        raise _Skip() from None
    names = [a.arg for a in node.args.args]
    takes_tile = bool(call.args) and caller.is_tile(call.args[0]) and bool(names)
    params = node.args.args[1:] if takes_tile else node.args.args
    types: list[IntType] = []
    for a in params:
        ann = a.annotation
        key = ann.id if isinstance(ann, ast.Name) else ann.attr if isinstance(ann, ast.Attribute) else "int"
        if ann is not None and key not in _ANNOTATIONS:
            raise caller.fail(call, f"{fn.__name__}(): parameter {a.arg!r} has a type the tile lacks",
                              "annotate parameters with int, bool, Face or Color (or leave them "
                              "unannotated: int)")
        types.append(_ANNOTATIONS.get(key, I16))
    ret = None
    r = node.returns
    if r is not None and not (isinstance(r, ast.Constant) and r.value is None):
        key = r.id if isinstance(r, ast.Name) else r.attr if isinstance(r, ast.Attribute) else ""
        if key not in _ANNOTATIONS:
            raise caller.fail(call, f"{fn.__name__}() returns a type the tile lacks",
                              "annotate the return as -> int, -> bool, -> Face or -> Color")
        ret = _ANNOTATIONS[key]
    elif r is None and gives_value(node):
        ret = _inferred_result(caller, fn, node, params, types, takes_tile)
    return f"helper_{fn.__name__}", Signature(tuple(types), ret, ret == BOOL), takes_tile


def _inferred_result(caller: FunctionCompiler, fn: Callable, node: ast.FunctionDef,
                     params: list[ast.arg], types: list[IntType], takes_tile: bool) -> IntType:
    """An unannotated helper's result: a colour when every value it returns is one, else an
    int. Its body is compiled once to see (that compile's errors are its real compile's)."""
    sym = caller.sym
    if fn.__name__ in sym.inferring:
        raise _Skip()  # it calls itself (an error of its own, later): that value tells nothing
    sym.inferring.add(fn.__name__)
    sends = len(sym.payload_sends)
    _, _file, first = parse_function(fn)
    probe = FunctionCompiler(sym, file=_file, line0=first, node=node,
                             name=f"helper_{fn.__name__}",
                             params=[(a.arg, t) for a, t in zip(params, types, strict=True)],
                             ret=I16, role="helper",
                             tile=node.args.args[0].arg if takes_tile else None,
                             pyglobals=fn.__globals__, errors=[])
    probe.returned = []
    try:
        probe.compile()
    finally:
        sym.inferring.discard(fn.__name__)
        del sym.payload_sends[sends:]
    colours = [isinstance(t, ColorType) for t in probe.returned]
    return COLOR if colours and all(colours) else I16


#: What the tile itself reads (t.now, ...): one value each.
_TILE_VALUES = frozenset({"now", "alone", "neighbor_mask"})


def _exits(body: list[ast.stmt]) -> bool:
    """True when a block never falls through (it ends in return, break or continue)."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, ast.Return | ast.Break | ast.Continue):
        return True
    return isinstance(last, ast.If) and _exits(last.body) and _exits(last.orelse)


def _merge_paths(*paths: tuple[set[str], bool]) -> set[str]:
    """Locals that have a value after an if: those of every branch that falls through."""
    through = [defined for defined, exits in paths if not exits]
    if not through:
        return set().union(*(defined for defined, _ in paths))  # nothing follows the if
    return set.intersection(*through)


def _is_dsl_helper(v: Any) -> bool:
    """True for names the game imported from blinkc.dsl (min, opposite, ...)."""
    return getattr(v, "__module__", "").startswith("blinkc.dsl") or v in (min, max, abs)


__all__ = ["BLINKLIB", "ColorConst", "FunctionCompiler", "Signature", "Symbols", "parse_function"]
