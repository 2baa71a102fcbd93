"""A simulator session: the live world, the log of what was done to it, and its time.

The world is always what a fresh world would be after the log's scenario was
applied at the start and run to `now`: that is how a rewind, a replay and an
export are exact. A live input is applied as the scenario lines it stands for,
at a whole millisecond just ahead of the world's time, once the input before it
has happened (so that it meets the world the log's replay gives it); if an
event is already queued for that very microsecond, the input moves one more
millisecond on (a call scheduled at the start would run before such an event,
a later one after it). After a rewind, the log's later inputs replay as time runs on; a
new input then drops them (the timeline forks there).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..world import World, WorldError
from ..world.scenario import Scenario, ScenarioError
from ..world.scenario_file import parse_scenario
from ..world.syntax import SourceError
from .ring import RingTrace
from .source import SimError, SimSource

#: The slowest and fastest speeds the page may ask for (times real time).
MIN_SPEED, MAX_SPEED = 0.05, 1000.0
#: The longest a single `step` runs while waiting for a tile's next pass (ms): a sleeping
#: tile takes none until something wakes it (its button window, a timer, a neighbour).
STEP_LIMIT_MS = 10_000.0
#: A step looks for the pass this finely (ms): two passes of one tile are further apart.
STEP_GRAIN_MS = 0.1
#: How long a run may go on without looking at the clock (ms of simulated time).
CHUNK_MS = 5.0


@dataclass(frozen=True)
class Input:
    """One thing done to the world: scenario lines, all at `at_ms` (whole ms)."""

    at_ms: int
    lines: tuple[str, ...]

    def text(self) -> str:
        return "".join(f"at {self.at_ms}ms {line}\n" for line in self.lines)


class Session:
    """The world a page drives: inputs, pause and speed, steps, rewinds."""

    def __init__(self, src: SimSource, trace_seconds: float = 5.0) -> None:
        self.src = src
        self.trace_seconds = trace_seconds
        self.log: list[Input] = []
        self.speed = 1.0
        self.running = True
        #: The furthest time the session has reached (the timeline's end).
        self.horizon_ms = 0.0
        #: Bumped whenever the world is rebuilt or changed by an input.
        self.version = 0
        self._added = 0
        #: True after a rewind, while the log has inputs ahead of the world (they replay as
        #: time runs on, until a new input drops them).
        self._rewound = False
        self.world = self._replay(self.log, 0.0)

    # --------------------------------------------------------------- worlds
    def _replay(self, log: list[Input], until_ms: float) -> World:
        """A fresh world with the log applied at the start, run to `until_ms`."""
        src = self.src
        world = World(seed=src.seed, faults=src.faults, trace=RingTrace(self.trace_seconds))
        try:
            src.layout.build(world, src.resolver)
            if log:
                self._apply(world, log)
            world.run_until(until_ms)
        except (SourceError, WorldError) as e:
            raise SimError(f"the session cannot be replayed: {e}") from None
        self.trace = world.trace
        self.version += 1
        return world

    def scenario(self, log: list[Input] | None = None) -> Scenario:
        text = "".join(i.text() for i in (self.log if log is None else log))
        return parse_scenario(text, "session")

    def _apply(self, world: World, log: list[Input]) -> None:
        self.scenario(log).apply(world, self.src.resolver, self.src.layout, start_ms=0.0)

    @property
    def now_ms(self) -> float:
        return self.world.now_ms

    # --------------------------------------------------------------- inputs
    def act(self, lines: list[str]) -> Input:
        """Do `lines` (scenario steps) to the world, just ahead of now; SimError if they can't."""
        world = self.world
        if self._rewound and self.log and self.log[-1].at_ms > world.now_ms:
            # After a rewind: the inputs still ahead are dropped, the world rebuilt without them.
            kept = [i for i in self.log if i.at_ms <= world.now_ms]
            self.world = world = self._replay(kept, world.now_ms)
            self.log = kept
            self.horizon_ms = world.now_ms
        self._rewound = False
        if self.log and self.log[-1].at_ms > world.now_ms:
            # The last input has not happened yet: let it, so that this one is checked and
            # planned against the world it will meet (a turn by a step turns from there), as
            # it is when the whole log replays.
            self._run_to(self.log[-1].at_ms)
        at = math.floor(world.now_ms) + 1
        if self.log:
            at = max(at, self.log[-1].at_ms + 1)
        while world.has_event_at(at):
            at += 1
        entry = Input(at, tuple(lines))
        held = self._held(self.log)
        try:
            releases = [line.split()[1] for line in lines if line.startswith("release ")]
            for tile in releases:
                if tile not in held:
                    raise SimError(f"the button of {tile!r} is not held down")
            others = [line for line in lines if not line.startswith("release ")]
            if others:
                self._apply(world, [Input(at, tuple(others))])
            # A release on its own: the scenario would ask for its press, which is in the log;
            # it is the same call the whole log's scenario schedules for it.
            for tile in releases:
                world.call_at(at, _contact(world, tile, False))
        except SourceError as e:
            raise SimError(_one_line(e)) from None
        self.log.append(entry)
        self.version += 1
        if not self.running:
            self._run_to(at)  # paused: the change shows at once (a millisecond on)
        return entry

    @staticmethod
    def _held(log: list[Input]) -> set[str]:
        """The tiles whose buttons the log leaves held down."""
        held: set[str] = set()
        for entry in log:
            for line in entry.lines:
                word, _, tile = line.partition(" ")
                if word == "press":
                    held.add(tile)
                elif word == "release":
                    held.discard(tile)
        return held

    @property
    def held(self) -> set[str]:
        return self._held(self.log)

    def new_tile_name(self) -> str:
        names = {t.name for t in self.world.tiles}
        while True:
            self._added += 1
            name = f"t{self._added}"
            if name not in names:
                return name

    # ----------------------------------------------------------------- time
    def set_speed(self, speed: float) -> None:
        if not isinstance(speed, int | float) or not MIN_SPEED <= speed <= MAX_SPEED:
            raise SimError(f"a speed is {MIN_SPEED:g}..{MAX_SPEED:g} times real time")
        self.speed = float(speed)

    def advance(self, wall_ms: float, budget_ms: float = 50.0) -> float:
        """Run the world on by `wall_ms` of real time at the session's speed, spending at most
        `budget_ms` of real time on it; returns the simulated milliseconds run."""
        if not self.running or wall_ms <= 0:
            return 0.0
        start = self.world.now_ms
        target = start + wall_ms * self.speed
        deadline = time.perf_counter() + budget_ms / 1000
        while self.world.now_ms < target:
            self._run_to(min(target, self.world.now_ms + CHUNK_MS * max(1.0, self.speed)))
            if time.perf_counter() > deadline:
                break
        return self.world.now_ms - start

    def step(self, tile: str | None = None) -> None:
        """Run until the tile (or any tile) has taken one more pass, however long it sleeps
        before it (up to STEP_LIMIT_MS)."""
        world = self.world
        tiles = [self._tile(tile)] if tile is not None else world.tiles
        before = [t.passes for t in tiles]
        end = world.now_ms + STEP_LIMIT_MS
        while world.now_ms < end:
            self._run_to(round(world.now_ms + STEP_GRAIN_MS, 1))
            if any(t.passes != b for t, b in zip(tiles, before, strict=True)):
                break

    def seek(self, t_ms: float) -> None:
        """Rewind (or go forward, up to the furthest time reached) to `t_ms`."""
        if not isinstance(t_ms, int | float) or isinstance(t_ms, bool) or t_ms != t_ms:
            raise SimError(f"bad time {t_ms!r}")
        t = min(max(0.0, float(t_ms)), self.horizon_ms)
        if t >= self.world.now_ms:
            self._run_to(t)
        else:
            self.world = self._replay(self.log, t)
            self._rewound = True

    def run_until(self, t_ms: float) -> None:
        """Run the world on to `t_ms` (a world time ahead of now), whatever the speed."""
        self._run_to(t_ms)

    def _run_to(self, t_ms: float) -> None:
        try:
            self.world.run_until(t_ms)
        except ScenarioError as e:  # an input the world refused when its time came
            raise SimError(_one_line(e)) from None
        self.horizon_ms = max(self.horizon_ms, self.world.now_ms)

    def _tile(self, name: str) -> object:
        try:
            return self.world.tile(name)
        except WorldError as e:
            raise SimError(str(e)) from None


def _contact(world: World, tile: str, down: bool) -> Callable[[], None]:
    return lambda: world.button(tile, down)


def _one_line(e: SourceError) -> str:
    return e.message + (f" ({e.hint})" if e.hint else "")
