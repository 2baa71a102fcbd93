"""One explorer run (on the world its subject chose), shrinking a failing one, writing it
out."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..backends.python import program_class
from ..dsl.loader import compile_game
from ..ir.nodes import Program
from ..native.toolchain import ToolMissing, have
from ..user_files import EXPLORE_MARK, FileRefused, check_writable, is_counterexample, write_whole
from ..world import Faults, make_world
from ..world.layout_file import parse_layout
from ..world.scenario import Scenario
from ..world.scenario_file import parse_scenario
from .clusters import QUIET_MS, Run
from .monitor import Monitor

#: The worlds the explorer runs on: "python", the game's Python backend in the reference
#: world (the PythonEngine); "native", the game's C++ compiled for the host, in blinkc's C++
#: world core (the NativeEngine), many times faster; "auto", native when the core and g++ are
#: there, else python. Every world gives the same results (tests/explore/).
WORLDS = ("auto", "native", "python")


@dataclass(frozen=True)
class Subject:
    """A game compiled for watching (the explorer's build: hooks kept, probes in,
    ir/probes.py), the tile class of it for its world, and that world (python or native)."""

    path: Path
    program: Program
    cls: type
    world: str = "python"


def subject(game: Path, world: str = "auto") -> Subject:
    """The game's explorer build for `world` (WORLDS; "auto" is decided here: Subject.world
    says which, `why_python` why not native)."""
    if world not in WORLDS:
        raise ValueError(f"the explorer runs on the worlds {', '.join(WORLDS)}, not {world!r}")
    if world == "auto":
        world = "python" if why_python() else "native"
    program = compile_game(game, observable=True)
    return Subject(game, program, tile_class(program, game, world), world)


def tile_class(program: Program, game: Path, world: str) -> type:
    """The explorer build's tile class: the Python backend's, or the native one's."""
    if world == "python":
        return program_class(program)
    from ..native.game import native_class

    return native_class(program, game)


def why_python() -> str | None:
    """Why "auto" runs the explorer in the Python world (no host C++ compiler for the game's
    C++, or no C++ world core), or None."""
    from ..native_world.core import bindings

    if not have("host"):
        return "no host C++ compiler (g++) to build the game's C++ for the C++ world core"
    try:
        bindings.core()
    except ToolMissing as e:
        return f"the C++ world core is not available ({e})"
    return None


#: Per tile class, tiles of runs done with that the next runs restart (a native tile: loading
#: its library cost about as much as the rest of a run).
_spare: dict[type, list[Any]] = {}


#: How a run goes on while a flood the game started in the quiet time runs: in steps of this,
#: then this much more for its last echoes to settle.
EXTEND_STEP_MS = 500
SETTLE_AFTER_MS = 2_000


def play(game: Subject, run: Run) -> Monitor:
    """Play one run with every tile watched, in the subject's world; returns the monitor."""
    monitor = Monitor(game.program, run)
    layout = parse_layout(run.layout_text(game.path), "<explorer>")
    scenario = _scenario(run.scenario_text())
    resolver = monitor.resolver(game.cls, game.program, _spare.get(game.cls))
    # (The tiles' clocks are set by the layout; the default skew keeps the seed's draws as
    # `blinkc emulate` makes them. "native": the C++ core, or an error.)
    world = make_world(seed=run.seed, faults=Faults(drop=run.drop), engine=game.world)
    monitor.watch_world(world)
    layout.build(world, resolver)
    scenario.apply(world, resolver, layout, start_ms=0.0)
    world.run_until(run.end_ms)
    # A game may start a flood of its own in the quiet time (WHAM!'s rounds): it gets the
    # quiet time again to finish and settle before the end-of-run checks judge it. (A flood
    # the adversary started, or one that never finishes, is judged as before.)
    if monitor.unfinished_since(run.last_step_ms):
        deadline = run.end_ms + QUIET_MS
        while world.now_ms < deadline and monitor.unfinished_since(run.last_step_ms):
            world.run_until(min(deadline, world.now_ms + EXTEND_STEP_MS))
        world.run_until(min(deadline, world.now_ms + SETTLE_AFTER_MS))
    monitor.finish()
    return monitor


