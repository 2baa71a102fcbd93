"""`make_world`: a world run by one of the world engines (engine.py).

`World()` runs its events with the reference `PythonEngine`. A faster engine registers a
world factory with `register_engine` when its package is imported: blinkc.native_world
registers "native", whose `NativeEngine` runs the event loop in C++ while every tile is
native. Both behave identically (the world-equivalence tests run them side by side); the
world package itself never imports an engine, so it knows nothing of C++, sketches or games.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .world import Faults, World, WorldError

#: "auto": the fast engine when it is registered and can run here (it falls back to Python
#: by itself for a cluster that is not all native), else Python; "native": the fast engine or
#: an error; "python": the reference world.
ENGINES = ("auto", "native", "python")


@dataclass(frozen=True)
class _Registered:
    make: Callable[..., World]      # make(seed=, faults=, trace=, idle_skip=, engine=)
    available: Callable[[], bool]   # False: it cannot run on this machine (no compiler)


_registered: dict[str, _Registered] = {}


def register_engine(name: str, make: Callable[..., World], available: Callable[[], bool]) -> None:
    """Make `make_world(engine=name)` (and "auto") use this engine: `make(seed=, faults=,
    trace=, idle_skip=, engine="auto" or name)` returns a World given the engine's Engine."""
    _registered[name] = _Registered(make, available)


def make_world(seed: int = 0, faults: Faults | None = None, trace: Any = None,
               idle_skip: bool = True, engine: str = "auto") -> World:
    """A new world. Every engine behaves identically; the native one is faster for native tiles."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    fast = _registered.get("native")
    if engine == "native" and fast is None:
        raise WorldError("the native world engine is not loaded: import blinkc.native_world first "
                         "(blinkc's command line and blinkc.testing do)")
    if engine == "python" or fast is None or (engine == "auto" and not fast.available()):
        return World(seed=seed, faults=faults, trace=trace, idle_skip=idle_skip)
    return fast.make(seed=seed, faults=faults, trace=trace, idle_skip=idle_skip, engine=engine)
