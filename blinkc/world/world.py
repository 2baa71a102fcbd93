"""The emulated world: Blinks on a hex lattice, talking over IR, pass by pass.

The world plays the BIOS and the physics for every tile; each tile's blinklib state lives in
its `Blinklib` object and its game in its program. A `World` is the model and the public API
(engine.py): the tiles, where they lie, the actions a person takes, blinklib's warm sleep and
the BIOS's seed mode, frozen tiles, the views and the trace. Its events — passes, packets on
the air, faults, idle skipping — are run by its engine: the `PythonEngine`
(python_engine.py, the reference, which describes a pass) unless another is given; blinkc's
C++ engine registers itself with `make_world` (factory.py).

A loop() that does not return within its budget freezes its tile, as on a
real tile, and the world runs on without it (freeze.py); any other call into
a tile's code that does not return stops the run with a TileHangError, and
the world cannot continue (watchdog.py).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from ..blinklib.api import (
    FACE_COUNT,
    START_STATE_DOWNLOAD_SUCCESS,
    START_STATE_POWER_UP,
    START_STATE_WE_ARE_ROOT,
    Blinklib,
)
from . import watchdog
from .button import LONG_LONG_PRESS_MS, VIRAL_LOCKOUT_MS, ButtonModel
from .clock import FRAME_US, Clock
from .engine import Calm, Engine
from .errors import TileHangError, WorldError
from .freeze import Freeze, frozen_message
from .geometry import DIRECTIONS, Pos, facing_face
from .python_engine import PythonEngine
from .seed import DOWNLOAD, SeedMode
from .tile import Tile
from .watchdog import TileOverrun

__all__ = ["VIRAL_LOCKOUT_MS", "Faults", "TileHangError", "World", "WorldError"]

#: blinklib warm-sleeps a tile this long after the last button press (its own or, spread
#: by the viral flag, a neighbour's).
WARM_SLEEP_TIMEOUT_MS = 10 * 60 * 1000
#: ... and when its button is held this long (the BIOS's 6-second flag).
SLEEP_HOLD_MS = 6000
START_STATES = (START_STATE_POWER_UP, START_STATE_WE_ARE_ROOT, START_STATE_DOWNLOAD_SUCCESS)
#: The BIOS's start, measured in co-simulation of the SDK's BlinkBIOS (docs/cosim.md). A
#: tile's local clock is the BIOS's timer: millis() counts its 256 µs ticks (clock.py) and
#: its display frames come at FIRST_FRAME_LOCAL_US and every FRAME_US after, whatever the
#: game. When setup() runs on that clock depends on the game (the BIOS's start-up copies
#: it): 926 µs for a sketch with an empty setup() (millis() 0, ticking to 1 98 µs later),
#: 1,102 µs for the SDK's A-ColorByNeighbor. SETUP_LOCAL_US is the first; --compare sets
#: each tile's from its image (World.start_local_us).
SETUP_LOCAL_US = 926
FIRST_FRAME_LOCAL_US = 7621


@dataclass(frozen=True)
class Faults:
    """Seeded imperfections of the physical world."""

    #: Probability that a packet is lost on the air.
    drop: float = 0.0
    #: Extra delivery delay, uniform in [0, jitter_ms].
    jitter_ms: float = 0.0
    #: Each tile's clock rate error is uniform in ±skew (0.1 = ±10 %, the RC
    #: oscillator's worst case). Real tiles always drift a little against each
    #: other, which is what breaks up lock-step probe collisions, so the
    #: default is ±1 %; 0 gives identical clocks.
    skew: float = 0.01

    def __post_init__(self) -> None:
        if not 0.0 <= self.drop < 1.0:
            raise ValueError(f"drop must be in [0, 1), not {self.drop}")
        if not 0.0 <= self.jitter_ms <= 100.0:
            raise ValueError(f"jitter_ms must be in [0, 100], not {self.jitter_ms}")
        if not 0.0 <= self.skew <= 0.5:
            raise ValueError(f"skew must be in [0, 0.5], not {self.skew}")


class World:
    """A cluster of emulated Blinks."""

    #: CPU seconds one call into a tile's code may take before the run is stopped
    #: (None: $BLINKC_TILE_BUDGET, else 2 s; 0: no limit). See watchdog.py.
    tile_budget_s: float | None = None
    #: Why the world cannot run any more (a tile was stopped inside its code), or None.
    dead: str | None = None
    _env_budget: float | None = None

    def __init__(self, seed: int = 0, faults: Faults | None = None, trace: Any = None,
                 idle_skip: bool = True, engine: Engine | None = None) -> None:
        self.seed = seed
        self.faults = faults or Faults()
        self.trace = trace
        self.now = 0  # world time, µs
        self.tiles: list[Tile] = []
        self.by_name: dict[str, Tile] = {}
        self.grid: dict[Pos, Tile] = {}
        #: Bumped whenever a tile is placed or lifted: cached links and groups go stale.
        self._topology = 0
        self.idle_skip = idle_skip
        #: False: every tile added without a phase powers up in step with the others, as the
        #: tiles of a co-simulation do (each tile's BIOS boot is the same).
        self.power_up_spread = True
        #: The local time at setup() of named tiles (µs on the BIOS's clock), as
        #: co-simulation measured them; it overrides the drawn spread and a given phase.
        self.start_local_us: dict[str, int] = {}
        #: Indices of the tiles whose clock error was given (not drawn within the skew).
        self._given_ppm: set[int] = set()
        self.seed_mode = SeedMode(self)
        #: The tiles that froze (their loop() never returned), in the order they did.
        self.freezes: list[Freeze] = []
        self.stats = {"passes": 0, "skipped": 0, "packets": 0, "dropped": 0, "collisions": 0}
        self._engine = engine if engine is not None else PythonEngine()
        self._engine.attach(self)

    @property
    def event_engine(self) -> Engine:
        """The engine that runs this world's events (engine.py)."""
        return self._engine

    @property
    def engine(self) -> str:
        """Where the events run: "python", "native" (the C++ core), or "undecided" (an engine
        that picks one at the first run has not run yet)."""
        return self._engine.name

    @property
    def events(self) -> int | None:
        """How many events the engine has processed, if it counts them (the C++ core does)."""
        return self._engine.events

    @property
    def event_counts(self) -> dict[str, int] | None:
        """What the engine's events did, by kind, if it counts them (the C++ core does)."""
        return self._engine.event_counts

    # ------------------------------------------------------------------ tiles
    def add_tile(self, name: str, program: Any, pos: Pos | None = None, rot: int = 0,
                 api: Blinklib | None = None, ppm: int | None = None,
                 phase_us: int | None = None, start_state: int | None = None) -> Tile:
        """Power up a new tile now, placed at `pos` (or held in the hand if None).

        `ppm` and `phase_us` set the tile's clock error and the phase of its display
        frames: when they come, as world time modulo FRAME_US (by default both are drawn
        from the seed, the clock error within Faults.skew);
        `start_state` what its startState() reports (START_STATE_*, by default power-up)."""
        engine = self._engine
        engine.admit(name, program)
        try:
            if start_state is not None and start_state not in START_STATES:
                raise WorldError(f"a start state is 0 (power-up), 1 (we are root) or 2 (download "
                                 f"success), not {start_state!r}")
            tile = self._new_tile(name, program, api, ppm, phase_us)
            if start_state is not None:
                tile.api.start_state = start_state
            self.tiles.append(tile)
            self._topology += 1
            self.by_name[name] = tile
            engine.joined(tile)
            if pos is not None:
                self._place(tile, pos, rot)
            engine.start(tile)
            self.record(tile, "power", {"pos": list(pos) if pos else None, "rot": rot})
            tile.sleep_base_ms = tile.clock.millis(self.now)
            self._schedule_sleep_check(tile)
            if pos is not None:
                self._wake_sleepers_beside(tile)
                self._after_move()
            return tile
        finally:
            engine.refresh()

    def set_start_state(self, name: str, start_state: int) -> None:
        """What the tile's startState() reports from now on (START_STATE_*). On a tile it is set
        once, at start-up; a harness sets it here, never on `tile.api` directly (in the C++
        world core the api object is a mirror, and writing it changes nothing)."""
        if start_state not in START_STATES:
            raise WorldError(f"a start state is 0 (power-up), 1 (we are root) or 2 (download "
                             f"success), not {start_state!r}")
        tile = self.tile(name)
        tile.api.start_state = start_state
        self._engine.written(tile)

    def _new_tile(self, name: str, program: Any, api: Blinklib | None, ppm: int | None = None,
                  phase_us: int | None = None) -> Tile:
        """A tile record with its seeded clock, entropy and serial number (not yet in the world)."""
        if name in self.by_name:
            raise WorldError(f"there is already a tile named {name!r}")
        if ppm is not None and not -500_000 <= ppm <= 500_000:
            raise WorldError(f"a clock error of {ppm:,} ppm is beyond ±50 %")
        ppm_given = ppm is not None
        rng = random.Random(f"{self.seed}:tile:{name}")
        skew = self.faults.skew
        drawn = round(rng.uniform(-skew, skew) * 1_000_000) if skew else 0
        # How far into its BIOS's life (past SETUP_LOCAL_US) the tile runs setup() now: that
        # sets the phase of its frames to the world's, and millis() then reads up to 7 ms.
        early = rng.randrange(FRAME_US) if self.power_up_spread else 0
        if phase_us is not None:
            early = (self.now + FIRST_FRAME_LOCAL_US - SETUP_LOCAL_US - phase_us) % FRAME_US
        if name in self.start_local_us:
            early = self.start_local_us[name] - SETUP_LOCAL_US
        clock = Clock(ppm=drawn if ppm is None else ppm, frame_phase=FIRST_FRAME_LOCAL_US)
        ppm = clock.ppm
        clock.offset = SETUP_LOCAL_US + early - self.now * (1_000_000 + ppm) // 1_000_000
        if api is None:
            api = Blinklib(entropy=rng.getrandbits(32), serial=rng.randbytes(9))
        if ppm_given:
            self._given_ppm.add(len(self.tiles))
        return Tile(len(self.tiles), name, program, api, clock)

    def tile(self, name: str) -> Tile:
        try:
            return self.by_name[name]
        except KeyError:
            raise WorldError(f"no tile named {name!r}") from None

    def place(self, name: str, pos: Pos, rot: int | None = None) -> None:
        """Put a tile (held or placed elsewhere) down at `pos`."""
        # What the engine holds changes only through its notifications, so the model is
        # brought up to date once, when the action is over.
        try:
            tile = self.tile(name)
            self._wake_around(tile)
            if tile.pos is not None:
                self._unplace(tile)
            self._place(tile, pos, tile.rot if rot is None else rot)
            self.record(tile, "place", {"pos": list(pos), "rot": tile.rot})
            self._wake_sleepers_beside(tile)
            self._after_move()
        finally:
            self._engine.refresh()

    def _after_move(self) -> None:
        if self.seed_mode.sessions:  # a tile now touching a seeding one takes the game
            self.seed_mode.spread()

    def lift(self, name: str) -> None:
        """Pick a tile up off the lattice; it keeps running, alone."""
        try:
            tile = self.tile(name)
            if tile.pos is None:
                return
            self._wake_around(tile)
            self._unplace(tile)
            self.record(tile, "lift", {})
        finally:
            self._engine.refresh()

    def rotate(self, name: str, rot: int) -> None:
        tile = self.tile(name)
        if not 0 <= rot < 6:
            raise WorldError(f"rotation must be 0..5, not {rot}")
        if tile.pos is None:
            tile.rot = rot
            self._engine.moved(tile)
            return
        self.place(name, tile.pos, rot)

    def _place(self, tile: Tile, pos: Pos, rot: int) -> None:
        if not 0 <= rot < 6:
            raise WorldError(f"rotation must be 0..5, not {rot}")
        other = self.grid.get(pos)
        if other is not None and other is not tile:
            raise WorldError(f"place {pos} is taken by tile {other.name!r}")
        for n in self._neighbour_tiles_at(pos):
            self._engine.wake(n)
        tile.pos, tile.rot = pos, rot
        self.grid[pos] = tile
        self._topology += 1
        self._engine.moved(tile)
        self._engine.wake(tile)

    def _unplace(self, tile: Tile) -> None:
        assert tile.pos is not None
        del self.grid[tile.pos]
        tile.pos = None
        self._topology += 1
        self._engine.moved(tile)

    def _neighbour_tiles_at(self, pos: Pos) -> list[Tile]:
        out = []
        for dq, dr in DIRECTIONS:
            n = self.grid.get((pos[0] + dq, pos[1] + dr))
            if n is not None:
                out.append(n)
        return out

    def neighbour(self, tile: Tile, face: int) -> tuple[Tile, int] | None:
        """The tile touching `face` of `tile`, and its face that touches back."""
        if tile.links_at != self._topology:
            tile.links = [self._find_neighbour(tile, f) for f in range(FACE_COUNT)]
            tile.links_at = self._topology
        return tile.links[face]

    def _find_neighbour(self, tile: Tile, face: int) -> tuple[Tile, int] | None:
        if tile.pos is None:
            return None
        dq, dr = DIRECTIONS[(face + tile.rot) % 6]
        n = self.grid.get((tile.pos[0] + dq, tile.pos[1] + dr))
        if n is None:
            return None
        return n, facing_face(face, tile.rot, n.rot)

    # -------------------------------------------------- a hand on the world
    def set_faults(self, faults: Faults) -> None:
        """Change the faults from now on (the browser simulator's fault panel, the scenario step
        `faults`). Drop and jitter apply to the next packets, drawn on the same fault stream; a
        new skew redraws the clock rate of every tile whose clock error was not given, from the
        same seeded draw scaled to the new range, its local time going on without a jump.
        Every tile wakes, and nothing sleeps while packets may be lost."""
        self._engine.set_faults(faults)
        old = self.faults
        self.faults = faults
        if faults.skew != old.skew:
            for tile in self.tiles:
                if tile.index in self._given_ppm:
                    continue
                rng = random.Random(f"{self.seed}:tile:{tile.name}")
                skew = faults.skew
                ppm = round(rng.uniform(-skew, skew) * 1_000_000) if skew else 0
                old_clock = tile.clock
                clock = Clock(ppm=ppm, frame_phase=old_clock.frame_phase)
                clock.offset = old_clock.local_us(self.now) - clock.local_us(self.now)
                tile.clock = clock
                self._engine.moved(tile)
        for tile in self.tiles:
            self._engine.wake(tile)

    def has_event_at(self, at_ms: float) -> bool:
        """True if an event is queued for exactly this world time. A call scheduled now for that
        time would run after it, where the same call scheduled earlier (a scenario applied at the
        start) runs before it: a live front end picks another time to stay replayable."""
        return self._engine.has_event_at(round(at_ms * 1000))

    def cut(self, name: str, face: int, ms: float) -> None:
        """Lose every packet that leaves `face` of the tile for the next `ms` (one direction of
        one link: the explorer's asymmetric failures). Nothing sleeps from then on."""
        tile = self.tile(name)
        if not 0 <= face < FACE_COUNT:
            raise WorldError(f"a face is 0..5, not {face}")
        self._engine.cut(tile, face, self.now + round(ms * 1000))
        for t in self.tiles:
            self._engine.wake(t)

    def touch(self, name: str) -> None:
        """Something changed inside the tile's program from outside a pass (the explorer made
        its game send a message): it runs its loop again instead of sleeping through it, and
        what the call wrote to its api (a bounce handler's colours, a draw) holds."""
        tile = self.tile(name)
        self._engine.wake(tile)
        tile.quiet_until = None
        tile.loop_inputs = None
        self._engine.written(tile)

    def stall(self, name: str, ms: float) -> None:
        """Keep the tile's CPU busy `ms` longer in its next pass (it transmits that much later)."""
        self._engine.stall(self.tile(name), max(0, round(ms)))

    # ---------------------------------------------------------------- button
    def button(self, name: str, down: bool, at_ms: float | None = None) -> None:
        """Change the raw button contact of a tile, now or at a later world time."""
        try:
            self._button(name, down, at_ms)
        finally:
            self._engine.refresh()

    def _button(self, name: str, down: bool, at_ms: float | None) -> None:
        tile = self.tile(name)
        when = self.now if at_ms is None else int(at_ms * 1000)
        if when < self.now:
            raise WorldError("cannot press a button in the past")
        if when > self.now:
            self.call_at(at_ms, lambda: self.button(name, down))  # type: ignore[arg-type]
            return
        if tile.stuck is not None:  # blinklib reads the button between passes: never again
            self.record(tile, "contact", {"down": down})
            return
        self._wake_around(tile)
        tile.contact_seq += 1
        if tile.seed_role is not None:  # the BIOS is sharing a game: the button is not read
            self.record(tile, "contact", {"down": down})
            if tile.seed_role == "hold" and not down:
                self.seed_mode.release(tile)
            return
        if tile.asleep:
            self.record(tile, "contact", {"down": down})
            if down:  # a press wakes a sleeping tile, and it wakes its neighbours
                self._warm_wake_group(tile)
                self._engine.contact(tile, tile.clock.millis(self.now), down)
            return  # a release while asleep: the BIOS forgot the hold when it slept
        self._engine.contact(tile, tile.clock.millis(self.now), down)
        self.record(tile, "contact", {"down": down})
        if down:
            self._schedule_hold_check(tile, tile.contact_seq,
                                      tile.clock.millis(self.now) + SLEEP_HOLD_MS)
            self.seed_mode.schedule_check(tile, tile.contact_seq,
                                          tile.clock.millis(self.now) + LONG_LONG_PRESS_MS)

    # ------------------------------------------------------------- warm sleep
    # blinklib's warm sleep (docs/native.md#sleep-and-wake): after 10 minutes without a button
    # press, or on the 6 s hold, a tile fades out, sends "sleep" to its neighbours (so the
    # whole cluster it touches sleeps), and waits, LEDs off and silent, until its button is
    # pressed or a packet other than "sleep" comes in; then it wakes its neighbours, millis()
    # goes on from where it stopped, and hasWoken() reports it once. The checks are internal
    # scheduled calls, so both world engines run them in Python, at the same moments.
    def _call_internal(self, t: int, fn: Callable[[], None]) -> None:
        fn.internal = True  # type: ignore[attr-defined]  # not a scenario's: quiet ignores it
        self._engine.call_at(max(t, self.now), fn)

    def _warm_deadline(self, tile: Tile) -> int:
        """The local ms after which the tile's warm-sleep timer has run out."""
        base = tile.sleep_base_ms
        if tile.viral_lockout_until >= 0:  # a press (own or viral) reset it then
            base = max(base, tile.viral_lockout_until - VIRAL_LOCKOUT_MS)
        return base + WARM_SLEEP_TIMEOUT_MS

    def _schedule_sleep_check(self, tile: Tile) -> None:
        tile.sleep_gen += 1
        gen = tile.sleep_gen
        due = self._warm_deadline(tile) + 1  # Timer::isExpired: strictly after
        self._call_internal(tile.clock.world_at_millis(due), lambda: self._sleep_check(tile, gen))

    def _sleep_check(self, tile: Tile, gen: int) -> None:
        if gen != tile.sleep_gen or tile.asleep or tile.seed_role is not None or tile.stuck:
            return  # (blinklib checks its timer after loop() returns: a frozen tile never)
        if tile.clock.millis(self.now) > self._warm_deadline(tile):
            self._warm_sleep_group(tile, "timeout")
        else:
            self._schedule_sleep_check(tile)

    def _schedule_hold_check(self, tile: Tile, seq: int, due_ms: int) -> None:
        self._call_internal(tile.clock.world_at_millis(due_ms),
                            lambda: self._hold_check(tile, seq))

    def _hold_check(self, tile: Tile, seq: int) -> None:
        """The button went down (contact `seq`) 6 s ago: asleep once the BIOS saw the 6 s mark."""
        if seq != tile.contact_seq or tile.asleep or tile.seed_role is not None or tile.stuck:
            return
        if tile.button.marks_fired & 4:  # the 6 s mark (button.py's "sleep")
            self._warm_sleep_group(tile, "hold")
        elif tile.button.down or tile.button.raw:  # not seen yet: look again a frame later
            self._schedule_hold_check(tile, seq, tile.clock.millis(self.now) + 8)

    def _warm_sleep_group(self, tile: Tile, why: str) -> None:
        """The tile sleeps, and so does every tile it touches, and every tile they touch."""
        todo = [tile]
        while todo:
            t = todo.pop()
            if t.asleep:
                continue
            self._warm_sleep(t, why if t is tile else "neighbour")
            # A tile sharing a game runs the BIOS's loader, which takes no "sleep"; a frozen
            # one never reads its IR again.
            todo += [n for _, n, _ in self.neighbours_of(t)
                     if not n.asleep and n.seed_role is None and n.stuck is None]

    def _warm_sleep(self, tile: Tile, why: str) -> None:
        self._engine.wake(tile)  # out of the emulator's idle sleep first
        self._engine.refresh()
        tile.asleep = True
        tile.asleep_local_us = tile.clock.local_us(self.now)
        click_count = tile.button.click_count
        tile.button = ButtonModel()  # the BIOS clears its flags; a hold going on is forgotten
        tile.button.click_count = click_count
        self._engine.dormant(tile, True)
        self.record(tile, "warm-sleep", {"why": why})

    def _warm_wake_group(self, tile: Tile) -> None:
        """The tile wakes, and its wake packets wake the sleeping tiles it touches, and so on."""
        todo = [tile]
        while todo:
            t = todo.pop()
            if not t.asleep:
                continue
            self._warm_wake(t)
            todo += [n for _, n, _ in self.neighbours_of(t) if n.asleep]

    def _warm_wake(self, tile: Tile) -> None:
        self._engine.refresh()
        tile.asleep = False
        # millis() goes on from where it stopped (blinklib restores it).
        tile.clock.offset -= tile.clock.local_us(self.now) - tile.asleep_local_us
        tile.sleep_base_ms = tile.clock.millis(self.now)  # reset_warm_sleep_timer()
        tile.api.woken = True  # hasWoken(), once
        self._engine.dormant(tile, False)
        self.record(tile, "warm-wake", {})
        self._schedule_sleep_check(tile)

    def _wake_sleepers_beside(self, tile: Tile) -> None:
        """An awake tile put beside sleeping ones wakes them (its packets are not "sleep");
        a sleeping tile put beside awake ones is woken by theirs."""
        if tile.pos is None:
            return
        # A frozen tile sends nothing: it wakes no one.
        near = [n for _, n, _ in self.neighbours_of(tile) if n.stuck is None]
        if tile.asleep and any(not n.asleep for n in near):
            self._warm_wake_group(tile)
        elif not tile.asleep and tile.stuck is None:
            for n in near:
                if n.asleep:
                    self._warm_wake_group(n)

    def _wake_around(self, tile: Tile) -> None:
        self._engine.wake(tile)
        if tile.pos is not None:
            for n in self._neighbour_tiles_at(tile.pos):
                self._engine.wake(n)

    # ------------------------------------------------------------------ running
    def call_at(self, at_ms: float, fn: Callable[[], None]) -> None:
        """Run `fn` when world time reaches `at_ms` (scenario actions use this)."""
        t = round(at_ms * 1000)
        if t < self.now:
            raise WorldError(f"cannot schedule at {at_ms} ms: it is already {self.now_ms} ms")
        self._engine.call_at(t, fn)

    @property
    def now_ms(self) -> float:
        return self.now / 1000

    def run_until(self, t_ms: float) -> None:
        """Advance world time to `t_ms`, processing everything before it."""
        budget = self._check_alive()
        self._engine.run_until(round(t_ms * 1000), budget)

    def run_for(self, ms: float) -> None:
        self.run_until(self.now_ms + ms)

    def lazy_mirrors(self) -> AbstractContextManager[None]:
        """A block of short runs that read only `calm()` between them (Engine.lazy_mirrors)."""
        return self._engine.lazy_mirrors()

    def calm(self, tile: Tile) -> Calm:
        """Whether the tile's last pass skipped loop() and its button is idle (Engine.calm)."""
        return self._engine.calm(tile)

    def _check_alive(self) -> float:
        """Refuse to run a dead world; the budget of a tile call (s) otherwise."""
        if self.dead is not None:
            raise WorldError(f"this world cannot run any more: {self.dead.splitlines()[0]}")
        return self._budget()

    def _budget(self) -> float:
        if self.tile_budget_s is not None:
            return self.tile_budget_s
        if self._env_budget is None:  # read once, when the world first runs
            self._env_budget = watchdog.budget_from_env()
        return self._env_budget

    def is_quiet(self) -> bool:
        """True when every tile is in its warm sleep or frozen: nothing changes until something
        touches them."""
        return all(t.asleep or t.stuck is not None for t in self.tiles)

    def run_until_quiet(self, timeout_ms: float = 60_000, step_ms: float = 50) -> bool:
        """Run until the world is quiet (or the timeout passes); True if quiet."""
        end = self.now_ms + timeout_ms
        while self.now_ms < end:
            if self.is_quiet() and not self._engine.pending_calls():
                return True
            self.run_for(step_ms)
        return self.is_quiet()

    # --------------------------------------------------------------- serial port
    def serial_input(self, name: str, data: bytes) -> None:
        """Send `data` into the tile's service port now: its sketch's Serial.read() gets it."""
        tile = self.tile(name)
        program = tile.program
        feed = getattr(program, "feed_serial", None) or getattr(
            getattr(program, "native", None), "feed_serial", None)
        if feed is None:
            raise WorldError(f"tile {name!r} runs {type(program).__name__}, which has no service "
                             "port: only sketches (.ino) read Serial")
        try:
            feed(bytes(data))
        except ValueError as e:  # ServicePortFull, from the native layer
            raise WorldError(str(e)) from None
        self.record(tile, "serial-in", {"text": bytes(data).decode("utf-8", "replace")})
        self.touch(name)

    # ------------------------------------------------------------------ views
    def colors(self, tile: Tile) -> list[int]:
        """What the tile's LEDs show now (an idle tile's animation is computed on demand)."""
        if tile.asleep:
            return [0] * FACE_COUNT  # LEDs off
        if tile.stuck is not None:  # what its last finished pass committed
            return list(tile.api.pixels)
        if tile.seed_role is not None:  # the BIOS's show, simplified (world/seed.py)
            return [Blinklib.GREEN if tile.seed_role == DOWNLOAD else Blinklib.BLUE] * FACE_COUNT
        hook = tile.display_hook
        if tile.skipped and hook is not None:
            self.evaluate(tile, hook)
        return list(tile.api.pixels)

    def evaluate(self, tile: Tile, fn: Callable[[Blinklib], Any]) -> Any:
        """Call fn(api) as if during a pass now (for displays and values of idle tiles)."""
        try:
            if tile.stuck is not None:
                raise WorldError(frozen_message(tile.stuck))
            api = tile.api
            saved = api.now, list(api.expire_time)
            api.now = tile.clock.millis(self.now)
            budget = self._budget()
            armed = watchdog.arm(self, budget)
            try:
                return fn(api)
            except TileOverrun as e:  # e.g. a display hook that does not return
                raise self.hang(e, budget, tile) from None
            finally:
                if armed:
                    watchdog.disarm()
                api.now, api.expire_time[:] = saved
        finally:
            self._engine.written(tile)  # the hook ran the tile's program against its api

    def neighbours_of(self, tile: Tile) -> list[tuple[int, Tile, int]]:
        out = []
        for f in range(FACE_COUNT):
            link = self.neighbour(tile, f)
            if link is not None:
                out.append((f, link[0], link[1]))
        return out

    def snapshot(self) -> list[dict]:
        """The state of every tile, for `--json` and tests."""
        out = []
        for t in self.tiles:
            api = t.api
            now = t.clock.millis(self.now)
            out.append({
                "name": t.name,
                "pos": list(t.pos) if t.pos is not None else None,
                "rot": t.rot,
                "millis": now,
                "colors": self.colors(t),
                "sent": list(api.out_value),
                "received": list(api.in_value),
                "expired": [e < api.now for e in api.expire_time],
                "state": t.program_state(),
            })
            if t.asleep:  # only a sleeping tile has the key
                out[-1]["asleep"] = True
            if t.seed_role is not None:  # only a tile sharing a game: "hold", "root", "download"
                out[-1]["seed"] = t.seed_role
            if t.serial_out:  # only a tile that wrote to its service port has the key
                out[-1]["serial"] = t.serial_text
            if t.stuck is not None:  # only a frozen tile: the line that reports it
                out[-1]["froze"] = t.stuck.line()
        return out

    # ------------------------------------------------------------- for engines
    # What an engine (engine.py) may call while it runs the world's events, besides
    # `neighbour`; the world itself uses them too.
    def record(self, tile: Tile | None, event: str, data: dict) -> None:
        """Write a trace record now (nothing without a trace)."""
        if self.trace is not None:
            self.trace.write(self.now, tile.name if tile else None, event, data)

    def record_pass(self, tile: Tile) -> None:
        """After a pass that ran loop(): the trace records of what changed (with a trace only)."""
        api = tile.api
        write = self.trace.write
        if api.out_value != tile.seen_out:
            tile.seen_out = list(api.out_value)
            write(self.now, tile.name, "sent", {"values": tile.seen_out})
        if api.in_value != tile.seen_in:
            tile.seen_in = list(api.in_value)
            write(self.now, tile.name, "received", {"values": tile.seen_in})
        expired = [e < api.now for e in api.expire_time]
        if expired != tile.seen_expired:
            tile.seen_expired = expired
            write(self.now, tile.name, "expired", {"faces": expired})
        if api.pixels != tile.seen_pixels:
            tile.seen_pixels = list(api.pixels)
            write(self.now, tile.name, "colors", {"colors": tile.seen_pixels})
        if tile.state_hook is not None:
            state = tile.program_state()
            if state != tile.seen_state:
                tile.seen_state = state
                write(self.now, tile.name, "state", state)

    def take_serial(self, tile: Tile) -> None:
        """Collect what the tile's loop() (and setup()) wrote to its service port
        (`tile.serial_hook`, which is not None)."""
        text = tile.serial_hook()
        if text:
            self.printed(tile, text)

    def printed(self, tile: Tile, text: bytes) -> None:
        """The tile wrote `text` to its service port now."""
        tile.serial_out += text
        if self.trace is not None:
            self.record(tile, "serial", {"text": text.decode("utf-8", "replace")})

    def froze(self, tile: Tile, freeze: Freeze) -> None:
        """The tile's loop() never returned; the engine has stopped its events for good."""
        tile.stuck = freeze
        self.freezes.append(freeze)
        self.record(tile, "froze", {"call": "loop"})

    def hang(self, e: TileOverrun, budget: float, tile: Tile | None = None) -> TileHangError:
        """The error for a tile stopped inside its code; from now on the world is dead."""
        tile = tile or e.tile or watchdog.tile_in_traceback(e.__traceback__)
        message = watchdog.hang_message(tile, e.what, budget, self.now_ms, e.interrupted, e.seconds)
        self.dead = message
        return TileHangError(message)

    def live_links(self, tile: Tile) -> list[tuple[int, Tile]]:
        """(face, neighbour) for every face touching a tile that is not frozen (a frozen one
        sends nothing: its links are as good as gone)."""
        out = []
        for f in range(FACE_COUNT):
            link = self.neighbour(tile, f)
            if link is not None and link[0].stuck is None:
                out.append((f, link[0]))
        return out


watchdog.tile_callers(World.evaluate)
