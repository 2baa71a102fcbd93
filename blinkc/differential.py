"""Differential testing: the same scenario through the Python and the native backend.

For any game, `cases(program)` is a hypothesis strategy of random scenarios:
a random cluster (random places, rotations and initial field values), random
gestures and tile moves at random times, a random seed and random faults.
`compare(game, case)` runs the case once per backend, in the same emulated
world, and returns the first difference between the two traces (face values
sent and received, colours, expiry, the game's state), or None.
`reproducer(game, case)` turns a failing case into a layout file, a scenario
file and the commands that replay it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

from .games import game_resolver, load_program, setup_assigns
from .ir.nodes import Program
from .world import Faults, Trace
from .world.emulation import EmulationOptions, emulate
from .world.geometry import DIRECTIONS
from .world.layout import Layout
from .world.layout_file import parse_layout
from .world.scenario import Scenario


@dataclass
class Case:
    tiles: list[tuple[str, tuple[int, int], int, dict[str, int | str]]]
    steps: list[tuple[float, str, str, tuple]]  # (at ms, action, tile, args)
    seed: int
    faults: Faults
    run_ms: float

    def layout_text(self) -> str:
        return "\n".join(f"tile {n} at {p[0]},{p[1]} rot {r}"
                         + "".join(f" {k}={v}" for k, v in s.items())
                         for n, p, r, s in self.tiles) + "\n"

    def scenario_text(self) -> str:
        lines = []
        for at, action, tile, args in self.steps:
            if action in ("place",):
                lines.append(f"at {at:g}ms place {tile} at {args[0]},{args[1]} rot {args[2]}")
            elif action == "rotate":
                lines.append(f"at {at:g}ms rotate {tile} {args[0]}")
            elif action == "multi":
                lines.append(f"at {at:g}ms multi {args[0]} {tile}")
            else:
                lines.append(f"at {at:g}ms {action} {tile}")
        return "\n".join(lines) + "\n"

    def faults_text(self) -> str:
        f = self.faults
        return f"drop={f.drop:g},jitter={f.jitter_ms:g}ms,skew={f.skew * 100:g}%"


def _blob(draw, n: int) -> list[tuple[int, int]]:
    cells = [(0, 0)]
    while len(cells) < n:
        base = draw(st.sampled_from(cells))
        dq, dr = DIRECTIONS[draw(st.integers(0, 5))]
        c = (base[0] + dq, base[1] + dr)
        if c not in cells:
            cells.append(c)
    return cells


def cases(program: Program, max_tiles: int = 10, max_steps: int = 5):
    """A hypothesis strategy of random scenarios for `program`."""

    @st.composite
    def strategy(draw):
        n = draw(st.integers(1, max_tiles))
        cells = _blob(draw, n)
        tiles = []
        by_setup = setup_assigns(program)  # a layout may not set these (they would not hold)
        for i, c in enumerate(cells):
            settings = {}
            for g in program.state_fields:
                if g.name in by_setup:
                    continue
                if draw(st.integers(0, 3)) == 0:  # most fields keep their defaults
                    lo, hi = g.range or (0, 0)
                    if g.size is None:
                        settings[g.name] = draw(st.integers(lo, hi))
                    else:  # a per-face field: six values, as a layout writes them
                        settings[g.name] = ",".join(
                            str(draw(st.integers(lo, hi))) for _ in range(g.size))
            tiles.append((f"t{i}", c, draw(st.integers(0, 5)), settings))
        steps = []
        at = 600.0
        where = {t[0]: t[1] for t in tiles}
        for _ in range(draw(st.integers(1, max_steps))):
            at += draw(st.sampled_from([60.0, 250.0, 700.0, 1500.0]))
            tile = draw(st.sampled_from(sorted(where)))
            action = draw(st.sampled_from(["click"] * 6 + ["double", "multi", "long", "place",
                                                           "rotate"]))
            args: tuple = ()
            if action == "multi":
                args = (draw(st.integers(3, 4)),)
            elif action == "place":
                q, r = draw(st.integers(-3, 3)), draw(st.integers(-3, 3))
                if (q, r) in where.values():
                    action, args = "rotate", (draw(st.integers(0, 5)),)
                else:
                    args = (q, r, draw(st.integers(0, 5)))
                    where[tile] = (q, r)
            elif action == "rotate":
                args = (draw(st.integers(0, 5)),)
            steps.append((at, action, tile, args))
            # The next step starts after this gesture's last release.
            presses = {"click": 1, "double": 2, "multi": args[0] if args else 0}.get(action, 0)
            at += 1600 if action == "long" else presses * 80 + max(0, presses - 1) * 150
        faults = draw(st.sampled_from([Faults(), Faults(drop=0.1, jitter_ms=2, skew=0.1),
                                       Faults(skew=0.1)]))
        return Case(tiles, steps, draw(st.integers(0, 2**20)), faults, at + 2000)

    return strategy()


def run(game: str | Path, case: Case, backend: str, world: str = "auto") -> list[str]:
    """The trace of a case on one backend (in the Python world, or the C++ one)."""
    return run_world(game, case, backend, world)[0]


def run_world(game: str | Path, case: Case, backend: str,
              world: str = "auto") -> tuple[list[str], dict[str, int]]:
    """The trace of a case on one backend and the world's statistics."""
    layout: Layout = parse_layout(case.layout_text(), "<case>")
    scenario = _scenario(case)
    trace = Trace()
    done = emulate(layout, scenario, EmulationOptions(seed=case.seed, faults=case.faults,
                                                      time_ms=case.run_ms, trace=trace,
                                                      resolver=game_resolver(game, backend),
                                                      world=world))
    return trace.lines, dict(done.world.stats)


