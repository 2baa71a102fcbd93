"""Building with arduino-cli, when it is installed and knows the SDK.

arduino-cli runs the SDK's recipe with the toolchain the SDK's package asks
for (Arduino's own avr-gcc), which is the reference build. It only sees SDKs
installed where Arduino looks (boards manager or sketchbook hardware folder),
so a bare checkout named with BLINKS_SDK is built with avr-gcc instead.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from .compile import OVERFLOW, CompileResult, LinkOverflow, overflow_details
from .errors import BuildError, ToolError
from .sdk import Sdk
from .sketch import Sketch
from .toolchain import run


def find_arduino_cli() -> str | None:
    return shutil.which("arduino-cli")


def usable(sdk: Sdk) -> bool:
    """arduino-cli is installed and the SDK sits where it can find it."""
    return find_arduino_cli() is not None and sdk.fqbn is not None


def compile_sketch(sdk: Sdk, sketch: Sketch, build: Path, cli: str | None = None) -> CompileResult:
    cli = cli or find_arduino_cli()
    if cli is None:
        raise BuildError(
            "arduino-cli is not installed.", "Use --backend avr-gcc, or install arduino-cli."
        )
    if sdk.fqbn is None:
        raise BuildError(
            f"arduino-cli cannot see the SDK at {sdk.path}: it is not in a boards-manager or "
            "sketchbook hardware folder.",
            "Use --backend avr-gcc (the default picks it for such SDKs).",
        )
    work = build.resolve() / "arduino-cli"
    argv = [
        cli,
        "compile",
        "--fqbn",
        sdk.fqbn,
        "--build-path",
        str(work),
        "--warnings",
        "none",
        str(sketch.folder),
    ]
    try:
        run(argv, f"arduino-cli compile ({sdk.fqbn})")
    except ToolError as err:
        found = OVERFLOW.search(err.output)
        if found:
            region, over = overflow_details(found)
            message = f"The program does not fit in the linker's '{region}' region."
            raise LinkOverflow(f"{message}\n{err.output.strip()}", region, over, None) from None
        raise
    outputs = {}
    for ext in ("elf", "hex"):
        made = work / f"{sketch.name}.ino.{ext}"
        if not made.is_file():
            raise BuildError(f"arduino-cli did not produce {made}.")
        outputs[ext] = build.resolve() / made.name
        shutil.copy2(made, outputs[ext])
    return CompileResult(
        elf=outputs["elf"], hex=outputs["hex"], notes=[f"built with {cli} ({sdk.fqbn})"]
    )
