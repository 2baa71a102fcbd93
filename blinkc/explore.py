"""The protocol explorer: a game's own messages and floods, on small clusters, against an
adversary that chooses drops, blinding lock-steps, stalls, clock ratios and link flaps.

The protocol runs as compiled (the game's IR, Python backend) in the reference world. The
explorer makes tiles send the game's messages and start its floods as handlers would
(the scenario actions `send` and `flood`), and plays an adversary through scenario actions
too (`cut` one direction of a link, `stall` a tile, `lift` and `place` it back), with clock
errors and frame phases chosen per tile in the layout. So every run is a layout and a
scenario that `blinkc emulate` replays exactly. The game's handlers run as they do on the
tile, so what they send in answer is checked too.

After every delivery and bounce, and at the end of a quiet period, it checks:
- exactly once and in order on each link: a delivery is the oldest message sent over that
  link and not yet delivered;
- a bounce only when the neighbour was gone: taken away (or cut off for longer than the
  grace) during the message's life, or, for an immediate bounce, lately;
- nothing left hanging: every message delivered or bounced, every face settled, every link
  between touching tiles up;
- every flood ends (its starter hears it is done), and reaches every tile that stayed in
  the cluster exactly once (at most once for a tile taken away meanwhile).

`explore()` enumerates every connected shape of n tiles (up to a turn of the whole
cluster) and every rotation of every tile, under chosen clock conditions, with scripted
or seeded random schedules; a violation is shrunk to a few steps and written out as files.
"""

from __future__ import annotations

import itertools
import random
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .backends.python import program_class
from .dsl.loader import compile_game
from .games import initial_state
from .ir.nodes import Program
from .world import Faults, make_world
from .world.geometry import DIRECTIONS, Pos, facing_face
from .world.layout import TileSpec, clock_settings, load_layout, parse_layout
from .world.scenario import load_scenario, parse_scenario

#: Quiet time after the adversary's last step: long enough for the grace and a flood.
QUIET_MS = 12_000
#: A tile put down this shortly before a flood starts may not be linked yet: the flood may
#: miss it (it is not in the cluster yet as far as its neighbours know).
JOIN_MS = 3000


# ----------------------------------------------------------------- clusters
def shapes(n: int) -> list[tuple[Pos, ...]]:
    """Every connected shape of n tiles, up to moving and turning the whole cluster."""
    found: set[tuple[Pos, ...]] = set()
    frontier = {((0, 0),)}
    for _ in range(n - 1):
        nxt = set()
        for shape in frontier:
            cells = set(shape)
            for c in shape:
                for dq, dr in DIRECTIONS:
                    p = (c[0] + dq, c[1] + dr)
                    if p not in cells:
                        nxt.add(_canonical((*shape, p)))
        frontier = nxt
    for shape in frontier:
        found.add(shape)
    return sorted(found)


def _canonical(cells: tuple[Pos, ...]) -> tuple[Pos, ...]:
    """The smallest of the shape's six turns, moved to start at the origin."""
    best = None
    for turn in range(6):
        turned = sorted(_turn(c, turn) for c in cells)
        q0, r0 = turned[0]
        moved = tuple((q - q0, r - r0) for q, r in turned)
        if best is None or moved < best:
            best = moved
    assert best is not None
    return best


def _turn(c: Pos, times: int) -> Pos:
    q, r = c
    for _ in range(times):  # 60° clockwise in axial coordinates
        q, r = -r, q + r
    return q, r


@dataclass(frozen=True)
class Tile:
    name: str
    pos: Pos
    rot: int
    ppm: int = 0
    phase_us: int = 0


