"""`blinkc emulate`: run a cluster in the emulator and show what it ends up doing."""

from __future__ import annotations

import io
import json
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO, Any

import click

from ..render import faces_text
from ..render.png import save_png
from ..render.terminal import show, use_color
from ..user_files import FileRefused, check_writable, is_picture, is_trace, write_whole
from ..world import Trace, World, WorldError, emulation
from ..world.emulation import Emulation, EmulationOptions, FaultsError, Interrupted, parse_faults
from ..world.layout import Layout, Resolver, resolve_program
from ..world.layout_file import load_layout
from ..world.scenario import Scenario, Step
from ..world.scenario_file import load_scenario
from ..world.syntax import SourceError, format_value, parse_duration
from . import main


def _duration(ctx: click.Context, param: click.Parameter, value: str | None) -> float | None:
    if value is None:
        return None
    try:
        ms = parse_duration(value, None, SourceError)
    except SourceError as e:
        raise click.BadParameter(f"{e.message} ({e.hint})") from None
    if ms <= 0:
        raise click.BadParameter("the run must last more than 0 s")
    return ms


def _faults(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    if value is None:
        return None
    try:
        return parse_faults(value)
    except FaultsError as e:
        raise click.BadParameter(str(e).replace("\n  hint:", ";")) from None


@main.command()
@click.argument("source", metavar="GAME.py|SKETCH.ino|LAYOUT", type=click.Path(dir_okay=False))
@click.option("-l", "--layout", "layout_opt", metavar="LAYOUT", type=click.Path(dir_okay=False),
              help="The cluster to run a game or sketch on (tiles, places, initial state).")
@click.option("--backend", type=click.Choice(["python", "native"]), default="python",
              show_default=True,
              help="Run a game as generated Python, or as the generated C++ compiled for this host.")
@click.option("--world", "world_engine", type=click.Choice(["auto", "python", "native"]),
              default="auto", show_default=True,
              help="Where the world's events run: auto uses the C++ world core when every tile "
                   "is native (same results, faster); python forces the reference world.")
@click.option("-s", "--script", "script_file", metavar="SCENARIO",
              type=click.Path(dir_okay=False),
              help="A scenario file: clicks, presses and tile moves at given times.")
@click.option("-t", "--time", "time_ms", metavar="DURATION", callback=_duration,
              help="How long to run, e.g. 5s or 1500ms. Default: until 1 s after the "
                   "scenario's last step, and at least 2 s.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed for everything random (clock phases, faults): same seed, same run.")
@click.option("--faults", metavar="SPEC", callback=_faults,
              help="Imperfect physics, e.g. drop=0.1,jitter=2ms,skew=10%: packets lost, "
                   "delivery delay up to the jitter, clock rates off by up to the skew.")
@click.option("--render", is_flag=True, help="Draw the cluster in the terminal at the end.")
@click.option("--render-steps", is_flag=True,
              help="Draw the cluster after each scenario step as well (implies --render).")
@click.option("--png", "png_file", metavar="FILE", type=click.Path(dir_okay=False),
              help="Save a picture of the cluster at the end as a PNG image.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the final state of every tile as JSON (pictures then go to stderr).")
@click.option("--trace", "trace_file", metavar="FILE", type=click.Path(dir_okay=False),
              help="Write everything that happened, one JSON object per line.")
@click.option("--force", is_flag=True,
              help="Replace the --trace or --png file even if blinkc did not write it.")
@click.option("--color/--no-color", default=None,
              help="Colour the pictures. Default: only on a terminal, and not if NO_COLOR is set.")
def emulate(source: str, layout_opt: str | None, backend: str, world_engine: str,
            script_file: str | None,
            time_ms: float | None, seed: int, faults: Any, render: bool,
            render_steps: bool, png_file: str | None, as_json: bool, trace_file: str | None,
            force: bool, color: bool | None) -> None:
    """Run a game (or a layout's tiles) in the emulator, play a scenario, show the result.

    SOURCE is a game file (GAME.py, with --layout), a Blinks sketch (SKETCH.ino,
    with --layout), or a layout file whose tiles name their programs or game.

    \b
    Examples:
      blinkc emulate firmware/pirates_lasers.py -l examples/ship.layout -s examples/turn.scenario --render
      blinkc emulate examples/chain.layout --render
      blinkc emulate examples/chain.layout --script examples/clicks.scenario --json

    Without --json, each tile's final state is printed, one line per tile.
    The formats of LAYOUT and SCENARIO are described in docs/layouts.md and
    docs/scenarios.md. A tile whose loop() never returns freezes, as a real
    tile does, and the run goes on (a line reports it); one whose setup() never
    returns stops the run with an error (see docs/emulator.md); Ctrl-C stops it
    with status 130.
    """
    with _ctrl_c_stops():
        _emulate(source, layout_opt, backend, world_engine, script_file, time_ms, seed, faults,
                 render, render_steps, png_file, as_json, trace_file, force, color)


@contextmanager
def _ctrl_c_stops() -> Iterator[None]:
    """Ctrl-C (SIGINT) ends the command with a message and status 130, never a traceback;
    also when we were started with SIGINT ignored (in the background by a script)."""
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.default_int_handler) if main_thread else None
    try:
        yield
    except KeyboardInterrupt as e:
        if main_thread:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C cannot cut this short
        where = f" at t = {_secs(e.at_ms)}" if isinstance(e, Interrupted) else ""
        click.echo(f"\nInterrupted (Ctrl-C){where}: the run was stopped.", err=True)
        if isinstance(e, Interrupted) and e.stuck:
            click.echo(f"  {e.stuck.splitlines()[0]}", err=True)
        sys.exit(130)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def _emulate(source: str, layout_opt: str | None, backend: str, world_engine: str,
             script_file: str | None, time_ms: float | None, seed: int, faults: Any,
             render: bool, render_steps: bool, png_file: str | None,
             as_json: bool, trace_file: str | None, force: bool, color: bool | None) -> None:
    layout_file, resolver = _source(source, layout_opt, backend)
    # Before the run: a refusal should not come after minutes of emulation.
    _may_write(trace_file, is_trace, "the trace", force)
    _may_write(png_file, is_picture, "the picture", force)
    layout, scenario = load_inputs(layout_file, script_file, resolver)
    options = EmulationOptions(seed=seed, time_ms=time_ms, resolver=resolver, world=world_engine)
    if faults is not None:
        options.faults = faults
    # With --json, stdout carries only the JSON; pictures go to stderr.
    pictures = sys.stderr if as_json else sys.stdout
    if color is None:
        color = use_color(pictures)
    with ExitStack() as stack:
        if trace_file is not None:
            options.trace = Trace(out=_open(stack, trace_file), keep=False)
        hook = None
        if render_steps and scenario is not None:
            def hook(world: World, steps: Sequence[Step]) -> None:
                show(world.snapshot(), pictures, color, _step_title(world, steps))
                pictures.write("\n")
        try:
            result = emulation.emulate(layout, scenario, options, on_step=hook)
        except (SourceError, WorldError) as e:
            raise click.ClickException(str(e)) from None
    snapshot = result.snapshot()
    if (render or render_steps) and not (render_steps and hook is not None
                                         and _last_picture_is_final(result)):
        show(snapshot, pictures, color, f"end, t = {_secs(result.end_ms)}")
    if png_file is not None:
        _write_png(snapshot, png_file, f"{source} at t = {_secs(result.end_ms)}")
    if as_json:
        click.echo(pretty_json(_json_result(result, seed)))
    else:
        if render or render_steps:
            click.echo()
        click.echo(summary(result))
    _warn_late(result)


