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
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .build import NativeBuildError
from .sketch import Sketch, read_sketch
from .toolchain import (
    HOST_INCLUDE_DIR,
    NATIVE_DIR,
    Diagnostic,
    ToolMissing,
    avr_cxx,
    host_cxx,
    parse_diagnostics,
    run_compiler,
)

#: The SDK's C++ flags (platform.txt) with all warnings on.
AVR_FLAGS = (
    "-mmcu=atmega168pb", "-Os", "-Wall", "-Wextra", "-std=gnu++11", "-fpermissive",
    "-Wno-error=narrowing", "-fno-exceptions", "-fno-threadsafe-statics",
)
_INT16_FLAGS = ("-Wconversion", "-Wno-sign-conversion", "-Woverflow", "-DBLINKC_EXTRAS_OK=1")
_INT_TARGETS = ("conversion to 'int' ", "conversion to 'unsigned int' ")


#: blinkc's own functions (blinkc_extras.h), deleted in an SDK-style compile for the tile.
BLINKC_EXTRAS = ("lighten", "blinkc_host_spend_ms", "blinkc_probe")
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


@contextmanager
def _scratch_unit(sketch: Sketch, prefix: str, text: str | None = None) -> Iterator[Path]:
    """The sketch's translation unit (or `text` in its place) in a scratch folder, which is
    removed after: these compiles are checks, their objects are not kept."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        unit = Path(tmp) / f"{sketch.name}.ino.cpp"
        unit.write_text(sketch.unit if text is None else text)
        yield unit


def _includes(sketch: Sketch) -> list[str]:
    """The sketch's own include folders, then blinkc's headers."""
    return [*(f"-I{d}" for d in sketch.include_dirs), f"-I{NATIVE_DIR}"]


def _compile_avr(sketch: Sketch, extra_flags: tuple[str, ...] = ()) -> list[Diagnostic]:
    cxx = avr_cxx()
    with _scratch_unit(sketch, "blinkc-avr-") as unit:
        diags: list[Diagnostic] = []
        for source in (unit, *sketch.extra_sources):
            proc = run_compiler([cxx, *AVR_FLAGS, *extra_flags, *_includes(sketch),
                                 "-c", "-x", "c++", str(source), "-o", str(unit.parent / "out.o")])
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
    with _scratch_unit(sketch, "blinkc-avr-") as unit:
        obj = unit.parent / "out.o"
        proc = run_compiler([cxx, *AVR_FLAGS, _EXTRAS_OK, "-ffunction-sections", "-fdata-sections",
                             *_includes(sketch), "-c", "-x", "c++", str(unit), "-o", str(obj)])
        if proc.returncode != 0:
            raise AvrBuildError(sketch, proc.stdout + proc.stderr)
        nm_run = run_compiler([nm, "--size-sort", "-C", "-S", str(obj)])
        nm_run.check_returncode()
        listing = nm_run.stdout
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
    try:
        for d in datagram_size_warnings(sketch):
            found.append(Diagnostic(d.file, d.line, d.col, d.severity,
                                    f"16-bit int on the tile: {d.message}"))
    except ToolMissing:  # sizes on both sides need both compilers
        pass
    return found


_SEND_RE = re.compile(r"\bsendDatagramOnFace\s*\(")
_LINE_RE = re.compile(r'^#line (\d+) "((?:[^"\\]|\\.)*)"\n', re.M)
_PROBE_RE = re.compile(r"blinkc_dgram_size_(\d+)<(\d+)[uUlL]*>")


def _call_args(text: str, start: int) -> list[str]:
    """The top-level arguments of the call whose '(' is just before `start`."""
    depth, args, cur = 0, [], []
    for ch in text[start:]:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                args.append("".join(cur).strip())
                return args
            depth -= 1
        elif ch == "," and depth == 0:
            args.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    return []


def _unit_location(unit: str, offset: int) -> tuple[str, int]:
    """The user's file and line of a place in the preprocessed unit (its #line directives)."""
    file, line, base = "", 1, 0
    for m in _LINE_RE.finditer(unit, 0, offset):
        file = m.group(2).replace('\\"', '"').replace("\\\\", "\\")
        line, base = int(m.group(1)), m.end()
    return file, line + unit.count("\n", base, offset)


