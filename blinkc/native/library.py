"""Loading one private copy of a native tile library per tile.

A process maps a shared library once per file, so two tiles loading the
same path would share the sketch's globals. Each tile therefore loads its
own copy of the file (a distinct path, copied from the cache), with
RTLD_LOCAL so no symbol of one copy binds to another. The copy is unlinked
as soon as it is mapped; closing the library unmaps it.
"""

from __future__ import annotations

import atexit
import ctypes
import itertools
import os
import shutil
import tempfile
import threading
from pathlib import Path

_lock = threading.Lock()
_counter = itertools.count()
_copies: Path | None = None


def _copies_dir() -> Path:
    global _copies
    with _lock:
        if _copies is None:
            _copies = Path(tempfile.mkdtemp(prefix="blinkc-tiles-"))
            atexit.register(shutil.rmtree, _copies, True)
        return _copies


def load_private_copy(path: Path) -> ctypes.CDLL:
    """Map a fresh copy of `path`: its globals and statics belong to the caller alone."""
    copy = _copies_dir() / f"{os.getpid()}-{next(_counter)}-{path.name}"
    shutil.copyfile(path, copy)
    try:
        return ctypes.CDLL(str(copy), mode=os.RTLD_LOCAL | os.RTLD_NOW)
    finally:
        copy.unlink(missing_ok=True)


def close_library(handle: int) -> None:
    """Unmap a library loaded by load_private_copy (when its tile is gone)."""
    import _ctypes  # the CPython-internal module ctypes itself uses for dlopen

    _ctypes.dlclose(handle)
