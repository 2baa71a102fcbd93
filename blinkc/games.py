"""Turn game files into tile programs for the emulator.

A game file is compiled once (per path and content) to IR; the chosen
backend makes a tile program class from it. Layouts name the game and give
each tile its initial state (`kind=HAZARD orient=2`); the resolver here checks
those settings against the game's fields.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from .dsl.errors import GameErrors
from .dsl.loader import compile_game
from .ir.nodes import Program
from .world.layout import ProgramError, Resolver, TileSpec, resolve_program

_programs: dict[tuple[str, str], Program] = {}
_classes: dict[tuple[str, str, str], type] = {}


def _key(path: str | Path) -> tuple[str, str]:
    p = Path(path).resolve()
    return str(p), hashlib.sha256(p.read_bytes()).hexdigest()


def load_program(path: str | Path) -> Program:
    """The IR of a game file (cached by content); raises GameErrors on a faulty game."""
    key = _key(path)
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
            from .backends.native_game import native_class

            _classes[key] = native_class(program, Path(path))
        else:
            raise ValueError(f"unknown backend {backend!r}")
    return _classes[key]


def initial_state(program: Program, settings: dict[str, Any], tile: str) -> dict[str, int]:
    """Check a layout's key=value settings against the game's fields; values as integers."""
    fields = {g.name: g for g in program.state_fields}
    out: dict[str, int] = {}
    for key, value in settings.items():
        g = fields.get(key)
        if g is None:
            raise ProgramError(f"tile {tile!r}: the game has no field {key!r}",
                               f"its fields are: {', '.join(fields)}")
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
        out[key] = value
    return out


def game_resolver(game: str | Path | None = None, backend: str = "python",
                  fallback: Resolver = resolve_program) -> Resolver:
    """A layout resolver that runs the game (the layout's or `game`) on tiles without a program."""

    def resolve(spec: TileSpec) -> Any:
        path = game or spec.game
        if spec.program is not None or path is None:
            return fallback(spec)
        try:
            cls = tile_class(path, backend)
            program = load_program(path)
        except GameErrors as e:
            raise ProgramError(f"the game {path} has errors:\n{e}",
                               f"run `blinkc check {path}` for details") from None
        except OSError as e:
            raise ProgramError(f"cannot read the game {path}: {e.strerror or e}") from None
        return cls(**initial_state(program, spec.params, spec.name))

    return resolve

