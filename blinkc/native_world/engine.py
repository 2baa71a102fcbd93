"""`NativeEngine`: a world's event loop in C++ when every tile is native (blinkc/world/engine.py).

The Python engine spends its time in its own event loop once tiles are compiled sketches
(blinkc.native): ~2.4 µs of Python per event against a fraction of that in the tile. The
NativeEngine hands the event loop to the C++ port in `native_world/core`, which calls each tile's
compiled entry points directly.

It starts as a `PythonEngine`, to which it hands every call. At the first `run_until`, if
every tile is native (and nothing has run yet), the events move into the core: tiles,
clocks, button models, places, the queue with its sequence numbers (`PythonEngine.queued`),
the fault stream's state. From then on the core owns the event state and the world's model
objects (`Tile`, its `api` and `button`) are mirrors, refreshed whenever Python can look:
when a run returns, before a scheduled call runs, before a trace record is written, when an
action is over (`refresh`); what Python writes into them between runs goes back through
`written`. A world with a Python tile stays in Python; adding one after the move is an
error, and so are the changes the core does not take while it runs (`set_faults`,
`has_event_at`; the explorer's `cut` and `stall` it takes). Not mirrored: packets in flight
and buffered (`incoming`, `rx_buf`), `loop_inputs`, and the fault generator (its state lives
in the core).

The core calls tile code through the watchdog (blinkc/native/guard.cpp): a loop() that does
not return within its budget freezes its tile as the PythonEngine does (the core returns
TILE_FROZE, Python records the freeze with `world.froze` and runs on), any other call that
does not return stops the run with `world.hang`'s TileHangError, and Ctrl-C returns from the
core between two events (or stops a stuck call); Python sees it once the core's state is
copied out.

Arrival observers (Engine.add_arrival_observer): while there is one, the core gathers the
packets that arrive whole and hands them to `_on_arrive` in batches (when a batch is full,
when it returns, and before a probe is reported), so the observers see the arrivals in event
order at their times, and before anything that happened after them, as in the PythonEngine;
while there is none, the core has a NULL observer and reports nothing.

Probe observers (Engine.add_probe_observer): a native tile's probes go to its api (its
NativeProgram's callback, native/program.py) as the tile reports them, in the core's event
loop or in a scheduled call; `_probed` stamps them with the core's time.

The PythonEngine stays the reference; tests/world/test_native_world.py checks that both
produce the same traces and statistics.
"""

from __future__ import annotations

import ctypes
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import TYPE_CHECKING, Any

from ..blinklib.api import BUTTON_EVENT_NAMES
from ..native import guard
from ..native.program import NativeProgram
from ..native.toolchain import ToolMissing, have
from ..world.button import Debounce
from ..world.engine import Arrival, Calm, Engine, Probe
from ..world.freeze import freeze_of
from ..world.infrared import DECODERS
from ..world.python_engine import PythonEngine
from ..world.tile import Tile
from ..world.watchdog import TileOverrun
from ..world.world import TileHangError, WorldError
from .core import bindings as cb

if TYPE_CHECKING:
    from ..world.world import Faults, World

#: The longest stretch of simulated time (µs) the core runs without returning to Python.
_SLICE_US = 60_000_000
#: The core's numbers for the events a world can hold before it first runs.
_KIND = {"pass": cb.PASS, "call": cb.CALL}

MODES = ("auto", "native")


def native_of(program: Any) -> NativeProgram | None:
    """The NativeProgram a tile program runs, if the core can run it in its place.

    That is a NativeProgram itself, or a wrapper (the native game backend's
    tiles) that keeps one as `.native` and hands it setup, loop and quiet_until.
    """
    native = program if isinstance(program, NativeProgram) else getattr(program, "native", None)
    if not isinstance(native, NativeProgram):
        return None
    if getattr(program, "quiet_until", None) != getattr(native, "quiet_until", None):
        return None
    return native


