"""Running a job: the runs not yet done, on the engine chosen, into the results file, with a
progress bar; Ctrl-C stops it, keeping every result that came back."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import local, ray_engine, results
from .job import Job, Outcome
from .progress import Bar


@dataclass(frozen=True)
class Options:
    """How to run a job (its results do not depend on it)."""

    jobs: int | None = 1          #: local processes; None: one a core (1: in this process)
    ray: str | None = None        #: "local", "auto" or a cluster's address; None: no Ray
    results: Path | None = None   #: the JSON-lines file of results (None: none kept)
    resume: bool = False          #: go on from the results file
    progress: bool = False        #: show a progress bar on stderr

    @property
    def workers(self) -> int:
        return self.jobs or os.cpu_count() or 1

    def engine(self) -> str:
        if self.ray:
            return f"ray {self.ray}"
        return "serial" if self.workers == 1 else f"{self.workers} processes"


def run(job: Job, options: Options = Options()) -> Outcome:
    """Play every run of `job` not in its results file yet; the outcome, by run.

    On Ctrl-C the outcome comes back with `interrupted` set and the results so far (every
    one of them in the results file): the caller says how to go on. Raises RayMissing
    (--ray without Ray) and FileRefused (a results file blinkc may not write) before any run.
    """
    if options.ray:
        ray_engine.import_ray()
    done = results.prepare(options.results, job, options.resume) if options.results else {}
    outcome = Outcome(job, dict(done), resumed=len(done), engine=options.engine())
    todo = [i for i in range(len(job.runs)) if i not in outcome.results]
    if job.stop_at_failure and outcome.first_failure() is not None:
        todo = []
    writer = results.Writer(options.results, job, fresh=not done) if options.results else None
    # (Only a job that stops at its first failure stops before the runs after one read back.)
    first_failure = outcome.first_failure() if job.stop_at_failure else None

    def stop_before(i: int) -> bool:   # a stopping job plays no run after its first failure
        return first_failure is not None and i > first_failure

    start = time.perf_counter()
    bar = Bar(job.name, len(job.runs), len(outcome.results), outcome.failures(), options.progress)
    if options.ray:
        stream = ray_engine.on_ray(job, todo, options.ray, options.jobs, stop_before)
    elif options.workers == 1 or len(todo) <= max(1, job.chunk):   # one batch: no pool
        stream = local.serial(job, todo, stop_before)
    else:
        stream = local.processes(job, todo, options.workers, stop_before)
    try:
        with bar, _stop_signals_as_interrupt() as stopped:
            for batch in stream:
                for i, result in batch:
                    outcome.results[i] = result
                    if writer is not None:
                        writer.add(i, result)
                    failed = job.failed(result)
                    if failed and job.stop_at_failure and (first_failure is None or i < first_failure):
                        first_failure = i
                    bar.advance(failed)
                if stopped.is_set():   # the signal's KeyboardInterrupt was swallowed
                    raise KeyboardInterrupt
    except KeyboardInterrupt:
        outcome.interrupted = True
    finally:
        stream.close()
        if writer is not None:
            writer.close()
    outcome.wall_s = time.perf_counter() - start
    return outcome


@contextmanager
def _stop_signals_as_interrupt() -> Iterator[threading.Event]:
    """Ctrl-C (SIGINT) and SIGTERM (a scheduler's or `kill`'s stop) stop the batch.

    Their KeyboardInterrupt can land where Python cannot raise it (in a weakref finaliser it
    goes to sys.unraisablehook, which prints "Exception ignored" and a traceback, and the
    batch goes on): so the handler also sets the event the loop checks after every batch,
    and such a swallowed interrupt is not printed. SIGINT stops the batch also when we were
    started with it ignored (in the background of a script), as `blinkc emulate` does."""
    stopped = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stopped
        return

    def interrupt(signum: int, frame: object) -> None:
        stopped.set()
        raise KeyboardInterrupt

    def unraisable(hook_args: Any) -> None:
        if not (stopped.is_set() and isinstance(hook_args.exc_value, KeyboardInterrupt)):
            hook_before(hook_args)

    before = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
    hook_before, sys.unraisablehook = sys.unraisablehook, unraisable
    try:
        yield stopped
    finally:
        sys.unraisablehook = hook_before
        for sig, handler in before.items():
            signal.signal(sig, handler)
