"""`blinkc explore`: a game's own messages and floods on small clusters, under an adversary."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import click

from ..dsl.errors import GameErrors
from ..explore import CLOCKS, SCRIPTS, Report, Run, check, shrink, subject, write_counterexample
from ..explore.explorer import TURNS_MS, explore_job, report_of
from ..explore.runs import WORLDS, check_counterexample_folder, why_python
from ..user_files import FileRefused
from ..world.syntax import SourceError
from . import main
from .running import options_from, play, rate, runner_options


@main.command(name="explore")
@click.argument("game", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("--tiles", "n_tiles", type=click.IntRange(2, 4), default=2, show_default=True,
              help="Cluster size: every connected shape of this many tiles, every rotation.")
@click.option("--clock", "clocks", multiple=True, type=click.Choice(list(CLOCKS)),
              help="Clock conditions to explore (repeatable; default: all).")
@click.option("--random", "random_runs", type=click.IntRange(0), default=2, show_default=True,
              help="Seeded random schedules per configuration, beside the scripted ones.")
@click.option("--no-scripts", is_flag=True,
              help=f"Leave out the {SCRIPTS} scripted schedules run on every configuration.")
@click.option("--turns", is_flag=True,
              help=f"Add {len(TURNS_MS)} runs per configuration where a tile is lifted as "
                   "messages cross and put back at another rotation after "
                   f"{TURNS_MS[0]} ms to {TURNS_MS[-1] / 1000:g} s (within the SDK's 200 ms "
                   "expiry, within the grace, past it): its faces meet other faces.")
@click.option("--limit", type=click.IntRange(1), default=None,
              help="Stop after this many configurations (per clock condition, in order).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the schedules.")
@click.option("--keep-going", is_flag=True, help="Go on after the first violation.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("explore-out"),
              show_default=True, help="Where a counterexample's layout and scenario go.")
@click.option("--check", "replay", nargs=2, type=click.Path(dir_okay=False, exists=True, path_type=Path),
              default=None, metavar="LAYOUT SCENARIO",
              help="Check one run given as files (a counterexample) instead of exploring.")
@click.option("--force", is_flag=True,
              help="Replace explore.layout/explore.scenario in OUT even if blinkc did not write them.")
@click.option("--world", "world_engine", type=click.Choice(list(WORLDS)), default="auto",
              show_default=True,
              help="Where the runs play: native, the game's C++ in blinkc's C++ world core "
                   "(many times faster); python, the game's Python backend in the reference "
                   "world; auto, native where g++ and the core are there, else python (it says "
                   "so). Same results on both.")
@runner_options
def explore_cmd(game: Path, n_tiles: int, clocks: tuple[str, ...], random_runs: int,
                no_scripts: bool, turns: bool, limit: int | None, seed: int, keep_going: bool, out: Path,
                replay: tuple[Path, Path] | None, force: bool, world_engine: str,
                jobs: int | None, ray: str | None,
                results: Path | None, resume: bool, as_json: bool) -> None:
    """Explore GAME's protocol on every cluster of a few tiles, against an adversary.

    The tiles send the game's own messages and start its floods; the adversary cuts one
    direction of a link for a while, stalls tiles, takes a tile away and puts it back, and
    sets every tile's clock (identical and in step, ±0.1 %, ±3 %: the widest spread at which
    every two tiles decode each other). After every delivery and
    at the end it checks: each message delivered exactly once and in order, or bounced only
    when its neighbour was gone; nothing left hanging; every flood finished, once per tile;
    a wide value arrives as sent, and a gather brings back every tile's value once.
    With --turns, each configuration also has runs where a tile is put back turned as
    messages cross (the monitor follows the moves). A violation is shrunk to a few steps
    and written to OUT as a layout and a scenario that `blinkc emulate` replays
    (docs/protocol.md). Exits 1 on a violation.

    The runs go through the runner (docs/runner.md): on every core by default, or on a Ray
    cluster; with --results FILE a stopped exploration goes on with --resume.

    \b
    Examples:
      blinkc explore firmware/pirates_lasers.py --tiles 2
      blinkc explore firmware/pirates_lasers.py --tiles 3 --clock "identical, in step" --random 4
      blinkc explore firmware/pirates_lasers.py --tiles 3 --turns --limit 20 --keep-going
      blinkc explore GAME.py --check explore-out/explore.layout explore-out/explore.scenario --seed 7
      blinkc explore GAME.py --tiles 4 --keep-going --results explore4.jsonl   (then --resume)
    """
    try:
        world_engine = _world(world_engine)
        if replay is not None:
            _replay(game, replay, seed, world_engine)
            return
        check_counterexample_folder(out, force)   # before the run, not after it
        options = options_from(jobs, ray, results, resume)
        job = explore_job(game, n_tiles, clocks=list(clocks) or None, random_runs=random_runs,
                          seed=seed, exhaustive=not no_scripts, limit=limit,
                          stop_at_first=not keep_going, world=world_engine, turns=turns)
        outcome = play(job, options)
        report = report_of(outcome)
        if as_json:
            click.echo(json.dumps(_summary(report, outcome.ordered()), sort_keys=True))
        else:
            for line in report.lines():
                click.echo(line)
        click.echo(rate(outcome), err=True)
        if report.violations:
            run, problems = report.violations[0]
            click.echo("shrinking the first violation ...", err=True)
            small, problems = shrink(subject(game, world_engine), run)
            command = write_counterexample(game, small, problems, out)
            for p in problems:
                click.echo(f"  {p}", err=True)
            click.echo(f"counterexample: {out}/explore.layout, {out}/explore.scenario\n"
                       f"replay it:      {command}\n"
                       f"check it:       blinkc explore {game} --check {out}/explore.layout "
                       f"{out}/explore.scenario --seed {small.seed}", err=True)
            raise SystemExit(1)
    except GameErrors as e:
        raise click.ClickException(f"{game} has errors (run `blinkc check {game}`):\n{e}") from None
    except (SourceError, ValueError, FileRefused) as e:
        raise click.ClickException(str(e)) from None


def _world(world: str) -> str:
    """The world "auto" stands for here; says so when it is not the native one."""
    if world != "auto":
        return world
    why = why_python()
    if why is None:
        return "native"
    click.echo(f"note: exploring in the Python world, {why}: slower, same results "
               "(docs/protocol.md)", err=True)
    return "python"


def _replay(game: Path, files: tuple[Path, Path], seed: int, world: str) -> None:
    run = Run.from_files(*files, seed=seed)
    problems = check(subject(game, world), run)
    for p in problems:
        click.echo(f"  {p}", err=True)
    if problems:
        raise click.ClickException(f"{len(problems)} violation(s) in {files[1]}")
    click.echo(f"{files[1]}: every invariant held")


def _summary(report: Report, ordered: list[tuple[int, dict]]) -> dict:
    """The report as a script compares it: counts, and each violation's run, seed, problems."""
    summary = {k: v for k, v in asdict(report).items() if k != "violations"}
    summary["violations"] = [{"run": i, "seed": r["seed"], "problems": r["problems"]}
                             for i, r in ordered if r["problems"]]
    return summary
