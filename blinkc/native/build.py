"""Compiling a sketch and the host runtime into a shared library, with a cache.

One library per distinct source: the key hashes the translation unit, the
sketch's extra files, blinkc's runtime sources, the compiler's identity and
the flags. Builds go to a temporary file that is renamed into place, so
parallel test workers and concurrent runs never see half-written files.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .abi import ABI_VERSION
from .sketch import Sketch
from .toolchain import HOST_INCLUDE_DIR, NATIVE_DIR, c_locale_env, compiler_identity, host_cxx

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
                 "Arduino.h", "ArduinoTypes.h", "Serial.h", "Print.h", "host_include/avr/pgmspace.h")


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


def cache_dir() -> Path:
    """$BLINKC_CACHE_DIR/native, else $XDG_CACHE_HOME/blinkc/native, else ~/.cache/..."""
    root = os.environ.get("BLINKC_CACHE_DIR")
    if root:
        return Path(root) / "native"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "blinkc" / "native"


def build_key(sketch: Sketch, compiler: str, flags: tuple[str, ...]) -> str:
    h = hashlib.sha256()
    for part in (f"abi {ABI_VERSION}", compiler_identity(compiler), " ".join(flags),
                 sketch.unit, *map(str, sketch.include_dirs)):
        h.update(part.encode())
        h.update(b"\0")
    for path in (*sketch.extra_sources, *(NATIVE_DIR / f for f in RUNTIME_FILES)):
        h.update(Path(path).read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:32]


def build_library(sketch: Sketch) -> BuiltLibrary:
    """The sketch compiled with the host runtime into a shared library (cached)."""
    cxx = host_cxx()
    key = build_key(sketch, cxx, HOST_FLAGS)
    out_dir = cache_dir()
    lib = out_dir / f"{sketch.name}-{key}.so"
    log_file = lib.with_suffix(".log")
    if lib.exists():
        return BuiltLibrary(lib, key, log_file.read_text() if log_file.exists() else "")
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_dir, prefix="build-") as tmp:
        unit = Path(tmp) / f"{sketch.name}.ino.cpp"
        unit.write_text(sketch.unit)
        target = Path(tmp) / "lib.so"
        cmd = [cxx, *HOST_FLAGS,
               *(f"-I{d}" for d in sketch.include_dirs),
               f"-I{NATIVE_DIR}", f"-I{HOST_INCLUDE_DIR}",
               str(unit), *map(str, sketch.extra_sources),
               *(str(NATIVE_DIR / s) for s in RUNTIME_SOURCES),
               "-o", str(target)]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=c_locale_env(),
                              check=False)
        log = proc.stdout + proc.stderr
        if proc.returncode != 0:
            raise NativeBuildError(sketch, log)
        tmp_log = Path(tmp) / "log"
        tmp_log.write_text(log)
        os.replace(tmp_log, log_file)
        os.replace(target, lib)
    return BuiltLibrary(lib, key, log)
