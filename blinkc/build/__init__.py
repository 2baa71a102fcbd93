"""The build layer: find the SDK, build a sketch for the tile, check its size,
merge it with the BIOS for ISP programming.

Public entry points: `build()` (everything `blinkc build` does) and
`build_for_flash()` (the with-bootloader hex the flasher writes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from . import arduino_cli
from .compile import LinkOverflow, compile_sketch
from .errors import BuildError, ToolError
from .game_sketch import write_game_sketch
from .hexmerge import BUILTIN_BASE, GAME_MAX_BYTES, merge_with_bios
from .outputs import OutputRefused, claim_folder
from .sdk import Sdk, find_sdk
from .size import RAM_LIMIT, BudgetExceeded, SizeReport, elf_report, report_for
from .sketch import Sketch, copy_sketch, find_sketch
from .toolchain import Toolchain, find_toolchain

__all__ = [
    "BACKENDS",
    "BudgetExceeded",
    "BuildError",
    "BuildResult",
    "OutputRefused",
    "Sdk",
    "SizeReport",
    "ToolError",
    "build",
    "build_for_flash",
    "find_sdk",
    "limits",
    "report_for",
]

BACKENDS = ("auto", "arduino-cli", "avr-gcc")


@dataclass
class BuildResult:
    sdk: Sdk
    sketch: Sketch  # the sketch folder inside the output folder
    elf: Path
    hex: Path
    with_bootloader: Path
    report: SizeReport
    report_file: Path
    backend: str
    notes: list[str] = field(default_factory=list)


def limits(sdk: Sdk) -> tuple[int, int, int]:
    """(built-in base address, flash limit, RAM limit) from the SDK's own settings."""
    props = sdk.properties
    base = props.get("build.builtinbase")
    if base is None:
        moved = re.search(
            r"--change-addresses\s+(\S+)", props.expand(props.get("compiler.elf2hex.flags", ""))
        )
        base = moved.group(1) if moved else hex(BUILTIN_BASE)
    flash = int(props.get("upload.maximum_size", GAME_MAX_BYTES))
    ram = int(props.get("upload.maximum_data_size", RAM_LIMIT))
    return int(base, 0), flash, ram


def prepare_source(source: Path, out_dir: Path, line_directives: bool = False,
                   force: bool = False) -> Sketch:
    """The sketch folder to build, inside `out_dir`: a copy of the user's sketch,
    or the sketch generated from a blinkc game (GAME.py; with `#line` directives that point
    at the game's lines when `line_directives`), written as `blinkc gen` writes it: over a
    sketch blinkc did not write (or that changed since) only with `force`."""
    source = Path(source)
    if line_directives and source.suffix != ".py":
        raise BuildError(f"--line-directives is for a game (GAME.py); {source} is a sketch.",
                         "Build the game itself, or leave the option out.")
    if source.suffix == ".py":
        if not source.is_file():
            raise BuildError(f"{source} does not exist.")
        return find_sketch(write_game_sketch(source, out_dir, force=force,
                                             line_directives=line_directives))
    return copy_sketch(find_sketch(source), out_dir)


def build(
    source: str | Path,
    out_dir: str | Path,
    sdk: Sdk | str | Path | None = None,
    backend: str = "auto",
    toolchain: Toolchain | None = None,
    force: bool = False,
    line_directives: bool = False,
) -> BuildResult:
    """Build SKETCH.ino / SKETCH_DIR / GAME.py into `out_dir`; raise BuildError on any problem
    (BudgetExceeded when it does not fit the tile, after writing the size report).
    `line_directives` (for a game) makes compiler messages and the ELF's line table point
    at the game's lines.

    `out_dir` must be new, empty or made by an earlier blinkc build; any other folder is
    refused (OutputRefused) unless `force`, and so is a generated sketch in it that blinkc did
    not write or that was changed since (see blinkc.build.outputs)."""
    if backend not in BACKENDS:
        raise BuildError(f"Unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}.")
    sdk = sdk if isinstance(sdk, Sdk) else find_sdk(sdk)
    if not Path(source).exists():
        raise BuildError(f"{source} does not exist.")
    out = claim_folder(Path(out_dir), force=force, what="the build")
    try:
        return _build(Path(source), out, sdk, backend, toolchain, line_directives, force)
    except OSError as exc:  # e.g. a file in the build folder that cannot be replaced
        raise BuildError(
            f"Cannot build into {out}: {exc.filename or out}: {exc.strerror or exc}.",
            "blinkc needs to read the sketch and the SDK and to write the output folder "
            "(choose another one with -o).",
        ) from None


def _build(source: Path, out: Path, sdk: Sdk, backend: str, toolchain: Toolchain | None,
           line_directives: bool = False, force: bool = False) -> BuildResult:
    sketch = prepare_source(source, out, line_directives, force)
    base, flash_limit, ram_limit = limits(sdk)

    use_cli = backend == "arduino-cli" or (backend == "auto" and arduino_cli.usable(sdk))
    report_file = out / f"{sketch.name}.size.txt"
    # Outputs of an earlier build must not outlive a failed one (a flasher could pick them up).
    for stale in (".ino.elf", ".ino.hex", ".ino.with_bootloader.hex", ".size.txt"):
        (out / f"{sketch.name}{stale}").unlink(missing_ok=True)
    try:
        if use_cli:
            result = arduino_cli.compile_sketch(sdk, sketch, out)
        else:
            result = compile_sketch(sdk, toolchain or find_toolchain(), sketch, out)
    except LinkOverflow as over:
        if over.elf is None:
            raise BuildError(f"{sketch.name} does not fit on a tile.\n{over.message}") from None
        report = elf_report(over.elf, flash_limit, ram_limit)
        report_file.write_text(report.format(top=20) + "\n")
        raise BudgetExceeded(
            f"{sketch.name} does not fit on a tile.\n{report.format()}", report
        ) from None

    report = elf_report(result.elf, flash_limit, ram_limit)
    report_file.write_text(report.format(top=20) + "\n")
    if report.problems():
        raise BudgetExceeded(f"{sketch.name} does not fit on a tile.\n{report.format()}", report)
    with_bootloader = merge_with_bios(
        result.hex, sdk.bios_hex, result.hex.with_suffix(".with_bootloader.hex"), base, flash_limit
    )
    return BuildResult(
        sdk=sdk,
        sketch=sketch,
        elf=result.elf,
        hex=result.hex,
        with_bootloader=with_bootloader,
        report=report,
        report_file=report_file,
        backend="arduino-cli" if use_cli else "avr-gcc",
        notes=result.notes,
    )


def build_for_flash(
    path: str | Path, sdk: Sdk | str | Path | None = None, out_dir: str | Path | None = None,
    force: bool = False,
) -> Path:
    """Build `path` and return the with-bootloader hex to write to a tile.
    The build goes to `out_dir` (default: build/<name> under the working folder); a folder
    blinkc did not make is refused unless `force`."""
    path = Path(path)
    name = path.stem if path.suffix else path.name
    out = Path(out_dir or Path("build") / name)
    try:
        return build(path, out, sdk=sdk, force=force).with_bootloader
    except OutputRefused as refused:
        raise OutputRefused(
            refused.message,
            f"Move {out} away, flash with --force to build into it anyway, or build into a "
            f"folder of your choice with `blinkc build {path} -o FOLDER` and flash "
            f"FOLDER/{name}.ino.with_bootloader.hex.",
        ) from None
