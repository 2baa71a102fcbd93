"""Turn game files into tile programs for the emulator.

A game file is compiled once (per path and content) to IR; the chosen
backend makes a tile program class from it. Layouts name the game and give
each tile its initial state (`kind=HAZARD orient=2`); the resolver here checks
those settings against the game's fields. Settings are the fields' values
before `@game.setup` runs (setup sees them); a setting of a field that setup
assigns would not hold, so it is refused (docs/dsl.md).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from . import native_world  # noqa: F401  (registers the native world engine for make_world)
from .dsl.errors import GameErrors, did_you_mean
from .dsl.loader import compile_game
from .ir.nodes import Assign, Call, GlobalVar, Index, Name, Program, SrcLoc
from .ir.walk import walk_stmts
from .world.layout import ProgramError, Resolver, TileSpec, resolve_program
from .world.syntax import parse_int

_programs: dict[tuple[str, str], Program] = {}
_classes: dict[tuple[str, str, str], type] = {}


def _key(path: str | Path) -> tuple[str, str]:
    p = Path(path).resolve()
    return str(p), hashlib.sha256(p.read_bytes()).hexdigest()


def load_program(path: str | Path) -> Program:
    """The IR of a game file (cached by content, and by the working folder: the program
    names its file relative to it); raises GameErrors on a faulty game."""
    key = (*_key(path), str(Path.cwd()))
    if key not in _programs:
        _programs[key] = compile_game(path)
    return _programs[key]


def tile_class(path: str | Path, backend: str = "python") -> type:
    """A tile program class for the game, from the chosen backend ("python" or "native")."""
    key = (*_key(path), backend)
    if key not in _classes:
        program = load_program(path)
        if backend == "python":
            from .backends.python import program_class

            _classes[key] = program_class(program)
        elif backend == "native":
            from .native.game import native_class

            _classes[key] = native_class(program, Path(path))
        else:
            raise ValueError(f"unknown backend {backend!r}")
    return _classes[key]


#: setup_assigns of the programs asked lately (by id, with the program: an id is reused only
#: once its program is gone). The explorer asks for every tile of every run.
_assigns: dict[int, tuple[Program, dict[str, SrcLoc]]] = {}


def setup_assigns(program: Program) -> dict[str, SrcLoc]:
    """The fields the game's @game.setup (or a helper it calls) may assign, and where."""
    known = _assigns.get(id(program))
    if known is not None and known[0] is program:
        return known[1]
    if len(_assigns) > 64:
        _assigns.clear()
    found = _setup_assigns(program)
    _assigns[id(program)] = (program, found)
    return found


def _setup_assigns(program: Program) -> dict[str, SrcLoc]:
    functions = {f.name: f for f in program.functions}
    state = {g.name for g in program.state_fields}
    out: dict[str, SrcLoc] = {}
    todo, seen = ["game_setup"], set()
    while todo:
        f = functions.get(todo.pop())
        if f is None or f.name in seen:
            continue
        seen.add(f.name)
        for node in walk_stmts(f.body):
            if (isinstance(node, Assign) and isinstance(node.target, Name)
                    and node.target.scope == "global" and node.target.name in state):
                out.setdefault(node.target.name, node.loc)
            elif (isinstance(node, Assign) and isinstance(node.target, Index)
                    and node.target.array in state):  # one face of a per-face field
                out.setdefault(node.target.array, node.loc)
            elif (isinstance(node, Call) and not node.builtin and node.func in functions
                    and functions[node.func].role in ("handler", "helper")):
                todo.append(node.func)
    return out


def initial_state(program: Program, settings: dict[str, Any], tile: str) -> dict[str, int | list[int]]:
    """Check a layout's key=value settings against the game's fields; values as integers (a
    per-face field's as a list of six: `score=2` gives every face 2, `score=0,1,0,0,2,0` each
    its own)."""
    if not settings:
        return {}
    fields = {g.name: g for g in program.state_fields}
    by_setup = setup_assigns(program)
    out: dict[str, int | list[int]] = {}
    for key, value in settings.items():
        g = fields.get(key)
        if g is None:
            raise ProgramError(f"tile {tile!r}: the game has no field {key!r}",
                               did_you_mean(key, fields, "{}=")
                               or f"its fields are: {', '.join(fields)}")
        if key in by_setup:
            raise ProgramError(f"tile {tile!r}: {key}={value} would not hold: the game's "
                               f"@game.setup assigns t.{key} at power-up ({by_setup[key]})",
                               "settings are the fields' values before setup runs (setup sees "
                               f"them): leave {key} out of the layout, or let setup not assign it")
        if g.size is None:
            out[key] = _field_value(program, g, value, tile, key)
            continue
        parts = value.split(",") if isinstance(value, str) and "," in value else [value]
        if len(parts) not in (1, g.size):
            raise ProgramError(f"tile {tile!r}: {key} has one value per face: {len(parts)} given",
                               f"give one for every face ({key}=0) or six, comma separated "
                               f"({key}=0,1,0,0,2,0)")
        values = [_field_value(program, g, _word(p), tile, key) for p in parts]
        out[key] = values * g.size if len(values) == 1 else values
    return out


def _word(part: Any) -> Any:
    """One comma-separated part of a per-face setting, read as a layout value."""
    if not isinstance(part, str):
        return part
    text = part.strip()
    if text in ("true", "false"):
        return text == "true"
    number = parse_int(text)
    return number if number is not None else text


def _field_value(program: Program, g: GlobalVar, value: Any, tile: str, key: str) -> int:
    """One setting of a field (or of one face of a per-face field), checked, as an integer."""
    if g.enum is not None and isinstance(value, str):
        members = program.enums[g.enum]
        if value not in members:
            raise ProgramError(f"tile {tile!r}: {key} cannot be {value!r}",
                               f"it is one of {', '.join(members)}")
        value = members.index(value)
    if isinstance(value, bool):
        value = int(value)
    if not isinstance(value, int):
        raise ProgramError(f"tile {tile!r}: {key}={value!r} is not a number")
    lo, hi = g.range or (g.type.min, g.type.max)
    if not lo <= value <= hi:
        raise ProgramError(f"tile {tile!r}: {key}={value} is outside {lo}..{hi}")
    return value


@contextmanager
def layout_errors(path: str | Path) -> Iterator[None]:
    """A game a layout names that has errors or cannot be read, as the layout's error."""
    try:
        yield
    except GameErrors as e:
        raise ProgramError(f"the game {path} has errors:\n{e}",
                           f"run `blinkc check {path}` for details") from None
    except OSError as e:
        raise ProgramError(f"cannot read the game {path}: {e.strerror or e}") from None


def game_resolver(game: str | Path | None = None, backend: str = "python",
                  fallback: Resolver = resolve_program) -> Resolver:
    """A layout resolver that runs the game (the layout's or `game`) on tiles without a program."""

    def resolve(spec: TileSpec) -> Any:
        path = game or spec.game
        if spec.program is not None or path is None:
            return fallback(spec)
        with layout_errors(path):
            cls = tile_class(path, backend)
            program = load_program(path)
        return cls(**initial_state(program, spec.params, spec.name))

    return resolve