def _source(source: str, layout_opt: str | None, backend: str) -> tuple[str, Resolver]:
    """The layout to load and the resolver that makes each tile's program."""
    from ..games import game_resolver

    if source.endswith((".py", ".ino")):
        if layout_opt is None:
            raise click.UsageError(f"running {source} needs a cluster: add --layout FILE "
                                   "(see docs/layouts.md)")
        if source.endswith(".ino"):
            from ..sketches import sketch_resolver

            return layout_opt, sketch_resolver(source)
        return layout_opt, game_resolver(source, backend)
    if layout_opt is not None:
        raise click.UsageError("give the layout once: either as SOURCE or with --layout")
    return source, game_resolver(None, backend)


def load_inputs(layout_file: str, script_file: str | None,
                resolver: Resolver = resolve_program) -> tuple[Layout, Scenario | None]:
    """Read and check the layout (programs included) and the scenario, or fail with one message."""
    try:
        layout = load_layout(layout_file, resolver)
        scenario = load_scenario(script_file) if script_file is not None else None
    except SourceError as e:
        raise click.ClickException(str(e)) from None
    return layout, scenario


def _may_write(path: str | None, ours: Callable[[Path], bool], what: str, force: bool) -> None:
    if path is not None:
        try:
            check_writable(Path(path), ours, what, force)
        except FileRefused as e:
            raise click.ClickException(str(e)) from None


