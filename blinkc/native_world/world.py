"""`NativeWorld`: a World whose events the C++ world core runs while every tile is native.

It is `World(engine=NativeEngine(engine))` under a name of its own (what
`make_world(engine="auto" or "native")` returns once blinkc.native_world is imported): it overrides
nothing, and everything it does differently is the engine's (blinkc/native_world/engine.py, the
interface in blinkc/world/engine.py).
"""

from __future__ import annotations

from typing import Any

from ..world.world import Faults, World
from .engine import NativeEngine, native_of

__all__ = ["NativeEngine", "NativeWorld", "native_of"]


class NativeWorld(World):
    """A World run by a NativeEngine: in C++ while all its tiles are native.

    `engine`: "auto" runs a world the core cannot run (a Python tile in it) in Python;
    "native" makes that an error at the first run."""

    def __init__(self, seed: int = 0, faults: Faults | None = None, trace: Any = None,
                 idle_skip: bool = True, engine: str = "auto") -> None:
        super().__init__(seed=seed, faults=faults, trace=trace, idle_skip=idle_skip,
                         engine=NativeEngine(engine))
