"""The engine interface: what runs a World's events (docs/architecture.md, "World engines").

A `World` (world.py) is the model and the public API. It owns the tiles and their Python
objects (`Tile`, its `Blinklib` api, its `ButtonModel`, its `Clock`), the lattice, the actions
a person or a scenario takes (add, place, lift, turn, press, serial input), blinklib's warm
sleep and the BIOS's seed mode (as scheduled calls), the record of frozen tiles, whether the
world is dead, the views (colours, snapshots, evaluated hooks) and the trace.

An `Engine` owns the time between two actions: the event queue with its order (time, then
sequence number), and what each event does — a tile's pass (button snapshot, receive,
`loop()`, the display frame), its transmissions, packets on the air with the fault stream
(loss, jitter, cut links) and collisions, frozen loops, and idle skipping (loop() not run
while a quiet program's inputs are unchanged). While it runs, it keeps `world.now` and
`world.stats` current and writes every trace record through the world's services.

The world calls its engine only through the methods below. An engine reads and writes the
world's model objects (a tile's api, button, bookkeeping) — directly, or as mirrors of its own
state refreshed in `refresh()` and read back in `written()` — and calls back only the world's
services for engines, the public methods of World grouped under "For engines" (`record`,
`record_pass`, `take_serial`, `printed`, `froze`, `hang`, `live_links`)
and `neighbour`. Nothing overrides World's methods.

Engines:

- `PythonEngine` (python_engine.py): the reference, the default of `World()`.
- `NativeEngine` (blinkc/native_world/engine.py): the event loop in C++
  (blinkc/native_world/core/); it is a PythonEngine until its first run finds every tile
  native, then moves the events into the core. It registers itself with `make_world` when
  blinkc.native_world is imported (factory.py), so this package never imports it.

Adding an engine: subclass Engine and implement the abstract methods (the notifications with
a default do nothing, which is right for an engine that works on the model objects themselves);
make it give the same traces and statistics as the PythonEngine on the world-equivalence tests
(tests/world/test_native_world.py runs every scenario in both); call the arrival observers
(below) as the PythonEngine does; and register a world factory for it with
`factory.register_engine` from its own package.

Observers: `add_arrival_observer(fn)` makes the engine call `fn(Arrival(...))` for every packet
that arrives whole, at its event, in event order, with `world.now` at its time; every engine
calls them in the same order with the same values (tests/world/test_arrival_observer.py). An
observer only watches: it must not change the world, nor read the model objects (in the
NativeEngine they are mirrors, not refreshed for it). With no observer an engine does no
work for them (the C++ core reports nothing).

`add_probe_observer(fn)` likewise makes the engine call `fn(Probe(...))` for every probe a
tile's program reports (the explorer's build of a game: blinkc/ir/probes.py), as it reports
it, with `world.now` at its time: a Python tile reports through its api (`Blinklib.probe`,
which the engine sets while it has probe observers), a native one through its library's
callback (`blinkc_set_probe`: the C++ core's, or NativeProgram's, which hands it to the api
too). The same rules hold as for arrival observers; the monitor of `blinkc explore` is one.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from .tile import Tile
    from .world import Faults, World


class Arrival(NamedTuple):
    """A packet that arrived whole on a face (not garbled by a collision, not blinded by the
    receiver's own transmission, its two tiles still touching): what an arrival observer is
    called with (`Engine.add_arrival_observer`)."""

    t: int                  #: world time (µs) its last bit arrived
    tile: Tile              #: the receiver
    face: int               #: the receiver's face
    byte0: int              #: its first byte as encoded on the air (value, viral bit, marker)
    datagram: bytes | None  #: a datagram's payload, None for a face value
    sender: Tile            #: the tile that sent it
    sender_face: int        #: the sender's face
    #: True: the BIOS buffered it for the receiver's next pass; False: the face's buffer
    #: already held a packet since the last pass, so this one was not kept.
    latched: bool


#: An arrival observer: called once per packet that arrives whole, in event order.
ArrivalObserver = Callable[[Arrival], None]


class Probe(NamedTuple):
    """What a tile's program reported at one of its probes (the explorer's build of a game,
    blinkc/ir/probes.py): what a probe observer is called with (`Engine.add_probe_observer`)."""

    t: int                  #: world time (µs) of the pass (or scheduled call) it came from
    tile: Tile              #: the tile that reported it
    kind: int               #: a ProbeKind (ir/probes.py)
    values: tuple[int, ...]  #: its values, probes.VALUES of them (their names: probes.NAMES)


#: A probe observer: called once per probe a tile reports, as it reports it.
ProbeObserver = Callable[[Probe], None]


class Calm(NamedTuple):
    """A tile's part in whether a cluster has settled (Engine.calm)."""

    #: Its last pass skipped loop(): its program declared itself quiet, inputs unchanged.
    skipped: bool
    #: Its button model will do nothing without a new press or release.
    button_idle: bool
    #: Button events not yet taken by the program.
    button_flags: int


