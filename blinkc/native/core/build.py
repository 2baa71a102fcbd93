"""Which compiled world core to load: the one built at install time, else one built now.

An installed blinkc carries its core, compiled by setup.py when it was installed
(`sources.LIBRARY` beside this file). That one is used when the key compiled into it is the
key of the sources beside it (sources.py). Otherwise — a checkout that was never installed,
or whose core sources changed since its `pip install -e .` — the core is compiled now with
the same recipe into the cache of native builds (blinkc.native.build: the key adds the
compiler's identity; a build is renamed into place so parallel runs never see a half-written
file), which needs g++.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from functools import cache
from pathlib import Path

from ..build import cache_dir
from ..toolchain import c_locale_env, compiler_identity, host_cxx
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
    out_dir = cache_dir()
    key = f"{compiler_identity(cxx)}\0{sources.source_key()}"
    lib = out_dir / f"world-core-{hashlib.sha256(key.encode()).hexdigest()[:32]}.so"
    if lib.exists():
        return lib
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_dir, prefix="build-") as tmp:
        target = Path(tmp) / "core.so"
        proc = subprocess.run(sources.compile_command(cxx, target), capture_output=True,
                              text=True, env=c_locale_env(), check=False)
        if proc.returncode != 0:
            raise CoreBuildError(f"the world core does not compile:\n{proc.stdout}{proc.stderr}")
        os.replace(target, lib)
    return lib


def origin() -> str:
    """Where the loaded core comes from: "installed" (built at install time) or "run time"."""
    return "installed" if core_library() == INSTALLED else "run time"