@lru_cache(maxsize=256)
def _scenario(text: str) -> Scenario:
    """A run's scenario (the scripted ones repeat from one configuration to the next: parsed
    once; applying one changes nothing in it)."""
    return parse_scenario(text, "<explorer>")


def done_with(game: Subject, monitor: Monitor) -> None:
    """The run is over and nothing will look at its world again: its tiles that can restart
    play the next runs."""
    spare = _spare.setdefault(game.cls, [])
    for tile in monitor.world.tiles:
        if getattr(tile.program, "can_restart", False):
            spare.append(tile.program)
    monitor.world = None


def check(game: Subject, run: Run) -> list[str]:
    """Play one run and return what went wrong (empty: every invariant held)."""
    monitor = play(game, run)
    done_with(game, monitor)
    return monitor.problems


def shrink(game: Subject, run: Run, budget: int = 300,
           keep: Callable[[list[str]], bool] = bool) -> tuple[Run, list[str]]:
    """A smaller run that still goes wrong (its problems pass `keep`: by default, any):
    drop steps while it does (delta debugging). A lift and the place that puts the tile
    back go (or stay) together."""
    problems = check(game, run)
    units = _units(sorted(run.steps))
    tries = 0
    chunk = max(1, len(units) // 2)
    while chunk >= 1 and tries < budget:
        i = 0
        progressed = False
        while i < len(units) and tries < budget:
            candidate = units[:i] + units[i + chunk:]
            tries += 1
            trial = replace(run, steps=tuple(s for u in candidate for s in u))
            found = check(game, trial)
            if found and keep(found):
                units, problems, progressed = candidate, found, True
            else:
                i += chunk
        if not progressed:
            chunk //= 2
    return replace(run, steps=tuple(s for u in units for s in u)), problems


def _units(steps: list[tuple[float, str]]) -> list[list[tuple[float, str]]]:
    units: list[list[tuple[float, str]]] = []
    lifted: dict[str, list[tuple[float, str]]] = {}
    for step in steps:
        words = step[1].split()
        if words[0] == "lift":
            unit = [step]
            lifted[words[1]] = unit
            units.append(unit)
        elif words[0] == "place" and words[1] in lifted:
            lifted.pop(words[1]).append(step)
        else:
            units.append([step])
    return units


def counterexample_files(folder: Path) -> tuple[Path, Path]:
    """The layout and the scenario a counterexample is written to in `folder`."""
    return folder / "explore.layout", folder / "explore.scenario"


def check_counterexample_folder(folder: Path, force: bool = False) -> None:
    """FileRefused unless a counterexample may be written into `folder` (user_files rules)."""
    if folder.exists() and not folder.is_dir():
        raise FileRefused(f"{folder} is a file, not a folder: blinkc explore writes its "
                          "counterexamples into a folder. Give another --out.")
    if folder.is_dir():
        for path in counterexample_files(folder):
            check_writable(path, is_counterexample, "a counterexample", force)


def write_counterexample(game: Path, run: Run, problems: list[str], folder: Path) -> str:
    """Write the run as a layout and a scenario; returns the command that replays it.
    (check_counterexample_folder decided before the run that they may be written.)"""
    folder.mkdir(parents=True, exist_ok=True)
    layout, scenario = counterexample_files(folder)
    write_whole(layout, (f"{EXPLORE_MARK}: the cluster\n" + run.layout_text(game.resolve())).encode())
    body = "".join(f"# {p}\n" for p in problems)
    write_whole(scenario, (f"{EXPLORE_MARK}; what went wrong:\n" + body
                           + run.scenario_text()).encode())
    return run.command(game, layout, scenario)
