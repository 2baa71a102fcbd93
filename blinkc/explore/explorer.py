"""The exploration: every cluster of n tiles under clock conditions, with scripted and seeded
schedules of the game's own messages and floods against the adversary."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .clusters import Run, Tile, shapes
from .runs import Subject, play, subject

#: Clock conditions: (name, ppm of each tile by index, phases of each tile's frames in µs).
CLOCKS: dict[str, Callable[[int, random.Random], list[tuple[int, int]]]] = {
    # Identical clocks, frames in step: the SDK's probes collide for as long as it lasts.
    "identical, in step": lambda n, rng: [(0, 100)] * n,
    "identical": lambda n, rng: [(0, rng.randrange(7700)) for _ in range(n)],
    "±0.1 %": lambda n, rng: [(rng.randint(-1000, 1000), rng.randrange(7700)) for _ in range(n)],
    "±10 %": lambda n, rng: [(rng.randint(-100_000, 100_000), rng.randrange(7700)) for _ in range(n)],
}


def configs(n: int, clock: str, rng: random.Random,
            spread: bool = False) -> Iterator[tuple[Tile, ...]]:
    """Every shape of n tiles in every rotation of every tile, with the clock condition:
    shape after shape, or with `spread` the shapes in turn (so that the first N of them,
    a sample, have every shape)."""
    rotations = list(itertools.product(range(6), repeat=n))
    order = ([(shape, rots) for rots in rotations for shape in shapes(n)] if spread
             else [(shape, rots) for shape in shapes(n) for rots in rotations])
    for shape, rots in order:
        clocks = CLOCKS[clock](n, rng)
        yield tuple(Tile(f"t{i}", p, r, ppm, ph)
                    for i, (p, r, (ppm, ph)) in enumerate(zip(shape, rots, clocks, strict=True)))


def random_steps(tiles: tuple[Tile, ...], rng: random.Random, messages: list[str],
                 floods: list[str], n_events: int = 8) -> tuple[tuple[float, str], ...]:
    """A seeded random schedule: bursts of messages both ways, floods, and the adversary."""
    steps: list[tuple[float, str]] = []
    names = [t.name for t in tiles]
    t = 400.0 + rng.randrange(1500)
    for _ in range(n_events):
        t += rng.choice([0, 5, 30, 150, 400, 900])
        kind = rng.choice(["send"] * 5 + ["flood", "cut", "cut", "stall", "flap"])
        who = rng.choice(names)
        if kind == "send" and messages:
            for _i in range(rng.randint(1, 4)):
                steps.append((t, f"send {who} {rng.choice(messages)} {rng.randrange(6)}"))
        elif kind == "flood" and floods:
            # Floods of one kind now and then overlap (a game may start one anywhere).
            steps.append((t, f"flood {who} {rng.choice(floods)}"))
        elif kind == "cut":
            ms = rng.choice([20, 60, 200, 500, 1200, 2500])
            steps.append((t, f"cut {who} {rng.randrange(6)} for {ms}ms"))
        elif kind == "stall":
            steps.append((t, f"stall {who} {rng.choice([8, 16, 40])}ms"))
        elif kind == "flap":
            tile = next(x for x in tiles if x.name == who)
            away = rng.choice([150, 600, 2000, 5000, 9000])
            steps.append((t, f"lift {who}"))
            steps.append((t + away, f"place {who} at {tile.pos[0]},{tile.pos[1]} rot {tile.rot}"))
            t += away
    return tuple(steps)


def scripted_steps(tiles: tuple[Tile, ...], messages: list[str], floods: list[str],
                   which: int) -> tuple[tuple[float, str], ...]:
    """The exhaustive part: a burst of messages each way over every link, then one of a fixed
    list of adversary moves in the middle of it, then a flood from the first tile."""
    burst = []
    for t in tiles:
        for f in range(6):
            for m in messages[:2]:
                burst.append((1000.0, f"send {t.name} {m} {f}"))
    a, b = tiles[0].name, tiles[-1].name
    moves: list[list[tuple[float, str]]] = [
        [],
        [(1010.0, f"cut {a} {f} for 300ms") for f in range(6)],
        [(1010.0, f"cut {b} {f} for 3000ms") for f in range(6)],
        [(1005.0, f"stall {a} 8ms"), (1040.0, f"stall {b} 16ms")],
        [(1020.0, f"lift {b}"), (1400.0, f"place {b} at {tiles[-1].pos[0]},{tiles[-1].pos[1]} "
                                          f"rot {tiles[-1].rot}")],
        [(1020.0, f"lift {b}"), (7000.0, f"place {b} at {tiles[-1].pos[0]},{tiles[-1].pos[1]} "
                                          f"rot {tiles[-1].rot}")],
    ]
    flood = [(1100.0, f"flood {a} {floods[0]}")] if floods else []
    if floods:
        # Floods of one kind that overlap: a tile that starts one again as soon as the last
        # has passed it (its new wave may meet a neighbour still in the old one).
        moves.append([(6000.0 + d, f"flood {t.name} {floods[0]}")
                      for d, t in zip((0, 60, 250, 400, 700), itertools.cycle(tiles))])
        # ... and a storm of them from every tile, with messages keeping the faces busy.
        moves.append([(6000.0 + 25 * i, f"flood {tiles[i % len(tiles)].name} {floods[0]}")
                      for i in range(24)]
                     + [(6000.0 + 50 * i, f"send {tiles[-1 - i % len(tiles)].name} {messages[0]} "
                                          f"{i % 6}") for i in range(12)])
    return tuple(burst + moves[which % len(moves)] + flood)


SCRIPTS = 8


@dataclass
class Report:
    game: str
    tiles: int
    runs: int = 0
    configurations: int = 0
    messages: int = 0
    floods: int = 0
    #: Wide values checked on arrival, and gathers' totals checked (games with them).
    values: int = 0
    totals: int = 0
    #: Sends of a message out of a face outside its group (each checked to bounce at once).
    outside: int = 0
    violations: list[tuple[Run, list[str]]] = field(default_factory=list)

    def lines(self) -> list[str]:
        wide = (f", {self.values:,} wide values and {self.totals:,} gather totals"
                if self.values or self.totals else "")
        outside = f" ({self.outside:,} sent outside their group)" if self.outside else ""
        return [f"explored {self.game} on clusters of {self.tiles} tiles: {self.configurations:,} "
                f"configurations (shape, rotations, clocks), {self.runs:,} runs, "
                f"{self.messages:,} messages{outside} and {self.floods:,} floods{wide} checked; "
                f"{len(self.violations)} violation(s)"]


def explore(game: Path, n_tiles: int, *, clocks: list[str] | None = None, random_runs: int = 0,
            seed: int = 0, exhaustive: bool = True, limit: int | None = None,
            spread: bool = False, stop_at_first: bool = True,
            progress: Callable[[Report], None] | None = None) -> Report:
    """Explore the game's protocol on every cluster of n tiles (see the module docstring)."""
    watched = subject(game)
    messages, floods = list(watched.cls.MESSAGES), list(watched.cls.FLOODS)
    rng = random.Random(seed)
    report = Report(watched.program.name, n_tiles)
    for clock in clocks or list(CLOCKS):
        for tiles in configs(n_tiles, clock, rng, spread):
            report.configurations += 1
            runs: list[Run] = []
            if exhaustive:
                runs += [Run(tiles, scripted_steps(tiles, messages, floods, i), seed=rng.randrange(2**16))
                         for i in range(SCRIPTS)]
            runs += [Run(tiles, random_steps(tiles, rng, messages, floods), seed=rng.randrange(2**16))
                     for _ in range(random_runs)]
            for run in runs:
                monitor_problems = _check_counted(watched, run, report)
                if monitor_problems:
                    report.violations.append((run, monitor_problems))
                    if stop_at_first:
                        return report
            if progress is not None:
                progress(report)
            if limit is not None and report.configurations >= limit:
                return report
    return report


