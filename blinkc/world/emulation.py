"""One emulator run: a layout, an optional scenario and options in; the world out.

This is what `blinkc emulate` does, as a function, so other front ends (the
DSL's `blinkc emulate GAME.py`, tests, notebooks) can run a cluster the same
way: build the layout in a fresh world, schedule the scenario, run.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .factory import make_world
from .layout import Layout, Resolver, resolve_program
from .scenario import Scenario, Step
from .syntax import SourceError, parse_duration
from .trace import Trace
from .world import Faults, World

#: How long a run lasts without a scenario (ms).
DEFAULT_TIME_MS = 2000.0
#: How long a run goes on after the scenario's last step is over (ms).
SETTLE_AFTER_MS = 1000.0

#: Called after each group of steps that share a start time, once their effect
#: has had until the next group (or the end of the run) to show.
StepHook = Callable[[World, Sequence[Step]], None]


@dataclass
class EmulationOptions:
    seed: int = 0
    faults: Faults = field(default_factory=Faults)
    #: How long to run (ms); None: until a second after the scenario is over.
    time_ms: float | None = None
    trace: Trace | None = None
    resolver: Resolver = resolve_program
    idle_skip: bool = True
    #: Which world runs the events: "auto" (the C++ core when every tile is native),
    #: "python" (the reference) or "native" (the core, or an error).
    world: str = "auto"


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) stopped a run; `at_ms` is the world time it had reached, `stuck` what
    the world says if Ctrl-C stopped a tile stuck in its code (World.dead)."""

    def __init__(self, at_ms: float, stuck: str | None = None) -> None:
        super().__init__(at_ms)
        self.at_ms = at_ms
        self.stuck = stuck


@dataclass
class Emulation:
    """What a run produced."""

    world: World
    layout: Layout
    scenario: Scenario | None
    end_ms: float
    #: Steps not over when the run ended (they happened in part or not at all).
    late_steps: list[Step]

    def snapshot(self) -> list[dict]:
        return self.world.snapshot()


def run_time(scenario: Scenario | None, time_ms: float | None) -> float:
    if time_ms is not None:
        return time_ms
    if scenario is None or not scenario.steps:
        return DEFAULT_TIME_MS
    return max(DEFAULT_TIME_MS, scenario.end_ms + SETTLE_AFTER_MS)


def emulate(layout: Layout, scenario: Scenario | None = None,
            options: EmulationOptions | None = None, on_step: StepHook | None = None) -> Emulation:
    """Build `layout` in a new world, apply `scenario`, and run it to the end time.

    Raises LayoutError / ScenarioError (both SourceError) for mistakes in the inputs,
    TileHangError (a WorldError) when a tile's setup() or an emulator hook does not return,
    Interrupted on Ctrl-C. A tile whose loop() does not return freezes (world.freezes).
    """
    opts = options or EmulationOptions()
    world = make_world(seed=opts.seed, faults=opts.faults, trace=opts.trace,
                       idle_skip=opts.idle_skip, engine=opts.world)
    layout.build(world, opts.resolver)
    end = run_time(scenario, opts.time_ms)
    steps: list[Step] = []
    if scenario is not None:
        scenario.apply(world, opts.resolver, layout, start_ms=0.0)
        steps = sorted(scenario.steps, key=lambda s: s.at_ms)
    try:
        if on_step is None:
            world.run_until(end)
        else:
            _run_in_steps(world, steps, end, on_step)
    except KeyboardInterrupt:
        raise Interrupted(world.now_ms, world.dead) from None
    late = [s for s in steps if s.end_ms > end]
    return Emulation(world, layout, scenario, end, late)


def _run_in_steps(world: World, steps: Sequence[Step], end: float, on_step: StepHook) -> None:
    groups: list[list[Step]] = []
    for step in steps:
        if step.at_ms > end:
            break
        if groups and groups[-1][0].at_ms == step.at_ms:
            groups[-1].append(step)
        else:
            groups.append([step])
    for i, group in enumerate(groups):
        # Just before the next group starts: this group's effect, settled.
        until = groups[i + 1][0].at_ms - 0.001 if i + 1 < len(groups) else end
        world.run_until(until)
        on_step(world, group)
    world.run_until(end)


# ------------------------------------------------------------------ faults
class FaultsError(SourceError):
    """A bad `--faults` text."""


_FAULT_KEYS = {"drop": "drop", "jitter": "jitter", "jitter_ms": "jitter", "skew": "skew"}


def parse_faults(text: str) -> Faults:
    """Faults from text such as `drop=0.1,jitter=2ms,skew=10%` (each part optional)."""
    values: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, eq, raw = part.partition("=")
        name = _FAULT_KEYS.get(key.strip())
        if not eq or name is None:
            raise FaultsError(f"bad fault {part!r}",
                              hint="faults are drop=P, jitter=TIME, skew=P (P as 0.1 or 10%), "
                                   "e.g. drop=0.1,jitter=2ms,skew=10%")
        if name in values:
            raise FaultsError(f"fault {name!r} is given twice")
        raw = raw.strip()
        if name == "jitter":
            values[name] = parse_duration(raw if not _is_number(raw) else raw + "ms",
                                          None, FaultsError, "jitter")
        else:
            values[name] = _fraction(raw, name)
    try:
        return Faults(drop=values.get("drop", 0.0), jitter_ms=values.get("jitter", 0.0),
                      skew=values.get("skew", Faults().skew))
    except ValueError as e:
        raise FaultsError(str(e)) from None


def _is_number(text: str) -> bool:
    return re.fullmatch(r"\d+(?:\.\d*)?|\.\d+", text) is not None


def _fraction(raw: str, name: str) -> float:
    percent = raw.endswith("%")
    number = raw[:-1] if percent else raw
    if not _is_number(number):
        raise FaultsError(f"bad {name} {raw!r}", hint=f"e.g. {name}=0.1 or {name}=10%")
    value = float(number)
    return value / 100 if percent else value
