"""`load_sketch`: from a sketch on disk (or generated text) to a tile-program factory."""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from pathlib import Path

from . import compile_cache
from .build import BuiltLibrary, build_library
from .program import NativeProgram
from .sketch import Sketch, read_sketch, sketch_from_text
from .toolchain import Diagnostic, ToolMissing


class HostIntWarning(UserWarning):
    """The sketch relies on the tile's 16-bit int where the host's int is 32-bit."""


@dataclass(frozen=True)
class NativeSketch:
    """A compiled sketch. Call it to make a fresh tile program with globals of its own."""

    sketch: Sketch
    library: BuiltLibrary
    #: What the AVR compiler found about 16-bit int (empty without avr-gcc).
    int16_warnings: tuple[Diagnostic, ...] = ()

    @property
    def name(self) -> str:
        return self.sketch.name

    @property
    def library_path(self) -> Path:
        return self.library.path

    def __call__(self, restartable: bool = False) -> NativeProgram:
        return NativeProgram(self.library.path, name=self.sketch.name,
                             source=str(self.sketch.path), restartable=restartable)


def load_sketch(path: str | Path, *, check_int16: bool = True) -> NativeSketch:
    """Compile an Arduino-style Blinks sketch (an .ino file or sketch folder) for the host.

    Raises build.NativeBuildError with the compiler's messages when it does
    not compile, sketch.SketchError when it cannot be read, and
    toolchain.ToolMissing without g++. With `check_int16` and avr-gcc
    installed, each 16-bit `int` hazard is also issued as a HostIntWarning.
    """
    return _load(read_sketch(path), check_int16)


def load_sketch_text(text: str, name: str = "sketch", path: str | Path | None = None, *,
                     check_int16: bool = True) -> NativeSketch:
    """Like load_sketch, for source text (generated C++); `path` names it in messages."""
    return _load(sketch_from_text(text, name, path), check_int16)


def _load(sketch: Sketch, check_int16: bool) -> NativeSketch:
    built = build_library(sketch)
    found: tuple[Diagnostic, ...] = ()
    if check_int16:
        found = _int16_cached(sketch, built)
        for d in found:
            warnings.warn(str(d), HostIntWarning, stacklevel=3)
    return NativeSketch(sketch, built, found)


def _int16_cached(sketch: Sketch, built: BuiltLibrary) -> tuple[Diagnostic, ...]:
    """The 16-bit int findings, kept in the cache beside the library (same key: same unit)."""
    from .avr_check import int16_warnings

    def check_into(tmp: Path) -> Path:
        found = tmp / "int16.json"
        found.write_text(json.dumps([d.__dict__ for d in int16_warnings(sketch)]))
        return found

    try:
        record = compile_cache.reuse_or_make(built.path.with_suffix(".int16.json"), check_into)
    except ToolMissing:
        return ()
    except Exception:  # the host build succeeded; this check is advice only
        return ()
    return tuple(Diagnostic(**d) for d in json.loads(record.read_text()))
