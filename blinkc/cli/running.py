"""The runner's options, shared by every command that plays many independent runs
(`explore`, `solve`): where the runs go, the results file, and how a stopped batch goes on."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ..runner import Options, Outcome, RayMissing
from ..runner import run as run_job
from ..runner.job import Job
from ..user_files import FileRefused


def runner_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """--jobs, --ray, --results, --resume and --json, for a command that runs a batch."""
    for option in reversed([
        click.option("--jobs", "-j", type=click.IntRange(1), default=None,
                     help="Local processes to play the runs in (default: one a core; 1 plays "
                          "them in this process). With --ray: actors (default: one a CPU)."),
        click.option("--ray", "ray", metavar="auto|local|ADDRESS", default=None,
                     help="Play the runs on a Ray cluster: `auto` joins the one `ray start` "
                          "made here, ADDRESS one elsewhere, `local` starts one on this machine for "
                          "the batch (Ray listens on every interface: docs/runner.md). Needs "
                          "pip install 'blinkc[ray]'."),
        click.option("--results", type=click.Path(dir_okay=False, path_type=Path), default=None,
                     help="Keep every run's result in this JSON-lines file as it ends, "
                          "to --resume from after a cut or Ctrl-C."),
        click.option("--resume", is_flag=True,
                     help="Go on from the --results file: play only the runs not in it yet."),
        click.option("--json", "as_json", is_flag=True,
                     help="Print the summary as one JSON object (the same however it was run)."),
    ]):
        command = option(command)
    return command


def options_from(jobs: int | None, ray: str | None, results: Path | None,
                 resume: bool) -> Options:
    if resume and results is None:
        raise click.UsageError("--resume goes on from a results file: give it with --results FILE.")
    return Options(jobs=jobs, ray=ray, results=results, resume=resume,
                   progress=sys.stderr.isatty())


def play(job: Job, options: Options) -> Outcome:
    """Run the job; exit 2 with the install hint if Ray is missing; say how to go on after
    Ctrl-C (and exit 130)."""
    try:
        outcome = run_job(job, options)
    except RayMissing as e:
        click.echo(f"Error: {e}", err=True)
        raise SystemExit(2) from None
    except FileRefused as e:
        raise click.ClickException(str(e)) from None
    if outcome.interrupted:
        click.echo(stopped_message(outcome, options), err=True)
        raise SystemExit(130)
    return outcome


def stopped_message(outcome: Outcome, options: Options) -> str:
    return how_to_go_on(f"stopped: {outcome.done:,} of {outcome.total:,} runs done", options)


def how_to_go_on(done: str, options: Options) -> str:
    if options.results is None:
        return (f"{done}; no results file was kept, so they are not saved. Run with "
                "--results FILE to be able to go on after a stop.")
    argv = [a for a in sys.argv[1:] if a != "--resume"]
    command = shlex.join(["blinkc", *argv, "--resume"])
    return f"{done}, their results in {options.results}.\ngo on with: {command}"


def rate(outcome: Outcome) -> str:
    played = outcome.done - outcome.resumed
    per_s = played / outcome.wall_s if outcome.wall_s > 0 else 0.0
    resumed = f", {outcome.resumed:,} read back from the results file" if outcome.resumed else ""
    return (f"({played:,} runs in {outcome.wall_s:.1f} s on {outcome.engine}, "
            f"{per_s:.2f} runs/s{resumed})")