#: Lifts a little longer than the grace (3.84-4.1 s, times each tile's clock): some sessions
#: with the lifted tile end and some outlive the lift, on one side or both.
LIFTS_MS = (4200, 4600, 5200, 6000, 7000)


def lift_steps(tiles: tuple[Tile, ...], rng: random.Random,
               floods: list[str]) -> tuple[tuple[float, str], ...]:
    """A seeded schedule against the put-back rules: one tile lifted for a little longer
    than the grace around a flood's start, one-way cuts while it is away or just back, and
    now and then another flood once it is back."""
    names = [t.name for t in tiles]
    start = 1500.0 + rng.randrange(1500)
    lifted = rng.choice(tiles)
    lift = max(300.0, start - rng.randrange(3500))
    back = lift + rng.choice(LIFTS_MS)
    steps = [(lift, f"lift {lifted.name}"),
             (back, f"place {lifted.name} at {lifted.pos[0]},{lifted.pos[1]} rot {lifted.rot}"),
             (start, f"flood {rng.choice([n for n in names if n != lifted.name])} "
                     f"{rng.choice(floods)}")]
    for _ in range(rng.randint(1, 3)):
        steps.append((start + rng.randrange(-200, 5000),
                      f"cut {rng.choice(names)} {rng.randrange(6)} for {rng.choice([1200, 2500])}ms"))
    if rng.random() < 0.5:
        steps.append((back + rng.randrange(1500), f"flood {rng.choice(names)} {rng.choice(floods)}"))
    return tuple(sorted(steps))


def explore_lifts(game: Path, runs: int, *, seed: int = 0, stop_at_first: bool = False) -> Report:
    """`runs` seeded lift schedules (lift_steps) on random clusters of 3 and 4 tiles, clocks
    in step or ±10 % (the two that found the put-back holes)."""
    watched = subject(game)
    floods = list(watched.cls.FLOODS)
    rng = random.Random(seed)
    report = Report(watched.program.name, 0)
    for _ in range(runs if floods else 0):
        n = rng.choice([3, 4])
        shape = rng.choice(shapes(n))
        clocks = CLOCKS[rng.choice(["identical, in step", "±10 %"])](n, rng)
        tiles = tuple(Tile(f"t{i}", p, rng.randrange(6), ppm, ph)
                      for i, (p, (ppm, ph)) in enumerate(zip(shape, clocks, strict=True)))
        report.configurations += 1
        run = Run(tiles, lift_steps(tiles, rng, floods), seed=rng.randrange(2**16))
        problems = _check_counted(watched, run, report)
        if problems:
            report.violations.append((run, problems))
            if stop_at_first:
                break
    return report


def _check_counted(game: Subject, run: Run, report: Report) -> list[str]:
    monitor = play(game, run)
    report.runs += 1
    report.messages += monitor.messages
    report.floods += len(monitor.waves)
    report.values += monitor.values_checked
    report.totals += monitor.totals_checked
    report.outside += monitor.outside
    return monitor.problems