class Engine(ABC):
    """Runs one World's events. The world calls `attach` once, from its constructor."""

    #: The world whose events this engine runs (set by `attach`).
    world: World

    #: The arrival observers, in the order they were added (add_arrival_observer).
    arrival_observers: tuple[ArrivalObserver, ...] = ()
    #: The probe observers, in the order they were added (add_probe_observer).
    probe_observers: tuple[ProbeObserver, ...] = ()

    def attach(self, world: World) -> None:
        """Become the engine of `world`, whose model is set up and still empty."""
        if getattr(self, "world", None) is not None:
            raise RuntimeError("an engine runs the events of one world only")
        self.world = world

    # ------------------------------------------------------------- observers
    def add_arrival_observer(self, fn: ArrivalObserver) -> None:
        """Call `fn(arrival)` for every packet that arrives whole from now on (`Arrival`)."""
        self._add_observer("arrival_observers", fn)

    def remove_arrival_observer(self, fn: ArrivalObserver) -> None:
        """Stop calling `fn` (added with add_arrival_observer); ValueError if it was not."""
        self._remove_observer("arrival_observers", fn)

    def add_probe_observer(self, fn: ProbeObserver) -> None:
        """Call `fn(probe)` for every probe a tile reports from now on (`Probe`)."""
        self._add_observer("probe_observers", fn)

    def remove_probe_observer(self, fn: ProbeObserver) -> None:
        """Stop calling `fn` (added with add_probe_observer); ValueError if it was not."""
        self._remove_observer("probe_observers", fn)

    def _add_observer(self, kind: str, fn: Callable[..., None]) -> None:
        setattr(self, kind, (*getattr(self, kind), fn))
        self.observers_changed()

    def _remove_observer(self, kind: str, fn: Callable[..., None]) -> None:
        observers = list(getattr(self, kind))
        observers.remove(fn)
        setattr(self, kind, tuple(observers))
        self.observers_changed()

    def observers_changed(self) -> None:  # noqa: B027 (a no-op by default, on purpose)
        """The arrival or probe observers changed: an engine that reports them only while
        someone listens starts or stops reporting them."""

    @property
    @abstractmethod
    def name(self) -> str:
        """Where the events run now: "python", "native", or "undecided" (World.engine)."""

    @property
    def events(self) -> int | None:
        """How many events this engine has processed, if it counts them (World.events)."""
        return None

    @property
    def event_counts(self) -> dict[str, int] | None:
        """What its events did, by kind, if it counts them (World.event_counts)."""
        return None

    # ------------------------------------------------------------- time and the queue
    @abstractmethod
    def run_until(self, end_us: int, budget: float) -> None:
        """Process every event due at or before world time `end_us` in order, then leave
        `world.now` at `end_us` (or later, if it already was). `budget`: the CPU seconds a call
        into a tile's code may take (watchdog.py); a loop() past it freezes its tile
        (`world.froze`), any other call stops the run with `world.hang`'s error."""

    @abstractmethod
    def start(self, tile: Tile) -> None:
        """A tile was added to the world: its first pass is now (after what is queued now)."""

    @abstractmethod
    def call_at(self, t_us: int, fn: Callable[[], None]) -> None:
        """Run `fn()` at world time `t_us` (≥ now), after everything already queued for then.
        A function with `fn.internal` set is the world's own (warm sleep, seed mode)."""

    @abstractmethod
    def pending_calls(self) -> bool:
        """True if a call that is not internal is still queued (World.run_until_quiet)."""

    @abstractmethod
    def has_event_at(self, t_us: int) -> bool:
        """True if any event is queued for exactly this world time (World.has_event_at)."""

    # ---------------------------------------------- what the world tells its engine
    # Each is called after the world changed its model, unless it says otherwise. Those with
    # a body do nothing by default: right for an engine that works on the model objects.
    def admit(self, name: str, program: Any) -> None:  # noqa: B027 (a no-op by default, on purpose)
        """Before a tile is added: raise WorldError if this engine cannot run `program` now."""

    def joined(self, tile: Tile) -> None:  # noqa: B027 (a no-op by default, on purpose)
        """A tile was added (not placed yet; `start` follows)."""

    def moved(self, tile: Tile) -> None:  # noqa: B027 (a no-op by default, on purpose)
        """A tile was placed, lifted or turned, or its clock was given another rate."""

    @abstractmethod
    def contact(self, tile: Tile, t_ms: int, down: bool) -> None:
        """The tile's raw button contact changed at its local `t_ms` (`ButtonModel.push`)."""

    @abstractmethod
    def wake(self, tile: Tile) -> None:
        """Something touched the tile: its next pass runs loop() even if it would be skipped."""

    @abstractmethod
    def dormant(self, tile: Tile, asleep: bool) -> None:
        """Stop every event of the tile (`asleep`: warm sleep, seed mode), or start them again
        at its next display frame."""

    def reprogrammed(self, tile: Tile) -> None:  # noqa: B027 (a no-op by default, on purpose)
        """The tile runs another program from now on (seed mode's restart; `dormant` follows)."""

    def written(self, tile: Tile) -> None:  # noqa: B027 (a no-op by default, on purpose)
        """Python code wrote the tile's model objects between two runs (a hook evaluated on its
        api, its start state): an engine with state of its own takes them in."""

    def refresh(self) -> None:  # noqa: B027 (a no-op by default, on purpose)
        """Bring the model objects up to date: the world is about to read them (an action
        ends, warm sleep or seed mode looks at a tile)."""

    def lazy_mirrors(self) -> AbstractContextManager[None]:
        """A block in which runs need not bring the model objects up to date after each run
        (an engine with state of its own may leave them stale, and bring them up to date
        before any action of the world and at the block's end): for a caller that polls
        `calm()` between short runs and reads nothing else (Cluster.settle)."""
        return nullcontext()

    def calm(self, tile: Tile) -> Calm:
        """What a settle loop asks of a tile, fresh even inside `lazy_mirrors()`."""
        return Calm(tile.skipped, tile.button.idle(), tile.button.flags)

    # ------------------------------------ changes that an engine may refuse while it runs
    @abstractmethod
    def set_faults(self, faults: Faults) -> None:
        """The packets from now on are lost and delayed as `faults` says (World.set_faults,
        which then redraws clocks and wakes every tile). Called before the world changes."""

    @abstractmethod
    def cut(self, tile: Tile, face: int, until_us: int) -> None:
        """Lose every packet leaving `face` of the tile until world time `until_us`."""

    @abstractmethod
    def stall(self, tile: Tile, ms: int) -> None:
        """Keep the tile's CPU busy `ms` longer in its next pass (World.stall)."""
