"""Native tiles: Blinks sketches compiled for the host and run inside the emulator.

    factory = load_sketch("Spinner/Spinner.ino")
    world.add_tile("a", factory(), pos=(0, 0))   # every call: a tile with its own globals

The native world engine, which runs a world of native tiles in C++, is blinkc.native_world
(importing it registers the engine with blinkc.world.make_world). See docs/native.md.
"""

from .avr_check import AvrBuildError, avr_code_size, avr_compile_check, int16_warnings
from .build import NativeBuildError, build_library
from .compile_cache import cache_dir
from .loader import HostIntWarning, NativeSketch, load_sketch, load_sketch_text
from .program import NativeAbiError, NativeProgram
from .sketch import Sketch, SketchError, looks_like_sketch, read_sketch, sketch_from_text
from .toolchain import Diagnostic, ToolMissing, have

__all__ = [
    "AvrBuildError",
    "Diagnostic",
    "HostIntWarning",
    "NativeAbiError",
    "NativeBuildError",
    "NativeProgram",
    "NativeSketch",
    "Sketch",
    "SketchError",
    "ToolMissing",
    "avr_code_size",
    "avr_compile_check",
    "build_library",
    "cache_dir",
    "have",
    "int16_warnings",
    "load_sketch",
    "load_sketch_text",
    "looks_like_sketch",
    "read_sketch",
    "sketch_from_text",
]
