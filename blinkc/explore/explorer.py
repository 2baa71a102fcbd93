"""The exploration: every cluster of n tiles under clock conditions, with scripted and seeded
schedules of the game's own messages and floods against the adversary."""

from __future__ import annotations

import itertools
import random
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..ir.nodes import Program
from ..runner import Job, Options, Outcome, run
from ..world.clock import FRAME_US
from ..world.infrared import LINKING_SKEW
from .clusters import Run, Tile, shapes
from .runs import Subject, done_with, play, subject, tile_class

LINKING_PPM = round(LINKING_SKEW * 1_000_000)
#: Clock conditions: (name, ppm of each tile by index, phases of each tile's frames in µs).
CLOCKS: dict[str, Callable[[int, random.Random], list[tuple[int, int]]]] = {
    # Identical clocks, frames in step: the SDK's probes collide for as long as it lasts.
    "identical, in step": lambda n, rng: [(0, 100)] * n,
    "identical": lambda n, rng: [(0, rng.randrange(FRAME_US)) for _ in range(n)],
    "±0.1 %": lambda n, rng: [(rng.randint(-1000, 1000), rng.randrange(FRAME_US)) for _ in range(n)],
    # The widest spread at which every two tiles still decode each other (infrared.py,
    # LINKING_SKEW): wider, a pair can be deaf one way, and no protocol can settle there.
    "±3 %": lambda n, rng: [(rng.randint(-LINKING_PPM, LINKING_PPM), rng.randrange(FRAME_US))
                            for _ in range(n)],
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

#: How long a turned tile is off the table (ms): within the SDK's 200 ms expiry (its
#: neighbours never find its faces silent), past it but within the grace (their sessions
#: outlive the lift), and past the grace (the sessions end). One turn run per entry.
TURNS_MS = (40, 120, 180, 600, 2000, 3500, 6000)


def turn_steps(tiles: tuple[Tile, ...], messages: list[str], floods: list[str],
               away_ms: float, rng: random.Random) -> tuple[tuple[float, str], ...]:
    """A burst of messages over every face, one tile lifted as they cross and put back where
    it was at another rotation `away_ms` later (its faces now touch other faces), then
    messages over every face again and a flood: a turn within the grace leaves each face
    in the session it had with the face it touched before."""
    burst = [(1000.0, f"send {t.name} {m} {f}") for t in tiles for f in range(6)
             for m in messages[:2]]
    turned = rng.choice(tiles)
    lift = 1000.0 + rng.choice((1, 5, 10, 20, 40))
    back = lift + away_ms
    rot = (turned.rot + rng.randint(1, 5)) % 6
    again = back + rng.choice((0, 10, 50, 150, 400))
    steps = [*burst, (lift, f"lift {turned.name}"),
             (back, f"place {turned.name} at {turned.pos[0]},{turned.pos[1]} rot {rot}"),
             *((again, f"send {t.name} {messages[0]} {f}") for t in tiles for f in range(6))]
    if floods:
        steps.append((back + rng.choice((20, 300, 1000)), f"flood {rng.choice(tiles).name} "
                                                          f"{floods[0]}"))
    return tuple(steps)


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
            options: Options | None = None, world: str = "auto", turns: bool = False) -> Report:
    """Explore the game's protocol on every cluster of n tiles (see the module docstring),
    on the runner (`options`: how; by default here, one run after the other), in the world
    `world` (runs.WORLDS: by default the C++ one where it is available); with `turns`, each
    configuration also has a turn run per TURNS_MS (turn_steps)."""
    return _finished(run(explore_job(game, n_tiles, clocks=clocks, random_runs=random_runs,
                                     seed=seed, exhaustive=exhaustive, limit=limit, spread=spread,
                                     stop_at_first=stop_at_first, world=world, turns=turns),
                         options or Options()))


def _finished(outcome: Outcome) -> Report:
    """The report of a batch played to its end; a stopped one raises KeyboardInterrupt again
    (a caller of the library must not take a part for the whole; the CLI says how to go on)."""
    if outcome.interrupted:
        raise KeyboardInterrupt
    return report_of(outcome)


