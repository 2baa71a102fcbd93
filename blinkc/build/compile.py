"""Building a sketch with avr-gcc directly, by expanding the SDK's own recipes.

The steps and commands are those of the SDK's platform.txt, as the Arduino
build runs them: compile the sketch, compile the core, archive the core,
link with the SDK's linker script, objcopy to .eep and .hex. Two deliberate
differences, both confined to the build folder:

* startup.S and older toolchains. The recipe assembles `.S` files with `-g`.
  Debian's avr-gcc 5.4 turns `-g` on assembler input into `as --gstabs`
  (its `*asm_debug` spec), and with stabs, binutils 2.26 has to emit the size
  of each `.func` ... `.endfunc` as the difference of two labels. The SDK's
  startup.S opens `.func __init` in section .init0 and closes it in .init9, so
  `as` stops with "can't resolve `.init9' {.init9 section} - `__init'
  {.init0 section}". When the toolchain has that spec, blinkc appends
  `-gdwarf-2` to `compiler.S.extra_flags` (the hook platform.txt provides for
  exactly this): same code, DWARF debug info instead of stabs.
* When the link overflows the game area, the link is repeated with
  `-Wl,--noinhibit-exec` only to keep the oversized ELF for the size report.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .errors import BuildError, ToolError
from .platform import Properties, merged, split_command
from .sdk import Sdk
from .sketch import Sketch, copy_sketch, preprocess
from .toolchain import Toolchain, run

IDE_VERSION = "10607"  # what arduino-cli passes as -DARDUINO
STARTUP_WORKAROUND_FLAG = "-gdwarf-2"
# GNU ld says one or the other when the program is larger than a memory region.
OVERFLOW = re.compile(
    r"region [`']?(?P<region>\w+)'? overflowed by (?P<bytes>\d+) bytes"
    r"|will not fit in region [`'](?P<region2>\w+)'"
)
_RECIPE_FOR = {
    ".c": "recipe.c.o.pattern",
    ".cpp": "recipe.cpp.o.pattern",
    ".S": "recipe.S.o.pattern",
}


@dataclass
class CompileResult:
    elf: Path
    hex: Path
    notes: list[str] = field(default_factory=list)


class LinkOverflow(BuildError):
    """The program does not fit the linker script's memory; `elf` is kept for diagnosis."""

    def __init__(self, message: str, region: str, over_by: int | None, elf: Path | None):
        super().__init__(message)
        self.region, self.over_by, self.elf = region, over_by, elf


def build_properties(
    sdk: Sdk, toolchain: Toolchain, sketch: Sketch, build_path: Path
) -> Properties:
    """The SDK's properties plus the runtime variables the Arduino build defines."""
    props = sdk.properties
    variant = sdk.path / "variants" / props.get("build.variant", "standard")
    core = sdk.core_dir
    includes = [f'"-I{core}"'] + ([f'"-I{variant}"'] if variant.is_dir() else [])
    runtime = {
        "runtime.platform.path": str(sdk.path),
        "runtime.hardware.path": str(sdk.path.parent),
        "runtime.ide.version": IDE_VERSION,
        "runtime.os": {"nt": "windows"}.get(os.name, "linux"),
        "runtime.tools.avr-gcc.path": str(toolchain.root),
        "build.path": str(build_path),
        "build.project_name": f"{sketch.name}.ino",
        "build.arch": "AVR",
        "build.core.path": str(core),
        "build.variant.path": str(variant),
        "build.system.path": str(sdk.path / "system"),
        "build.source.path": str(sketch.folder),
        "sketch_path": str(sketch.folder),
        "includes": " ".join(includes),
        "archive_file": "core.a",
    }
    out = merged(props, runtime)
    # arduino-cli's default warning level is "none".
    if "compiler.warning_flags.none" in out:
        out["compiler.warning_flags"] = out["compiler.warning_flags.none"]
    if toolchain.asm_debug_is_stabs:
        extra = out.get("compiler.S.extra_flags", "")
        out["compiler.S.extra_flags"] = f"{extra} {STARTUP_WORKAROUND_FLAG}".strip()
    return out


def recipe(props: Properties, key: str, **values: str) -> list[str]:
    if key not in props:
        raise BuildError(f"The SDK's platform.txt has no {key}.")
    return split_command(merged(props, values).expand(props[key]))


def _compile_one(props: Properties, source: Path, obj: Path) -> list[str]:
    obj.parent.mkdir(parents=True, exist_ok=True)
    argv = recipe(props, _RECIPE_FOR[source.suffix], source_file=str(source), object_file=str(obj))
    run(argv, f"Compiling {source.name}")
    return argv


def _compile_all(props: Properties, jobs: list[tuple[Path, Path]]) -> None:
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for future in [pool.submit(_compile_one, props, s, o) for s, o in jobs]:
            future.result()


