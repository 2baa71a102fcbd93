"""Where blinkc may write a file, and writing it: the one place that decides.

blinkc writes a file only if it is new, empty, or one blinkc wrote itself (`check_writable`),
and writes it whole or not at all (`write_whole`; `write_file` does both). Which files are
blinkc's each kind shows by its form, the `ours` test its writer passes: a trace is JSON lines
that begin with blinkc's record keys, a picture carries blinkc's name in its PNG "Software"
text, a counterexample starts with blinkc's comment, a flash dump is blinkc's whole-flash
form (blinkc/flash/outputs.py), a generated sketch is one whose SHA-256 its folder's marker
records (blinkc/build/outputs.py, which also decides which folders blinkc may fill).
Anything else (a user's notes.txt or photo.png named by mistake) is refused with one message
unless --force; a folder, a device or a missing folder always is. Flash and build word the
refusal their own way (their errors say what, why and what to do) from `FileRefused.reason`.
"""
from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image

from . import __version__

SOFTWARE = f"blinkc {__version__}"   # the PNG "Software" text of blinkc's pictures
EXPLORE_MARK = "# found by blinkc explore"


class FileRefused(Exception):
    """blinkc will not write this file; `str()` says what, why and what to do. `reason` names the
    rule that refused it, for writers that word refusals their own way (flash, build)."""

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason


# FileRefused.reason: which rule of check_writable refused the file.
NO_FOLDER = "no folder"          # the folder it would go in does not exist
UNREADABLE = "unreadable"        # its metadata (or, to tell whether it is blinkc's, it) cannot be read
A_FOLDER = "a folder"            # a folder is where the file would go
NOT_A_FILE = "not a file"        # a device, a pipe, a socket
NOT_OURS = "not ours"            # a file blinkc did not write


def first_json_line(path: Path, limit: int = 4096) -> Any:
    """The JSON value on the file's first line (read up to `limit` characters), or None."""
    with open(path, encoding="utf-8", errors="replace") as f:
        first = f.readline(limit)
    try:
        return json.loads(first)
    except ValueError:
        return None


def is_trace(path: Path) -> bool:
    record = first_json_line(path)
    return isinstance(record, dict) and list(record)[:3] == ["t", "tile", "ev"]


def is_picture(path: Path) -> bool:
    try:
        with Image.open(path) as img:
            return str(getattr(img, "text", {}).get("Software", "")).startswith("blinkc")
    except (OSError, ValueError, SyntaxError):   # not an image PIL can read
        return False


def is_counterexample(path: Path) -> bool:
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.readline(200).startswith(EXPLORE_MARK)


def check_writable(path: Path, ours: Callable[[Path], bool], what: str,
                   force: bool = False, *, empty_is_free: bool = True) -> None:
    """FileRefused unless blinkc may write `path` (see the module doc); writes nothing.

    `ours` tells a file blinkc wrote by its form; `empty_is_free=False` keeps even an empty
    file unless `ours` claims it (a flash dump: an empty file is not one)."""
    path = Path(path)
    if not path.parent.is_dir():
        raise FileRefused(f"Cannot write {what} to {path}: the folder {path.parent} does not "
                          "exist. Create it first, or choose another file.", NO_FOLDER)
    try:  # a dangling symlink is not a new file: writing it would create its target
        info = path.stat() if path.exists() or path.is_symlink() else None
    except OSError as e:
        raise FileRefused(f"Cannot write {what} to {path}: {e.strerror or e}.", UNREADABLE) from None
    if info is None:
        return
    if stat.S_ISDIR(info.st_mode):
        raise FileRefused(f"Cannot write {what} to {path}: it is a folder. Give a file name.",
                          A_FOLDER)
    if not stat.S_ISREG(info.st_mode):
        raise FileRefused(f"Cannot write {what} to {path}: it is not a regular file "
                          "(a device or a pipe). Give the name of a file.", NOT_A_FILE)
    if force or (empty_is_free and info.st_size == 0):
        return
    try:
        mine = ours(path)
    except OSError as e:
        raise FileRefused(f"Cannot read {path} to see whether blinkc wrote it: "
                          f"{e.strerror or e}.", UNREADABLE) from None
    if not mine:
        raise FileRefused(
            f"{path} already exists and blinkc did not write it; not overwriting it "
            f"with {what}, so that your file is not lost. Choose another file name, "
            "or add --force to replace it.", NOT_OURS)


def write_whole(path: Path, data: bytes) -> None:
    """Write `data` to `path` whole or not at all: a new file is created exclusively (one that
    appears meanwhile raises FileExistsError, not overwritten); an existing one is replaced by
    a temporary file beside it, renamed over it, with its permissions. Decides nothing: call
    check_writable first (write_file does both)."""
    path = Path(path)
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        except BaseException:
            path.unlink(missing_ok=True)
            raise
        return
    mode = stat.S_IMODE(path.stat().st_mode)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_file(path: Path, data: bytes | str, ours: Callable[[Path], bool], what: str,
               force: bool = False, *, empty_is_free: bool = True) -> None:
    """Write `path` under check_writable's rules (FileRefused if it may not), whole or not at
    all (write_whole). Text is written as UTF-8."""
    check_writable(path, ours, what, force, empty_is_free=empty_is_free)
    write_whole(Path(path), data.encode() if isinstance(data, str) else data)