def _open(stack: ExitStack, path: str) -> IO[str]:
    try:
        return stack.enter_context(open(path, "w", encoding="utf-8"))
    except OSError as e:
        raise click.ClickException(f"cannot write {path}: {e.strerror or e}") from None


def _write_png(snapshot: list[dict], path: str, title: str) -> None:
    picture = io.BytesIO()
    save_png(snapshot, picture, title)
    try:
        write_whole(Path(path), picture.getvalue())  # decided by _may_write before the run
    except OSError as e:
        raise click.ClickException(f"cannot write {path}: {e.strerror or e}") from None
    click.echo(f"picture saved to {path}", err=True)


def _secs(ms: float) -> str:
    return f"{ms / 1000:.3f}".rstrip("0").rstrip(".") + " s"


def _step_title(world: World, steps: Sequence[Step]) -> str:
    what = "; ".join(s.describe() + (f" (line {s.where.line})" if s.where and s.where.line else "")
                     for s in steps)
    return f"after {what}, t = {_secs(world.now_ms)}"


def _last_picture_is_final(result: Emulation) -> bool:
    # With --render-steps the last step's picture is taken at the end of the run.
    return result.scenario is not None and any(
        s.at_ms <= result.end_ms for s in result.scenario.steps)


def _json_result(result: Emulation, seed: int) -> dict:
    return {"time_ms": result.world.now_ms, "seed": seed, "tiles": result.snapshot(),
            "stats": dict(result.world.stats)}


def pretty_json(value: Any, indent: str = "") -> str:
    """JSON with one key per line, but short lists (colours, face values) on one line."""
    inner = indent + "  "
    if isinstance(value, dict) and value:
        items = [f"{inner}{json.dumps(str(k))}: {pretty_json(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
        rows = [inner + pretty_json(v, inner) for v in value]
        return "[\n" + ",\n".join(rows) + "\n" + indent + "]"
    return json.dumps(value, default=str)


def summary(result: Emulation) -> str:
    """One line per tile: name, place, rotation, faces, the program's state; a line per tile
    that froze; what the tiles printed on their service ports."""
    rows = []
    snapshot = result.snapshot()
    for t in snapshot:
        place = "held" if t["pos"] is None else f"at {t['pos'][0]},{t['pos'][1]}"
        state = " ".join(f"{k}={_show_value(v)}" for k, v in t["state"].items())
        rows.append((t["name"], place, f"rot {t['rot']}", faces_text(t["colors"]), state))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = [f"t = {_secs(result.world.now_ms)}, seed {result.world.seed}"]
    for r in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r[:4], widths, strict=True))
                     + ("  " + r[4] if r[4] else ""))
    lines += [f.line() for f in result.world.freezes]
    lines += service_port_lines(snapshot)
    return "\n".join(line.rstrip() for line in lines)


def service_port_lines(snapshot: list[dict]) -> list[str]:
    """The "service port" section: each tile's Serial output, a line per line it printed."""
    out = []
    for t in snapshot:
        text = t.get("serial")
        if not text:
            continue
        if not out:
            out.append("service port:")
        for line in text.replace("\r\n", "\n").replace("\r", "\n").rstrip("\n").split("\n"):
            out.append(f"  {t['name']}| {line}")
    return out


def _show_value(v: Any) -> str:
    if isinstance(v, bool | int | str):
        return format_value(v)
    if isinstance(v, list) and all(isinstance(x, bool | int | str) for x in v):
        return ",".join(format_value(x) for x in v)  # a per-face field, as a layout sets it
    return json.dumps(v, default=str)


def _warn_late(result: Emulation) -> None:
    if not result.late_steps:
        return
    first = min(result.late_steps, key=lambda s: s.at_ms)
    where = f" (the first: {first.describe()}, line {first.where.line})" \
        if first.where and first.where.line else ""
    n = len(result.late_steps)
    click.echo(f"note: {n} scenario step{'s' if n != 1 else ''} not over when the run ended "
               f"at {_secs(result.end_ms)}{where}; give a longer --time", err=True)