@dataclass(frozen=True)
class Run:
    """One exploration run: a cluster, what happens to it, and the world's seed."""

    tiles: tuple[Tile, ...]
    steps: tuple[tuple[float, str], ...]  #: (at ms, scenario action text without the time)
    seed: int = 0
    drop: float = 0.0

    def layout_text(self, game: Path) -> str:
        lines = [f"game {game}"]
        for t in self.tiles:
            clock = f"{t.ppm:+d}ppm"
            lines.append(f"tile {t.name} at {t.pos[0]},{t.pos[1]} rot {t.rot} clock={clock} "
                         f"phase={t.phase_us / 1000:g}ms")
        return "\n".join(lines) + "\n"

    def scenario_text(self) -> str:
        return "".join(f"at {at:g}ms {what}\n" for at, what in sorted(self.steps))

    @classmethod
    def from_files(cls, layout: Path, scenario: Path, seed: int = 0, drop: float = 0.0) -> Run:
        """A run read back from the files `write_counterexample` wrote (or written by hand)."""
        parsed = load_layout(layout)
        tiles = []
        for spec in parsed.tiles:
            if spec.pos is None:
                raise ValueError(f"{layout}: tile {spec.name} is held; the explorer's tiles are placed")
            _, (ppm, phase) = clock_settings(spec)
            tiles.append(Tile(spec.name, spec.pos, spec.rot, ppm or 0, phase or 0))
        steps = [(s.at_ms, s.describe()) for s in load_scenario(scenario).steps]
        return cls(tuple(tiles), tuple(steps), seed, drop)

    @property
    def end_ms(self) -> float:
        return max([0.0, *(at for at, _ in self.steps)]) + QUIET_MS

    def command(self, game: Path, layout: Path, scenario: Path) -> str:
        faults = f" --faults drop={self.drop:g}" if self.drop else ""
        return (f"blinkc emulate {game} -l {layout} -s {scenario} --seed {self.seed}"
                f" --world python --time {self.end_ms:g}ms{faults}")


# ------------------------------------------------------------------ monitor
@dataclass
class Message:
    code: int
    sent_ms: float


@dataclass
class Wave:
    k: int
    starter: str
    start_ms: float
    done_ms: float | None = None
    entered: dict[str, int] = field(default_factory=dict)


