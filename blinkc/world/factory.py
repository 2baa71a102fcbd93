"""`make_world`: the Python world, or the one whose event core runs in C++."""

from __future__ import annotations

from typing import Any

from ..native.toolchain import have
from .world import Faults, World

#: "auto": the C++ core when every tile is native and g++ is here, else Python;
#: "native": the C++ core or an error; "python": the reference world.
ENGINES = ("auto", "native", "python")


def make_world(seed: int = 0, faults: Faults | None = None, trace: Any = None,
               idle_skip: bool = True, engine: str = "auto") -> World:
    """A new world. Both kinds behave identically; the C++ one is faster for native tiles."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if engine == "python" or (engine == "auto" and not have("host")):
        return World(seed=seed, faults=faults, trace=trace, idle_skip=idle_skip)
    from .native_world import NativeWorld

    return NativeWorld(seed=seed, faults=faults, trace=trace, idle_skip=idle_skip, engine=engine)
