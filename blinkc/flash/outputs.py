"""Files blinkc writes (`blinkc read -o`, `programmer-sim --save`): flash dumps.

blinkc writes a file only if it does not exist yet, or if it is a dump that
blinkc wrote itself; anything else needs --force. A blinkc dump is marked by
its form: the whole flash of a part (every address from 0x0000 to its last),
as Intel HEX in exactly the records blinkc writes (16 data bytes each,
uppercase, an extended linear address record only past 64 KB, one
end-of-file record). A game's .hex, a merged with-bootloader image or
avrdude's dump never has that form (they leave holes, or their records
differ), so they are never overwritten by accident.

A dump is written whole or not at all: into a new file opened exclusively,
or into a temporary file next to the old one that then replaces it. The rules and the
writing are blinkc/user_files.py's (with an empty file kept too); this module adds the
dump's form, a probe that the folder takes a new file, and the flasher's wording.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ..user_files import (
    A_FOLDER,
    NO_FOLDER,
    NOT_A_FILE,
    NOT_OURS,
    FileRefused,
    check_writable,
    write_whole,
)
from .errors import FlashError, HexFileError
from .hexfile import Image, parse_hex, read_hex_file
from .targets import PARTS


def dump_text(data: bytes) -> str:
    """The Intel HEX text of a whole-flash dump, as blinkc writes it."""
    return Image.from_bytes(data, 0).to_hex()


def is_blinkc_dump(path: Path) -> bool:
    """Whether `path` is a whole-flash dump in the form blinkc writes (see the module doc)."""
    try:
        raw = read_hex_file(path)
        image = parse_hex(raw, source=str(path))
    except HexFileError:
        return False
    sizes = {p.flash_size for p in PARTS.values()}
    if len(image.segments) != 1 or image.start != 0 or image.end not in sizes:
        return False
    records = raw.decode("ascii").split()
    return records == dump_text(image.segments[0][1]).split()


def check_output(path: Path, force: bool = False, what: str = "the flash dump") -> None:
    """FlashError unless blinkc may write `path` (user_files' rules, an empty file kept too);
    nothing is written here."""
    path = Path(path)
    folder = path.parent
    try:
        check_writable(path, is_blinkc_dump, what, force, empty_is_free=False)
    except FileRefused as refused:
        raise _flash_error(path, what, refused) from None
    try:                     # the only sure test (root, read-only mounts, ACLs): try it
        fd, probe = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise FlashError(
            f"Cannot write {what} to {path}: cannot create a file in {folder} "
            f"({e.strerror or e}).",
            fix="choose a folder you can write to (e.g. your home folder)") from None


def _flash_error(path: Path, what: str, refused: FileRefused) -> FlashError:
    """A refusal in the flasher's words (what, likely cause, fix)."""
    if refused.reason == NO_FOLDER:
        return FlashError(f"Cannot write {what} to {path}: the folder {path.parent} does not exist.",
                          fix="create the folder first, or choose another file")
    if refused.reason == A_FOLDER:
        return FlashError(f"Cannot write {what} to {path}: it is a folder.",
                          fix=f"give a file name, e.g. {path / 'dump.hex'}")
    if refused.reason == NOT_A_FILE:
        return FlashError(
            f"Cannot write {what} to {path}: it is not a regular file (a device or a pipe).",
            fix="give the name of a .hex file to write")
    if refused.reason == NOT_OURS:
        return FlashError(
            f"{path} already exists and blinkc did not write it; not overwriting it.",
            cause="blinkc replaces only a whole-flash dump it wrote itself, so that a game, "
                  "a merged image or another program's file is never lost",
            fix="choose another file name, or add --force to replace this file")
    return FlashError(str(refused), fix="choose another file")


def write_dump(path: Path, data: bytes, force: bool = False,
               what: str = "the flash dump") -> None:
    """Write a whole-flash dump to `path` under `check_output`'s rules; whole or not at all."""
    path = Path(path)
    check_output(path, force, what)
    try:
        write_whole(path, dump_text(data).encode("ascii"))
    except FileExistsError:
        raise FlashError(f"{path} appeared while blinkc was writing it; not overwriting it.",
                         fix="choose another file name, or add --force") from None
    except OSError as e:
        raise FlashError(f"Cannot write {what} to {path}: {e.strerror or e}.",
                         cause="the disk may be full or read-only, or the folder was removed",
                         fix="free some space or choose another folder, then try again") from None
