"""A game's generated sketch on disk: `OUT/<game>/<game>.ino`, the one way blinkc writes it.

`blinkc gen` and `blinkc build GAME.py` both come here, so the sketch is written under
outputs' rules (only over a sketch blinkc wrote and nobody changed since, unless --force),
whichever command writes it.
"""

from __future__ import annotations

from pathlib import Path

from .errors import BuildError
from .outputs import write_generated


def write_game_sketch(game: str | Path, out_dir: str | Path, *, force: bool = False,
                      line_directives: bool = False) -> Path:
    """Compile `game` and write its sketch into `out_dir/<game>/`; returns the .ino path.

    Raises the game's GameErrors, OutputRefused when blinkc may not write there, and a
    BuildError when this blinkc has no C++ code generator."""
    try:
        from ..backends.cpp import generate_cpp, sketch_path
    except ModuleNotFoundError as exc:
        if exc.name not in ("blinkc.backends", "blinkc.backends.cpp"):
            raise
        raise BuildError(
            f"Cannot build {game}: this blinkc has no C++ code generator (blinkc.backends.cpp).",
            "Build an Arduino sketch (.ino or sketch folder) instead, or update blinkc.",
        ) from None
    from ..dsl.loader import compile_game

    program = compile_game(game)
    where = sketch_path(out_dir, program)
    text = generate_cpp(program, line_directives=line_directives, sketch_file=where.resolve())
    return write_generated(where.parent, where.name, text, force=force)
