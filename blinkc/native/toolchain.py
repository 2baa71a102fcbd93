"""Finding the compilers and reading their messages.

This module imports nothing of blinkc: setup.py loads it by its path for `cxx_from_env`, the
host compiler it builds the C++ world core with (blinkc/native_world/core), before blinkc or
its requirements are installed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path

#: Where blinkc's own headers and host runtime live (this package's folder).
NATIVE_DIR = Path(__file__).resolve().parent
#: Host-only stand-ins for AVR system headers (avr/pgmspace.h).
HOST_INCLUDE_DIR = NATIVE_DIR / "host_include"


class ToolMissing(Exception):
    """A compiler blinkc needs is not installed."""


@dataclass(frozen=True)
class Diagnostic:
    """One compiler message: file:line:col: severity: message."""

    file: str
    line: int
    col: int
    severity: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: {self.severity}: {self.message}"


_DIAG_RE = re.compile(
    r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:(?P<col>\d+):)?\s*"
    r"(?P<sev>warning|error|fatal error|note):\s*(?P<msg>.*)$",
    re.MULTILINE,
)


def parse_diagnostics(output: str) -> list[Diagnostic]:
    return [Diagnostic(m["file"], int(m["line"]), int(m["col"] or 0), m["sev"], m["msg"])
            for m in _DIAG_RE.finditer(output)]


def cxx_from_env() -> str:
    """The host C++ compiler's name: $BLINKC_CXX, else $CXX, else g++ (`host_cxx` finds it)."""
    return os.environ.get("BLINKC_CXX") or os.environ.get("CXX") or "g++"


def host_cxx() -> str:
    """The host C++ compiler: $BLINKC_CXX, else $CXX, else g++."""
    return _find(cxx_from_env(),
                 "a host C++ compiler (g++) is needed to run sketches natively; "
                 "on Debian: sudo apt-get install g++")


def avr_cxx() -> str:
    """The AVR C++ compiler: $BLINKC_AVR_CXX, else avr-g++."""
    return _find(os.environ.get("BLINKC_AVR_CXX") or "avr-g++",
                 "avr-g++ is needed for the AVR compile check; "
                 "on Debian: sudo apt-get install gcc-avr avr-libc")


def have(tool: str) -> bool:
    try:
        {"host": host_cxx, "avr": avr_cxx}[tool]()
    except ToolMissing:
        return False
    return True


def _find(name: str, hint: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise ToolMissing(f"{name} not found: {hint}")
    return path


@cache
def compiler_identity(path: str) -> str:
    """The compiler's version banner: part of every cache key."""
    out = subprocess.run([path, "--version"], capture_output=True, text=True, check=False)
    return out.stdout.splitlines()[0] if out.stdout else path


def run_compiler(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    """Run a compiler (or binutil) in the C locale; its output is captured, its exit code not
    checked (a failed compile is an answer the caller reads)."""
    return subprocess.run(cmd, capture_output=True, text=True, env=c_locale_env(), check=False)


def c_locale_env() -> dict[str, str]:
    """The environment for compiler runs: plain ASCII quotes in messages, no colour."""
    env = dict(os.environ)
    env["LC_ALL"] = "C"
    env.pop("GCC_COLORS", None)
    return env
