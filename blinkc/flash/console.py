"""What people see while flashing: a rich progress bar and workshop messages."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    Task,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)
from rich.text import Text

from .errors import DisconnectedError, FlashError, NoResponseError, ProtocolError, WrongChipError
from .flasher import FlashResult
from .workshop import Tally


class _SizedOnly:
    """Show a byte column only for phases that move bytes (not Erasing or Fuses)."""

    def render(self, task: Task) -> Text:
        return super().render(task) if task.fields.get("sized") else Text("")  # type: ignore[misc]


class _Bytes(_SizedOnly, DownloadColumn):
    pass


class _Speed(_SizedOnly, TransferSpeedColumn):
    pass


class RichProgress:
    """The flasher's Progress sink: one bar per phase, with bytes, pages and speed.

    On something that is not a terminal (logs, CI) it prints one line per phase.
    """

    def __init__(self, console: Console) -> None:
        self.console = console
        self.live = console.is_terminal
        self._bar = Progress(
            TextColumn("{task.description:<10}"),
            BarColumn(),
            _Bytes(),
            TextColumn("{task.fields[pages]}"),
            _Speed(),
            TimeRemainingColumn(),
            console=console,
        )
        self._task: TaskID | None = None
        self._pages_total = 0
        self._pages_done = 0

    def __enter__(self) -> RichProgress:
        if self.live:
            self._bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._finish_task()
        if self.live:
            self._bar.stop()

    def _finish_task(self) -> None:
        if self._task is not None and self.live:
            task = self._bar.tasks[-1]
            self._bar.update(self._task, total=task.completed or 1, completed=task.completed or 1)
        self._task = None

    def phase(self, name: str, total_bytes: int = 0, total_pages: int = 0) -> None:
        self._finish_task()
        self._pages_total, self._pages_done = total_pages, 0
        if not self.live:
            detail = f" {total_pages} pages ({total_bytes:,} bytes)" if total_pages else ""
            self.console.print(f"{name}{detail}...", highlight=False)
            return
        self._task = self._bar.add_task(name, total=total_bytes or None,
                                        pages=self._pages_text(), sized=bool(total_bytes))

    def _pages_text(self) -> str:
        return f"{self._pages_done}/{self._pages_total} pages" if self._pages_total else ""

    def advance(self, nbytes: int, pages: int = 0) -> None:
        self._pages_done += pages
        if self._task is not None:
            self._bar.update(self._task, advance=nbytes, pages=self._pages_text())

    def info(self, message: str) -> None:
        self.console.print(message, highlight=False)


LINK_ERRORS = (NoResponseError, DisconnectedError, ProtocolError)


class WorkshopPrinter:
    """Workshop-mode messages: what to do next, and the running count."""

    def __init__(self, console: Console, polling: bool = True) -> None:
        self.console = console
        self.polling = polling   # False: the person is asked instead (the prompt says it)

    def waiting(self, tile: int) -> None:
        if self.polling:
            self.console.print(f"[bold]Tile {tile}:[/] waiting for a tile on the programmer "
                               "(Ctrl-C to finish)...")

    def flashing(self, tile: int) -> None:
        self.console.print(f"[bold]Tile {tile}:[/] found it, flashing...")

    def done(self, tile: int, result: FlashResult | None, tally: Tally) -> None:
        self.console.print(f"[bold green]Tile {tile}: done[/] - {tally_text(tally)}")

    def failed(self, tile: int, error: FlashError, tally: Tally) -> None:
        self.console.print(f"[bold red]Tile {tile}: FAILED[/] - {error.what}", highlight=False)
        if isinstance(error, LINK_ERRORS):
            self.console.print(f"  The tile may be half written: flash it again once the "
                               f"programmer answers. ({tally_text(tally)})", highlight=False)
        elif error.fix:
            self.console.print(f"  {error.fix}; set it aside. ({tally_text(tally)})",
                               highlight=False)

    def wrong_chip(self, error: WrongChipError) -> None:
        self.console.print(f"[yellow]{error.what}[/] Not flashing it; waiting for a Blink.",
                           highlight=False)

    def nothing_flashed(self, tile: int, error: FlashError) -> None:
        # Nothing (or not a Blink) on the clip: not a tile that failed.
        self.console.print(f"[yellow]{error.what}[/] {error.fix or ''}", highlight=False)

    def remove(self, tile: int) -> None:
        self.console.print("Take the tile off; put the next one on.")


def tally_text(tally: Tally) -> str:
    s = "" if tally.ok == 1 else "s"
    return f"{tally.ok} tile{s} flashed, {tally.failed} failed"
