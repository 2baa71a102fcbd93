"""Where blinkc may write: only into folders it created and over files it wrote itself.

`blinkc gen -o OUT` and `blinkc build -o OUT` are given a folder and choose the file names in
it, so the user cannot foresee which files they would replace. An output folder blinkc creates
(or finds empty) gets a marker file, `.blinkc-output`; blinkc then writes in it freely, except
over a file whose SHA-256 the marker records (a generated sketch) and that has changed since:
that is someone's edit. Anything else (an existing folder without the marker, a changed
sketch) is refused with one message saying what, why and what to do, unless `--force`; a file
where a folder should be is refused even then. Whether a file may be replaced, and writing it
whole, is blinkc/user_files.py's rule (the marker's record is how a sketch shows it is
blinkc's); `write_generated` is the one way a generated sketch is written (`blinkc gen`,
`blinkc build GAME.py` through build/game_sketch.py, the demo).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from .. import __version__
from ..user_files import A_FOLDER, NOT_OURS, FileRefused, check_writable, write_whole
from .errors import BuildError

MARKER = ".blinkc-output"
_HEADER = (
    "# blinkc {version} created this folder and writes its output here; it may overwrite the\n"
    "# files it wrote (a sketch only while it is unchanged). Delete this file to keep blinkc out.\n"
)


class OutputRefused(BuildError):
    """blinkc will not write there: the folder or file is not one blinkc made (or it changed)."""


def _cannot_write(path: Path, exc: OSError, flag: str) -> BuildError:
    return BuildError(
        f"Cannot write to {path}: {exc.strerror or exc}.",
        f"Choose a folder you can write to with {flag}.",
    )


def _marker_records(folder: Path) -> dict[str, str] | None:
    """The marker's file records (name -> sha256), or None when the folder has no marker."""
    marker = folder / MARKER
    if not marker.is_file():
        return None
    records = {}
    for line in marker.read_text(errors="replace").splitlines():
        parts = line.split(maxsplit=2)
        if len(parts) == 3 and parts[0] == "sha256":
            records[parts[2]] = parts[1]
    return records


def _write_marker(folder: Path, records: dict[str, str]) -> None:
    lines = [_HEADER.format(version=__version__)]
    lines += [f"sha256 {digest} {name}\n" for name, digest in sorted(records.items())]
    write_whole(folder / MARKER, "".join(lines).encode())


def _listing(folder: Path, limit: int = 4) -> str:
    names = sorted(p.name + ("/" if p.is_dir() else "") for p in folder.iterdir())
    shown = ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")
    return f"{len(names)} {'entry' if len(names) == 1 else 'entries'}: {shown}"


def claim_folder(folder: Path, *, force: bool = False, flag: str = "-o",
                 what: str = "the output") -> Path:
    """Make `folder` one blinkc may write into and return it, resolved.

    A missing folder is created and marked, an empty one marked, a marked one accepted. An
    existing folder without the marker is refused (OutputRefused) unless `force`; a file in
    its place always is. OS errors become a BuildError that names the folder.
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise OutputRefused(
            f"{folder} is a file, not a folder: blinkc writes {what} into a folder.",
            f"Give a folder with {flag} (a new one, which blinkc creates), or move {folder} away.",
        )
    try:
        if not folder.exists():
            folder.mkdir(parents=True)
            _write_marker(folder, {})
        elif _marker_records(folder) is None:
            if not any(folder.iterdir()):
                _write_marker(folder, {})
            elif not force:
                raise OutputRefused(
                    f"{folder} already exists and blinkc did not create it (it has no {MARKER}); "
                    f"it holds {_listing(folder)}. blinkc writes {what} only into a folder it "
                    "created, so that it never replaces a file of yours.",
                    f"Choose a new folder with {flag} (blinkc creates it), empty this one, or pass "
                    "--force to write into it anyway (files with blinkc's output names are "
                    "replaced).",
                )
    except OSError as exc:
        raise _cannot_write(folder, exc, flag) from None
    return folder.resolve()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_generated(folder: Path, name: str, text: str, *, force: bool = False,
                    flag: str = "-o") -> Path:
    """Write `text` to `folder/name` (a generated file) and record its SHA-256 in the marker.

    The folder is claimed as by claim_folder. An existing `folder/name` is replaced only when
    the marker says blinkc wrote exactly that content (or with `force`).
    """
    folder, target = Path(folder), Path(folder) / name
    try:
        if not force and folder.is_dir() and target.is_file() and _marker_records(folder) is None:
            raise _overwrite_refused(target, None, flag)  # more telling than claim_folder's
        claim_folder(folder, force=force, flag=flag, what=f"the sketch {name}")
        records = _marker_records(folder)
        recorded = (records or {}).get(name)
        try:  # the marker's record is what makes the file blinkc's
            check_writable(target, lambda p: recorded == _sha256(p.read_bytes()),
                           f"the sketch {name}", force, empty_is_free=False)
        except FileRefused as refused:
            raise _sketch_refused(target, name, recorded, refused, flag) from None
        data = text.encode()
        write_whole(target, data)
        if records is not None:  # a folder blinkc made; one taken with --force stays unmarked
            _write_marker(folder, {**records, name: _sha256(data)})
    except OSError as exc:
        raise _cannot_write(target, exc, flag) from None
    return target


def _sketch_refused(target: Path, name: str, recorded: str | None, refused: FileRefused,
                    flag: str) -> OutputRefused:
    """user_files' refusal of a generated sketch, in the build's words."""
    if refused.reason == NOT_OURS:
        return _overwrite_refused(target, recorded, flag)
    if refused.reason == A_FOLDER:
        return OutputRefused(f"{target} is a folder, where blinkc writes the file {name}.",
                             f"Move it away, or choose another folder with {flag}.")
    return OutputRefused(str(refused), f"Choose another folder with {flag}.")


def _overwrite_refused(target: Path, recorded: str | None, flag: str) -> OutputRefused:
    why = ("it was changed since blinkc wrote it" if recorded else
           "blinkc has no record of writing it (it was written, or edited, by someone else)")
    return OutputRefused(
        f"{target} already exists and {why}: writing the new sketch would lose it.",
        f"Move or rename it to keep it, choose another folder with {flag}, or pass --force to "
        "overwrite it.",
    )
