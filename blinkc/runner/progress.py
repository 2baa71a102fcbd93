"""The progress bar of a job: runs done of all, failures, time spent and time left."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


class Bar:
    """A rich progress bar on stderr, or nothing (shown=False: a script, a test, a log)."""

    def __init__(self, name: str, total: int, done: int, failures: int, shown: bool) -> None:
        self.failures = failures
        self._progress: Progress | None = None
        if shown:
            self._progress = Progress(
                TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("runs, [red]{task.fields[failures]} failed[/red]"),
                TimeElapsedColumn(), TextColumn("elapsed,"), TimeRemainingColumn(),
                TextColumn("left"), console=Console(stderr=True), transient=False)
            self._task = self._progress.add_task(name, total=total, completed=done,
                                                 failures=failures)

    def __enter__(self) -> Bar:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._progress is not None:
            self._progress.stop()

    def advance(self, failed: bool) -> None:
        self.failures += failed
        if self._progress is not None:
            self._progress.update(self._task, advance=1, failures=self.failures)