class Monitor:
    """Watches every tile's protocol engine during one run and collects what went wrong."""

    def __init__(self, program: Program, run: Run) -> None:
        self.run = run
        consts = {k: v for k, v, _ in program.constants}
        self.flood_code = consts["FLOOD_CODE"]
        self.queue_len = consts["QUEUE_LEN"]
        self.n_floods = consts["N_FLOODS"]
        self.grace_ms = (consts["GRACE_UNITS"] + 1) * 256
        #: A face may be taken for gone after hearing nothing for this long: the SDK's 200 ms
        #: expiry, then more than GRACE_UNITS whole ticks of 256 ms.
        self.silence_ok = 200 + consts["GRACE_UNITS"] * 256 - 256
        #: (tile, face) -> the times (ms) a packet from the neighbour arrived whole.
        self.heard: dict[tuple[str, int], list[float]] = {}
        self.by_pos = {t.pos: t for t in run.tiles}
        self.links: dict[tuple[str, int], tuple[str, int] | None] = {}
        for t in run.tiles:
            for f in range(6):
                dq, dr = DIRECTIONS[(f + t.rot) % 6]
                n = self.by_pos.get((t.pos[0] + dq, t.pos[1] + dr))
                self.links[(t.name, f)] = None if n is None else (n.name, facing_face(f, t.rot, n.rot))
        self.pending: dict[tuple[str, int], deque[Message]] = {k: deque() for k in self.links}
        self.delivered: dict[tuple[str, int], list[Message]] = {k: [] for k in self.links}
        #: Messages reported bounced, oldest first (one may still arrive: its ack was lost).
        self.bounced: dict[tuple[str, int], deque[Message]] = {k: deque() for k in self.links}
        self.bounces = 0
        self.waves: list[Wave] = []
        self.problems: list[str] = []
        self.world: Any = None
        self.messages = 0
        #: Per tile, the (from, to) ms intervals it was off the table.
        self.away: dict[str, list[list[float]]] = {t.name: [] for t in run.tiles}
        for at, what in run.steps:
            words = what.split()
            if words[0] == "lift":
                self.away[words[1]].append([at, float("inf")])
            elif words[0] == "place":
                self.away[words[1]][-1][1] = at

    # --------------------------------------------------------------- hooks
    def resolver(self, cls: type, program: Program) -> Callable[[TileSpec], Any]:
        def resolve(spec: TileSpec) -> Any:
            tile = cls(**initial_state(program, spec.params, spec.name))
            self._watch(spec.name, tile)
            return tile

        return resolve

    def _now(self) -> float:
        return self.world.now_ms

    def _watch(self, name: str, p: Any) -> None:
        """Wrap the engine's entry points of one tile's program (messages only: a flood's
        waves and echoes are the flood checks' business)."""
        real_send, real_deliver, real_end = p.f_send_code, p.f_deliver, p.f_link_end
        flood_code, queue_len = self.flood_code, self.queue_len
        reported: list[tuple[int, int]] = []  # what the engine told the game bounced, lately

        def bounce(code: int, face: int) -> None:
            reported.append((code, face))

        def send_code(code: int, face: int) -> None:
            before = p.queue_len
            self.messages += 1
            reported.clear()
            real_send(code, face)
            if p.queue_len > before:
                self.pending[(name, face)].append(Message(code, self._now()))
                return
            if (code, face) not in reported:
                self.problem(f"{name} dropped code {code} for face {face} without a word")
            if before < queue_len:  # bounced at once: nobody is there (a full queue is fine)
                self._bounced(name, face, Message(code, self._now()), immediate=True)

        def deliver(code: int, face: int) -> None:
            if code < flood_code:
                self._delivered(name, face, code)
            real_deliver(code, face)

        def link_end(face: int, *rest: int) -> None:
            reported.clear()
            real_end(face, *rest)
            queue = self.pending[(name, face)]
            told = [c for c, f in reported if f == face]
            while queue:  # whatever was still on its way there has bounced
                msg = queue.popleft()
                if msg.code in told:
                    told.remove(msg.code)
                else:
                    self.problem(f"{name} dropped code {msg.code} for face {face} without a word "
                                 "when its link ended")
                self._bounced(name, face, msg, immediate=False)

        p.f_send_code, p.f_deliver, p.f_link_end, p.f_bounce = send_code, deliver, link_end, bounce
        real_entered, real_done, real_start = p.f_on_flood, p.f_on_flood_done, p.f_flood_start

        def entered(k: int) -> None:
            self._entered(name, k)
            real_entered(k)

        def done(k: int) -> None:
            self._done(name, k)
            real_done(k)

        def flood_start(k: int) -> None:  # the explorer's floods and the game's own
            if p.flood_parent[k] == 255:  # a start inside a wave of the same flood merges
                self.waves.append(Wave(k, name, self._now()))
            real_start(k)

        p.f_on_flood, p.f_on_flood_done, p.f_flood_start = entered, done, flood_start

    # ------------------------------------------------------------- checks
    def problem(self, text: str) -> None:
        self.problems.append(f"at {self._now():.0f} ms: {text}")

    def _flapped(self, name: str, face: int, since: float, until: float, margin: float = 0) -> bool:
        """Whether the link of (name, face) could rightly be taken for gone at some time in
        [since - margin, until]: a tile of it was away, or one of its directions heard
        nothing for about the grace (a cut, the lock-step of probes, or both)."""
        other = self.links[(name, face)]
        for t in [name] + ([other[0]] if other else []):
            for a, b in self.away[t]:
                if a <= until and b >= since - margin:
                    return True
        for key in [(name, face)] + ([other] if other else []):
            if self._longest_silence(key, since - margin - self.grace_ms, until) >= self.silence_ok:
                return True
        return False

    def _longest_silence(self, key: tuple[str, int], since: float, until: float) -> float:
        """The longest time within [since, until] that the face heard nothing (ms)."""
        longest, last = 0.0, max(0.0, since)
        for t in self.heard.get(key, ()):
            if t < since:
                last = t
                continue
            if t > until:
                break
            longest, last = max(longest, t - last), t
        return max(longest, until - last)

    def watch_world(self, world: Any) -> None:
        """Note when each face hears its neighbour (packets that arrive whole)."""
        self.world = world
        real = world._arrive
        heard = self.heard

        def arrive(tile: Any, data: Any) -> None:
            face, inc = data
            ready = tile.rx_buf[face]
            real(tile, data)
            if tile.rx_buf[face] is not ready and tile.rx_buf[face] is inc.packet:
                heard.setdefault((tile.name, face), []).append(world.now / 1000)

        world._arrive = arrive

    def _delivered(self, name: str, face: int, code: int) -> None:
        other = self.links[(name, face)]
        if other is None:
            self.problem(f"{name} got code {code} on face {face}, where no tile ever is")
            return
        queue = self.pending[other]
        if queue and queue[0].code == code:
            self.delivered[other].append(queue.popleft())
            return
        late = self.bounced[other]
        if late and late[0].code == code:
            msg = late.popleft()  # delivered after its sender reported it bounced
            if not self._flapped(other[0], other[1], msg.sent_ms, self._now()):
                self.problem(f"{name} face {face} got code {code} that {other[0]} had reported "
                             "bounced, though the link never broke")
            return
        again = any(m.code == code for m in self.delivered[other])
        what = "again (a duplicate)" if again else "out of order or from nowhere"
        self.problem(f"{name} face {face} got code {code} {what}: {other[0]} face {other[1]} "
                     f"has {[m.code for m in queue]} waiting")

    def _bounced(self, name: str, face: int, msg: Message, immediate: bool) -> None:
        key = (name, face)
        self.bounced[key].append(msg)
        self.bounces += 1
        if self.links[key] is None:
            return  # nobody is there: a bounce is the right answer
        now = self._now()
        if immediate:
            ok = self._flapped(name, face, now, now, margin=self.grace_ms + 3000)
        else:
            ok = self._flapped(name, face, msg.sent_ms, now)
        if not ok:
            self.problem(f"{name} face {face} bounced code {msg.code} (sent at {msg.sent_ms:.0f} ms) "
                         "though its neighbour was there all along")

    def _entered(self, name: str, k: int) -> None:
        for wave in reversed(self.waves):
            if wave.k == k:
                wave.entered[name] = wave.entered.get(name, 0) + 1
                return
        self.problem(f"{name} entered flood {k}, which nobody started")

    def _done(self, name: str, k: int) -> None:
        for wave in self.waves:
            if wave.k == k and wave.starter == name and wave.done_ms is None:
                wave.done_ms = self._now()
                return
        self.problem(f"{name} heard flood {k} done, which it did not start")

    def finish(self) -> None:
        """The end-of-run checks (after the quiet period)."""
        world = self.world
        for (name, face), queue in self.pending.items():
            if queue:
                self.problem(f"{name} face {face}: codes {[m.code for m in queue]} were never "
                             "delivered nor bounced")
        for t in world.tiles:
            if not t.program.idle(t.api):
                self.problem(f"{t.name} is not idle: its protocol never settled")
            up = t.program.links(t.api)
            for f, n, nf in world.neighbours_of(t):
                if not (up >> f) & 1:
                    self.problem(f"the link {t.name}:{f}-{n.name}:{nf} is not up")
        for wave in self.waves:
            if wave.done_ms is None:
                self.problem(f"flood {wave.k} started by {wave.starter} at {wave.start_ms:.0f} ms "
                             "never finished")
        for group in self._overlapping():
            # Floods of one kind that overlap in time merge where they meet: each tile runs the
            # handler at most once per flood, and at least once if it stayed in the cluster.
            first = group[0]
            stayed = set.union(*(self._stayed(w) for w in group))
            for t in self.run.tiles:
                n = sum(w.entered.get(t.name, 0) for w in group)
                if n > len(group):
                    self.problem(f"flood {first.k} (started {len(group)} time(s) from "
                                 f"{first.start_ms:.0f} ms) ran {n} times on {t.name}")
                if n == 0 and t.name in stayed:
                    self.problem(f"flood {first.k} started by {first.starter} at "
                                 f"{first.start_ms:.0f} ms never reached {t.name}")

    def _overlapping(self) -> list[list[Wave]]:
        """The finished waves in groups of one flood kind whose lives overlap."""
        groups: list[list[Wave]] = []
        for wave in sorted((w for w in self.waves if w.done_ms is not None), key=lambda w: (w.k, w.start_ms)):
            last = groups[-1] if groups else None
            if last and last[0].k == wave.k and wave.start_ms <= max(w.done_ms or 0 for w in last):
                last.append(wave)
            else:
                groups.append([wave])
        return groups

    def _stayed(self, wave: Wave) -> set[str]:
        """Tiles connected to the starter, through tiles never away, during the whole wave
        (and for JOIN_MS before it)."""
        a, b = wave.start_ms - JOIN_MS, wave.done_ms or float("inf")
        steady = {t.name for t in self.run.tiles
                  if not any(x <= b and y >= a for x, y in self.away[t.name])}
        if wave.starter not in steady:
            return set()
        seen = {wave.starter}
        todo = [wave.starter]
        while todo:
            name = todo.pop()
            for f in range(6):
                other = self.links[(name, f)]
                if other and other[0] in steady and other[0] not in seen:
                    seen.add(other[0])
                    todo.append(other[0])
        return seen


