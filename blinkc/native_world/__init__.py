"""The native world engine: a world's event loop in C++ while every tile is native.

`NativeEngine` (engine.py) hands the event loop of a world whose tiles are all native (host
tiles: blinkc.native) to the C++ world core (core/: world_core.cpp, its build and its ctypes
bindings); `NativeWorld` (world.py) is a World run by one.

Importing this package registers the engine as "native" with blinkc.world.make_world.
See docs/architecture.md ("World engines") and docs/native.md ("The world core").
"""

from ..native.toolchain import have
from ..world.factory import register_engine
from .engine import NativeEngine, native_of
from .world import NativeWorld

# make_world(engine="auto" or "native") runs native tiles' clusters in the C++ event core.
register_engine("native", NativeWorld, lambda: have("host"))

__all__ = ["NativeEngine", "NativeWorld", "native_of"]