def _datagram_sizes(sketch: Sketch, probes: str, cxx: str, flags: list[str]) -> dict[int, int]:
    """Compile the sketch with the probes appended; the size each probe's error names."""
    with _scratch_unit(sketch, "blinkc-dgram-", sketch.unit + probes) as unit:
        proc = run_compiler([cxx, *flags, "-fsyntax-only", *_includes(sketch), str(unit)])
    return {int(m.group(1)): int(m.group(2)) for m in _PROBE_RE.finditer(proc.stderr)}


def datagram_size_warnings(sketch_path: str | Path | Sketch) -> list[Diagnostic]:
    """Datagrams the emulator sends with another length than the tile would.

    For each `sendDatagramOnFace(data, sizeof(X), face)` whose X can be sized at file
    scope (a global, a type, or a local whose declaration `Type name;` comes before the
    call), sizeof(X) is computed by both compilers; where they differ (a struct with
    `int`, `unsigned`, `long` or pointer fields, or one the host pads for alignment), a
    warning at the call says both sizes. Other lengths (computed ones, a literal 5, a
    local declared some other way) are not checked."""
    sketch = _as_sketch(sketch_path)
    unit = sketch.unit
    sites = []
    for m in _SEND_RE.finditer(unit):
        args = _call_args(unit, m.end())
        if len(args) != 3:
            continue
        size = re.fullmatch(r"sizeof\s*\((.*)\)|sizeof\s+(\w+)", args[1], re.S)
        if size:
            expr = (size.group(1) or size.group(2)).strip()
            sites.append((m.start(), expr, expr))
            # A local (`MessageType msg;` in loop()) cannot be sized at file scope: its type can.
            if re.fullmatch(r"\w+", expr):
                decl_re = re.compile(rf"\b([A-Za-z_]\w*)\s+{expr}\s*[;=]")
                decls = list(decl_re.finditer(unit, 0, m.start()))
                if decls:  # the nearest declaration before the call
                    sites.append((m.start(), expr, decls[-1].group(1)))
    if not sites:
        return []
    probes = "\n".join(f"template <unsigned long N> struct blinkc_dgram_size_{k};\n"
                       f"blinkc_dgram_size_{k}<sizeof({sized})> blinkc_dgram_probe_{k};"
                       for k, (_, _, sized) in enumerate(sites))
    tile = _datagram_sizes(sketch, "\n" + probes + "\n", avr_cxx(),
                           [*AVR_FLAGS, _EXTRAS_OK])
    host = _datagram_sizes(sketch, "\n" + probes + "\n", host_cxx(),
                           ["-std=gnu++11", "-fpermissive", "-DBLINKC_HOST=1",
                            f"-I{HOST_INCLUDE_DIR}"])
    out = []
    done: set[int] = set()
    for k, (offset, expr, _) in enumerate(sites):
        if offset in done or k not in tile or k not in host:
            continue
        done.add(offset)
        if tile[k] != host[k]:
            file, line = _unit_location(unit, offset)
            out.append(Diagnostic(
                file, line, 0, "warning",
                f"datagram of sizeof({expr}): {tile[k]} bytes on the tile, {host[k]} on the "
                f"host, so the emulator sends {host[k]}-byte datagrams where the tile sends "
                f"{tile[k]} (use fixed-width fields, uint8_t, uint16_t, int16_t, uint32_t, and "
                f"no padding: the host aligns them, the tile does not)"))
    return out


def _host_overflow_lines(sketch: Sketch) -> set[tuple[str, int]]:
    """(file, line) of every -Woverflow warning the host compiler gives (empty without g++)."""
    try:
        cxx = host_cxx()
    except ToolMissing:
        return set()
    with _scratch_unit(sketch, "blinkc-host-") as unit:
        proc = run_compiler([cxx, "-std=gnu++11", "-fpermissive", "-fsyntax-only", "-Woverflow",
                             "-DBLINKC_HOST=1", *_includes(sketch), f"-I{HOST_INCLUDE_DIR}",
                             str(unit)])
    return {(d.file, d.line) for d in parse_diagnostics(proc.stderr)
            if "[-Woverflow]" in d.message}