# --------------------------------------------------------------------- runs
@dataclass(frozen=True)
class Subject:
    """A game compiled for watching: its IR (hooks kept) and the Python tile class of it."""

    path: Path
    program: Program
    cls: type


def subject(game: Path) -> Subject:
    program = compile_game(game, observable=True)
    return Subject(game, program, program_class(program))


def play(game: Subject, run: Run) -> Monitor:
    """Play one run in the reference world with every tile watched; returns the monitor."""
    monitor = Monitor(game.program, run)
    layout = parse_layout(run.layout_text(game.path), "<explorer>")
    scenario = parse_scenario(run.scenario_text(), "<explorer>")
    resolver = monitor.resolver(game.cls, game.program)
    # (The tiles' clocks are set by the layout; the default skew keeps the seed's draws as
    # `blinkc emulate` makes them.)
    world = make_world(seed=run.seed, faults=Faults(drop=run.drop), engine="python")
    monitor.watch_world(world)
    layout.build(world, resolver)
    scenario.apply(world, resolver, layout, start_ms=0.0)
    world.run_until(run.end_ms)
    monitor.finish()
    return monitor


def check(game: Subject, run: Run) -> list[str]:
    """Play one run and return what went wrong (empty: every invariant held)."""
    return play(game, run).problems


def shrink(game: Subject, run: Run, budget: int = 300) -> tuple[Run, list[str]]:
    """A smaller run that still goes wrong: drop steps while it does (delta debugging).
    A lift and the place that puts the tile back go (or stay) together."""
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
            if found:
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


