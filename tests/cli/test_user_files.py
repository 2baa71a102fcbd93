"""blinkc/user_files.py, the one place that decides whether blinkc may write a file and writes
it: new, empty or blinkc's own files only (unless force), whole or not at all."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from blinkc.user_files import (
    A_FOLDER,
    NO_FOLDER,
    NOT_A_FILE,
    NOT_OURS,
    UNREADABLE,
    FileRefused,
    write_file,
)


def ours(path: Path) -> bool:
    return path.read_text().startswith("# blinkc")


def refusal(path: Path, **options: object) -> str | None:
    try:
        write_file(path, "# blinkc again\n", ours, "the thing", **options)  # type: ignore[arg-type]
    except FileRefused as refused:
        return refused.reason
    return None


def test_new_empty_and_own_files_are_written_others_are_kept(tmp_path):
    new = tmp_path / "new.txt"
    assert refusal(new) is None and new.read_text() == "# blinkc again\n"
    (tmp_path / "empty.txt").write_text("")
    assert refusal(tmp_path / "empty.txt") is None
    (tmp_path / "empty2.txt").write_text("")
    assert refusal(tmp_path / "empty2.txt", empty_is_free=False) == NOT_OURS
    mine = tmp_path / "mine.txt"
    mine.write_text("my notes\n")
    assert refusal(mine) == NOT_OURS and mine.read_text() == "my notes\n"
    assert refusal(mine, force=True) is None and mine.read_text() == "# blinkc again\n"


def test_what_is_refused_even_with_force(tmp_path):
    assert refusal(tmp_path / "nope" / "x.txt", force=True) == NO_FOLDER
    assert refusal(tmp_path, force=True) == A_FOLDER
    assert refusal(Path("/dev/null"), force=True) == NOT_A_FILE
    dangling = tmp_path / "link.txt"
    dangling.symlink_to(tmp_path / "elsewhere.txt")  # writing it would create its target
    assert refusal(dangling, force=True) == UNREADABLE
    assert not (tmp_path / "elsewhere.txt").exists()


def test_a_replaced_file_keeps_its_permissions_and_leaves_no_scratch_file(tmp_path):
    path = tmp_path / "out.txt"
    write_file(path, "# blinkc one\n", ours, "the thing")
    path.chmod(0o640)
    write_file(path, "# blinkc two\n", ours, "the thing")
    assert path.read_text() == "# blinkc two\n"
    assert path.stat().st_mode & 0o777 == 0o640
    assert os.listdir(tmp_path) == ["out.txt"]


def test_the_refusal_says_what_why_and_what_to_do(tmp_path):
    mine = tmp_path / "notes.txt"
    mine.write_text("mine")
    with pytest.raises(FileRefused) as info:
        write_file(mine, "x", ours, "the trace")
    assert str(info.value).startswith(f"{mine} already exists and blinkc did not write it")
    assert "the trace" in str(info.value) and "--force" in str(info.value)