def _core_sources(core: Path, variant: Path) -> list[Path]:
    found = []
    for folder in (core, variant):
        if folder.is_dir():
            found += [p for p in folder.rglob("*") if p.suffix in _RECIPE_FOR and p.is_file()]
    return sorted(found)


def _object_for(source: Path, core: Path, variant: Path, build: Path) -> Path:
    root, sub = (core, "core") if source.is_relative_to(core) else (variant, "core/variant")
    return build / sub / (source.relative_to(root).as_posix() + ".o")


def _core_archive(props: Properties, core: Path, variant: Path, build: Path) -> Path:
    """Compile and archive the core; reuse the archive when nothing that feeds it changed."""
    sources = _core_sources(core, variant)
    jobs = [(s, _object_for(s, core, variant, build)) for s in sources]
    archive = build / props.expand("{archive_file}")
    inputs = [p for d in (core, variant) if d.is_dir() for p in d.rglob("*") if p.is_file()]
    stamp_data = {
        "commands": [props[k] for k in sorted(_RECIPE_FOR.values()) if k in props],
        "flags": [
            props.expand(props.get(k, ""))
            for k in sorted(props)
            if k.startswith(("compiler.", "build."))
        ],
        "files": [(str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in sorted(inputs)],
    }
    stamp = hashlib.sha256(json.dumps(stamp_data).encode()).hexdigest()
    stamp_file = build / "core" / "stamp"
    if archive.is_file() and stamp_file.is_file() and stamp_file.read_text() == stamp:
        return archive
    _compile_all(props, jobs)
    archive.unlink(missing_ok=True)
    for _, obj in jobs:  # one `ar` per object, as the Arduino build does
        run(recipe(props, "recipe.ar.pattern", object_file=str(obj)), "Archiving the core")
    stamp_file.write_text(stamp)
    return archive


def compile_sketch(sdk: Sdk, toolchain: Toolchain, sketch: Sketch, build: Path) -> CompileResult:
    """Preprocess, compile, link and objcopy `sketch` into `build` with avr-gcc."""
    build = build.resolve()
    build.mkdir(parents=True, exist_ok=True)
    props = build_properties(sdk, toolchain, sketch, build)
    notes = []
    if toolchain.asm_debug_is_stabs:
        notes.append(
            f"avr-gcc {toolchain.version} assembles .S files with stabs debug info, which "
            f"cannot describe the SDK's startup.S; added {STARTUP_WORKAROUND_FLAG} for .S files."
        )
    sketch_build = build / "sketch"
    # Like Arduino, compile copies in build/sketch, so `#include "x.h"` finds the sketch's headers.
    copy_sketch(sketch, build, folder_name="sketch")
    cpp = preprocess(sketch, sketch_build / f"{sketch.name}.ino.cpp")
    jobs = [(cpp, sketch_build / f"{cpp.name}.o")]
    for source in sketch.extra_sources():
        copy = sketch_build / source.relative_to(sketch.folder)
        jobs.append((copy, copy.with_name(copy.name + ".o")))
    _compile_all(props, jobs)
    variant = Path(props["build.variant.path"])
    _core_archive(props, sdk.core_dir, variant, build)

    elf = build / f"{sketch.name}.ino.elf"
    elf.unlink(missing_ok=True)
    objects = " ".join(f'"{o}"' for _, o in jobs)
    try:
        run(recipe(props, "recipe.c.combine.pattern", object_files=objects), "Linking")
    except ToolError as err:
        found = OVERFLOW.search(err.output)
        if not found:
            raise
        raise _overflow(props, objects, elf, found, err) from None

    for key in props.keys_matching(r"recipe\.objcopy\.[^.]+\.pattern"):
        run(recipe(props, key), f"Making {key.split('.')[2]} output")
    hex_path = build / f"{sketch.name}.ino.hex"
    if not hex_path.is_file():
        raise BuildError(f"The SDK's objcopy recipe did not produce {hex_path}.")
    return CompileResult(elf=elf, hex=hex_path, notes=notes)


def overflow_details(found: re.Match[str]) -> tuple[str, int | None]:
    region = found.group("region") or found.group("region2")
    return region, int(found.group("bytes")) if found.group("bytes") else None


def _overflow(
    props: Properties, objects: str, elf: Path, found: re.Match[str], err: ToolError
) -> LinkOverflow:
    keep = merged(props, {})
    extra = keep.get("compiler.c.elf.extra_flags", "")
    keep["compiler.c.elf.extra_flags"] = f"{extra} -Wl,--noinhibit-exec".strip()
    try:
        argv = recipe(keep, "recipe.c.combine.pattern", object_files=objects)
        run(argv, "Linking (for the size report)")
    except ToolError:
        pass
    region, over = overflow_details(found)
    return LinkOverflow(
        f"The program does not fit in the linker's '{region}' region.\n{err.output.strip()}",
        region,
        over,
        elf if elf.is_file() else None,
    )