def write_counterexample(game: Path, run: Run, problems: list[str], folder: Path) -> str:
    """Write the run as a layout and a scenario; returns the command that replays it."""
    folder.mkdir(parents=True, exist_ok=True)
    layout, scenario = folder / "explore.layout", folder / "explore.scenario"
    layout.write_text(run.layout_text(game.resolve()))
    body = "".join(f"# {p}\n" for p in problems)
    scenario.write_text("# found by blinkc explore; what went wrong:\n" + body + run.scenario_text())
    return run.command(game, layout, scenario)


# --------------------------------------------------------------- schedules
#: Clock conditions: (name, ppm of each tile by index, phases of each tile's frames in µs).
CLOCKS: dict[str, Callable[[int, random.Random], list[tuple[int, int]]]] = {
    # Identical clocks, frames in step: the SDK's probes collide for as long as it lasts.
    "identical, in step": lambda n, rng: [(0, 100)] * n,
    "identical": lambda n, rng: [(0, rng.randrange(7700)) for _ in range(n)],
    "±0.1 %": lambda n, rng: [(rng.randint(-1000, 1000), rng.randrange(7700)) for _ in range(n)],
    "±10 %": lambda n, rng: [(rng.randint(-100_000, 100_000), rng.randrange(7700)) for _ in range(n)],
}


def configs(n: int, clock: str, rng: random.Random) -> Iterator[tuple[Tile, ...]]:
    """Every shape of n tiles in every rotation of every tile, with the clock condition."""
    for shape in shapes(n):
        for rots in itertools.product(range(6), repeat=n):
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
    violations: list[tuple[Run, list[str]]] = field(default_factory=list)

    def lines(self) -> list[str]:
        return [f"explored {self.game} on clusters of {self.tiles} tiles: {self.configurations:,} "
                f"configurations (shape, rotations, clocks), {self.runs:,} runs, "
                f"{self.messages:,} messages and {self.floods:,} floods checked; "
                f"{len(self.violations)} violation(s)"]


def explore(game: Path, n_tiles: int, *, clocks: list[str] | None = None, random_runs: int = 0,
            seed: int = 0, exhaustive: bool = True, limit: int | None = None,
            stop_at_first: bool = True, progress: Callable[[Report], None] | None = None) -> Report:
    """Explore the game's protocol on every cluster of n tiles (see the module docstring)."""
    watched = subject(game)
    messages, floods = list(watched.cls.MESSAGES), list(watched.cls.FLOODS)
    rng = random.Random(seed)
    report = Report(watched.program.name, n_tiles)
    for clock in clocks or list(CLOCKS):
        for tiles in configs(n_tiles, clock, rng):
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


def _check_counted(game: Subject, run: Run, report: Report) -> list[str]:
    monitor = play(game, run)
    report.runs += 1
    report.messages += monitor.messages
    report.floods += len(monitor.waves)
    return monitor.problems
