"""The cache of native builds: where it lives, the key of an entry, and publishing an entry.

Every native build blinkc makes at run time (a sketch's library, the tile watchdog, the world
core, the 16-bit int findings kept beside a sketch's library) is one file in this cache,
named by a key that hashes everything it was made from. An entry is made in a scratch folder
inside the cache and renamed into place, so parallel test workers and concurrent runs never
see a half-written file: an entry that exists is whole, and is reused as it is. Whoever makes
an entry holds its lock (a file under `.locks/`), so workers that need the same entry at once
wait for the first to make it instead of each compiling it again.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from filelock import FileLock


def cache_dir() -> Path:
    """$BLINKC_CACHE_DIR/native, else $XDG_CACHE_HOME/blinkc/native, else ~/.cache/..."""
    root = os.environ.get("BLINKC_CACHE_DIR")
    if root:
        return Path(root) / "native"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "blinkc" / "native"


def key(parts: Iterable[str], files: Iterable[str | Path] = ()) -> str:
    """The key of an entry made from `parts` (compiler identity, flags, ...) and the bytes of
    `files`. Each input ends with a NUL, so that moving text from one to the next changes it."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode())
        h.update(b"\0")
    for path in files:
        h.update(Path(path).read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:32]


def entry(name: str, entry_key: str, suffix: str = ".so") -> Path:
    """Where the entry `name` with `entry_key` lives (it may not exist yet)."""
    return cache_dir() / f"{name}-{entry_key}{suffix}"


def publish(made: Path, target: Path) -> Path:
    """Rename `made` (a file in a scratch folder of the cache) onto `target`, atomically."""
    os.replace(made, target)
    return target


def reuse_or_make(target: Path, make: Callable[[Path], Path]) -> Path:
    """`target` when it exists; else `make(scratch folder)` makes the file, which is published as
    `target`, under the entry's lock (a second caller waits, then reuses it). An exception from
    `make` publishes nothing (the scratch folder is removed; the next caller tries again)."""
    if target.exists():
        return target
    locks = target.parent / ".locks"
    locks.mkdir(parents=True, exist_ok=True)
    with FileLock(locks / f"{target.name}.lock"):
        if target.exists():  # made while we waited
            return target
        with tempfile.TemporaryDirectory(dir=target.parent, prefix="build-") as tmp:
            return publish(make(Path(tmp)), target)
