"""Which compiled world core to load: the one built at install time, else one built now.

An installed blinkc carries its core, compiled by setup.py when it was installed
(`sources.LIBRARY` beside this file). That one is used when the key compiled into it is the
key of the sources beside it (sources.py). Otherwise — a checkout that was never installed,
or whose core sources changed since its `pip install -e .` — the core is compiled now with
the same recipe into the cache of native builds (blinkc.native.compile_cache: the key adds
the compiler's identity; a build is renamed into place so parallel runs never see a
half-written file), which needs g++.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from ...native import compile_cache
from ...native.toolchain import compiler_identity, host_cxx, run_compiler
from . import sources
from .sources import CORE_DIR

#: Where the core built at install time is.
INSTALLED = CORE_DIR / sources.LIBRARY


class CoreBuildError(Exception):
    """The world core did not compile (a bug in blinkc, not in a sketch)."""


def installed_core() -> Path | None:
    """The core built at install time, if it is there and was built from these sources."""
    if not INSTALLED.is_file():
        return None
    return INSTALLED if sources.built_key(INSTALLED) == sources.source_key() else None


@cache
def core_library() -> Path:
    """The core to load: the installed one, else one compiled now (then cached); raises
    ToolMissing when it must be compiled and there is no g++."""
    return installed_core() or built_core()


def built_core() -> Path:
    """The core compiled at run time into the cache (built on first use)."""
    cxx = host_cxx()
    key = compile_cache.key((compiler_identity(cxx), sources.source_key()))

    def compile_into(tmp: Path) -> Path:
        target = tmp / "core.so"
        proc = run_compiler(sources.compile_command(cxx, target))
        if proc.returncode != 0:
            raise CoreBuildError(f"the world core does not compile:\n{proc.stdout}{proc.stderr}")
        return target

    return compile_cache.reuse_or_make(compile_cache.entry("world-core", key), compile_into)


def origin() -> str:
    """Where the loaded core comes from: "installed" (built at install time) or "run time"."""
    return "installed" if core_library() == INSTALLED else "run time"
