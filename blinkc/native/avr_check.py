"""Compiling a sketch for the ATmega168PB with blinkc's own headers (no SDK).

Two checks, both compile-only (`-c`), so they need avr-gcc but not the SDK:

- `avr_compile_check`: the sketch compiles for the tile with `-Os -Wall
  -Wextra`; returns the warnings (a clean sketch returns none). blinkc's own
  functions (blinkc_extras.h: `lighten()`, ...) are refused, as the SDK
  build would refuse them, with a message that says so.
- `int16_warnings`: what the compiler can prove about the tile's 16-bit
  `int` that the host (32-bit `int`) would hide:
    * constant expressions that overflow 16 bits (`60 * 1000`, `int x = 40000`),
    * shifts past 16 bits (`1 << 20`),
    * 32-bit values stored into a plain `int` or `unsigned int`
      (`int elapsed = millis() - start;` wraps after 32.7 s on the tile).
  Overflows that the host compiler reports as well (`byte b = 300;`) are
  left out: they behave the same on both.
  `int` arithmetic on variables that overflows at run time cannot be seen
  by the compiler and is not reported.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

from .build import NativeBuildError
from .sketch import Sketch, read_sketch
from .toolchain import (
    HOST_INCLUDE_DIR,
    NATIVE_DIR,
    Diagnostic,
    ToolMissing,
    avr_cxx,
    c_locale_env,
    host_cxx,
    parse_diagnostics,
)

#: The SDK's C++ flags (platform.txt) with all warnings on.
AVR_FLAGS = (
    "-mmcu=atmega168pb", "-Os", "-Wall", "-Wextra", "-std=gnu++11", "-fpermissive",
    "-Wno-error=narrowing", "-fno-exceptions", "-fno-threadsafe-statics",
)
_INT16_FLAGS = ("-Wconversion", "-Wno-sign-conversion", "-Woverflow", "-DBLINKC_EXTRAS_OK=1")
_INT_TARGETS = ("conversion to 'int' ", "conversion to 'unsigned int' ")


#: blinkc's own functions (blinkc_extras.h), deleted in an SDK-style compile for the tile.
BLINKC_EXTRAS = ("lighten", "blinkc_host_spend_ms")
#: Lets them through, for blinkc's own AVR compiles (the 16-bit int check, code sizes).
_EXTRAS_OK = "-DBLINKC_EXTRAS_OK=1"


class AvrBuildError(NativeBuildError):
    """The sketch does not compile for the tile."""

    def __init__(self, sketch: Sketch, output: str) -> None:
        super().__init__(sketch, output)
        used = not_in_sdk(output)
        #: blinkc-only functions the sketch calls (not in SDK v1.1.0), if that is why.
        self.not_in_sdk = used
        head = f"{sketch.path}: the sketch does not compile for the tile"
        if used:
            names = ", ".join(f"{n}()" for n in used)
            head += (f": it uses {names}, blinkc's own and not in Blinks SDK v1.1.0, so the "
                     f"SDK build fails although the emulator runs it (define your own; "
                     f"see blinkc_extras.h and docs/native.md)")
        self.args = (f"{head} (avr-gcc, blinkc's headers):\n{output.rstrip()}",)


def not_in_sdk(output: str) -> list[str]:
    """The blinkc-only functions (blinkc_extras.h) a failed AVR compile's messages name."""
    if "deleted function" not in output:
        return []
    return [name for name in BLINKC_EXTRAS
            if re.search(rf"deleted function '[^']*\b{name}\(", output)]


def _as_sketch(sketch: str | Path | Sketch) -> Sketch:
    return sketch if isinstance(sketch, Sketch) else read_sketch(sketch)


def _compile_avr(sketch: Sketch, extra_flags: tuple[str, ...] = ()) -> list[Diagnostic]:
    cxx = avr_cxx()
    with tempfile.TemporaryDirectory(prefix="blinkc-avr-") as tmp:
        unit = Path(tmp) / f"{sketch.name}.ino.cpp"
        unit.write_text(sketch.unit)
        diags: list[Diagnostic] = []
        for source in (unit, *sketch.extra_sources):
            cmd = [cxx, *AVR_FLAGS, *extra_flags,
                   *(f"-I{d}" for d in sketch.include_dirs), f"-I{NATIVE_DIR}",
                   "-c", "-x", "c++", str(source), "-o", str(Path(tmp) / "out.o")]
            proc = subprocess.run(cmd, capture_output=True, text=True, env=c_locale_env(),
                                  check=False)
            if proc.returncode != 0:
                raise AvrBuildError(sketch, proc.stdout + proc.stderr)
            diags += parse_diagnostics(proc.stderr)
    return [d for d in diags if d.severity == "warning"]