def explore_job(game: Path, n_tiles: int, *, clocks: list[str] | None = None, random_runs: int = 0,
                seed: int = 0, exhaustive: bool = True, limit: int | None = None,
                spread: bool = False, stop_at_first: bool = True, world: str = "auto",
                turns: bool = False) -> Job:
    """The exploration as a job of the runner: run i is (configuration, Run), drawn in order
    from one seeded generator, so run i is the same however the runs are played. (The turn
    runs draw from a generator of their own per configuration: the others, and the
    configurations, are the same with them or without.)"""
    watched = subject(game, world)
    messages, floods = list(watched.cls.MESSAGES), list(watched.cls.FLOODS)
    runs = _Runs(n_tiles, messages, floods, exhaustive, random_runs, turns=seed if turns else None)
    rng = random.Random(seed)
    for clock in clocks or list(CLOCKS):
        if limit is not None and len(runs.configurations) >= limit:
            break           # (the limit counts configurations of every clock together)
        for tiles in configs(n_tiles, clock, rng, spread):
            runs.add(tiles, clock, rng)
            if limit is not None and len(runs.configurations) >= limit:
                break
    key = {"game": watched.program.name, "tiles": n_tiles, "clocks": clocks or list(CLOCKS),
           "random": random_runs, "seed": seed, "scripts": exhaustive, "limit": limit,
           "spread": spread, "configurations": len(runs.configurations)}
    if turns:  # (only then: a results file of an exploration without them goes on as it was)
        key["turns"] = list(TURNS_MS)
    return _job(f"explore {watched.program.name}, {n_tiles} tiles", key, watched, runs,
                n_tiles, stop_at_first)


