"""`make_world`: a world from one of the world engines.

The reference engine is `World` (world.py, Python). A faster engine registers itself with
`register_engine` when its package is imported: blinkc.native registers "native", whose
event loop runs in C++ while every tile is native. Both behave identically (the
world-equivalence tests run them side by side); the world package itself never imports an
engine, so it knows nothing of C++, sketches or games.
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
class Engine:
    make: Callable[..., World]      # make(seed=, faults=, trace=, idle_skip=, engine=)
    available: Callable[[], bool]   # False: it cannot run on this machine (no compiler)


_registered: dict[str, Engine] = {}


def register_engine(name: str, make: Callable[..., World], available: Callable[[], bool]) -> None:
    """Make `make_world(engine=name)` (and "auto") use this engine."""
    _registered[name] = Engine(make, available)


def make_world(seed: int = 0, faults: Faults | None = None, trace: Any = None,
               idle_skip: bool = True, engine: str = "auto") -> World:
    """A new world. Every engine behaves identically; the native one is faster for native tiles."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    fast = _registered.get("native")
    if engine == "native" and fast is None:
        raise WorldError("the native world engine is not loaded: import blinkc.native first "
                         "(blinkc's command line and blinkc.testing do)")
    if engine == "python" or fast is None or (engine == "auto" and not fast.available()):
        return World(seed=seed, faults=faults, trace=trace, idle_skip=idle_skip)
    return fast.make(seed=seed, faults=faults, trace=trace, idle_skip=idle_skip, engine=engine)