class NativeEngine(Engine):
    """The C++ world core while all tiles are native; a PythonEngine otherwise.

    `mode` "auto" stays in Python for a world the core cannot run; "native" makes that an
    error (at the first run)."""

    def __init__(self, mode: str = "auto") -> None:
        if mode not in MODES:
            raise ValueError(f"a NativeEngine's mode is 'auto' or 'native', not {mode!r}")
        if mode == "native" and not have("host"):
            raise WorldError("the C++ world core needs a host C++ compiler (g++)")
        self.mode = mode
        #: Runs the events until (and unless) they move into the core.
        self._py = PythonEngine()
        self._decided = False
        self._w: int | None = None  # the core, once the world runs in it
        self._lazy = False  # inside lazy_mirrors()
        self._lib: Any = None
        self._views: list[Any] = []
        self._natives: list[NativeProgram] = []
        self._calls: dict[int, Callable[[], None]] = {}
        self._next_call = 0
        self._dirty = (ctypes.c_int32 * 0)()
        self._callback_error: BaseException | None = None
        self._record_fn: Any = None
        self._no_record = cb.RECORD_FN()  # a NULL callback: no trace, no calls back
        self._arrive_fn: Any = None
        self._no_arrive = cb.ARRIVE_FN()  # a NULL observer: the core reports no arrival

    def attach(self, world: World) -> None:
        super().attach(world)
        self._py.attach(world)

    @property
    def name(self) -> str:
        if self._w is not None:
            return "native"
        return "python" if self._decided else "undecided"

    @property
    def events(self) -> int | None:
        """How many events the C++ core has processed (None while the world runs in Python)."""
        return self._lib.core_events(self._w) if self._w is not None else None

    @property
    def event_counts(self) -> dict[str, int] | None:
        """What the core's events did, by kind (bindings.EVENT_COUNT_NAMES); None in Python."""
        if self._w is None:
            return None
        out = (ctypes.c_int64 * len(cb.EVENT_COUNT_NAMES))()
        self._lib.core_event_counts(self._w, out)
        return dict(zip(cb.EVENT_COUNT_NAMES, out, strict=True))

    # ---------------------------------------------------------- the move to C++
    def _why_not_native(self) -> str | None:
        """None if the world can move into the core now; else why not."""
        for t in self.world.tiles:
            if native_of(t.program) is None:
                return f"tile {t.name!r} runs {type(t.program).__name__}, not a native program"
            if t.started:
                return "it has already run in Python"
        if any(e.kind not in _KIND for e in self._py.queued()):
            return "it has already run in Python"
        try:
            cb.core()
        except ToolMissing as e:
            return str(e)
        return None

    def _decide(self) -> None:
        if self._decided or not self.world.tiles:  # an empty world may still get native tiles
            return
        reason = self._why_not_native()
        if reason is None:
            self._engage()
        elif self.mode == "native":
            raise WorldError(f"this world cannot run in the C++ core: {reason} (the C++ core "
                             f"runs native tiles only; --world auto or python runs any)")
        self._decided = True

    def _engage(self) -> None:
        world, py = self.world, self._py
        lib = cb.core()
        self._lib = lib
        self._record_fn = cb.RECORD_FN(self._on_record)
        faults = world.faults
        w = lib.core_new(faults.drop, int(faults.jitter_ms * 1000))
        self._w = w
        weakref.finalize(self, lib.core_free, w)
        lib.core_set_fault_rng(w, py.fault_state)
        for length, (window, points) in enumerate(DECODERS):
            xs = (ctypes.c_double * len(points))(*(x for x, _ in points))
            ys = (ctypes.c_double * len(points))(*(y for _, y in points))
            lib.core_set_decoder(w, length, *window, xs, ys, len(points))
        self._arrive_fn = cb.ARRIVE_FN(self._on_arrive)
        watchdog = guard.library()
        if watchdog is not None:
            lib.core_set_guard(w, watchdog.call_addr, watchdog.call_u32_addr,
                               watchdog.interrupts_addr)
        for tile in world.tiles:
            self._register(tile)
        for e in py.queued():
            if not e.live:
                continue  # stale: the Python loop would skip it too
            if e.kind == "call":
                lib.core_schedule_seq(w, e.t, e.seq, cb.CALL, -1, self._new_call(e.data))
            else:
                lib.core_schedule_seq(w, e.t, e.seq, _KIND[e.kind], e.tile.index, e.data or 0)
        lib.core_set_seq(w, py.seq)
        for (index, face), until in py.cuts.items():
            lib.core_cut(w, index, face, until)
        self._py = None  # type: ignore[assignment]  # the core has the events from now on
        self.observers_changed()
        self._sync()

    def _register(self, tile: Tile) -> None:
        """Enter a tile into the core: its program's entry points, clock, state and place."""
        native = native_of(tile.program)
        assert native is not None
        lib, w = self._lib, self._w
        addr = _addr
        self._natives.append(native)
        native.api = tile.api  # (where its probes go: the core calls it without one)
        quiet = native._hook_quiet if tile.quiet_hook is not None else None
        c = tile.clock
        i = lib.core_add_tile(w, c.ppm, c.offset, c.frame_phase, native._addr,
                              addr(native._setup_fn), addr(native._loop_fn), addr(quiet))
        assert i == tile.index
        if native.service_port_addr:
            lib.core_set_port(w, i, native.service_port_addr)
        self._views.append((ctypes.c_char * cb.VIEW.size).from_address(lib.core_view(w, i)))
        self._dirty = (ctypes.c_int32 * len(self.world.tiles))()
        self._push(tile)
        lib.core_load(w, i)
        for t_ms, down in tile.button.raw:
            lib.core_button_push(w, i, t_ms, int(down))
        if tile.pos is not None:
            lib.core_place(w, i, tile.pos[0], tile.pos[1], tile.rot)
        else:
            lib.core_set_rot(w, i, tile.rot)

    # ------------------------------------------------------------ mirrors
    def _push(self, tile: Tile) -> None:
        """Python → core: write the tile's view from its Python objects (every field of
        view_fields.FIELDS by its name: one missing or unknown is a TypeError)."""
        api, b = tile.api, tile.button
        d = b.debounce()
        cb.VIEW.pack_into(
            self._views[tile.index],
            now=api.now, in_value=api.in_value, out_value=api.out_value,
            expire_time=api.expire_time, send_time=api.send_time, pixels=api.pixels,
            button_down=int(api.button_down), button_flags=api.button_flags,
            click_count=api.click_count, rng_state=api.rng.state, entropy=api.entropy,
            woken=int(api.woken), start_state=api.start_state, extra_cpu_ms=api.extra_cpu_ms,
            started=int(tile.started), epoch=tile.epoch,
            has_quiet=int(tile.quiet_until is not None), quiet_until=tile.quiet_until or 0,
            skipped=int(tile.skipped), passes=tile.passes, viral_faces=tile.viral_faces,
            viral_lockout_until=tile.viral_lockout_until,
            tx_start=tile.tx_start, tx_end=tile.tx_end,
            b_down=int(b.down), b_flags=b.flags, b_click_count=b.click_count,
            b_raw_down=int(d.raw_down), b_last_accept=d.last_accept,
            b_pending_clicks=d.pending_clicks, b_window_end=d.window_end,
            b_down_since=d.down_since, b_long_fired=d.long_fired, b_raw_count=len(b.raw),
            in_dgram_len=_lengths(api.in_datagram), out_dgram_len=_lengths(api.out_datagram),
            in_dgram=_slots(api.in_datagram), out_dgram=_slots(api.out_datagram),
            serial=bytes(api.serial[:9]).ljust(9, b"\0"))

    def _pull(self, tile: Tile) -> None:
        """Core → Python: refresh the tile's mirrors from its view (its fields by name)."""
        v = cb.VIEW.unpack_from(self._views[tile.index])
        api = tile.api
        api.now = v.now
        api.in_value[:] = v.in_value
        api.out_value[:] = v.out_value
        api.expire_time[:] = v.expire_time
        api.send_time[:] = v.send_time
        api.pixels[:] = v.pixels
        api.button_down = bool(v.button_down)
        api.button_flags = v.button_flags
        api.click_count = v.click_count
        api.rng.state = v.rng_state
        api.entropy = v.entropy
        api.woken = bool(v.woken)
        api.extra_cpu_ms = v.extra_cpu_ms
        if any(v.in_dgram_len) or any(api.in_datagram):
            api.in_datagram[:] = _datagrams(v.in_dgram_len, v.in_dgram)
        if any(v.out_dgram_len) or any(api.out_datagram):
            api.out_datagram[:] = _datagrams(v.out_dgram_len, v.out_dgram)
        tile.started = bool(v.started)
        tile.epoch = v.epoch
        tile.quiet_until = v.quiet_until if v.has_quiet else None
        tile.skipped = bool(v.skipped)
        tile.passes = v.passes
        tile.viral_faces = v.viral_faces
        tile.viral_lockout_until = v.viral_lockout_until
        tile.tx_start[:] = v.tx_start
        tile.tx_end[:] = v.tx_end
        b = tile.button
        b.down = bool(v.b_down)
        b.flags = v.b_flags
        b.click_count = v.b_click_count
        b.load(Debounce(bool(v.b_raw_down), v.b_last_accept, v.b_pending_clicks,
                        v.b_window_end, v.b_down_since, v.b_long_fired))
        n = v.b_raw_count
        if n or b.raw:
            out = (ctypes.c_int64 * (2 * n))()
            self._lib.core_button_raw(self._w, tile.index, out, n)
            b.raw[:] = [(out[2 * k], bool(out[2 * k + 1])) for k in range(n)]

    def _sync(self, mirrors: bool = True) -> None:
        """Refresh the mirrors of every tile the core changed (unless `mirrors` is False: the
        core keeps which tiles changed until they are taken), the clock and the stats."""
        lib, w, world = self._lib, self._w, self.world
        tiles = world.tiles
        if mirrors:
            n = lib.core_take_dirty(w, self._dirty, len(self._dirty))
            for k in range(n):
                self._pull(tiles[self._dirty[k]])
        world.now = lib.core_now(w)
        if lib.core_serial_pending(w):
            for tile in tiles:
                self._take_core_serial(tile)
        counts = (ctypes.c_int64 * len(cb.STAT_NAMES))()
        lib.core_stats(w, counts)
        stats = world.stats
        for name, value in zip(cb.STAT_NAMES, counts, strict=True):
            stats[name] = value

    def _on_record(self, kind: int, index: int, arg: int, t: int) -> None:
        """The core's trace callback: write the record the PythonEngine writes at this point."""
        try:
            world = self.world
            world.now = t
            tile = world.tiles[index]
            if kind == cb.REC_PASS:
                self._lib.core_publish(self._w, index)
                self._pull(tile)
                world.record_pass(tile)
            elif kind == cb.REC_SERIAL:
                self._take_core_serial(tile)  # anything drained while nothing recorded
                world.take_serial(tile)
            elif kind == cb.REC_DROP:
                world.record(tile, "drop", {"face": arg})
            elif kind == cb.REC_CUT:
                world.record(tile, "drop", {"face": arg, "cut": True})
            elif kind == cb.REC_BUTTON:
                names = [n for bit, n in BUTTON_EVENT_NAMES.items() if arg & bit]
                world.record(tile, "button", {"events": names})
            else:
                world.record(tile, "longlong" if arg == cb.SPECIAL_LONGLONG else "sleep", {})
        except BaseException as e:  # raised once the core has returned
            if self._callback_error is None:
                self._callback_error = e

    def observers_changed(self) -> None:
        """The PythonEngine calls the observers while it runs the events; the core reports
        arrivals through `_on_arrive` only while there is an observer (else it has no
        callback and does nothing more per arrival than test that it has none)."""
        if self._py is not None:
            self._py.arrival_observers = self.arrival_observers
            self._py.probe_observers = self.probe_observers
            self._py.observers_changed()
        if self._w is not None:
            self._lib.core_set_observer(
                self._w, self._arrive_fn if self.arrival_observers else self._no_arrive)
            for tile in self.world.tiles:
                self._hear_probes(tile)

    def _hear_probes(self, tile: Tile) -> None:
        tile.api.probe = partial(self._probed, tile) if self.probe_observers else None

    def _probed(self, tile: Tile, kind: int, values: tuple[int, ...]) -> None:
        """A tile's probe, in the core's event loop or in a scheduled call: call the observers
        as the PythonEngine does, at the core's time."""
        try:
            if self.arrival_observers:  # (those that came before it, first)
                self._lib.core_flush_arrivals(self._w)
            world = self.world
            world.now = t = self._lib.core_now(self._w)
            probe = Probe(t, tile, kind, values)
            for fn in self.probe_observers:
                fn(probe)
        except BaseException as e:  # raised once the core has returned
            if self._callback_error is None:
                self._callback_error = e

    def _on_arrive(self, records: int, n: int) -> None:
        """The core's arrival callback, a batch at a time: call the observers for each as the
        PythonEngine does, with the world's time at the arrival's."""
        try:
            world = self.world
            tiles = world.tiles
            observers = self.arrival_observers
            data = ctypes.string_at(records, n * cb.ARRIVAL.size)
            new = tuple.__new__  # (Arrival(...) without its Python __new__: thousands a run)
            for t, index, face, sender, sender_face, byte0, latched, length, dgram in \
                    cb.ARRIVAL.iter_unpack(data):
                world.now = t
                arrival = new(Arrival, (t, tiles[index], face, byte0,
                                        dgram[:length] if length else None, tiles[sender],
                                        sender_face, latched != 0))
                for fn in observers:
                    fn(arrival)
        except BaseException as e:  # raised once the core has returned
            if self._callback_error is None:
                self._callback_error = e

    def _take_core_serial(self, tile: Tile) -> None:
        """The service-port bytes the core drained for the tile while nothing recorded."""
        n = self._lib.core_serial_take(self._w, tile.index, None, 0)
        if n:
            out = ctypes.create_string_buffer(n)
            self._lib.core_serial_take(self._w, tile.index, out, n)
            self.world.printed(tile, out.raw)

    def _check_callback(self) -> None:
        err, self._callback_error = self._callback_error, None
        if err is not None:
            raise err

    # ------------------------------------------------------------- running
    def run_until(self, end_us: int, budget: float) -> None:
        self._decide()
        if self._w is None:
            self._py.run_until(end_us, budget)
            return
        for native in self._natives:
            if not native._finalizer.alive:  # its code is unmapped: the core must not call it
                raise RuntimeError(f"{native!r} was closed")
        watchdog = guard.loaded()
        if watchdog is not None:
            watchdog.prepare(budget)
        call = ctypes.c_int64()
        lib, w, world = self._lib, self._w, self.world
        while True:
            self._configure()
            # Ctrl-C during the slice reaches Python only once the mirrors are up to date, a
            # stopped tile is recorded and a due call has run: never half way through a trace
            # callback, and the world can run on.
            if watchdog is not None:
                watchdog.defer()
            try:
                # In slices of simulated time (the events and their order are the same as in
                # one go), so that Ctrl-C is seen even without the watchdog.
                status = lib.core_run(w, min(end_us, world.now + _SLICE_US), ctypes.byref(call))
                # Inside lazy_mirrors() only a run that simply reached its end leaves them: a
                # due call, a freeze or a stop has the world look at its tiles.
                self._sync(mirrors=not self._lazy or status != cb.REACHED)
                self._check_callback()
                if status == cb.TILE_STOPPED:
                    raise self._stopped_in_core(budget)
                if status == cb.TILE_FROZE:
                    self._froze_in_core(budget)
                if status == cb.CALL_DUE:
                    self._calls.pop(call.value)()  # a scenario action: quick
                    # The calls due next at the same time, with no event between them (a
                    # scenario's steps at one moment): here, without going back to the core.
                    while lib.core_take_call(w, ctypes.byref(call)):
                        self._calls.pop(call.value)()
            finally:
                if watchdog is not None and watchdog.resume():
                    guard.check_signals()  # KeyboardInterrupt, normally; else run on
            if status == cb.REACHED and world.now >= end_us:
                return

    def _froze_in_core(self, budget: float) -> None:
        """A tile froze in the core (which did what PythonEngine._freeze does): record it."""
        world = self.world
        tile = world.tiles[self._lib.core_frozen(self._w)]
        native = native_of(tile.program)
        if native is not None:
            native.mark_stopped("loop", guard.GUARD_TIMEOUT)  # Python must not call it either
        world.froze(tile, freeze_of(tile, "loop", world.now_ms, budget))

    def _stopped_in_core(self, budget: float) -> TileHangError:
        """The error for a tile the watchdog stopped inside the core (the world is dead)."""
        out = (ctypes.c_int64 * 3)()
        self._lib.core_failure(self._w, out)
        tile = self.world.tiles[out[0]]
        what, code = cb.PHASES[out[1]], out[2]
        native = native_of(tile.program)
        seconds = native.mark_stopped(what, code) if native is not None else 0.0
        return self.world.hang(TileOverrun(what, seconds, code == guard.GUARD_INTERRUPTED),
                               budget, tile)

    def _configure(self) -> None:
        # The world's idle_skip and trace may change between runs and calls.
        world = self.world
        self._lib.core_configure(self._w, int(world.idle_skip),
                                 self._record_fn if world.trace is not None else self._no_record)

    def _new_call(self, fn: Callable[[], None]) -> int:
        self._next_call += 1
        self._calls[self._next_call] = fn
        return self._next_call

    def start(self, tile: Tile) -> None:
        if self._w is None:
            self._py.start(tile)
        else:
            self._lib.core_schedule(self._w, self.world.now, cb.PASS, tile.index, 0)

    def call_at(self, t_us: int, fn: Callable[[], None]) -> None:
        if self._w is None:
            self._py.call_at(t_us, fn)
        else:
            self._lib.core_schedule(self._w, t_us, cb.CALL, -1, self._new_call(fn))

    def pending_calls(self) -> bool:
        if self._w is None:
            return self._py.pending_calls()
        return any(not getattr(fn, "internal", False) for fn in self._calls.values())

    # --------------------------------------------------- what the world tells us
    def admit(self, name: str, program: Any) -> None:
        if self._w is not None and native_of(program) is None:
            raise WorldError(f"tile {name!r}: this world runs in the C++ core, which only runs "
                             f"native programs, not {type(program).__name__} (make the world "
                             f"with engine='python' to mix programs)")

    def joined(self, tile: Tile) -> None:
        if self._w is not None:
            self._register(tile)
            self._hear_probes(tile)
        else:
            self._py.joined(tile)

    def moved(self, tile: Tile) -> None:
        if self._w is None:
            return
        if tile.pos is None:
            self._lib.core_unplace(self._w, tile.index)
            self._lib.core_set_rot(self._w, tile.index, tile.rot)
        else:
            self._lib.core_place(self._w, tile.index, tile.pos[0], tile.pos[1], tile.rot)

    def contact(self, tile: Tile, t_ms: int, down: bool) -> None:
        if self._w is None:
            self._py.contact(tile, t_ms, down)
        else:
            self._lib.core_button_push(self._w, tile.index, t_ms, int(down))

    def wake(self, tile: Tile) -> None:
        if self._w is None:
            self._py.wake(tile)
        else:
            self._configure()
            self._lib.core_wake(self._w, tile.index)

    def dormant(self, tile: Tile, asleep: bool) -> None:
        if self._w is None:
            self._py.dormant(tile, asleep)
            return
        # The Python objects were fresh and the world changed them (button, clock, api,
        # lockout): hand them to the core, then let it stop or restart the tile's events.
        lib, w, i = self._lib, self._w, tile.index
        self._push(tile)
        lib.core_load(w, i)
        lib.core_set_clock_offset(w, i, tile.clock.offset)
        self._configure()
        lib.core_dormant(w, i, int(asleep))
        self.refresh()

    def reprogrammed(self, tile: Tile) -> None:
        """Seed mode gave the tile a fresh program: the core calls its entry points now."""
        if self._w is None:
            return
        native = native_of(tile.program)
        if native is None:
            raise WorldError(f"tile {tile.name!r}: the C++ core runs native programs only")
        lib, w, i = self._lib, self._w, tile.index
        quiet = native._hook_quiet if tile.quiet_hook is not None else None
        lib.core_set_program(w, i, native._addr, _addr(native._setup_fn),
                             _addr(native._loop_fn), _addr(quiet))
        native.api = tile.api
        if native.service_port_addr:
            lib.core_set_port(w, i, native.service_port_addr)
        self._natives[i] = native

    def written(self, tile: Tile) -> None:
        if self._w is not None:
            self._push(tile)  # the mirrors are fresh between runs

    def refresh(self) -> None:
        if self._w is not None:
            self._sync()
            self._check_callback()

    @contextmanager
    def lazy_mirrors(self) -> Iterator[None]:
        """Runs inside leave the Python mirrors of the tiles stale (pulling every tile after
        each 20 ms of a settle loop was most of a Fleet Combos game's time): calm() reads the
        core's own view, and the block's end (or a call due in a run) brings them up to date."""
        if self._w is None or self._lazy:
            yield
            return
        self._lazy = True
        try:
            yield
        finally:
            self._lazy = False
            self.refresh()

    def calm(self, tile: Tile) -> Calm:
        if not self._lazy:
            return super().calm(tile)
        # One small call: a settle asks this of every tile every 20 ms of simulated time.
        calm = self._lib.core_calm(self._w, tile.index)
        return Calm(bool(calm & 1), bool(calm & 2), calm >> 8)

    # ------------------------------------ what the core does not take while it runs
    def set_faults(self, faults: Faults) -> None:
        self._python_only("changing the faults during a run")
        self._py.set_faults(faults)

    def cut(self, tile: Tile, face: int, until_us: int) -> None:
        if self._w is None:
            self._py.cut(tile, face, until_us)
        else:
            self._lib.core_cut(self._w, tile.index, face, until_us)

    def stall(self, tile: Tile, ms: int) -> None:
        if self._w is None:
            self._py.stall(tile, ms)
        else:
            self._lib.core_stall(self._w, tile.index, ms)

    def has_event_at(self, t_us: int) -> bool:
        self._python_only("looking at the event queue")
        return self._py.has_event_at(t_us)

    def _python_only(self, what: str) -> None:
        if self._w is not None:
            raise WorldError(f"{what} is done by the Python world only: run it with "
                             "--world python (Cluster(..., world='python'))")


def _addr(fn: Any) -> int | None:
    return ctypes.cast(fn, ctypes.c_void_p).value if fn is not None else None


_NO_LENGTHS = (0,) * cb.FACES
_NO_SLOTS = bytes(16 * cb.FACES)


def _lengths(slots: list[bytes | None]) -> Sequence[int]:
    if not any(slots):  # (mostly: datagrams are rare)
        return _NO_LENGTHS
    return [len(d) if d else 0 for d in slots]


def _slots(slots: list[bytes | None]) -> bytes:
    if not any(slots):
        return _NO_SLOTS
    return b"".join(bytes(d or b"")[:16].ljust(16, b"\0") for d in slots)


def _datagrams(lengths: tuple[int, ...], data: bytes) -> list[bytes | None]:
    return [data[16 * f:16 * f + n] if n else None for f, n in enumerate(lengths)]
