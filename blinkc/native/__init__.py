"""Native tiles: Blinks sketches compiled for the host and run inside the emulator.

    factory = load_sketch("Spinner/Spinner.ino")
    world.add_tile("a", factory(), pos=(0, 0))   # every call: a tile with its own globals

Importing this package registers the native world engine (blinkc.world.make_world).
See docs/native.md.
"""

from ..world.factory import register_engine
from .avr_check import AvrBuildError, avr_code_size, avr_compile_check, int16_warnings
from .build import NativeBuildError, build_library
from .compile_cache import cache_dir
from .engine import NativeEngine
from .loader import HostIntWarning, NativeSketch, load_sketch, load_sketch_text
from .program import NativeAbiError, NativeProgram
from .sketch import Sketch, SketchError, looks_like_sketch, read_sketch, sketch_from_text
from .toolchain import Diagnostic, ToolMissing, have
from .world import NativeWorld

# make_world(engine="auto" or "native") runs native tiles' clusters in the C++ event core.
register_engine("native", NativeWorld, lambda: have("host"))

__all__ = [
    "AvrBuildError",
    "Diagnostic",
    "HostIntWarning",
    "NativeAbiError",
    "NativeBuildError",
    "NativeEngine",
    "NativeProgram",
    "NativeSketch",
    "NativeWorld",
    "Sketch",
    "SketchError",
    "ToolMissing",
    "avr_code_size",
    "avr_compile_check",
    "build_library",
    "cache_dir",
    "int16_warnings",
    "load_sketch",
    "load_sketch_text",
    "looks_like_sketch",
    "read_sketch",
    "sketch_from_text",
]
