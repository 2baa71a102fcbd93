"""`PythonEngine`: the reference world engine, the event loop in Python (engine.py).

One pass of a tile follows blinklib's `run()`:

    millis frozen → button snapshot → receive (latch) → loop() →
    wait for the display frame → transmit (the CPU blocks for each packet)

so a pass that transmits stretches past its ~7.7 ms frame. A send flashes its packet a
moment after it is asked for (or after the tile's previous packet's last flash) and returns
before the packet's closing syncs, as the BIOS does (infrared.py). Packets fly between touching
faces with their real air time; a face answers a received packet on its next transmit slot
(ping-pong) and probes every 150 + f ms otherwise; a face with nothing received for more
than 200 ms is expired.

Everything is driven by one event queue in integer microseconds, ordered by time and then by
the sequence number each event got when it was queued, and every random choice comes from
the seed (the fault stream is `SplitMix64` of "<seed>:faults"), so a run is reproducible.

Idle skipping (docs/emulator.md): a program may declare `quiet_until`, the time until which
loop() changes nothing while its inputs stay the same. Such a tile skips loop() while its
inputs are unchanged; its BIOS side (receiving, answering, probing) runs on at every pass,
so every packet flies when it would have had every loop run, and skipping changes nothing
a program can observe (tests/world/test_skipping_is_exact.py).

A loop() that does not return within its budget freezes its tile (freeze.py); any other call
into a tile's code that does not return stops the run (watchdog.py, World.hang).

`_pass`, `_launch` and `_arrive` are looked up on the engine at every event, so a test may
wrap them on one engine to watch passes and packets. Arrivals have a public observer, which
every engine honours (`Engine.add_arrival_observer`): the explorer's monitor watches with it.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

from ..blinklib.api import (
    BUTTON_EVENT_NAMES,
    BUTTON_PRESSED,
    FACE_COUNT,
    RX_EXPIRE_TIME_MS,
    TX_PROBE_TIME_MS,
    Blinklib,
)
from . import watchdog
from .button import VIRAL_LOCKOUT_MS
from .clock import MILLION, PASS_START_US, TX_AFTER_SEND_US, TX_CALL_US, TX_CHECK_US, Clock
from .engine import Arrival, Engine, Probe
from .freeze import freeze_of
from .infrared import (
    DATAGRAM_MARKER,
    ENCODED,
    SYNC_US,
    TX_GAP_US,
    TX_LEAD_US,
    VALUE_AIR_US,
    datagram_air_us,
    decoded_share,
    encode_value_byte,
    flashing_us,
    send_blocks_us,
)
from .splitmix import SplitMix64
from .tile import Incoming, Packet, Tile
from .watchdog import TileOverrun

if TYPE_CHECKING:
    from .world import Faults, World

#: The event kinds by name, in the numbering of the queue (and of the C++ core: its enum Kind
#: is checked against this by tests/world/test_engines_share_constants.py).
KINDS = ("pass", "transmit", "arrive", "call", "flash")
_PASS, _TX, _ARRIVE, _CALL, _FLASH = (
    KINDS.index(k) for k in ("pass", "transmit", "arrive", "call", "flash"))


class Queued(NamedTuple):
    """An event in a PythonEngine's queue (`PythonEngine.queued`)."""

    t: int                #: world time, µs
    seq: int              #: its sequence number: events at one time run in this order
    kind: str             #: one of KINDS
    tile: Tile | None     #: None for a call
    data: Any             #: the call's function, a transmit's first face, ...
    live: bool            #: False: its tile's events were stopped since (it will be skipped)


class _Timing:
    """What a packet's times come to in world µs on one clock rate, worked out once: they
    are the same for every packet of a face value and every send on that clock (the
    Clock's local_duration_to_world of the same local durations, so exactly the same)."""

    __slots__ = ("gap", "lead", "values")

    def __init__(self, clock: Clock) -> None:
        #: From the send call to the first flash; from the previous packet's last flash.
        self.lead = clock.local_duration_to_world(TX_LEAD_US)
        self.gap = clock.local_duration_to_world(TX_GAP_US)
        #: By encoded value byte: (the packet, its flashing time, the send call's block), or
        #: None until that byte is first sent. A Packet is frozen, so one may fly many times.
        self.values: list[tuple[Packet, int, int] | None] = [None] * 256

    @staticmethod
    def packet(clock: Clock, byte0: int, datagram: bytes | None,
               air: int) -> tuple[Packet, int, int]:
        """A packet of `air` local µs on the air from `clock`'s tile: the packet, how long
        the sender's LED flashes it and how long its send call blocks (world µs)."""
        to_world = clock.local_duration_to_world
        return (Packet(byte0, datagram, to_world(air)), to_world(flashing_us(air)),
                to_world(send_blocks_us(air)))


