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
import mmap
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

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


class _Phdr(ctypes.Structure):  # Elf64_Phdr
    _fields_ = [("p_type", ctypes.c_uint32), ("p_flags", ctypes.c_uint32),
                ("p_offset", ctypes.c_uint64), ("p_vaddr", ctypes.c_uint64),
                ("p_paddr", ctypes.c_uint64), ("p_filesz", ctypes.c_uint64),
                ("p_memsz", ctypes.c_uint64), ("p_align", ctypes.c_uint64)]


class _PhdrInfo(ctypes.Structure):  # struct dl_phdr_info (its first fields)
    _fields_ = [("dlpi_addr", ctypes.c_uint64), ("dlpi_name", ctypes.c_char_p),
                ("dlpi_phdr", ctypes.POINTER(_Phdr)), ("dlpi_phnum", ctypes.c_uint16)]


_PHDR_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(_PhdrInfo), ctypes.c_size_t,
                                  ctypes.c_void_p)
_PT_LOAD, _PT_GNU_RELRO, _PF_W = 1, 0x6474E552, 2


def writable_memory(lib: ctypes.CDLL) -> list[tuple[int, int]]:
    """The (address, size) of each part of a loaded library's memory that its code may write
    (its data and bss, less what the loader made read-only after relocating it); [] where
    that cannot be told (not 64-bit ELF with glibc's dl_iterate_phdr)."""
    try:
        iterate = ctypes.CDLL(None).dl_iterate_phdr
    except AttributeError:
        return []
    if ctypes.sizeof(ctypes.c_void_p) != 8:
        return []
    name = lib._name.encode()
    found: list[tuple[int, int]] = []

    def visit(info: Any, _size: int, _data: Any) -> int:
        i = info.contents
        if i.dlpi_name != name:
            return 0
        page = mmap.PAGESIZE
        relro = (0, 0)
        for k in range(i.dlpi_phnum):
            h = i.dlpi_phdr[k]
            if h.p_type == _PT_GNU_RELRO:  # read-only once relocated (its whole pages)
                start = i.dlpi_addr + h.p_vaddr
                relro = (start - start % page, (start + h.p_memsz) - (start + h.p_memsz) % page)
        for k in range(i.dlpi_phnum):
            h = i.dlpi_phdr[k]
            if h.p_type == _PT_LOAD and h.p_flags & _PF_W:
                start, end = i.dlpi_addr + h.p_vaddr, i.dlpi_addr + h.p_vaddr + h.p_memsz
                if relro[0] <= start < relro[1]:
                    start = relro[1]
                if start < end:
                    found.append((start, end - start))
        return 1

    iterate(_PHDR_CALLBACK(visit), None)
    return found


def close_library(handle: int) -> None:
    """Unmap a library loaded by load_private_copy (when its tile is gone)."""
    import _ctypes  # the CPython-internal module ctypes itself uses for dlopen

    _ctypes.dlclose(handle)