def avr_code_size(sketch_path: str | Path | Sketch) -> dict[str, int]:
    """Flash bytes of each function the sketch itself defines, compiled for the ATmega168PB
    with -Os against blinkc's headers (no SDK: blinklib's own code is not counted)."""
    sketch = _as_sketch(sketch_path)
    cxx = avr_cxx()
    nm = str(Path(cxx).with_name("avr-nm")) if Path(cxx).is_absolute() else "avr-nm"
    with tempfile.TemporaryDirectory(prefix="blinkc-avr-") as tmp:
        unit = Path(tmp) / f"{sketch.name}.ino.cpp"
        unit.write_text(sketch.unit)
        obj = Path(tmp) / "out.o"
        cmd = [cxx, *AVR_FLAGS, _EXTRAS_OK, "-ffunction-sections", "-fdata-sections",
               *(f"-I{d}" for d in sketch.include_dirs), f"-I{NATIVE_DIR}",
               "-c", "-x", "c++", str(unit), "-o", str(obj)]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=c_locale_env(), check=False)
        if proc.returncode != 0:
            raise AvrBuildError(sketch, proc.stdout + proc.stderr)
        listing = subprocess.run([nm, "--size-sort", "-C", "-S", str(obj)], capture_output=True,
                                 text=True, env=c_locale_env(), check=True).stdout
    sizes: dict[str, int] = {}
    for line in listing.splitlines():
        parts = line.split(maxsplit=3)
        if len(parts) == 4 and parts[2] in "tT":
            sizes[parts[3]] = int(parts[1], 16)
    return sizes


def avr_compile_check(sketch_path: str | Path | Sketch) -> list[Diagnostic]:
    """Compile the sketch for the ATmega168PB (-Os -Wall -Wextra); return its warnings.

    Raises AvrBuildError (with the compiler's messages) if it does not compile,
    and toolchain.ToolMissing without avr-g++.
    """
    return _compile_avr(_as_sketch(sketch_path))


def int16_warnings(sketch_path: str | Path | Sketch) -> list[Diagnostic]:
    """Places where the tile's 16-bit `int` makes the sketch compute differently from the host."""
    sketch = _as_sketch(sketch_path)
    on_host = _host_overflow_lines(sketch)
    found = []
    for d in _compile_avr(sketch, _INT16_FLAGS):
        if Path(d.file).resolve().is_relative_to(NATIVE_DIR):
            continue
        # An overflow the host compiler sees too (`byte b = 300;`) is not about int's width.
        overflow = (("[-Woverflow]" in d.message and (d.file, d.line) not in on_host)
                    or "[-Wshift-count-overflow]" in d.message)
        narrowing = "[-Wconversion]" in d.message and d.message.startswith(_INT_TARGETS)
        if overflow or narrowing:
            found.append(Diagnostic(d.file, d.line, d.col, "warning",
                                    f"16-bit int on the tile: {d.message}"))
    return found


def _host_overflow_lines(sketch: Sketch) -> set[tuple[str, int]]:
    """(file, line) of every -Woverflow warning the host compiler gives (empty without g++)."""
    try:
        cxx = host_cxx()
    except ToolMissing:
        return set()
    with tempfile.TemporaryDirectory(prefix="blinkc-host-") as tmp:
        unit = Path(tmp) / f"{sketch.name}.ino.cpp"
        unit.write_text(sketch.unit)
        cmd = [cxx, "-std=gnu++11", "-fpermissive", "-fsyntax-only", "-Woverflow",
               "-DBLINKC_HOST=1", *(f"-I{d}" for d in sketch.include_dirs), f"-I{NATIVE_DIR}",
               f"-I{HOST_INCLUDE_DIR}", str(unit)]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=c_locale_env(),
                              check=False)
    return {(d.file, d.line) for d in parse_diagnostics(proc.stderr)
            if "[-Woverflow]" in d.message}
