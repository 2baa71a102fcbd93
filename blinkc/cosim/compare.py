"""`--compare`: the same layout and scenario in the fast emulator and co-simulated; where each
tile's LED colours or game state on one side were not shown by the other near that time.

Time 0 is when the games start on both sides: a co-simulated tile first runs its BIOS's boot
alone (about 118 ms from power-up to setup(), cosim/tile.py), as the emulator's tiles need
none. The two still cannot agree to the microsecond: the display and IR timing are the
BIOS's own on one side and the emulator's model of them on the other. So each side's
colours are a step function, known at every change (the emulator's trace of each pass; the
co-simulation's pixel buffer as each pass hands it to the display), and its state is sampled
every SAMPLE_MS;
at every change and every sample, what one side shows must have been shown by the other
within `tolerance_ms` of that moment (both ways). A flash of one frame is compared as well
as a colour that stays.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..games import game_resolver
from ..world.emulation import run_time
from ..world.factory import make_world
from ..world.layout import Resolver
from ..world.layout_file import load_layout
from ..world.scenario_file import load_scenario
from ..world.trace import Trace
from ..world.world import Faults

#: How often both sides' states are sampled, and the default timing tolerance (ms).
SAMPLE_MS = 20.0
TOLERANCE_MS = 250.0

#: One sample: (time ms, tile, colours, state); one colour change: (time ms, tile, colours).
Sample = tuple[float, str, list[int], dict]
Change = tuple[float, str, list[int]]


@dataclass
class Difference:
    at_ms: float
    until_ms: float
    tile: str
    cosim: dict[str, Any]
    emulator: dict[str, Any]

    def as_json(self) -> dict[str, Any]:
        return {"time_ms": self.at_ms, "until_ms": self.until_ms, "tile": self.tile,
                "cosim": self.cosim, "emulator": self.emulator}


@dataclass
class Shown:
    """What one side showed of one tile on one channel: a value from each time on."""

    times: list[float]
    values: list[Any]

    @classmethod
    def of(cls, points: Sequence[tuple[float, Any]]) -> Shown:
        ordered = sorted(points, key=lambda p: p[0])
        return cls([t for t, _ in ordered], [v for _, v in ordered])

    def at(self, t: float) -> Any:
        i = bisect_right(self.times, t) - 1
        return self.values[i] if i >= 0 else None

    def within(self, value: Any, lo: float, hi: float) -> bool:
        """Whether `value` was shown at some moment of [lo, hi]."""
        i = max(bisect_right(self.times, lo) - 1, 0)
        while i < len(self.times) and self.times[i] <= hi:
            if self.values[i] == value:
                return True
            i += 1
        return False


@dataclass
class Side:
    """One side of a comparison: per tile, its colours and its state over time."""

    colors: dict[str, Shown]
    states: dict[str, Shown]

    @classmethod
    def of(cls, samples: Sequence[Sample], changes: Sequence[Change] = ()) -> Side:
        changed: dict[str, list[tuple[float, Any]]] = {}
        for at, tile, c in changes:
            changed.setdefault(tile, []).append((at, tuple(c)))
        by_changes = {tile: Shown.of(points) for tile, points in changed.items()}
        colors: dict[str, list[tuple[float, Any]]] = {}
        states: dict[str, list[tuple[float, Any]]] = {}
        for at, tile, c, state in samples:
            states.setdefault(tile, []).append((at, state))
            known = by_changes[tile].at(at) if tile in by_changes else None
            if known != tuple(c):   # (what the changes miss: a sleeping tile is dark)
                colors.setdefault(tile, []).append((at, tuple(c)))
        tiles = {*changed, *states}
        return cls({k: Shown.of(changed.get(k, []) + colors.get(k, [])) for k in tiles},
                   {k: Shown.of(v) for k, v in states.items()})


def emulator_side(layout_file: str | Path, source: str | Path | None,
                  script_file: str | Path | None, seed: int, faults: Faults,
                  time_ms: float | None, every: float = SAMPLE_MS,
                  start_local_us: dict[str, int] | None = None) -> tuple[Side, float]:
    """The emulator's view of the run (every pass run: its exact model), and its end time.
    `start_local_us`: each tile's BIOS clock at setup(), as the co-simulation measured it
    (CosimResult.start_local_us): the BIOS's start depends on the image."""
    resolver = _resolver(source)
    layout = load_layout(layout_file, resolver)
    scenario = load_scenario(script_file) if script_file is not None else None
    trace = Trace()
    world = make_world(seed=seed, faults=faults, idle_skip=False, trace=trace)
    world.power_up_spread = False  # co-simulated tiles boot alike, so their frames are in step
    world.start_local_us = dict(start_local_us or {})
    layout.build(world, resolver)
    if scenario is not None:
        scenario.apply(world, resolver, layout, start_ms=0.0)
    end = run_time(scenario, time_ms)
    samples: list[Sample] = []
    changes: list[Change] = [(0.0, t.name, world.colors(t)) for t in world.tiles]
    for at in [*sample_times(every, end), end]:
        world.run_until(at)
        for t in world.tiles:
            samples.append((at, t.name, world.colors(t), t.program_state()))
    changes += [(rec["t"] / 1000, rec["tile"], rec["colors"])
                for rec in trace.events("colors") if rec["t"] / 1000 <= end]
    return Side.of(samples, changes), end