class _Runs(Sequence):
    """The runs of an exploration, drawn when asked for: the half million runs of 4 tiles
    would hold gigabytes. It keeps each configuration's tiles and clock condition, and the
    generator's state every CHECKPOINT configurations, from which it draws again (the
    clocks, the seeds and the random schedules, in the order `configs` and the runs drew)."""

    CHECKPOINT = 32

    def __init__(self, n_tiles: int, messages: list[str], floods: list[str], exhaustive: bool,
                 random_runs: int, turns: int | None = None) -> None:
        self.configurations: list[tuple[tuple[Tile, ...], str]] = []
        self._n, self._messages, self._floods = n_tiles, messages, floods
        self._exhaustive, self._random = exhaustive, random_runs
        #: With turn runs: the exploration's seed (theirs is drawn from it and the index).
        self._turns = turns
        self._per = ((SCRIPTS if exhaustive else 0) + random_runs
                     + (len(TURNS_MS) if turns is not None else 0))
        self._states: list[tuple[int, array, float | None]] = []
        self._cached: tuple[int, list[Run]] = (-1, [])
        self._next: tuple[int, random.Random] | None = None   # the generator after a config

    def add(self, tiles: tuple[Tile, ...], clock: str, rng: random.Random) -> None:
        """A configuration whose clocks `rng` just drew; draws past its runs."""
        k = len(self.configurations)
        self.configurations.append((tiles, clock))
        if k % self.CHECKPOINT == 0:
            version, internal, gauss = rng.getstate()
            self._states.append((version, array("L", internal), gauss))
        self._draw(tiles, rng, build=False)

    def _draw(self, tiles: tuple[Tile, ...], rng: random.Random, build: bool = True) -> list[Run]:
        """A configuration's runs: the scripted schedules, then the seeded random ones."""
        runs = []
        for i in range(SCRIPTS if self._exhaustive else 0):
            seed = rng.randrange(2**16)
            if build:
                runs.append(Run(tiles, scripted_steps(tiles, self._messages, self._floods, i),
                                seed=seed))
        for _ in range(self._random):
            steps = random_steps(tiles, rng, self._messages, self._floods)
            runs.append(Run(tiles, steps, seed=rng.randrange(2**16)))
        return runs

    def _turn_runs(self, k: int) -> list[Run]:
        """Configuration k's turn runs (after its others), from a generator of their own."""
        tiles = self.configurations[k][0]
        rng = random.Random(f"turns {self._turns} {k}")
        return [Run(tiles, turn_steps(tiles, self._messages, self._floods, ms, rng),
                    seed=rng.randrange(2**16)) for ms in TURNS_MS]

    def _runs_of(self, k: int) -> list[Run]:
        if self._next is not None and self._next[0] == k - 1:
            rng = self._next[1]
            CLOCKS[self.configurations[k][1]](self._n, rng)   # (drawn again, as configs did)
        else:
            first = k - k % self.CHECKPOINT
            version, internal, gauss = self._states[first // self.CHECKPOINT]
            rng = random.Random()
            rng.setstate((version, tuple(internal), gauss))
            for m in range(first, k):
                self._draw(self.configurations[m][0], rng, build=False)
                CLOCKS[self.configurations[m + 1][1]](self._n, rng)
        runs = self._draw(self.configurations[k][0], rng)
        self._next = (k, rng)
        return runs + (self._turn_runs(k) if self._turns is not None else [])

    def __len__(self) -> int:
        return len(self.configurations) * self._per

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if not 0 <= i < len(self):
            raise IndexError(i)
        k, j = divmod(i, self._per)
        if self._cached[0] != k:
            self._cached = (k, self._runs_of(k))
        return k, self._cached[1][j]


def _job(name: str, key: dict, watched: Subject, runs: Sequence[tuple[int, Run]], n_tiles: int,
         stop_at_first: bool) -> Job:
    # (The world engine is not in the key: every engine gives the same results, so a results
    # file goes on in another.)
    return Job(name, {**key, "n_tiles": n_tiles}, _setup,
               (str(watched.path), watched.program, watched.world),
               _play, runs, failed=_failed, stop_at_failure=stop_at_first,
               chunk=SCRIPTS + 2)


def _setup(shared: tuple[str, Program, str]) -> Subject:
    path, program, world = shared
    return Subject(Path(path), program, tile_class(program, Path(path), world), world)


def _play(watched: Subject, spec: tuple[int, Run]) -> dict:
    configuration, one = spec
    monitor = play(watched, one)
    done_with(watched, monitor)
    return {"configuration": configuration, "seed": one.seed, "messages": monitor.messages,
            "floods": len(monitor.waves), "values": monitor.values_checked,
            "totals": monitor.totals_checked, "outside": monitor.outside,
            "problems": monitor.problems}


def _failed(result: dict) -> bool:
    return bool(result["problems"])


def report_of(outcome: Outcome) -> Report:
    """The report of an exploration's outcome: its results in the order of the runs."""
    key = outcome.job.key
    report = Report(key["game"], key["n_tiles"])
    seen: set[int] = set()
    for i, result in outcome.ordered():
        report.runs += 1
        seen.add(result["configuration"])
        for name in ("messages", "floods", "values", "totals", "outside"):
            setattr(report, name, getattr(report, name) + result[name])
        if result["problems"]:
            report.violations.append((outcome.job.runs[i][1], result["problems"]))
    stopped = outcome.job.stop_at_failure and outcome.first_failure() is not None
    if outcome.complete and not stopped:
        report.configurations = key["configurations"]
    elif stopped:
        report.configurations = max(seen) + 1
    else:
        report.configurations = len(seen)
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


def explore_lifts(game: Path, runs: int, *, seed: int = 0, stop_at_first: bool = False,
                  options: Options | None = None, world: str = "auto") -> Report:
    """`runs` seeded lift schedules (lift_steps) on random clusters of 3 and 4 tiles, clocks
    in step or ±3 % (the two that found the put-back holes, then at ±10 %)."""
    return _finished(run(lifts_job(game, runs, seed=seed, stop_at_first=stop_at_first,
                                   world=world),
                         options or Options()))


def lifts_job(game: Path, runs: int, *, seed: int = 0, stop_at_first: bool = False,
              world: str = "auto") -> Job:
    watched = subject(game, world)
    floods = list(watched.cls.FLOODS)
    rng = random.Random(seed)
    todo: list[tuple[int, Run]] = []
    for k in range(runs if floods else 0):
        n = rng.choice([3, 4])
        shape = rng.choice(shapes(n))
        clocks = CLOCKS[rng.choice(["identical, in step", "±3 %"])](n, rng)
        tiles = tuple(Tile(f"t{i}", p, rng.randrange(6), ppm, ph)
                      for i, (p, (ppm, ph)) in enumerate(zip(shape, clocks, strict=True)))
        todo.append((k, Run(tiles, lift_steps(tiles, rng, floods), seed=rng.randrange(2**16))))
    key = {"game": watched.program.name, "lifts": runs, "seed": seed, "configurations": len(todo)}
    return _job(f"lifts {watched.program.name}", key, watched, todo, 0, stop_at_first)
