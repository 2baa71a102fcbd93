"""One tile in the world: its program, its blinklib state, and its BIOS-side state."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ..blinklib.api import FACE_COUNT, Blinklib
from .button import ButtonModel
from .clock import Clock
from .freeze import Freeze
from .geometry import Pos


@runtime_checkable
class TileProgram(Protocol):
    """Anything with `setup()` and `loop()` against the blinklib API is a tile program.

    Optional hooks let the world skip work it can prove is idle:

    - `quiet_until(api) -> int | None`: the local millis() until which `loop()`
      would change nothing (no state, face value or colour) as long as the
      tile's inputs stay as they are; None when busy. `blinklib.NEVER` for ever.
    - `display(api)`: recompute `api.pixels` for `api.now` alone, so an
      animated look can be rendered while the tile's logic is idle.
    - `state() -> dict`: the program's own state, for traces and `--json`.
    - `take_serial() -> bytes`: what it wrote to its service port since the
      last call (a native sketch's `Serial`), collected after every loop().
    """

    def setup(self, api: Blinklib) -> None: ...

    def loop(self, api: Blinklib) -> None: ...


def serial_hook_of(program: Any) -> Any:
    """The program's `take_serial()` (what it wrote to its service port since the last call), or
    that of the native program it wraps (`.native`, the native game backend's tiles), or None."""
    hook = getattr(program, "take_serial", None)
    if hook is None:
        hook = getattr(getattr(program, "native", None), "take_serial", None)
    return hook


@dataclass(frozen=True, slots=True)
class Packet:
    """A packet on the air: its first byte (encoded value or datagram marker)."""

    byte0: int
    datagram: bytes | None
    air_us: int


@dataclass(slots=True)
class Incoming:
    """A packet currently flying toward one of this tile's faces."""

    start: int
    end: int
    packet: Packet
    sender: int
    sender_face: int


class Tile:
    """World-side record of a tile: placement, clock, BIOS buffers, bookkeeping."""

    def __init__(self, index: int, name: str, program: Any, api: Blinklib, clock: Clock) -> None:
        self.index = index
        self.name = name
        self.program = program
        self.api = api
        self.clock = clock
        self.pos: Pos | None = None
        self.rot = 0
        self.button = ButtonModel()
        self.rx_buf: list[Packet | None] = [None] * FACE_COUNT
        self.incoming: list[Incoming | None] = [None] * FACE_COUNT
        self.tx_start = [-1] * FACE_COUNT
        self.tx_end = [-1] * FACE_COUNT
        self.viral_faces = 0
        self.viral_lockout_until = -1
        self.started = False
        self.epoch = 0
        self.quiet_until: int | None = None
        #: The inputs loop() last ran with, when the program declared itself quiet.
        self.loop_inputs: tuple | None = None
        #: True when the last pass skipped loop() (its inputs had not changed).
        self.skipped = False
        self.passes = 0
        #: Cached (neighbour, its face) per face, valid for one topology.
        self.links: list = [None] * FACE_COUNT
        self.links_at = -1
        # For traces: what was last reported.
        self.seen_out: list[int] | None = None
        self.seen_in: list[int] | None = None
        self.seen_expired: list[bool] | None = None
        self.seen_pixels: list[int] | None = None
        self.seen_state: dict | None = None
        #: The program's optional hooks (TileProgram), None where it has none.
        self.quiet_hook = getattr(program, "quiet_until", None)
        self.display_hook = getattr(program, "display", None)
        self.state_hook = getattr(program, "state", None)
        #: In warm sleep (blinklib's warm_sleep_cycle): LEDs off, no passes, no packets.
        self.asleep = False
        #: Local µs when it fell asleep (millis() resumes from there on waking).
        self.asleep_local_us = 0
        #: Local ms from which the 10-minute warm-sleep timer last ran (power-up or a wake);
        #: button presses and viral presses reset it too (World._warm_deadline).
        self.sleep_base_ms = 0
        #: Bumped when a sleep check chain starts over, and at every contact change.
        self.sleep_gen = 0
        self.contact_seq = 0
        #: Everything the tile wrote to its service port since power-up (Serial.h).
        self.serial_out = bytearray()
        self.serial_hook = serial_hook_of(program)
        #: Seed mode (world/seed.py): None, or "hold", "root" or "download".
        self.seed_role: str | None = None
        #: Frozen for good, its loop() stuck (freeze.py): when and why; None while it runs.
        #: (Not `frozen`, which is the emulator's idle sleep.)
        self.stuck: Freeze | None = None

    def set_program(self, program: Any) -> None:
        """Run another program from now on (seed mode's restart), with its own hooks."""
        self.program = program
        self.quiet_hook = getattr(program, "quiet_until", None)
        self.display_hook = getattr(program, "display", None)
        self.state_hook = getattr(program, "state", None)
        self.serial_hook = serial_hook_of(program)

    @property
    def placed(self) -> bool:
        return self.pos is not None

    @property
    def serial_text(self) -> str:
        """The service-port output as text (bytes that are not UTF-8 shown as U+FFFD)."""
        return self.serial_out.decode("utf-8", "replace")

    def program_state(self) -> dict:
        return dict(self.state_hook()) if self.state_hook else {}

    def __repr__(self) -> str:
        return f"Tile({self.name!r} at {self.pos} rot {self.rot})"