def cosim_side(result: Any) -> Side:
    """The co-simulation's view (a CosimResult run with samples)."""
    return Side.of(result.timeline, result.color_changes)


def sample_times(every: float, end: float) -> list[float]:
    n = int(end // every)
    return [k * every for k in range(1, n + 1) if k * every < end]


def _resolver(source: str | Path | None) -> Resolver:
    if source is not None and str(source).endswith(".ino"):
        from ..sketches import sketch_resolver

        return sketch_resolver(source)
    return game_resolver(source, "python")


def compare_sides(cosim: Side, emulator: Side, tolerance_ms: float = TOLERANCE_MS,
                  end_ms: float | None = None) -> list[Difference]:
    """The stretches where a tile's colours or state on one side were not shown by the other
    within the tolerance, in time order. With `end_ms` (where the runs ended), moments in
    the last tolerance are not judged: the other side may show the same a moment after
    the end, where neither was run."""
    last = float("inf") if end_ms is None else end_ms - tolerance_ms
    differences: list[Difference] = []
    for tile in cosim.colors:
        ours_c, ours_s = cosim.colors[tile], cosim.states.get(tile, Shown([], []))
        theirs_c = emulator.colors.get(tile, Shown([], []))
        theirs_s = emulator.states.get(tile, Shown([], []))
        moments = sorted(t for t in {*ours_c.times, *theirs_c.times, *ours_s.times,
                                     *theirs_s.times} if t <= last)
        open_diff: Difference | None = None
        for at in moments:
            ok = all(_agree(a, b, at, tolerance_ms)
                     for a, b in ((ours_c, theirs_c), (ours_s, theirs_s)))
            if ok:
                open_diff = None
            elif open_diff is None:
                open_diff = Difference(at, at, tile, _view(ours_c.at(at), ours_s.at(at)),
                                       _view(theirs_c.at(at), theirs_s.at(at)))
                differences.append(open_diff)
            else:
                open_diff.until_ms = at
    return sorted(differences, key=lambda d: (d.at_ms, d.tile))


def _agree(a: Shown, b: Shown, at: float, tolerance_ms: float) -> bool:
    mine, theirs = a.at(at), b.at(at)
    if mine == theirs:
        return True
    return (b.within(mine, at - tolerance_ms, at + tolerance_ms)
            and a.within(theirs, at - tolerance_ms, at + tolerance_ms))


def _view(colors: Any, state: dict | None) -> dict[str, Any]:
    return {"colors": list(colors) if colors is not None else None, "state": state}
