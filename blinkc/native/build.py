"""Compiling a sketch and the host runtime into a shared library, with a cache.

One library per distinct source: the key hashes the translation unit, the
sketch's extra files, blinkc's runtime sources, the compiler's identity and
the flags. The host runtime (blinklib_host.cpp) is compiled once into an object
of its own, cached under the same kind of key, and linked into every library (a
third of each sketch's compile time otherwise). The cache (where it lives,
publishing an entry whole) is compile_cache's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import compile_cache
from .abi import ABI_VERSION, check_header
from .sketch import Sketch
from .toolchain import HOST_INCLUDE_DIR, NATIVE_DIR, compiler_identity, host_cxx, run_compiler

#: Compile flags for native tiles. Why each matters:
#: -fvisibility=hidden, -fno-gnu-unique: every symbol stays private to its
#: library copy (GNU "unique" symbols — statics of inline functions — would
#: otherwise be shared by every tile in the process);
#: -fwrapv: signed overflow wraps (as it does in practice on the tile) instead
#: of being undefined; the rest as the SDK's own build (platform.txt) does it,
#: so what compiles there compiles here: gnu++11, -fpermissive (C-style
#: void* conversions are warnings), no exceptions, no thread-safe statics.
HOST_FLAGS = (
    "-std=gnu++11", "-O2", "-fPIC", "-shared",
    "-fvisibility=hidden", "-fvisibility-inlines-hidden", "-fno-gnu-unique",
    "-fwrapv", "-fpermissive", "-Wno-error=narrowing", "-fno-exceptions",
    "-fno-threadsafe-statics", "-Wall", "-DBLINKC_HOST=1",
)
RUNTIME_SOURCES = ("blinklib_host.cpp",)
RUNTIME_FILES = (*RUNTIME_SOURCES, "blinklib.h", "blinkc_extras.h", "blinkc_hooks.h", "blinkc_native.h",
                 "blinkc_tile.h", "Arduino.h", "ArduinoTypes.h", "Serial.h", "Print.h",
                 "host_include/avr/pgmspace.h")


class NativeBuildError(Exception):
    """The sketch did not compile for the host; the message carries the compiler's."""

    def __init__(self, sketch: Sketch, output: str) -> None:
        self.sketch = sketch
        self.output = output
        super().__init__(f"{sketch.path}: the sketch does not compile for the emulator:\n"
                         f"{output.rstrip()}")


@dataclass(frozen=True)
class BuiltLibrary:
    """A compiled sketch: the cached library and what the compiler said."""

    path: Path
    key: str
    log: str


def build_key(sketch: Sketch, compiler: str, flags: tuple[str, ...]) -> str:
    return compile_cache.key(
        (f"abi {ABI_VERSION}", compiler_identity(compiler), " ".join(flags), sketch.unit,
         *map(str, sketch.include_dirs)),
        (*sketch.extra_sources, *(NATIVE_DIR / f for f in RUNTIME_FILES)))


def runtime_object(cxx: str, sketch: Sketch) -> Path:
    """blinklib_host.cpp compiled with HOST_FLAGS into an object (cached): each library links
    its own copy of it, so every tile still has its own runtime state. It sees blinkc's own
    headers only, never a sketch's folder. A compiler that cannot build it cannot build
    `sketch` either, and the error says so as it did when both were one compile."""
    flags = tuple(f for f in HOST_FLAGS if f != "-shared")
    key = compile_cache.key((f"abi {ABI_VERSION}", compiler_identity(cxx), " ".join(flags)),
                            tuple(NATIVE_DIR / f for f in RUNTIME_FILES))
    obj = compile_cache.entry("blinklib-host", key, ".o")

    def compile_into(tmp: Path) -> Path:
        target = tmp / "runtime.o"
        proc = run_compiler([cxx, *flags, f"-I{NATIVE_DIR}", f"-I{HOST_INCLUDE_DIR}", "-c",
                             *(str(NATIVE_DIR / s) for s in RUNTIME_SOURCES), "-o", str(target)])
        if proc.returncode != 0:
            raise NativeBuildError(sketch, proc.stdout + proc.stderr)
        return target

    return compile_cache.reuse_or_make(obj, compile_into)


def build_library(sketch: Sketch) -> BuiltLibrary:
    """The sketch compiled with the host runtime into a shared library (cached). Refuses a
    blinkc_tile.h that is not what abi.py declares (abi.StaleHeader)."""
    check_header()
    cxx = host_cxx()
    key = build_key(sketch, cxx, HOST_FLAGS)
    lib = compile_cache.entry(sketch.name, key)
    log_file = lib.with_suffix(".log")
    if lib.exists():
        return BuiltLibrary(lib, key, log_file.read_text() if log_file.exists() else "")
    runtime = runtime_object(cxx, sketch)

    def compile_into(tmp: Path) -> Path:
        unit = tmp / f"{sketch.name}.ino.cpp"
        unit.write_text(sketch.unit)
        target = tmp / "lib.so"
        proc = run_compiler([cxx, *HOST_FLAGS,
                             *(f"-I{d}" for d in sketch.include_dirs),
                             f"-I{NATIVE_DIR}", f"-I{HOST_INCLUDE_DIR}",
                             str(unit), *map(str, sketch.extra_sources), str(runtime),
                             "-o", str(target)])
        log = proc.stdout + proc.stderr
        if proc.returncode != 0:
            raise NativeBuildError(sketch, log)
        (tmp / "log").write_text(log)
        compile_cache.publish(tmp / "log", log_file)  # before the library, which says "done"
        return target

    compile_cache.reuse_or_make(lib, compile_into)
    return BuiltLibrary(lib, key, log_file.read_text() if log_file.exists() else "")
