"""The results file: JSON lines, a header naming the batch, then one line a run as it ends.

A run's line is written (and flushed) as soon as its batch comes back, so a cut loses at
most the runs in flight; a last line cut in the middle is ignored on --resume. blinkc
writes such a file only if it is new, empty, or its own (the header says so) and either
resumed or holding no result yet: it never overwrites another file, nor an earlier run's
results unless told to start over.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any

from ..user_files import FileRefused, check_writable, first_json_line
from .job import Job, Result

MARK = "blinkc runner results"


def is_results(path: Path) -> bool:
    """Whether `path` is a results file blinkc wrote (its first line is the header)."""
    header = first_json_line(path, 100_000)
    return isinstance(header, dict) and header.get("file") == MARK


def header(job: Job) -> dict[str, Any]:
    return {"file": MARK, "job": job.name, "key": job.key, "runs": len(job.runs)}


def read(path: Path, job: Job) -> dict[int, Result]:
    """The results an earlier run of `job` left in `path` (FileRefused if it is another's)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    if not lines:
        return {}
    try:
        found = json.loads(lines[0])
    except ValueError:
        found = None
    if not isinstance(found, dict) or found.get("file") != MARK:
        raise FileRefused(f"{path} is not a results file of blinkc: cannot resume from it. "
                          "Give the --results file of the run to go on with.")
    want = header(job)
    if found.get("key") != want["key"] or found.get("runs") != want["runs"]:
        raise FileRefused(
            f"{path} holds the results of another batch ({found.get('job')}, "
            f"{found.get('runs')} runs, {json.dumps(found.get('key'))}), not of this one "
            f"({want['job']}, {want['runs']} runs, {json.dumps(want['key'])}). Run the same "
            "command as before with --resume, or give another --results file.")
    results: dict[int, Result] = {}
    for line in lines[1:]:
        try:
            record = json.loads(line)
        except ValueError:
            continue            # a line cut in the middle by the cut that stopped the run
        if isinstance(record, dict) and isinstance(record.get("run"), int):
            results[record["run"]] = record["result"]
    return results


def prepare(path: Path, job: Job, resume: bool) -> dict[int, Result]:
    """Check that `path` may be written for `job`; the results to go on from (on resume)."""
    path = Path(path)
    check_writable(path, is_results, "the results")
    if not path.exists() or path.stat().st_size == 0:
        return {}
    done = read(path, job) if resume else _earlier(path)
    return done


def _earlier(path: Path) -> dict[int, Result]:
    """Without --resume, a results file of ours may be replaced only if it holds no result."""
    with open(path, encoding="utf-8") as f:
        count = sum(1 for _ in f) - 1
    if count > 0:
        raise FileRefused(f"{path} holds {count:,} results of an earlier run: go on with it "
                          "with --resume, or remove it (or give another --results) to start over.")
    return {}


class Writer:
    """Appends results to the file as they come (the header first, on a new file)."""

    def __init__(self, path: Path, job: Job, fresh: bool) -> None:
        self.path = Path(path)
        if not fresh:
            _drop_cut_line(self.path)
        self._file: IO[str] = open(self.path, "w" if fresh else "a", encoding="utf-8")
        if fresh:
            self._write(header(job))

    def add(self, run: int, result: Result) -> None:
        self._write({"run": run, "result": result})

    def _write(self, record: dict[str, Any]) -> None:
        self._file.write(json.dumps(record, sort_keys=True) + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def _drop_cut_line(path: Path) -> None:
    """Cut off a last line left half-written, so that the next one starts on its own line."""
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with open(path, "r+b") as f:
            f.truncate(data.rfind(b"\n") + 1)