def _scenario(case: Case) -> Scenario:
    s = Scenario()
    for at, action, tile, args in case.steps:
        s.at(at)
        if action == "click":
            s.click(tile)
        elif action == "double":
            s.double(tile)
        elif action == "multi":
            s.multi(tile, count=args[0])
        elif action == "long":
            s.long(tile)
        elif action == "place":
            s.place(tile, (args[0], args[1]), rot=args[2])
        elif action == "rotate":
            s.rotate(tile, args[0])
    return s


def compare(game: str | Path, case: Case) -> str | None:
    """None if both backends give the same trace; else where and how they first differ."""
    a, b = run(game, case, "python"), run(game, case, "native")
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"trace line {i + 1} differs:\n  python: {x}\n  native: {y}"
    if len(a) != len(b):
        return f"traces differ in length: python {len(a)} lines, native {len(b)}"
    return None


def reproducer(game: str | Path, case: Case) -> str:
    """A failing case as files and commands a developer can replay."""
    return (
        "# case.layout\n" + case.layout_text()
        + "# case.scenario\n" + case.scenario_text()
        + "# replay each backend and compare the traces:\n"
        + "".join(f"blinkc emulate {game} --layout case.layout --script case.scenario "
                  f"--seed {case.seed} --faults {case.faults_text()} --time {case.run_ms:g}ms "
                  f"--backend {b} --trace {b}.jsonl\n" for b in ("python", "native"))
        + "diff python.jsonl native.jsonl\n")


# ------------------------------------------------ idle skipping changes nothing
#: Trace records left out when a run with idle skipping is compared with one without: a
#: skipped tile's animation is drawn on demand by its display hook rather than recorded at
#: every pass, and no program can see another tile's LEDs.
UNCOMPARED_WHEN_SKIPPING = ('"ev":"colors"',)


def skipping_trace(game: str | Path, case: Case, idle_skip: bool, backend: str = "native",
                   world: str = "auto") -> list[str]:
    """The trace of a case with idle skipping on (the default) or off (`World(idle_skip=
    False)`: every loop() runs), without the records UNCOMPARED_WHEN_SKIPPING names."""
    trace = Trace()
    emulate(parse_layout(case.layout_text(), "<case>"), _scenario(case),
            EmulationOptions(seed=case.seed, faults=case.faults, time_ms=case.run_ms,
                             trace=trace, resolver=game_resolver(game, backend),
                             idle_skip=idle_skip, world=world))
    return [line for line in trace.lines
            if not any(u in line for u in UNCOMPARED_WHEN_SKIPPING)]


def compare_skipping(game: str | Path, case: Case, backend: str = "native",
                     world: str = "auto") -> str | None:
    """None if the case gives the same trace (every record, with its time in µs) with and
    without idle skipping; else the first record that differs."""
    skipping = skipping_trace(game, case, True, backend, world)
    every = skipping_trace(game, case, False, backend, world)
    for i, (a, b) in enumerate(zip(skipping, every)):
        if a != b:
            return f"trace record {i + 1} differs:\n  skipping:   {a}\n  every loop: {b}"
    if len(skipping) != len(every):
        return f"traces differ in length: skipping {len(skipping)}, every loop {len(every)}"
    return None


__all__ = ["UNCOMPARED_WHEN_SKIPPING", "Case", "cases", "compare", "compare_skipping",
           "load_program", "reproducer", "run", "run_world", "skipping_trace"]
