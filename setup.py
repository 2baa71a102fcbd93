"""The C++ world core, built when blinkc is installed (everything else is in pyproject.toml).

The core (blinkc/native_world/core/world_core.cpp) is a plain shared library that blinkc loads
with ctypes, not a Python extension module: it is compiled with the very command that blinkc's
run-time fallback uses (blinkc/native_world/core/sources.py), by the host C++ compiler
($BLINKC_CXX, $CXX or g++: blinkc/native/toolchain.py), into
blinkc/native_world/core/_world_core.so, and the wheel carries it. As it does not
use Python's C API, the wheel is tagged py3-none-<platform>. Without a compiler the install
goes on without it (a warning says so): the Python world needs none, and native tiles need
g++ anyway, which then compiles the core on first use.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_ext import build_ext
from setuptools.errors import CompileError

HERE = Path(__file__).resolve().parent


def _by_path(name: str, path: Path):
    """A module of blinkc that imports nothing of blinkc, loaded before blinkc is installed."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module   # as an import would (a dataclass looks its module up there)
    spec.loader.exec_module(module)
    return module


CORE_DIR = Path("blinkc") / "native_world" / "core"
sources = _by_path("_blinkc_core_sources", HERE / CORE_DIR / "sources.py")
toolchain = _by_path("_blinkc_toolchain", HERE / "blinkc" / "native" / "toolchain.py")

CORE = "blinkc.native_world.core._world_core"


class BuildCore(build_ext):
    """Compile the world core with sources.compile_command (not Python's compiler flags)."""

    def get_ext_filename(self, fullname: str) -> str:
        # Asked with the full name or with its last part only: the core's file is LIBRARY.
        *package, name = fullname.split(".")
        if name == CORE.rpartition(".")[2]:
            return str(Path(*package, sources.LIBRARY))
        return super().get_ext_filename(fullname)

    def build_extension(self, ext: Extension) -> None:
        if ext.name != CORE:
            super().build_extension(ext)
            return
        out = Path(self.get_ext_fullpath(ext.name))
        out.parent.mkdir(parents=True, exist_ok=True)
        cmd = sources.compile_command(toolchain.cxx_from_env(), out)
        self.announce(" ".join(cmd), level=2)
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        except OSError as e:  # no compiler
            raise CompileError(f"cannot run {cmd[0]}: {e}") from None
        if done.returncode != 0:
            raise CompileError(f"the world core does not compile:\n{done.stdout}{done.stderr}")


class Wheel(bdist_wheel):
    def get_tag(self) -> tuple[str, str, str]:
        _, _, platform = super().get_tag()
        return "py3", "none", platform


setup(
    ext_modules=[Extension(
        CORE, sources=[str(CORE_DIR / s) for s in sources.SOURCES],
        depends=[str(p.relative_to(HERE)) for p in sources.inputs()],
        # Without a compiler, blinkc is installed without the core (see the docstring).
        optional=True)],
    cmdclass={"build_ext": BuildCore, "bdist_wheel": Wheel},
)
