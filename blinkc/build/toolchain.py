"""The AVR toolchain used for direct (non-arduino-cli) builds."""

from __future__ import annotations

import functools
import os
import platform as _host
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .errors import BuildError, ToolError
from .sdk import arduino_data_dirs

INSTALL_HINT = (
    "Install an AVR toolchain: on Debian/Ubuntu "
    "`sudo apt-get install gcc-avr avr-libc binutils-avr`; "
    "or install Arduino's 'Arduino AVR Boards' core (it brings avr-gcc), or put avr-gcc on PATH."
)


@dataclass(frozen=True)
class Toolchain:
    bin_dir: Path
    version: str
    asm_debug_is_stabs: bool  # `-g` on a .S file becomes `as --gstabs` (see compile.py)

    @property
    def root(self) -> Path:
        """What Arduino calls {runtime.tools.avr-gcc.path}: the folder above bin/."""
        return self.bin_dir.parent

    def tool(self, name: str) -> str:
        exe = self.bin_dir / (name + (".exe" if os.name == "nt" else ""))
        return str(exe)


def run(argv: list[str], what: str, cwd: Path | None = None) -> str:
    """Run a tool; raise ToolError with its output when it fails."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, check=False)
    except FileNotFoundError as exc:
        raise BuildError(f"{what}: cannot run {argv[0]} ({exc.strerror}).", INSTALL_HINT) from None
    if done.returncode != 0:
        raise ToolError(f"{what} failed (exit {done.returncode}).", argv, done.stdout + done.stderr)
    return done.stdout + done.stderr


@functools.lru_cache(maxsize=8)
def _inspect(bin_dir: Path) -> Toolchain:
    gcc = str(bin_dir / "avr-gcc")
    version = run([gcc, "-dumpversion"], "avr-gcc -dumpversion").strip()
    specs = run([gcc, "-dumpspecs"], "avr-gcc -dumpspecs")
    stabs = _asm_debug_spec(specs).find("--gstabs") >= 0
    return Toolchain(bin_dir=bin_dir, version=version, asm_debug_is_stabs=stabs)


def _asm_debug_spec(specs: str) -> str:
    lines = specs.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == "*asm_debug:" and i + 1 < len(lines):
            return lines[i + 1]
    return ""


def find_toolchain(explicit: str | Path | None = None) -> Toolchain:
    """avr-gcc from `explicit` (a bin folder), PATH, or Arduino's packaged toolchain."""
    if explicit:
        bin_dir = Path(explicit).expanduser().resolve()
        if not (bin_dir / "avr-gcc").exists() and (bin_dir / "bin" / "avr-gcc").exists():
            bin_dir = bin_dir / "bin"
        return _inspect(bin_dir)
    on_path = shutil.which("avr-gcc")
    if on_path:
        return _inspect(Path(on_path).resolve().parent)
    for data in arduino_data_dirs(os.environ, Path.home(), _host.system()):
        versions = sorted((data / "packages/arduino/tools/avr-gcc").glob("*/bin/avr-gcc"))
        if versions:
            return _inspect(versions[-1].parent)
    raise BuildError("No avr-gcc found (not on PATH, no Arduino AVR toolchain).", INSTALL_HINT)
