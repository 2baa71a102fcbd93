"""`blinkc cosim`: run the built firmware (game + the SDK's BIOS) of every tile on simavr."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from ..build import BuildError
from ..world import WorldError
from ..world.syntax import SourceError
from . import main
from .emulate import _ctrl_c_stops, _duration, _faults, _secs, pretty_json


@main.command("cosim")
@click.argument("source", metavar="GAME.py|SKETCH.ino|LAYOUT", type=click.Path(dir_okay=False))
@click.option("-l", "--layout", "layout_opt", metavar="LAYOUT", type=click.Path(dir_okay=False),
              help="The cluster to run a game or sketch on (tiles, places, initial state).")
@click.option("-s", "--script", "script_file", metavar="SCENARIO",
              type=click.Path(dir_okay=False),
              help="A scenario file: clicks, presses and tile moves at given times.")
@click.option("-t", "--time", "time_ms", metavar="DURATION", callback=_duration,
              help="How long to run, e.g. 5s. Default: until 1 s after the scenario's last "
                   "step, and at least 2 s.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed for clock errors, serial numbers and faults: same seed, same run.")
@click.option("--faults", metavar="SPEC", callback=_faults,
              help="Imperfect physics, as for emulate: drop=0.1,jitter=2ms,skew=10%.")
@click.option("--compare", is_flag=True,
              help="Also run the fast emulator and report where the two differ (exit 1 if "
                   "they do).")
@click.option("--tolerance", "tolerance_ms", metavar="DURATION", callback=_duration,
              help="With --compare: how far apart in time the two may show the same thing "
                   "(default 250ms).")
@click.option("--threads", type=click.IntRange(1, 8), default=1, show_default=True,
              help="Threads that step the tiles (more is slower today: the threads meet at a "
                   "barrier every 256 cycles; docs/cosim.md, Speed).")
@click.option("--sdk", type=click.Path(path_type=Path),
              help="Blinks SDK folder (default: BLINKS_SDK, then Arduino's folders).")
@click.option("--json", "as_json", is_flag=True,
              help="Print every tile's final state as JSON (emulate's schema, plus "
                   "stack_free_min and loop_max_us).")
def cosim(source: str, layout_opt: str | None, script_file: str | None, time_ms: float | None,
          seed: int, faults: Any, compare: bool, tolerance_ms: float | None, threads: int,
          sdk: Path | None, as_json: bool) -> None:
    """Co-simulate: build the game or sketch as `blinkc build` does and run each tile's
    firmware, with the SDK's BlinkBIOS, instruction by instruction on simavr.

    SOURCE is a game (GAME.py, with --layout), a sketch (SKETCH.ino, with --layout), or a
    layout whose `game` line names the game. IR between facing tiles is modelled at the
    pins; see docs/cosim.md for what is modelled and what is not.

    \b
    Examples:
      blinkc cosim firmware/pirates_lasers.py -l examples/ship.layout -s examples/turn.scenario
      blinkc cosim examples/wham.layout -s examples/wham.scenario --compare
    """
    with _ctrl_c_stops():
        _cosim(source, layout_opt, script_file, time_ms, seed, faults, compare, tolerance_ms,
               threads, sdk, as_json)


def _cosim(source: str, layout_opt: str | None, script_file: str | None, time_ms: float | None,
           seed: int, faults: Any, compare: bool, tolerance_ms: float | None, threads: int,
           sdk: Path | None, as_json: bool) -> None:
    from ..cosim.compare import SAMPLE_MS, TOLERANCE_MS, compare_sides, cosim_side, emulator_side
    from ..cosim.firmware import FirmwareError
    from ..cosim.library import HarnessUnavailable
    from ..cosim.run import CosimError, CosimOptions, cosimulate
    from ..world.world import Faults

    if tolerance_ms is not None and not compare:
        raise click.UsageError("--tolerance is for --compare")
    layout_file, game = _inputs(source, layout_opt)
    options = CosimOptions(seed=seed, faults=faults or Faults(), time_ms=time_ms,
                           threads=threads, sdk=sdk, sample_ms=SAMPLE_MS if compare else None)
    try:
        result = cosimulate(layout_file, game, script_file, options)
        differences = None
        if compare:
            theirs, end = emulator_side(layout_file, game, script_file, seed, options.faults,
                                        time_ms, start_local_us=result.start_local_us)
            differences = compare_sides(cosim_side(result), theirs,
                                        tolerance_ms or TOLERANCE_MS, end_ms=end)
    except (SourceError, WorldError, BuildError, FirmwareError, CosimError,
            HarnessUnavailable) as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        out: dict[str, Any] = {"time_ms": result.end_ms, "seed": seed, "tiles": result.tiles,
                               "stats": result.stats}
        if differences is not None:
            out["agree"] = not differences
            out["differences"] = [d.as_json() for d in differences]
            out["tolerance_ms"] = tolerance_ms or TOLERANCE_MS
        click.echo(pretty_json(out))
    else:
        click.echo(_summary(result))
        if differences is not None:
            click.echo(_differences(differences, tolerance_ms or TOLERANCE_MS))
    _warn_stack(result.tiles)
    if differences:
        sys.exit(1)


def _inputs(source: str, layout_opt: str | None) -> tuple[str, str | None]:
    if source.endswith((".py", ".ino")):
        if layout_opt is None:
            raise click.UsageError(f"running {source} needs a cluster: add --layout FILE "
                                   "(see docs/layouts.md)")
        return layout_opt, source
    if layout_opt is not None:
        raise click.UsageError("give the layout once: either as SOURCE or with --layout")
    return source, None


def _summary(result: Any) -> str:
    from ..render import faces_text

    lines = [f"t = {_secs(result.end_ms)}, seed {result.seed}, co-simulated "
             f"({result.stats['speed']}x real time)"]
    rows = []
    for t in result.tiles:
        place = "held" if t["pos"] is None else f"at {t['pos'][0]},{t['pos'][1]}"
        state = " ".join(f"{k}={_value(v)}" for k, v in t["state"].items())
        figures = f"stack free >= {t['stack_free_min']} B"
        if t.get("loop_max_us") is not None:
            figures += f", loop() <= {t['loop_max_us'] / 1000:.2f} ms"
        rows.append((t["name"], place, faces_text(t["colors"]), state, figures))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for r in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r[:3], widths, strict=True))
                     + ("  " + r[3] if r[3] else "") + f"  [{r[4]}]")
    for t in result.tiles:
        if "crashed" in t:
            lines.append(f"{t['name']}: {t['crashed']}")
    serial = [t for t in result.tiles if t.get("serial")]
    if serial:
        lines.append("service port:")
        for t in serial:
            for line in t["serial"].replace("\r\n", "\n").rstrip("\n").split("\n"):
                lines.append(f"  {t['name']}| {line}")
    return "\n".join(line.rstrip() for line in lines)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return ",".join(_value(x) for x in v)
    return str(v)


def _differences(differences: list, tolerance_ms: float) -> str:
    from ..render import faces_text

    if not differences:
        return f"co-simulation and emulator agree (within {tolerance_ms:g} ms)"
    lines = [f"co-simulation and emulator differ ({len(differences)} time"
             f"{'s' if len(differences) != 1 else ''}, tolerance {tolerance_ms:g} ms):"]
    for d in differences:
        span = _secs(d.at_ms) + (f"..{_secs(d.until_ms)}" if d.until_ms > d.at_ms else "")
        lines.append(f"  {span}  {d.tile}")
        for side, view in (("cosim   ", d.cosim), ("emulator", d.emulator)):
            colors = faces_text(view["colors"]) if view["colors"] is not None else "-"
            state = " ".join(f"{k}={_value(v)}" for k, v in (view["state"] or {}).items())
            lines.append(f"    {side} {colors}  {state}".rstrip())
    return "\n".join(lines)


def _warn_stack(tiles: list[dict]) -> None:
    from ..cosim.figures import STACK_WARN_BYTES, stack_warning

    for t in tiles:
        free = t.get("stack_free_min")
        if free is not None and free < STACK_WARN_BYTES:
            click.echo(f"warning: {t['name']}: {stack_warning(free)}", err=True)
