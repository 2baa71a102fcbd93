"""The emulated world: Blinks on a hex lattice, talking over IR, pass by pass.

The world plays the BIOS and the physics for every tile; each tile's
blinklib state lives in its `Blinklib` object and its game in its program.
One pass of a tile follows blinklib's `run()`:

    millis frozen → button snapshot → receive (latch) → loop() →
    wait for the display frame → transmit (the CPU blocks for each packet)

so a pass that transmits stretches past its ~7.7 ms frame. Packets fly
between touching faces with their real air time; a face answers a received
packet on its next transmit slot (ping-pong) and probes every 150 + f ms
otherwise; a face with nothing received for more than 200 ms is expired.

Everything is driven by one event queue in integer microseconds, and every
random choice comes from the seed, so a run is reproducible.

Idle skipping (docs/emulator.md): a program may declare `quiet_until`, the
time until which loop() changes nothing while its inputs stay the same. Such
a tile skips loop() while its inputs are unchanged, and *sleeps* (no events
at all) once every link is settled both ways; awake neighbours' repeats of an
unchanged value to a sleeper are absorbed, and it wakes when a value toward
it changes, when an action touches it, or takes a single pass at its
deadline. Nothing sleeps when packets may be lost (a link could expire, and
every packet draws on the fault stream), but loops are still skipped.

A loop() that does not return within its budget freezes its tile, as on a
real tile, and the world runs on without it (freeze.py); any other call into
a tile's code that does not return stops the run with a TileHangError, and
the world cannot continue (watchdog.py).
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..runtime.api import (
    BUTTON_EVENT_NAMES,
    BUTTON_PRESSED,
    FACE_COUNT,
    RX_EXPIRE_TIME_MS,
    START_STATE_DOWNLOAD_SUCCESS,
    START_STATE_POWER_UP,
    START_STATE_WE_ARE_ROOT,
    TX_PROBE_TIME_MS,
    Blinklib,
)
from ..runtime.timer import NEVER as TIMER_NEVER
from . import watchdog
from .button import LONG_LONG_PRESS_MS, ButtonModel
from .clock import FRAME_US, Clock
from .freeze import Freeze, freeze_of, frozen_message
from .geometry import DIRECTIONS, Pos, facing_face
from .ir import (
    DATAGRAM_MARKER,
    ENCODED,
    SYNC_US,
    VALUE_AIR_US,
    datagram_air_us,
    encode_value_byte,
)
from .seed import DOWNLOAD, SeedMode
from .splitmix import SplitMix64
from .tile import Incoming, Packet, Tile
from .watchdog import TileOverrun

VIRAL_LOCKOUT_MS = 2000
#: blinklib warm-sleeps a tile this long after the last button press (its own or, spread
#: by the viral flag, a neighbour's).
WARM_SLEEP_TIMEOUT_MS = 10 * 60 * 1000
#: ... and when its button is held this long (the BIOS's 6-second flag).
SLEEP_HOLD_MS = 6000
START_STATES = (START_STATE_POWER_UP, START_STATE_WE_ARE_ROOT, START_STATE_DOWNLOAD_SUCCESS)
#: Local millis at which a freshly powered tile first runs (BIOS start-up).
BOOT_MS = 40

_PASS, _TX, _ARRIVE, _CALL, _DEADLINE = range(5)


class WorldError(Exception):
    """A request the world cannot carry out (unknown tile, occupied place, ...)."""


class TileHangError(WorldError):
    """A tile's setup() or an emulator hook did not return within its budget (or a call was
    stopped by Ctrl-C while stuck): the run stopped, and the world cannot continue. (A loop()
    that does not return freezes its tile instead: World.freezes.)"""


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


class World(SeedMode):
    """A cluster of emulated Blinks."""

    #: CPU seconds one call into a tile's code may take before the run is stopped
    #: (None: $BLINKC_TILE_BUDGET, else 2 s; 0: no limit). See watchdog.py.
    tile_budget_s: float | None = None
    #: Why the world cannot run any more (a tile was stopped inside its code), or None.
    dead: str | None = None
    _env_budget: float | None = None

    def __init__(self, seed: int = 0, faults: Faults | None = None, trace: Any = None,
                 idle_skip: bool = True) -> None:
        self.seed = seed
        self.faults = faults or Faults()
        self.trace = trace
        self.now = 0  # world time, µs
        self.tiles: list[Tile] = []
        self.by_name: dict[str, Tile] = {}
        self.grid: dict[Pos, Tile] = {}
        self._queue: list[tuple] = []
        self._seq = 0
        #: Bumped whenever a tile is placed or lifted: cached links and groups go stale.
        self._topology = 0
        self._fault_rng = SplitMix64.from_text(f"{seed}:faults")
        self._drop = self.faults.drop
        self._jitter_us = int(self.faults.jitter_ms * 1000)
        self.idle_skip = idle_skip
        #: (tile index, face) -> world time (µs) until which packets leaving that face are lost.
        self._cuts: dict[tuple[int, int], int] = {}
        #: Sleeping stops a tile's packets, and with them their fault draws: only without loss.
        self._may_sleep = self._drop == 0.0
        #: Indices of the tiles whose clock error was given (not drawn within the skew).
        self._given_ppm: set[int] = set()
        self._seed_init()
        #: The tiles that froze (their loop() never returned), in the order they did.
        self.freezes: list[Freeze] = []
        self.stats = {"passes": 0, "skipped": 0, "solo": 0, "packets": 0, "absorbed": 0,
                      "dropped": 0, "collisions": 0, "sleeps": 0}

    # ------------------------------------------------------------------ tiles
    def add_tile(self, name: str, program: Any, pos: Pos | None = None, rot: int = 0,
                 api: Blinklib | None = None, ppm: int | None = None,
                 phase_us: int | None = None, start_state: int | None = None) -> Tile:
        """Power up a new tile now, placed at `pos` (or held in the hand if None).

        `ppm` and `phase_us` set the tile's clock error and the phase of its display
        frames (by default both are drawn from the seed, within Faults.skew);
        `start_state` what its startState() reports (START_STATE_*, by default power-up)."""
        if start_state is not None and start_state not in START_STATES:
            raise WorldError(f"a start state is 0 (power-up), 1 (we are root) or 2 (download "
                             f"success), not {start_state!r}")
        tile = self._new_tile(name, program, api, ppm, phase_us)
        if start_state is not None:
            tile.api.start_state = start_state
        self.tiles.append(tile)
        self._topology += 1
        self.by_name[name] = tile
        self._joined(tile)
        if pos is not None:
            self._place(tile, pos, rot)
        self._schedule(self.now, _PASS, tile)
        self._record(tile, "power", {"pos": list(pos) if pos else None, "rot": rot})
        tile.sleep_base_ms = tile.clock.millis(self.now)
        self._schedule_sleep_check(tile)
        if pos is not None:
            self._wake_sleepers_beside(tile)
            self._after_move()
        return tile

    def set_start_state(self, name: str, start_state: int) -> None:
        """What the tile's startState() reports from now on (START_STATE_*). On a tile it is set
        once, at start-up; a harness sets it here, never on `tile.api` directly (in the C++
        world core the api object is a mirror, and writing it changes nothing)."""
        if start_state not in START_STATES:
            raise WorldError(f"a start state is 0 (power-up), 1 (we are root) or 2 (download "
                             f"success), not {start_state!r}")
        self.tile(name).api.start_state = start_state

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
        phase = rng.randrange(FRAME_US)
        clock = Clock(ppm=drawn if ppm is None else ppm,
                      frame_phase=phase if phase_us is None else phase_us)
        ppm = clock.ppm
        # Local time reads BOOT_MS (plus up to a frame) when the tile powers up now.
        boot_local = BOOT_MS * 1000 + rng.randrange(FRAME_US)
        clock.offset = boot_local - self.now * (1_000_000 + ppm) // 1_000_000
        if api is None:
            api = Blinklib(entropy=rng.getrandbits(32), serial=rng.randbytes(9))
        if ppm_given:
            self._given_ppm.add(len(self.tiles))
        return Tile(len(self.tiles), name, program, api, clock)

    # Hooks for a world whose event core runs elsewhere (blinkc.native.world.NativeWorld):
    # a tile joined, a tile moved (placed, lifted or turned), a button contact changed.
    def _joined(self, tile: Tile) -> None:
        pass

    def _moved(self, tile: Tile) -> None:
        pass

    def _contact(self, tile: Tile, t_ms: int, down: bool) -> None:
        tile.button.push(t_ms, down)

    def tile(self, name: str) -> Tile:
        try:
            return self.by_name[name]
        except KeyError:
            raise WorldError(f"no tile named {name!r}") from None

    def place(self, name: str, pos: Pos, rot: int | None = None) -> None:
        """Put a tile (held or placed elsewhere) down at `pos`."""
        tile = self.tile(name)
        self._wake_around(tile)
        if tile.pos is not None:
            self._unplace(tile)
        self._place(tile, pos, tile.rot if rot is None else rot)
        self._record(tile, "place", {"pos": list(pos), "rot": tile.rot})
        self._wake_sleepers_beside(tile)
        self._after_move()

    def _after_move(self) -> None:
        if self._sessions:  # a tile now touching a seeding one takes the game
            self._seed_spread()

    def lift(self, name: str) -> None:
        """Pick a tile up off the lattice; it keeps running, alone."""
        tile = self.tile(name)
        if tile.pos is None:
            return
        self._wake_around(tile)
        self._unplace(tile)
        self._record(tile, "lift", {})

    def rotate(self, name: str, rot: int) -> None:
        tile = self.tile(name)
        if not 0 <= rot < 6:
            raise WorldError(f"rotation must be 0..5, not {rot}")
        if tile.pos is None:
            tile.rot = rot
            self._moved(tile)
            return
        self.place(name, tile.pos, rot)

    def _place(self, tile: Tile, pos: Pos, rot: int) -> None:
        if not 0 <= rot < 6:
            raise WorldError(f"rotation must be 0..5, not {rot}")
        other = self.grid.get(pos)
        if other is not None and other is not tile:
            raise WorldError(f"place {pos} is taken by tile {other.name!r}")
        for n in self._neighbour_tiles_at(pos):
            self._wake(n)
        tile.pos, tile.rot = pos, rot
        self.grid[pos] = tile
        self._topology += 1
        self._moved(tile)
        self._wake(tile)

    def _unplace(self, tile: Tile) -> None:
        assert tile.pos is not None
        del self.grid[tile.pos]
        tile.pos = None
        self._topology += 1
        self._moved(tile)

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
        old = self.faults
        self.faults = faults
        self._drop = faults.drop
        self._jitter_us = int(faults.jitter_ms * 1000)
        self._may_sleep = self._drop == 0.0 and not self._cuts
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
                self._moved(tile)
        for tile in self.tiles:
            self._wake(tile)

    def has_event_at(self, at_ms: float) -> bool:
        """True if an event is queued for exactly this world time. A call scheduled now for that
        time would run after it, where the same call scheduled earlier (a scenario applied at the
        start) runs before it: a live front end picks another time to stay replayable."""
        t = round(at_ms * 1000)
        return any(item[0] == t for item in self._queue)

    def cut(self, name: str, face: int, ms: float) -> None:
        """Lose every packet that leaves `face` of the tile for the next `ms` (one direction of
        one link: the explorer's asymmetric failures). Nothing sleeps from then on."""
        tile = self.tile(name)
        if not 0 <= face < FACE_COUNT:
            raise WorldError(f"a face is 0..5, not {face}")
        self._cuts[(tile.index, face)] = self.now + round(ms * 1000)
        self._may_sleep = False
        for t in self.tiles:
            self._wake(t)

    def touch(self, name: str) -> None:
        """Something changed inside the tile's program from outside a pass (the explorer made
        its game send a message): it runs its loop again instead of sleeping through it."""
        tile = self.tile(name)
        self._wake(tile)
        tile.quiet_until = None
        tile.loop_inputs = None

    def stall(self, name: str, ms: float) -> None:
        """Keep the tile's CPU busy `ms` longer in its next pass (it transmits that much later)."""
        tile = self.tile(name)
        self._wake(tile)
        tile.api.extra_cpu_ms += max(0, round(ms))

    # ---------------------------------------------------------------- button
    def button(self, name: str, down: bool, at_ms: float | None = None) -> None:
        """Change the raw button contact of a tile, now or at a later world time."""
        tile = self.tile(name)
        when = self.now if at_ms is None else int(at_ms * 1000)
        if when < self.now:
            raise WorldError("cannot press a button in the past")
        if when > self.now:
            self.call_at(at_ms, lambda: self.button(name, down))  # type: ignore[arg-type]
            return
        if tile.stuck is not None:  # blinklib reads the button between passes: never again
            self._record(tile, "contact", {"down": down})
            return
        self._wake_around(tile)
        tile.contact_seq += 1
        if tile.seed_role is not None:  # the BIOS is sharing a game: the button is not read
            self._record(tile, "contact", {"down": down})
            if tile.seed_role == "hold" and not down:
                self._seed_release(tile)
            return
        if tile.asleep:
            self._record(tile, "contact", {"down": down})
            if down:  # a press wakes a sleeping tile, and it wakes its neighbours
                self._warm_wake_group(tile)
                self._contact(tile, tile.clock.millis(self.now), down)
            return  # a release while asleep: the BIOS forgot the hold when it slept
        self._contact(tile, tile.clock.millis(self.now), down)
        self._record(tile, "contact", {"down": down})
        if down:
            self._schedule_hold_check(tile, tile.contact_seq,
                                      tile.clock.millis(self.now) + SLEEP_HOLD_MS)
            self._schedule_seed_check(tile, tile.contact_seq,
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
        self._schedule(max(t, self.now), _CALL, None, fn)

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
        if tile.button._long_fired & 4:  # the 6 s mark (button.py's "sleep")
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
        self._wake(tile)  # out of the emulator's idle sleep first
        self._fresh_mirrors()
        tile.asleep = True
        tile.asleep_local_us = tile.clock.local_us(self.now)
        click_count = tile.button.click_count
        tile.button = ButtonModel()  # the BIOS clears its flags; a hold going on is forgotten
        tile.button.click_count = click_count
        self._dormant(tile, True)
        self._record(tile, "warm-sleep", {"why": why})

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
        self._fresh_mirrors()
        tile.asleep = False
        # millis() goes on from where it stopped (blinklib restores it).
        tile.clock.offset -= tile.clock.local_us(self.now) - tile.asleep_local_us
        tile.sleep_base_ms = tile.clock.millis(self.now)  # reset_warm_sleep_timer()
        tile.api.woken = True  # hasWoken(), once
        self._dormant(tile, False)
        self._record(tile, "warm-wake", {})
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

    def _fresh_mirrors(self) -> None:
        """(In a world whose events run elsewhere: bring the Python objects up to date.)"""

    def _dormant(self, tile: Tile, asleep: bool) -> None:
        """Stop (or restart) a tile's events: nothing of it runs while it warm-sleeps."""
        tile.epoch += 1
        tile.incoming = [None] * FACE_COUNT
        tile.rx_buf = [None] * FACE_COUNT
        tile.quiet_until = None
        tile.loop_inputs = None
        if not asleep:
            self._schedule(tile.clock.next_frame(self.now), _PASS, tile)

    # ------------------------------------------------------------- scheduling
    def _schedule(self, t: int, kind: int, tile: Tile | None, data: Any = None) -> None:
        self._seq += 1
        epoch = tile.epoch if tile is not None else 0
        heapq.heappush(self._queue, (t, self._seq, kind, tile, epoch, data))

    def call_at(self, at_ms: float, fn: Callable[[], None]) -> None:
        """Run `fn` when world time reaches `at_ms` (scenario actions use this)."""
        t = round(at_ms * 1000)
        if t < self.now:
            raise WorldError(f"cannot schedule at {at_ms} ms: it is already {self.now_ms} ms")
        self._schedule(t, _CALL, None, fn)

    @property
    def now_ms(self) -> float:
        return self.now / 1000

    def run_until(self, t_ms: float) -> None:
        """Advance world time to `t_ms`, processing everything before it."""
        budget = self._check_alive()
        armed = watchdog.arm(self, budget)
        try:
            self._run_events(t_ms)
        except TileOverrun as e:
            raise self._hang(e, budget) from None
        except KeyboardInterrupt as e:  # Ctrl-C; if it stopped a stuck native tile, it is dead
            overrun = getattr(e, "tile_overrun", None)
            if overrun is not None:
                self._hang(overrun, budget, watchdog.tile_in_traceback(e.__traceback__))
            raise
        finally:
            if armed:
                watchdog.disarm()

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

    def _hang(self, e: TileOverrun, budget: float, tile: Tile | None = None) -> TileHangError:
        """The error for a tile stopped inside its code; from now on the world is dead."""
        tile = tile or e.tile or watchdog.tile_in_traceback(e.__traceback__)
        message = watchdog.hang_message(tile, e.what, budget, self.now_ms, e.interrupted, e.seconds)
        self.dead = message
        return TileHangError(message)

    def _run_events(self, t_ms: float) -> None:
        end = round(t_ms * 1000)
        q = self._queue
        pop = heapq.heappop
        while q and q[0][0] <= end:
            t, _, kind, tile, epoch, data = pop(q)
            if tile is not None and epoch != tile.epoch:
                continue
            self.now = t
            if kind == _PASS:
                self._pass(tile)
            elif kind == _TX:
                self._transmit(tile, data or 0)
            elif kind == _ARRIVE:
                self._arrive(tile, data)
            elif kind == _CALL:
                data()
            else:
                self._deadline(tile)
        if end > self.now:
            self.now = end

    def run_for(self, ms: float) -> None:
        self.run_until(self.now_ms + ms)

    # ------------------------------------------------------------------ passes
    def _pass(self, tile: Tile) -> None:
        api = tile.api
        clock = tile.clock
        now = clock.millis(self.now)
        api.now = now
        program = tile.program
        if not tile.started:
            tile.started = True
            program.setup(api)
        self._button_snapshot(tile, now)
        # Receive: latch what the BIOS buffered on each face.
        rx = tile.rx_buf
        for f in range(FACE_COUNT):
            pkt = rx[f]
            if pkt is None:
                continue
            rx[f] = None
            api.expire_time[f] = now + RX_EXPIRE_TIME_MS
            api.send_time[f] = 0  # answer at once: ping-pong
            if pkt.byte0 & 0x40:
                self._viral_postpone(tile, now)
            if pkt.datagram is None:
                api.in_value[f] = pkt.byte0 & 0x3F
            elif api.in_datagram[f] is None:
                api.in_datagram[f] = pkt.datagram
        if tile.sleeping_neighbours:
            for f in range(FACE_COUNT):
                link = self.neighbour(tile, f)
                if link is not None and link[0].frozen:
                    # A sleeping neighbour's link is settled: as good as a pong just received.
                    api.expire_time[f] = now + RX_EXPIRE_TIME_MS
        tile.passes += 1
        self.stats["passes"] += 1
        if (self.idle_skip and tile.quiet_until is not None and now < tile.quiet_until
                and tile.loop_inputs == self._loop_inputs(tile, now)):
            # The program said loop() changes nothing while its inputs stay as they were.
            tile.skipped = True
            self.stats["skipped"] += 1
            if self._may_sleep and self._inputs_steady(tile, now):
                self._sleep(tile)
                return
            self._schedule(clock.next_frame(self.now + 1), _TX, tile)
            return
        tile.skipped = False
        sent = list(api.out_value)
        shown = list(api.pixels)
        try:
            program.loop(api)
        except TileOverrun as e:
            self._freeze(tile, e, sent, shown, first=tile.passes == 1)
            return
        if tile._serial_hook is not None:
            self._take_serial(tile)
        if self.idle_skip and tile.sleeping_neighbours:
            self._wake_listeners(tile, sent)
        if self.trace is not None:
            self._trace_pass(tile)
        # Display: wait for the frame, then transmit.
        ready = self.now
        if api.extra_cpu_ms:
            ready += clock.local_duration_to_world(api.extra_cpu_ms * 1000)
            api.extra_cpu_ms = 0
        # loop() takes time, so the frame it waits for is strictly after the pass began.
        frame = clock.next_frame(ready + 1)
        if self.idle_skip:
            self._check_quiet(tile, now)
            if tile.frozen:
                return
        self._schedule(frame, _TX, tile)

    def _transmit(self, tile: Tile, first_face: int = 0) -> None:
        """Transmit on each face that is due, one packet at a time, from `first_face` on.

        The CPU is blocked while a packet is on the air, so the next face is
        handled (as its own event) only once the previous packet has gone:
        whether a face is receiving is judged at the moment it would send.
        """
        api = tile.api
        now = api.now
        send_time = api.send_time
        t = self.now
        for f in range(first_face, FACE_COUNT):
            if send_time[f] > now:
                continue
            inc = tile.incoming[f]
            if inc is not None and inc.start + SYNC_US <= t < inc.end:
                continue  # a packet is coming in on this face: try again next pass
            viral = bool(tile.viral_faces >> f & 1)
            dgram = api.out_datagram[f]
            if dgram is not None:
                byte0 = encode_value_byte(DATAGRAM_MARKER, viral)
                air = datagram_air_us(dgram, viral)
            else:
                byte0 = ENCODED[api.out_value[f] | (64 if viral else 0)]
                air = VALUE_AIR_US[byte0]
            air = tile.clock.local_duration_to_world(air)
            tile.tx_start[f] = t
            tile.tx_end[f] = t + air
            link = self.neighbour(tile, f)
            if link is not None and link[0].frozen:
                sleeper, sface = link
                if dgram is None and sleeper.api.in_value[sface] == api.out_value[f]:
                    self.stats["absorbed"] += 1  # it repeats what the sleeper already has
                else:
                    self._wake(sleeper)
                    self._launch(tile, f, t, Packet(byte0, dgram, air))
            else:
                self._launch(tile, f, t, Packet(byte0, dgram, air))
            send_time[f] = now + TX_PROBE_TIME_MS + f
            api.out_datagram[f] = None
            tile.viral_faces &= ~(1 << f)
            if f + 1 < FACE_COUNT:
                self._schedule(t + air, _TX, tile, f + 1)
            else:
                self._schedule(t + air, _PASS, tile)
            return
        self._schedule(t, _PASS, tile)

    def _launch(self, sender: Tile, face: int, start: int, pkt: Packet) -> None:
        self.stats["packets"] += 1
        link = self.neighbour(sender, face)
        if link is None:
            return
        receiver, rface = link
        if receiver.asleep or receiver.seed_role is not None or receiver.stuck is not None:
            # Asleep, it listens only for a wake, and awake tiles beside it woke it already;
            # sharing a game, the BIOS's loader runs and blinklib hears nothing; frozen, its
            # blinklib never reads what the BIOS received.
            return
        if self._cuts and self._cuts.get((sender.index, face), -1) > start:
            self.stats["dropped"] += 1
            self._record(sender, "drop", {"face": face, "cut": True})
            return
        if self._drop and self._fault_rng.chance(self._drop):
            self.stats["dropped"] += 1
            self._record(sender, "drop", {"face": face})
            return
        end = start + pkt.air_us
        if self._jitter_us:
            end += self._fault_rng.below(self._jitter_us + 1)
        inc = Incoming(start, end, pkt, sender.index, face)
        prev = receiver.incoming[rface]
        if prev is not None and prev.end > start:
            self.stats["collisions"] += 1  # two packets overlap on one receiver: both garbled
            receiver.incoming[rface] = None
            return
        receiver.incoming[rface] = inc
        self._schedule(end, _ARRIVE, receiver, (rface, inc))

    def _arrive(self, tile: Tile, data: tuple[int, Incoming]) -> None:
        face, inc = data
        if tile.incoming[face] is not inc:
            return  # garbled by a collision
        tile.incoming[face] = None
        sender = self.tiles[inc.sender]
        link = self.neighbour(sender, inc.sender_face)
        if link is None or link[0] is not tile or link[1] != face:
            return  # the tiles moved apart while the packet was in the air
        if tile.tx_start[face] < inc.end and tile.tx_end[face] > inc.start:
            self.stats["collisions"] += 1  # we were transmitting on this face: blinded
            return
        if tile.rx_buf[face] is None:
            tile.rx_buf[face] = inc.packet

    @staticmethod
    def _loop_inputs(tile: Tile, now: int) -> tuple:
        """What loop() reads from outside: if it is the same, a quiet program does the same."""
        api = tile.api
        return (tuple(api.in_value), tuple([e < now for e in api.expire_time]), api.button_flags,
                api.button_down, api.click_count, tuple(api.in_datagram))

    def _viral_postpone(self, tile: Tile, now: int) -> None:
        # blinklib spreads "a button was pressed" to every face, with a 2 s lockout.
        if now > tile.viral_lockout_until:
            tile.viral_lockout_until = now + VIRAL_LOCKOUT_MS
            tile.viral_faces = 0x3F

    # ------------------------------------------------------------ idle skipping
    def _check_quiet(self, tile: Tile, now: int) -> None:
        """After loop(): note how long the program stays quiet; put the tile to sleep if it can."""
        hook = tile._quiet_hook
        until = hook(tile.api) if hook is not None else None
        if until is not None and not tile.button.idle():
            # A pending click window or long press is a deadline, like a timer.
            until = min(until, tile.button.next_deadline())
        tile.quiet_until = until
        tile.loop_inputs = self._loop_inputs(tile, now) if until is not None else None
        if self._may_sleep and until is not None and until > now and self._inputs_steady(tile, now):
            self._sleep(tile)

    def _inputs_steady(self, tile: Tile, now: int) -> bool:
        """True when every link of the tile is settled both ways and nothing is pending."""
        api = tile.api
        if tile.button.raw or tile.button.flags or tile.viral_faces:
            return False
        for f in range(FACE_COUNT):
            if api.out_datagram[f] is not None:
                return False
            pkt = tile.rx_buf[f]
            # A buffered packet that repeats the latched value changes nothing but timing.
            if pkt is not None and (pkt.datagram is not None or pkt.byte0 & 0x3F != api.in_value[f]):
                return False
            link = self.neighbour(tile, f)
            expired = api.expire_time[f] < now
            if link is None or link[0].stuck is not None:  # a frozen tile is as good as none
                if not expired or tile.incoming[f] is not None:
                    return False
                continue
            n, nf = link
            napi = n.api
            if (expired or api.in_value[f] != napi.out_value[nf] or napi.out_datagram[nf]
                    or napi.in_value[nf] != api.out_value[f]):
                return False
            for inc, latched in ((tile.incoming[f], api.in_value[f]),
                                 (n.incoming[nf], napi.in_value[nf])):
                if inc is not None and (inc.packet.datagram is not None
                                        or inc.packet.byte0 & 0x3F != latched):
                    return False
            npkt = n.rx_buf[nf]
            if npkt is not None and (npkt.datagram is not None or npkt.byte0 & 0x3F != napi.in_value[nf]):
                return False
        return True

    def _sleep(self, tile: Tile) -> None:
        """Stop running an idle tile until a neighbour's value toward it changes or it is due."""
        tile.frozen = True
        tile.epoch += 1
        tile.incoming = [None] * FACE_COUNT
        self.stats["sleeps"] += 1
        for _, n in self._live_links(tile):
            n.sleeping_neighbours += 1
        self._schedule_deadline(tile)
        if self.trace is not None:
            self.trace.write(self.now, tile.name, "sleep", {})

    def _schedule_deadline(self, tile: Tile) -> None:
        if tile.quiet_until is not None and tile.quiet_until < TIMER_NEVER:
            wake = tile.clock.world_at_millis(tile.quiet_until)
            self._schedule(max(wake, self.now), _DEADLINE, tile, tile.epoch)

    def _deadline(self, tile: Tile) -> None:
        """A sleeping tile is due (a timer, a click window): it takes one pass where it sleeps,
        and wakes only if that pass changes something its neighbours could see."""
        if not tile.frozen:
            return
        if self._solo_pass(tile):
            tile.epoch += 1
            self._schedule_deadline(tile)
        else:
            self._wake(tile)

    def _wake_listeners(self, tile: Tile, sent: list[int]) -> None:
        """After a loop: wake each sleeping neighbour whose face value from us just changed."""
        api = tile.api
        for f in range(FACE_COUNT):
            if api.out_value[f] != sent[f] or api.out_datagram[f] is not None:
                link = self.neighbour(tile, f)
                if link is not None and link[0].frozen:
                    self._wake(link[0])
                    api.send_time[f] = 0  # tell it at the next transmit slot

    def _take_serial(self, tile: Tile) -> None:
        """Collect what the tile's loop() (and setup()) wrote to its service port."""
        text = tile._serial_hook()
        if text:
            self._serial(tile, text)

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
        self._record(tile, "serial-in", {"text": bytes(data).decode("utf-8", "replace")})
        self.touch(name)

    def _serial(self, tile: Tile, text: bytes) -> None:
        tile.serial_out += text
        if self.trace is not None:
            self._record(tile, "serial", {"text": text.decode("utf-8", "replace")})

    def _button_snapshot(self, tile: Tile, now: int) -> None:
        """blinklib's button snapshot: sticky flags OR-ed in, the current debounced state."""
        button = tile.button
        if not button.flags and button.idle():
            return
        api = tile.api
        for special in button.advance(now):
            self._record(tile, special, {})
        flags = button.take_flags()
        if flags:
            api.button_flags |= flags
            if flags & BUTTON_PRESSED:
                self._viral_postpone(tile, now)
            if self.trace is not None:
                names = [n for bit, n in BUTTON_EVENT_NAMES.items() if flags & bit]
                self._record(tile, "button", {"events": names})
        api.button_down = button.down
        api.click_count = button.click_count

    def _solo_pass(self, tile: Tile) -> bool:
        """Run one pass of a sleeping tile (its links settled, its inputs as they were).
        True if nothing its neighbours could see changed and it can sleep on."""
        api = tile.api
        now = tile.clock.millis(self.now)
        api.now = now
        self._links_alive(tile, now)
        sent = list(api.out_value)
        shown = list(api.pixels)
        button = tile.button
        self._button_snapshot(tile, now)
        try:
            tile.program.loop(api)
        except TileOverrun as e:
            self._freeze(tile, e, sent, shown, first=False)
            return False
        if tile._serial_hook is not None:
            self._take_serial(tile)
        tile.passes += 1
        self.stats["passes"] += 1
        self.stats["solo"] += 1
        if self.trace is not None:
            self._trace_pass(tile)
        hook = tile._quiet_hook
        until = hook(api) if hook is not None else None
        if until is not None and not button.idle():
            until = min(until, button.next_deadline())
        tile.quiet_until = until
        tile.loop_inputs = self._loop_inputs(tile, now) if until is not None else None
        return (until is not None and until > now and api.out_value == sent and not api.extra_cpu_ms
                and self._inputs_steady(tile, now))

    def _wake_around(self, tile: Tile) -> None:
        self._wake(tile)
        if tile.pos is not None:
            for n in self._neighbour_tiles_at(tile.pos):
                self._wake(n)

    def _wake(self, tile: Tile) -> None:
        """Resume a sleeping tile as if its links had ping-ponged all along."""
        if not tile.frozen:
            return
        tile.frozen = False
        tile.loop_inputs = None
        tile.epoch += 1
        now = tile.clock.millis(self.now)
        for f, n in self._links_alive(tile, now):
            n.sleeping_neighbours -= 1
            tile.api.send_time[f] = 0  # speak first: its neighbours may be asleep
        self._schedule(tile.clock.next_frame(self.now), _PASS, tile)
        if self.trace is not None:
            self.trace.write(self.now, tile.name, "wake", {})

    def _links_alive(self, tile: Tile, now: int) -> list[tuple[int, Tile]]:
        """Mark every face that touches a neighbour as just heard from; returns those faces."""
        out = self._live_links(tile)
        for f, _ in out:
            tile.api.expire_time[f] = now + RX_EXPIRE_TIME_MS
        return out

    def _live_links(self, tile: Tile) -> list[tuple[int, Tile]]:
        """(face, neighbour) for every face touching a tile that is not frozen (a frozen one
        sends nothing: its links are as good as gone)."""
        out = []
        for f in range(FACE_COUNT):
            link = self.neighbour(tile, f)
            if link is not None and link[0].stuck is None:
                out.append((f, link[0]))
        return out

    # ------------------------------------------------------------ frozen tiles
    def _freeze(self, tile: Tile, overrun: TileOverrun, sent: list[int], shown: list[int],
                first: bool) -> None:
        """loop() did not return within its budget: the tile freezes, as a real one does.

        blinklib commits a pass only after loop() returns, so what the stuck pass set is
        never shown or sent: the values and colours go back to those of the last finished
        pass (a native sketch never handed them over), and in the `first` pass, to none:
        setup()'s colours are shown only once the first loop() returns. What it printed
        was printed."""
        if overrun.interrupted:  # Ctrl-C stopped it, not the budget: the run stops
            raise overrun
        watchdog.rearm()
        api = tile.api
        api.out_value[:] = sent
        api.pixels[:] = [Blinklib.OFF] * FACE_COUNT if first else shown
        freeze = freeze_of(tile, "loop", self.now_ms, self._budget())
        if tile._serial_hook is not None:
            self._take_serial(tile)
        self._halt(tile)
        tile.stuck = freeze
        self.freezes.append(freeze)
        self._record(tile, "froze", {"call": "loop"})

    def _halt(self, tile: Tile) -> None:
        """Stop all of a tile's events for good; its neighbours must notice the silence."""
        if tile.frozen:  # it froze in a pass it took while the emulator let it sleep
            tile.frozen = False
            for _, n in self._live_links(tile):
                n.sleeping_neighbours -= 1
        tile.epoch += 1
        tile.incoming = [None] * FACE_COUNT
        tile.rx_buf = [None] * FACE_COUNT
        tile.quiet_until = None
        tile.loop_inputs = None
        for _, n in self._live_links(tile):
            self._wake(n)  # a sleeper takes its links as settled: it must run to see them expire

    def is_quiet(self) -> bool:
        """True when every tile sleeps: nothing changes until something touches them."""
        return all(t.frozen or t.asleep or t.stuck is not None for t in self.tiles)

    def run_until_quiet(self, timeout_ms: float = 60_000, step_ms: float = 50) -> bool:
        """Run until every tile is frozen (or the timeout passes); True if quiet."""
        end = self.now_ms + timeout_ms
        while self.now_ms < end:
            if self.is_quiet() and not self._pending_calls():
                return True
            self.run_for(step_ms)
        return self.is_quiet()

    def _pending_calls(self) -> bool:
        return any(item[2] == _CALL and not getattr(item[5], "internal", False)
                   for item in self._queue)

    # ------------------------------------------------------------------ views
    def colors(self, tile: Tile) -> list[int]:
        """What the tile's LEDs show now (an idle tile's animation is computed on demand)."""
        if tile.asleep:
            return [0] * FACE_COUNT  # LEDs off
        if tile.stuck is not None:  # what its last finished pass committed
            return list(tile.api.pixels)
        if tile.seed_role is not None:  # the BIOS's show, simplified (world/seed.py)
            return [Blinklib.GREEN if tile.seed_role == DOWNLOAD else Blinklib.BLUE] * FACE_COUNT
        hook = tile._display_hook
        if (tile.frozen or tile.skipped) and hook is not None:
            self.evaluate(tile, hook)
        return list(tile.api.pixels)

    def evaluate(self, tile: Tile, fn: Callable[[Blinklib], Any]) -> Any:
        """Call fn(api) as if during a pass now (for displays and values of idle tiles)."""
        if tile.stuck is not None:
            raise WorldError(frozen_message(tile.stuck))
        api = tile.api
        saved = api.now, list(api.expire_time)
        api.now = tile.clock.millis(self.now)
        if tile.frozen:
            self._links_alive(tile, api.now)  # a frozen group's links are alive by definition
        budget = self._budget()
        armed = watchdog.arm(self, budget)
        try:
            return fn(api)
        except TileOverrun as e:  # e.g. a display hook that does not return
            raise self._hang(e, budget, tile) from None
        finally:
            if armed:
                watchdog.disarm()
            api.now, api.expire_time[:] = saved

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

    # ----------------------------------------------------------------- traces
    def _record(self, tile: Tile | None, event: str, data: dict) -> None:
        if self.trace is not None:
            self.trace.write(self.now, tile.name if tile else None, event, data)

    def _trace_pass(self, tile: Tile) -> None:
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
        if tile._state_hook is not None:
            state = tile.program_state()
            if state != tile.seen_state:
                tile.seen_state = state
                write(self.now, tile.name, "state", state)



watchdog.tile_callers(World._pass, World._solo_pass, World._check_quiet, World.evaluate)
