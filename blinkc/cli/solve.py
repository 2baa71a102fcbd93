"""`blinkc solve`: the Pirates & Lasers ship that lasts the most rounds under a stated play."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..dsl.errors import GameErrors
from ..solve import Policy, beam, exhaustive, play, replay_files, ships
from ..solve.files import ship_of, write
from ..user_files import FileRefused
from ..world.syntax import SourceError
from . import main
from .running import how_to_go_on, options_from, runner_options

#: Ships up to this many are searched exhaustively (when --budget allows; docs/solve.md).
EXHAUSTIVE_PIECES = 7


def _policy(ctx: click.Context, param: click.Parameter, value: str) -> Policy:
    words = value.split()
    if words == ["greedy"]:
        return Policy(1)
    if len(words) == 2 and words[0] == "lookahead" and words[1].isdigit() and int(words[1]) >= 1:
        return Policy(int(words[1]))
    raise click.BadParameter(f"{value!r}: give `greedy` or `lookahead K` (K a number, 1 or more)")


@main.command(name="solve")
@click.argument("game", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("--hulls", type=click.IntRange(1, 30), default=None, help="Hulls in the ship.")
@click.option("--hazards", type=click.IntRange(1, 10), default=None, help="Hazards in the ship.")
@click.option("--redirectors", type=click.IntRange(0, 10), default=0, show_default=True,
              help="Redirectors in the ship.")
@click.option("--policy", "policy", default="greedy", show_default=True, callback=_policy,
              metavar="greedy|'lookahead K'",
              help="The Repair press each round: greedy leaves the lowest Hull highest after "
                   "the round; lookahead K looks K rounds ahead.")
@click.option("--evaluate", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              default=None, metavar="LAYOUT", help="Play this ship (a layout file) and print its rounds.")
@click.option("--budget", type=click.IntRange(1), default=20_000, show_default=True,
              help="Ships to play at most: an exhaustive search needs every legal one.")
@click.option("--width", type=click.IntRange(1), default=8, show_default=True,
              help="The beam search's width (ships kept each generation).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="The world's seed, and the beam search's.")
@click.option("--top", type=click.IntRange(1), default=5, show_default=True, help="Ships to list.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
              show_default=True, help="Where best.layout and best.scenario go.")
@click.option("--force", is_flag=True,
              help="Replace best.layout/best.scenario even if blinkc did not write them.")
@runner_options
def solve_cmd(game: Path, hulls: int | None, hazards: int | None, redirectors: int,
              policy: Policy, evaluate: Path | None, budget: int, width: int, seed: int,
              top: int, out: Path, force: bool, jobs: int | None, ray: str | None,
              results: Path | None, resume: bool, as_json: bool) -> None:
    """Find the Pirates & Lasers ship (GAME: firmware/pirates_lasers.py) that lasts the most
    rounds under a stated play.

    Every ship the rules allow (connected; no weak link; every Hazard and Redirector
    touching a Hull; each piece's rotation), once up to turning or mirroring the whole ship,
    is played in the emulator by the game itself: each round the Repair press the policy
    picks, then every Hazard pressed once, in the ship's order. No rearranging between rounds
    (docs/solve.md). Up to 7 pieces the search is exhaustive when --budget allows it;
    beyond, a seeded beam search. Writes OUT/best.layout and OUT/best.scenario, which
    `blinkc emulate` replays to the same sinking.

    \b
    Examples:
      blinkc solve firmware/pirates_lasers.py --hulls 4 --hazards 2
      blinkc solve firmware/pirates_lasers.py --hulls 8 --hazards 2 --redirectors 1 --budget 500
      blinkc solve firmware/pirates_lasers.py --evaluate my_ship.layout --policy "lookahead 2"
    """
    try:
        if evaluate is not None:
            ship = ship_of(evaluate)
            played = play(game, ship, policy, seed)
            click.echo(f"{evaluate}: {_lasts(played.rounds, played.sank_ms is not None)} "
                       f"under {policy} play ({ship.describe()})")
            return
        if hulls is None or hazards is None:
            raise click.UsageError("give the ship's pieces: --hulls H --hazards Z "
                                   "[--redirectors R], or --evaluate LAYOUT")
        options = options_from(jobs, ray, results, resume)
        pieces = hulls + hazards + redirectors
        search = None
        if pieces <= EXHAUSTIVE_PIECES:
            count = sum(1 for _ in ships(hulls, hazards, redirectors))
            if count <= budget:
                search = _guarded(lambda: exhaustive(game, hulls, hazards, redirectors, policy,
                                                     seed, options))
            else:
                click.echo(f"{count:,} legal ships is more than --budget {budget:,}: a beam "
                           "search instead", err=True)
        if search is None:
            if results is not None:
                raise click.UsageError("--results and --resume keep an exhaustive search; a "
                                       "beam search's generations depend on each other: "
                                       "run it without them (or raise --budget)")
            search = _guarded(lambda: beam(game, hulls, hazards, redirectors, policy, seed,
                                           options, budget, width))
        if search.interrupted:
            stopped = f"stopped after {search.searched:,} ships (the best so far is below)"
            click.echo(how_to_go_on(stopped, options) if search.kind == "exhaustive"
                       else stopped, err=True)
        if not search.best and search.interrupted:
            raise SystemExit(130)
        if not search.best:
            raise click.ClickException("no legal ship of these pieces: every Hazard and "
                                       "Redirector must touch a Hull, with no weak link")
        best = search.best[0]
        layout_text, scenario_text, played = replay_files(game, best.ship, policy, seed)
        assert played.rounds == best.rounds   # the replay is the game that was counted
        headline = f"{_lasts(best.rounds, played.sank_ms is not None)} under {policy} play"
        layout, scenario = write(out, layout_text, scenario_text, headline, force)
        summary = {"search": search.kind, "searched": search.searched, "legal": search.legal,
                   "policy": str(policy), "best_rounds": best.rounds,
                   "top": [{"rounds": s.rounds, "ship": s.ship.describe()} for s in search.best[:top]]}
        if as_json:
            click.echo(json.dumps(summary, sort_keys=True))
        else:
            what = (f"all {search.searched:,} legal ships (up to turning and mirroring)"
                    if search.kind == "exhaustive" else
                    f"{search.searched:,} ships (a beam search, width {width}, seed {seed})")
            click.echo(f"searched {what} of {hulls} Hulls, {hazards} Hazards and {redirectors} "
                       f"Redirectors, {policy} play, no rearranging")
            click.echo(f"best: {headline}")
            for s in search.best[:top]:
                click.echo(f"  {s.rounds:>4} rounds  {s.ship.describe()}")
        click.echo(f"replay: blinkc emulate {layout} -s {scenario} --backend native "
                   f"--seed {seed} --time {played.end_ms:g}ms", err=True)
        if search.interrupted:
            raise SystemExit(130)
    except GameErrors as e:
        raise click.ClickException(f"{game} has errors (run `blinkc check {game}`):\n{e}") from None
    except (SourceError, ValueError, FileRefused) as e:
        raise click.ClickException(str(e)) from None


def _guarded(search):
    from ..runner import RayMissing

    try:
        return search()
    except RayMissing as e:
        click.echo(f"Error: {e}", err=True)
        raise SystemExit(2) from None


def _lasts(rounds: int, sank: bool) -> str:
    return (f"lasts {rounds} rounds (sinks in round {rounds + 1})" if sank
            else f"still afloat after {rounds} rounds")


__all__ = ["solve_cmd"]
