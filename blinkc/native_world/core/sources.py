"""The world core's sources and its one compile recipe (docs/native.md, "The world core").

Two builds use it, so that they compile the same thing the same way:

- setup.py, when blinkc is installed (`pip install .`, a wheel, `pip install -e .`): the core
  is built as an extension, `LIBRARY` beside this file, and the wheel carries it;
- build.py, at run time, only when there is no installed core whose key matches the sources
  beside it (a checkout that was never installed, or whose core sources changed since).

The key hashes the flags and every file the core is compiled from; it is compiled into the
library (`core_source_key()`, and the text `KEY_MARK` + key in its data), so a core built
from other sources is never used. view.h is generated from view_fields.py (GENERATED): the
key covers both, and `compile_command` refuses a view.h that is not what view_fields.py
gives (`view_fields.StaleHeader`), so a stale header is a build error. This module imports
nothing of blinkc: setup.py loads it by its path, before blinkc or its requirements are
installed (and it loads view_fields.py by its path too).
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

CORE_DIR = Path(__file__).resolve().parent
#: blinkc/native (the host tiles): the tile ABI header (blinkc_native.h) the core includes.
NATIVE_DIR = CORE_DIR.parent.parent / "native"
SOURCES = ("world_core.cpp",)
HEADERS = ("button.h", "splitmix64.h", "view.h")
#: Python files a header is generated from (view.h from view_fields.py): part of the key.
GENERATED = {"view.h": "view_fields.py"}
NATIVE_HEADERS = ("blinkc_native.h", "blinkc_tile.h")
#: -fvisibility=hidden: only the core_* entry points are exported.
FLAGS = ("-std=gnu++17", "-O2", "-fPIC", "-shared", "-fvisibility=hidden", "-Wall")
#: The installed core: its file name beside this module (not a Python module: blinkc loads it
#: with ctypes, on any Python version).
LIBRARY = "_world_core.so"
#: Compiled into the library just before its key.
KEY_MARK = "blinkc-world-core-key:"


def inputs(core_dir: Path = CORE_DIR, native_dir: Path = NATIVE_DIR) -> list[Path]:
    """Every file the core is compiled from."""
    return [*(core_dir / f for f in (*SOURCES, *HEADERS, *GENERATED.values())),
            *(native_dir / f for f in NATIVE_HEADERS)]


def view_fields(core_dir: Path = CORE_DIR) -> ModuleType:
    """view_fields.py of `core_dir`: blinkc's module if it is that one and imported, else
    loaded by its path (it imports nothing of blinkc)."""
    path = (core_dir / GENERATED["view.h"]).resolve()
    imported = sys.modules.get("blinkc.native_world.core.view_fields")
    if imported is not None and Path(imported.__file__).resolve() == path:
        return imported
    text = path.read_bytes()
    key = (path, hashlib.sha256(text).hexdigest())
    if key not in _LOADED:  # loaded once per path and text, so its classes stay the same
        spec = importlib.util.spec_from_file_location(f"_blinkc_view_fields_{key[1][:16]}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _LOADED[key] = module
    return _LOADED[key]


_LOADED: dict[tuple[Path, str], ModuleType] = {}


def check_generated(core_dir: Path = CORE_DIR) -> None:
    """Raise view_fields.StaleHeader if view.h is not what view_fields.py gives."""
    fields = view_fields(core_dir)
    fields.check_header(core_dir / "view.h")


def source_key(core_dir: Path = CORE_DIR, native_dir: Path = NATIVE_DIR) -> str:
    """The key of a core compiled from these files with FLAGS."""
    h = hashlib.sha256()
    h.update(f"{' '.join(FLAGS)}\0".encode())
    for path in inputs(core_dir, native_dir):
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:32]


def compile_command(cxx: str, out: Path | str, core_dir: Path = CORE_DIR,
                    native_dir: Path = NATIVE_DIR) -> list[str]:
    """The command line that compiles the core into the shared library `out`; raises
    view_fields.StaleHeader if view.h is stale (a build error: write it again)."""
    check_generated(core_dir)
    key = source_key(core_dir, native_dir)
    return [cxx, *FLAGS, f"-I{native_dir}", f'-DBLINKC_CORE_KEY="{key}"',
            *(str(core_dir / s) for s in SOURCES), "-o", str(out)]


def built_key(library: Path) -> str | None:
    """The key compiled into a core library file (read from its bytes, without loading it)."""
    data = library.read_bytes()
    at = data.find(KEY_MARK.encode())
    if at < 0:
        return None
    start = at + len(KEY_MARK)
    return data[start:start + 32].decode("ascii", "replace")
