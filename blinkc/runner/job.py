"""What a batch of independent runs is: the set-up every worker does once, the runs, and how
one run is played. The engines (local.py, ray_engine.py) only move these around."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

#: A run's result: JSON-able, with at least the run's seed (the results file keeps it).
Result = dict[str, Any]


@dataclass(frozen=True)
class Job:
    """A batch of independent runs.

    `setup(shared)` runs once per worker (a process, a Ray actor) and returns the context
    its runs share (a game compiled once, say); `play(context, spec)` plays one run. Both
    must be module-level functions, and `shared` and every spec picklable: they are shipped
    to other processes, and other machines. Run i is `runs[i]`; results are kept by i, so
    they do not depend on how many workers played them or in what order they finished.
    """

    name: str                                  #: what the progress bar and messages call it
    key: dict[str, Any]                        #: what identifies it in its results file
    setup: Callable[[Any], Any]
    shared: Any
    play: Callable[[Any, Any], Result]
    runs: Sequence[Any]
    #: Whether a result is a failure (counted on the progress bar; with stop_at_failure,
    #: the runs after the first failing one are not played).
    failed: Callable[[Result], bool] = field(default=lambda result: False)
    stop_at_failure: bool = False
    #: Runs sent to a worker at once: short runs in batches keep the overhead small.
    chunk: int = 1


@dataclass
class Outcome:
    """What a batch came to: every result played (or read back on --resume), by run."""

    job: Job
    results: dict[int, Result]
    interrupted: bool = False
    resumed: int = 0          #: results read back from the results file
    wall_s: float = 0.0
    engine: str = "serial"

    @property
    def done(self) -> int:
        return len(self.results)

    @property
    def total(self) -> int:
        return len(self.job.runs)

    @property
    def complete(self) -> bool:
        """Every run played, or every run up to the first failure when the job stops there."""
        return not self.interrupted and self.done >= self.expected

    @property
    def expected(self) -> int:
        if self.job.stop_at_failure:
            first = self.first_failure()
            if first is not None:
                return first + 1
        return self.total

    def first_failure(self) -> int | None:
        return next((i for i in sorted(self.results) if self.job.failed(self.results[i])), None)

    def ordered(self) -> list[tuple[int, Result]]:
        """The results by run; a stopping job's runs after its first failure left out."""
        last = self.expected - 1
        return [(i, self.results[i]) for i in sorted(self.results) if i <= last]

    def failures(self) -> int:
        return sum(1 for _, r in self.ordered() if self.job.failed(r))
