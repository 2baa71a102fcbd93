"""Single files blinkc writes where the user says (`emulate --trace/--png`, `explore --out`).

blinkc writes such a file only if it is new, empty, or one blinkc wrote itself, which each
kind of file shows by its form: a trace is JSON lines that begin with blinkc's record keys, a
picture carries blinkc's name in its PNG "Software" text, a counterexample starts with
blinkc's comment. Anything else (a user's notes.txt or photo.png named by mistake) is refused
with one message unless --force; a folder, a device or a missing folder always is.
(Output folders of gen/build: blinkc/build/outputs.py; flash dumps: blinkc/flash/outputs.py.)
"""

from __future__ import annotations

import json
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image

from . import __version__

SOFTWARE = f"blinkc {__version__}"   # the PNG "Software" text of blinkc's pictures
EXPLORE_MARK = "# found by blinkc explore"


class FileRefused(Exception):
    """blinkc will not write this file; `str()` says what, why and what to do."""


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
                   force: bool = False) -> None:
    """FileRefused unless blinkc may write `path` (see the module doc); writes nothing."""
    path = Path(path)
    if not path.parent.is_dir():
        raise FileRefused(f"Cannot write {what} to {path}: the folder {path.parent} does not "
                          "exist. Create it first, or choose another file.")
    try:
        info = path.stat() if path.exists() else None
    except OSError as e:
        raise FileRefused(f"Cannot write {what} to {path}: {e.strerror or e}.") from None
    if info is None:
        return
    if stat.S_ISDIR(info.st_mode):
        raise FileRefused(f"Cannot write {what} to {path}: it is a folder. Give a file name.")
    if not stat.S_ISREG(info.st_mode):
        raise FileRefused(f"Cannot write {what} to {path}: it is not a regular file "
                          "(a device or a pipe). Give the name of a file.")
    if force or info.st_size == 0:
        return
    try:
        mine = ours(path)
    except OSError as e:
        raise FileRefused(f"Cannot read {path} to see whether blinkc wrote it: "
                          f"{e.strerror or e}.") from None
    if not mine:
        raise FileRefused(
            f"{path} already exists and blinkc did not write it; not overwriting it "
            f"with {what}, so that your file is not lost. Choose another file name, "
            "or add --force to replace it.")
