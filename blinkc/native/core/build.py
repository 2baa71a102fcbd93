"""Compiling the world core (world_core.cpp) into a shared library, with a cache.

The same cache and compiler as native tiles (blinkc.native.build): the key
hashes the core's sources, the tile ABI header, the compiler's identity and
the flags, and a build is renamed into place so parallel runs never see a
half-written file.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from functools import cache
from pathlib import Path

from ..build import cache_dir
from ..toolchain import NATIVE_DIR, c_locale_env, compiler_identity, host_cxx

CORE_DIR = Path(__file__).resolve().parent
SOURCES = ("world_core.cpp",)
HEADERS = ("button.h", "splitmix64.h", "view.h")
#: -fvisibility=hidden: only the core_* entry points are exported.
FLAGS = ("-std=gnu++17", "-O2", "-fPIC", "-shared", "-fvisibility=hidden", "-Wall")


class CoreBuildError(Exception):
    """The world core did not compile (a bug in blinkc, not in a sketch)."""


def _key(cxx: str) -> str:
    h = hashlib.sha256()
    h.update(f"{compiler_identity(cxx)}\0{' '.join(FLAGS)}\0".encode())
    for path in (*(CORE_DIR / f for f in (*SOURCES, *HEADERS)), NATIVE_DIR / "blinkc_native.h"):
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:32]


@cache
def core_library() -> Path:
    """The compiled core (built on first use, then cached); raises ToolMissing without g++."""
    cxx = host_cxx()
    out_dir = cache_dir()
    lib = out_dir / f"world-core-{_key(cxx)}.so"
    if lib.exists():
        return lib
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_dir, prefix="build-") as tmp:
        target = Path(tmp) / "core.so"
        cmd = [cxx, *FLAGS, f"-I{NATIVE_DIR}", *(str(CORE_DIR / s) for s in SOURCES),
               "-o", str(target)]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=c_locale_env(),
                              check=False)
        if proc.returncode != 0:
            raise CoreBuildError(f"the world core does not compile:\n{proc.stdout}{proc.stderr}")
        os.replace(target, lib)
    return lib
