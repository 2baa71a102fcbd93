"""Run an unmodified Blinks sketch on a layout's tiles (`blinkc emulate Sketch.ino -l ...`):
the resolver that gives each tile without a program of its own the sketch. (The resolvers
of game files are in blinkc.games.)"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from . import native_world  # noqa: F401  (registers the native world engine for make_world)
from .native.build import NativeBuildError
from .native.loader import HostIntWarning, NativeSketch, load_sketch
from .native.sketch import SketchError
from .native.toolchain import ToolMissing
from .world.layout import ProgramError, Resolver, TileSpec, resolve_program


def sketch_resolver(path: str | Path, fallback: Resolver = resolve_program) -> Resolver:
    """Tiles without a program of their own run the sketch, each with its own globals."""
    loaded: list[NativeSketch] = []

    def factory() -> NativeSketch:
        if not loaded:
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", HostIntWarning)
                    loaded.append(load_sketch(path))
            except (NativeBuildError, SketchError, ToolMissing) as e:
                raise ProgramError(f"cannot run {path}: {e}") from None
            for w in caught:
                print(f"warning: {w.message}")
        return loaded[0]

    def resolve(spec: TileSpec) -> Any:
        if spec.program is not None:
            return fallback(spec)
        if spec.params:
            raise ProgramError(f"tile {spec.name!r}: a sketch takes no settings",
                               "remove the key=value settings from the layout line")
        return factory()()

    return resolve
