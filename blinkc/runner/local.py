"""Playing a job's runs here: in this process (one job), or in a pool of local processes.

A worker process sets the job up once (its initializer gets `shared`, pickled once per
worker) and then plays batches of runs. Workers ignore Ctrl-C: the driver takes it, stops
them and keeps what came back.
"""

from __future__ import annotations

import multiprocessing
import queue
import signal
from collections.abc import Callable, Iterator
from typing import Any

from .job import Job, Result

#: What a worker process set up (its job's context), by job name.
_context: dict[str, Any] = {}

Batch = list[tuple[int, Any]]


def batches(job: Job, todo: list[int]) -> Iterator[Batch]:
    for start in range(0, len(todo), max(1, job.chunk)):
        yield [(i, job.runs[i]) for i in todo[start:start + max(1, job.chunk)]]


def play_batch(play: Callable[[Any, Any], Result], context: Any, batch: Batch) -> list[tuple[int, Result]]:
    return [(i, play(context, spec)) for i, spec in batch]


def serial(job: Job, todo: list[int],
           stop_before: Callable[[int], bool]) -> Iterator[list[tuple[int, Result]]]:
    """The runs one after the other in this process (no pickling: what a test patched holds)."""
    context = job.setup(job.shared)
    for batch in batches(job, todo):
        if stop_before(batch[0][0]):
            return
        yield play_batch(job.play, context, batch)


class _SetupFailed:
    """A worker's setup raised: kept, and raised again for its first batch. (An initializer
    that raises makes multiprocessing.Pool start another worker, for ever: a silent hang.)"""

    def __init__(self, error: BaseException) -> None:
        self.error = error


def _init_worker(name: str, setup: Callable[[Any], Any], shared: Any) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        _context[name] = setup(shared)
    except Exception as e:  # any error of the job's own setup goes back to the driver
        _context[name] = _SetupFailed(e)


def _worker_batch(name: str, play: Callable[[Any, Any], Result], batch: Batch) -> list[tuple[int, Result]]:
    context = _context[name]
    if isinstance(context, _SetupFailed):
        raise context.error
    return play_batch(play, context, batch)


def processes(job: Job, todo: list[int], jobs: int,
              stop_before: Callable[[int], bool]) -> Iterator[list[tuple[int, Result]]]:
    """The runs in `jobs` local processes, a few batches ahead of each; results as they end.
    (spawn, not fork: the driver may run threads, the progress bar's; and it is what macOS
    and Windows do anyway.)"""
    ctx = multiprocessing.get_context("spawn")
    done: queue.Queue = queue.Queue()
    pool = ctx.Pool(jobs, initializer=_init_worker, initargs=(job.name, job.setup, job.shared))
    try:
        pending = batches(job, todo)
        in_flight = 0

        def submit() -> bool:
            batch = next(pending, None)
            if batch is None or stop_before(batch[0][0]):
                return False
            pool.apply_async(_worker_batch, (job.name, job.play, batch),
                             callback=done.put, error_callback=done.put)
            return True

        for _ in range(2 * jobs):
            in_flight += submit()
        while in_flight:
            try:
                got = done.get(timeout=0.2)
            except queue.Empty:
                continue
            in_flight -= 1
            if isinstance(got, BaseException):
                raise got
            yield got
            in_flight += submit()
        pool.close()
    finally:
        pool.terminate()
        pool.join()
