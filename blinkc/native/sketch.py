"""Sketches for the emulator: an .ino (or a sketch folder) to one C++ unit.

The unit is made by `blinkc.sketch_source.arduino_unit`, the Arduino
preprocessing the tile build (`build/sketch.py`) uses too, so a sketch gets
the same prototypes on the tile and in the emulator.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..sketch_source import arduino_unit


class SketchError(Exception):
    """The sketch cannot be read (missing file, no .ino in a folder, ...)."""


@dataclass(frozen=True)
class Sketch:
    """A sketch ready to compile: one C++ translation unit plus its surroundings."""

    name: str
    #: The main file (for messages); may not exist for a sketch given as text.
    path: Path
    #: The translation unit, starting with `#include <Arduino.h>`.
    unit: str
    #: Folders searched for the sketch's own `#include "..."` headers.
    include_dirs: tuple[Path, ...] = ()
    #: Other C/C++ files of the sketch folder, compiled alongside.
    extra_sources: tuple[Path, ...] = field(default=())


def looks_like_sketch(path: str | Path) -> bool:
    """True for an .ino file, or a folder holding one (what `read_sketch` accepts)."""
    p = Path(path).expanduser()
    if p.is_dir():
        return any(p.glob("*.ino"))
    return p.suffix == ".ino"


def read_sketch(path: str | Path) -> Sketch:
    """Read an .ino/.cpp file or a sketch folder (`Name/Name.ino` and siblings)."""
    p = Path(path).expanduser()
    if p.is_dir():
        main = p / f"{p.name}.ino"
        inos = sorted(q for q in p.glob("*.ino") if q != main)
        if not main.exists():
            if not inos:
                raise SketchError(f"{p}: no .ino file in this folder")
            main, inos = inos[0], inos[1:]
        folder = p
    elif p.is_file():
        main, inos, folder = p, [], p.parent
    else:
        raise SketchError(f"{p}: no such sketch file or folder")
    files = [main, *inos]
    parts = [(f.resolve(), f.read_text(encoding="utf-8", errors="replace")) for f in files]
    extra: tuple[Path, ...] = ()
    if p.is_dir():
        extra = tuple(sorted(q.resolve() for q in folder.iterdir()
                             if q.suffix in (".cpp", ".c", ".cc")))
    name = main.stem
    return Sketch(name, main.resolve(), arduino_unit(parts), (folder.resolve(),), extra)


def sketch_from_text(text: str, name: str = "sketch", path: str | Path | None = None) -> Sketch:
    """A sketch given as source text (e.g. generated code); `path` names it in messages."""
    where = Path(path) if path is not None else Path(f"{name}.ino")
    dirs = (where.parent.resolve(),) if path is not None else ()
    return Sketch(name, where, arduino_unit([(where, text)]), dirs)

