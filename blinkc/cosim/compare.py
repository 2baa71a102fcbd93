"""`--compare`: the same layout and scenario in the fast emulator and co-simulated, each tile's
LED colours and game state sampled at the same moments, and where they differ.

The two cannot agree to the microsecond: a real tile's BIOS boots for about 120 ms before
millis() starts, its display and IR timing are the BIOS's own, and the emulator's passes are
its model of them. So a sample agrees when the other side shows the same thing within
`tolerance_ms` of it (both ways), and a difference is a stretch of samples where one side
shows something the other did not show anywhere near that time.
"""

from __future__ import annotations

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
from ..world.world import Faults

#: How often both sides are sampled, and the default timing tolerance (ms).
SAMPLE_MS = 20.0
TOLERANCE_MS = 250.0
#: Samples before this are not compared: a real tile's BIOS starts the game about 120 ms
#: after power-up (measured: millis() reads 882 at 1 s of simulated time), and shows
#: nothing until then; the emulator's tiles run from power-up.
BOOT_MS = 200.0

#: One sample: (time ms, tile, colours, state).
Sample = tuple[float, str, list[int], dict]


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


def sample_times(every: float, end: float) -> list[float]:
    n = int(end // every)
    return [k * every for k in range(1, n + 1) if k * every < end]


def emulator_timeline(layout_file: str | Path, source: str | Path | None,
                      script_file: str | Path | None, seed: int, faults: Faults,
                      time_ms: float | None, every: float = SAMPLE_MS) -> tuple[list[Sample], float]:
    """The emulator's view of the run (every pass run: its exact model), and its end time."""
    resolver = _resolver(source)
    layout = load_layout(layout_file, resolver)
    scenario = load_scenario(script_file) if script_file is not None else None
    world = make_world(seed=seed, faults=faults, idle_skip=False)
    layout.build(world, resolver)
    if scenario is not None:
        scenario.apply(world, resolver, layout, start_ms=0.0)
    end = run_time(scenario, time_ms)
    out: list[Sample] = []
    for at in [*sample_times(every, end), end]:
        world.run_until(at)
        for t in world.tiles:
            out.append((at, t.name, world.colors(t), t.program_state()))
    return out, end


def _resolver(source: str | Path | None) -> Resolver:
    if source is not None and str(source).endswith(".ino"):
        from ..sketches import sketch_resolver

        return sketch_resolver(source)
    return game_resolver(source, "python")


def compare_runs(cosim: Sequence[Sample], emulator: Sequence[Sample],
            tolerance_ms: float = TOLERANCE_MS, start_ms: float = BOOT_MS) -> list[Difference]:
    """The stretches where a tile's colours or state on one side were not seen on the other
    within the tolerance (the two timelines must be sampled at the same times)."""
    ours = _by_tile(cosim)
    theirs = _by_tile(emulator)
    differences: list[Difference] = []
    for tile in ours:
        a, b = ours[tile], theirs.get(tile, [])
        open_diff: Difference | None = None
        for i, (at, colors, state) in enumerate(a):
            if at < start_ms:
                continue
            ok = _seen(b, at, colors, state, tolerance_ms)
            if ok and i < len(b):
                ok = _seen(a, b[i][0], b[i][1], b[i][2], tolerance_ms)
            if ok:
                open_diff = None
                continue
            if open_diff is None:
                other = b[i] if i < len(b) else (at, None, None)
                open_diff = Difference(at, at, tile, _view(colors, state),
                                       _view(other[1], other[2]))
                differences.append(open_diff)
            else:
                open_diff.until_ms = at
    return differences


def _by_tile(samples: Sequence[Sample]) -> dict[str, list[tuple[float, list[int], dict]]]:
    out: dict[str, list[tuple[float, list[int], dict]]] = {}
    for at, tile, colors, state in samples:
        out.setdefault(tile, []).append((at, colors, state))
    return out


def _seen(timeline: list[tuple[float, list[int], dict]], at: float, colors: list[int],
          state: dict, tolerance_ms: float) -> bool:
    return any(abs(t - at) <= tolerance_ms and c == colors and s == state
               for t, c, s in timeline)


def _view(colors: list[int] | None, state: dict | None) -> dict[str, Any]:
    return {"colors": colors, "state": state}