class PythonEngine(Engine):
    """The reference engine: every event in Python, on the world's model objects."""

    def attach(self, world: World) -> None:
        super().attach(world)
        self._queue: list[tuple] = []
        self._seq = 0
        self._fault_rng = SplitMix64.from_text(f"{world.seed}:faults")
        self._set_fault_rates(world.faults)
        #: (tile index, face) -> world time (µs) until which packets leaving that face are lost.
        self._cuts: dict[tuple[int, int], int] = {}
        #: The budget of the run going on (s), for the record of a tile that freezes in it.
        self._budget = 0.0
        #: The world time (µs) the run going on runs to.
        self._end = 0
        #: Per clock rate (by its ppm: a tile's Clock never changes its rate): the world
        #: durations of a packet's fixed waits and of each face value's packet (_Timing).
        self._timings: dict[int, _Timing] = {}
        #: decoded_share by (receiver's ppm, sender's ppm, payload length): the same float
        #: from the same operands, computed once a pair of clocks.
        self._shares: dict[tuple[int, int, int], float] = {}

    @property
    def name(self) -> str:
        return "python"

    def _set_fault_rates(self, faults: Faults) -> None:
        self._drop = faults.drop
        self._jitter_us = int(faults.jitter_ms * 1000)

    # -------------------------------------------------- for an engine taking over
    def queued(self) -> list[Queued]:
        """Every event in the queue, in the order they would run."""
        return [Queued(t, seq, KINDS[kind], tile, data,
                       tile is None or epoch == tile.epoch)
                for t, seq, kind, tile, epoch, data in sorted(self._queue)]

    @property
    def seq(self) -> int:
        """The sequence number the last queued event got."""
        return self._seq

    @property
    def fault_state(self) -> int:
        """The state of the fault stream (SplitMix64), as far as it has been drawn."""
        return self._fault_rng.state

    # ------------------------------------------------------------- the queue
    def _schedule(self, t: int, kind: int, tile: Tile | None, data: Any = None) -> None:
        self._seq += 1
        epoch = tile.epoch if tile is not None else 0
        heapq.heappush(self._queue, (t, self._seq, kind, tile, epoch, data))

    def start(self, tile: Tile) -> None:
        self._schedule(self.world.now, _PASS, tile)

    # ------------------------------------------------------------- probes
    def joined(self, tile: Tile) -> None:
        self._hear_probes(tile)

    def observers_changed(self) -> None:
        world = getattr(self, "world", None)  # (none yet: its tiles will join)
        for tile in world.tiles if world is not None else ():
            self._hear_probes(tile)

    def _hear_probes(self, tile: Tile) -> None:
        """The tile's program reports its probes through its api: to the observers, while
        there are any (Engine.add_probe_observer)."""
        tile.api.probe = partial(self._probed, tile) if self.probe_observers else None

    def _probed(self, tile: Tile, kind: int, values: tuple[int, ...]) -> None:
        probe = Probe(self.world.now, tile, kind, values)
        for fn in self.probe_observers:
            fn(probe)

    def call_at(self, t_us: int, fn: Callable[[], None]) -> None:
        self._schedule(t_us, _CALL, None, fn)

    def pending_calls(self) -> bool:
        return any(item[2] == _CALL and not getattr(item[5], "internal", False)
                   for item in self._queue)

    def has_event_at(self, t_us: int) -> bool:
        return any(item[0] == t_us for item in self._queue)

    def run_until(self, end_us: int, budget: float) -> None:
        self._budget = budget
        armed = watchdog.arm(self, budget)
        try:
            self._run_events(end_us)
        except TileOverrun as e:
            raise self.world.hang(e, budget) from None
        except KeyboardInterrupt as e:  # Ctrl-C; if it stopped a stuck native tile, it is dead
            overrun = getattr(e, "tile_overrun", None)
            if overrun is not None:
                self.world.hang(overrun, budget, watchdog.tile_in_traceback(e.__traceback__))
            raise
        finally:
            if armed:
                watchdog.disarm()

    def _run_events(self, end: int) -> None:
        w = self.world
        q = self._queue
        self._end = end
        pop = heapq.heappop
        while q and q[0][0] <= end:
            t, _, kind, tile, epoch, data = pop(q)
            if tile is not None and epoch != tile.epoch:
                continue
            w.now = t
            # The kinds by how often they come: transmit events most, then flashes and passes.
            if kind == _TX:
                self._transmit(tile, data or 0)
            elif kind == _FLASH:
                self._flash(tile, data)
            elif kind == _PASS:
                self._pass(tile)
            elif kind == _ARRIVE:
                self._arrive(tile, data)
            else:
                data()
        if end > w.now:
            w.now = end

    # --------------------------------------------------- what the world tells us
    def contact(self, tile: Tile, t_ms: int, down: bool) -> None:
        tile.button.push(t_ms, down)

    def wake(self, tile: Tile) -> None:
        """Something touched the tile: its next pass runs loop() whatever it declared."""
        tile.loop_inputs = None

    def dormant(self, tile: Tile, asleep: bool) -> None:
        tile.epoch += 1
        tile.incoming = [None] * FACE_COUNT
        tile.rx_buf = [None] * FACE_COUNT
        tile.quiet_until = None
        tile.loop_inputs = None
        if not asleep:
            self._schedule(tile.clock.next_frame(self.world.now), _PASS, tile)

    def set_faults(self, faults: Faults) -> None:
        self._set_fault_rates(faults)

    def cut(self, tile: Tile, face: int, until_us: int) -> None:
        self._cuts[(tile.index, face)] = until_us

    @property
    def cuts(self) -> dict[tuple[int, int], int]:
        """(tile index, face) -> the world time (µs) its cut ends (what the NativeEngine
        takes over)."""
        return dict(self._cuts)

    def stall(self, tile: Tile, ms: int) -> None:
        self.wake(tile)
        tile.api.extra_cpu_ms += ms

    # ------------------------------------------------------------------ passes
    def _pass(self, tile: Tile) -> None:
        w = self.world
        api = tile.api
        clock = tile.clock
        now = clock.millis(w.now)
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
        tile.passes += 1
        stats = w.stats
        stats["passes"] += 1
        idle_skip = w.idle_skip
        if (idle_skip and tile.quiet_until is not None and now < tile.quiet_until
                and tile.loop_inputs == self._loop_inputs(tile, now)):
            # The program said loop() changes nothing while its inputs stay as they were.
            tile.skipped = True
            stats["skipped"] += 1
            self._schedule(clock.next_frame(w.now + 1), _TX, tile)
            return
        tile.skipped = False
        sent = list(api.out_value)
        shown = list(api.pixels)
        try:
            program.loop(api)
        except TileOverrun as e:
            self._freeze(tile, e, sent, shown, first=tile.passes == 1)
            return
        if tile.serial_hook is not None:
            w.take_serial(tile)
        if w.trace is not None:
            w.record_pass(tile)
        # Display: wait for the frame, then transmit.
        ready = w.now
        if api.extra_cpu_ms:
            ready += clock.local_duration_to_world(api.extra_cpu_ms * 1000)
            api.extra_cpu_ms = 0
        # loop() takes time, so the frame it waits for is strictly after the pass began.
        frame = clock.next_frame(ready + 1)
        if idle_skip:
            self._check_quiet(tile, now)
        self._schedule(frame, _TX, tile)

    def _transmit(self, tile: Tile, first_face: int = 0) -> None:
        """Ask the BIOS to send on the first face that is due, from `first_face` on.

        The CPU is blocked while the BIOS sends, so the next face is handled (as its own
        event) only once the send call has returned: whether a face is receiving is judged
        at the moment blinklib asks to send on it.
        """
        api = tile.api
        now = api.now
        send_time = api.send_time
        incoming = tile.incoming
        t = self.world.now
        clock = tile.clock
        # blinklib's CPU time from t (the frame's return, or a send call's return) on.
        work = TX_AFTER_SEND_US if first_face else 0
        for f in range(first_face, FACE_COUNT):
            if send_time[f] > now:
                work += TX_CHECK_US
                continue
            inc = incoming[f]
            if inc is not None and inc.start + SYNC_US <= t < inc.end:
                work += TX_CHECK_US
                continue  # a packet is coming in on this face: try again next pass
            call = clock.cpu_done(t, work + TX_CALL_US)
            timing = self._timings.get(clock.ppm) or self._timing(clock)
            first = max(call + timing.lead, max(tile.tx_end) + timing.gap)
            self._schedule(first, _FLASH, tile, f)
            return
        t_pass = clock.cpu_done(t, work + PASS_START_US)
        q = self._queue
        if t_pass <= self._end and (not q or q[0][0] > t_pass):
            # The pass would be the next event (everything queued comes later, and nothing
            # runs in between): run it now, as the loop would, sparing the queue. It has its
            # sequence number all the same.
            self._seq += 1
            self.world.now = t_pass
            self._pass(tile)
        else:
            self._schedule(t_pass, _PASS, tile)

    def _timing(self, clock: Clock) -> _Timing:
        timing = self._timings[clock.ppm] = _Timing(clock)
        return timing

    def _flash(self, tile: Tile, f: int) -> None:
        """The packet of face `f` starts: its first flash. The send call returns once the
        last data bit is out; the closing syncs keep the LED busy a little longer."""
        api = tile.api
        t = self.world.now
        viral = tile.viral_faces >> f & 1
        dgram = api.out_datagram[f]
        clock = tile.clock
        if dgram is not None:
            byte0 = encode_value_byte(DATAGRAM_MARKER, bool(viral))
            pkt, flashing, blocks = _Timing.packet(clock, byte0, dgram,
                                                   datagram_air_us(dgram, bool(viral)))
        else:
            byte0 = ENCODED[api.out_value[f] | viral << 6]
            values = (self._timings.get(clock.ppm) or self._timing(clock)).values
            sent = values[byte0]
            if sent is None:
                sent = values[byte0] = _Timing.packet(clock, byte0, None, VALUE_AIR_US[byte0])
            pkt, flashing, blocks = sent
        tile.tx_start[f] = t
        tile.tx_end[f] = t + flashing
        self._launch(tile, f, t, pkt)
        api.send_time[f] = api.now + TX_PROBE_TIME_MS + f
        api.out_datagram[f] = None
        tile.viral_faces &= ~(1 << f)
        back = t + blocks
        if f + 1 < FACE_COUNT:
            self._schedule(back, _TX, tile, f + 1)
        else:
            self._schedule(clock.cpu_done(back, TX_AFTER_SEND_US + PASS_START_US), _PASS, tile)

    def _launch(self, sender: Tile, face: int, start: int, pkt: Packet) -> None:
        w = self.world
        stats = w.stats
        stats["packets"] += 1
        link = w.neighbour(sender, face)
        if link is None:
            return
        receiver, rface = link
        if receiver.asleep or receiver.seed_role is not None or receiver.stuck is not None:
            # Asleep, it listens only for a wake, and awake tiles beside it woke it already;
            # sharing a game, the BIOS's loader runs and blinklib hears nothing; frozen, its
            # blinklib never reads what the BIOS received.
            return
        if self._cuts and self._cuts.get((sender.index, face), -1) > start:
            stats["dropped"] += 1
            w.record(sender, "drop", {"face": face, "cut": True})
            return
        rng = self._fault_rng
        if self._drop and rng.chance(self._drop):
            stats["dropped"] += 1
            w.record(sender, "drop", {"face": face})
            return
        length = 0 if pkt.datagram is None else len(pkt.datagram)
        key = (receiver.clock.ppm, sender.clock.ppm, length)
        share = self._shares.get(key)
        if share is None:
            share = self._shares[key] = decoded_share(
                (MILLION + receiver.clock.ppm) / (MILLION + sender.clock.ppm) - 1.0, length)
        if share < 1.0 and not rng.chance(share):
            stats["dropped"] += 1   # the clocks too far apart for the receiver's decoder
            w.record(sender, "drop", {"face": face})
            return
        end = start + pkt.air_us
        if self._jitter_us:
            end += rng.below(self._jitter_us + 1)
        prev = receiver.incoming[rface]
        if prev is not None and prev.end > start:
            stats["collisions"] += 1  # two packets overlap on one receiver: both garbled
            receiver.incoming[rface] = None
            return
        inc = receiver.incoming[rface] = Incoming(start, end, pkt, sender.index, face)
        self._schedule(end, _ARRIVE, receiver, (rface, inc))

    def _arrive(self, tile: Tile, data: tuple[int, Incoming]) -> None:
        face, inc = data
        if tile.incoming[face] is not inc:
            return  # garbled by a collision
        tile.incoming[face] = None
        w = self.world
        sender = w.tiles[inc.sender]
        link = w.neighbour(sender, inc.sender_face)
        if link is None or link[0] is not tile or link[1] != face:
            return  # the tiles moved apart while the packet was in the air
        if tile.tx_start[face] < inc.end and tile.tx_end[face] > inc.start:
            w.stats["collisions"] += 1  # we were transmitting on this face: blinded
            return
        latched = tile.rx_buf[face] is None
        if latched:
            tile.rx_buf[face] = inc.packet
        if self.arrival_observers:
            pkt = inc.packet
            arrival = Arrival(w.now, tile, face, pkt.byte0, pkt.datagram, sender,
                              inc.sender_face, latched)
            for fn in self.arrival_observers:
                fn(arrival)

    @staticmethod
    def _loop_inputs(tile: Tile, now: int) -> tuple:
        """What loop() reads from outside: if it is the same, a quiet program does the same."""
        api = tile.api
        # (now > e: e < now, by map rather than a comprehension, which is slower)
        return (tuple(api.in_value), tuple(map(now.__gt__, api.expire_time)), api.button_flags,
                api.button_down, api.click_count, tuple(api.in_datagram))

    @staticmethod
    def _viral_postpone(tile: Tile, now: int) -> None:
        # blinklib spreads "a button was pressed" to every face, with a 2 s lockout.
        if now > tile.viral_lockout_until:
            tile.viral_lockout_until = now + VIRAL_LOCKOUT_MS
            tile.viral_faces = 0x3F

    def _button_snapshot(self, tile: Tile, now: int) -> None:
        """blinklib's button snapshot: sticky flags OR-ed in, the current debounced state."""
        button = tile.button
        if not button.flags and button.idle():
            return
        w = self.world
        api = tile.api
        for special in button.advance(now):
            w.record(tile, special, {})
        flags = button.take_flags()
        if flags:
            api.button_flags |= flags
            if flags & BUTTON_PRESSED:
                self._viral_postpone(tile, now)
            if w.trace is not None:
                names = [n for bit, n in BUTTON_EVENT_NAMES.items() if flags & bit]
                w.record(tile, "button", {"events": names})
        api.button_down = button.down
        api.click_count = button.click_count

    # ------------------------------------------------------------ idle skipping
    def _check_quiet(self, tile: Tile, now: int) -> None:
        """After loop(): note how long the program stays quiet, and the inputs it ran with."""
        hook = tile.quiet_hook
        until = hook(tile.api) if hook is not None else None
        if until is not None and not tile.button.idle():
            # A pending click window or long press is a deadline, like a timer.
            until = min(until, tile.button.next_deadline())
        tile.quiet_until = until
        tile.loop_inputs = self._loop_inputs(tile, now) if until is not None else None

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
        w = self.world
        api = tile.api
        api.out_value[:] = sent
        api.pixels[:] = [Blinklib.OFF] * FACE_COUNT if first else shown
        freeze = freeze_of(tile, "loop", w.now_ms, self._budget)
        if tile.serial_hook is not None:
            w.take_serial(tile)
        self._halt(tile)
        w.froze(tile, freeze)

    def _halt(self, tile: Tile) -> None:
        """Stop all of a tile's events for good; its neighbours must notice the silence."""
        tile.epoch += 1
        tile.incoming = [None] * FACE_COUNT
        tile.rx_buf = [None] * FACE_COUNT
        tile.quiet_until = None
        tile.loop_inputs = None


watchdog.tile_callers(PythonEngine._pass, PythonEngine._check_quiet)
