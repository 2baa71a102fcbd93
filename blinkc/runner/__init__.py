"""One runner for every batch of independent runs (explore, the solver, the soaks, the
differential): local processes or a Ray cluster, a results file to resume from, a progress
bar, and results that do not depend on how they were run (docs/runner.md).

A caller describes its batch as a `Job` (a set-up done once per worker, the runs, how one
run is played) and gets back an `Outcome`: every result, by run.
"""

from .job import Job, Outcome, Result
from .ray_engine import INSTALL_HINT, RayMissing
from .run import Options, run

__all__ = ["INSTALL_HINT", "Job", "Options", "Outcome", "RayMissing", "Result", "run"]
