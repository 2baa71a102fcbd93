"""The blinklib API for one tile, in Python, with the SDK's semantics.

`Blinklib` holds exactly the state blinklib keeps in a sketch's RAM (face
values, expiry and send times, datagram slots, the button snapshot, the
frozen millis, the pixel buffer, the random state) and offers the SDK's
functions by their SDK names, so a Python tile program reads like a sketch.

The world (blinkc.world) plays the BIOS and the physics: it latches received
packets into this object, ORs new button flags in, freezes `now`, calls the
program's `loop()`, then reads the pixels and transmits the face values.
"""

from __future__ import annotations

from collections.abc import Callable

from . import color as _color
from .mathfns import map_range, sin8_C
from .rng import Xorshift32
from .timer import Timer

FACE_COUNT = 6
IR_DATA_VALUE_MAX = 63
IR_DATAGRAM_LEN = 16
RX_EXPIRE_TIME_MS = 200
TX_PROBE_TIME_MS = 150

# Button event bits, as the BIOS sets them.
BUTTON_PRESSED = 0x01
BUTTON_RELEASED = 0x02
BUTTON_SINGLECLICKED = 0x04
BUTTON_DOUBLECLICKED = 0x08
BUTTON_MULTICLICKED = 0x10
BUTTON_LONGPRESSED = 0x20
BUTTON_LONGLONGPRESSED = 0x40

BUTTON_EVENT_NAMES = {
    BUTTON_PRESSED: "pressed", BUTTON_RELEASED: "released",
    BUTTON_SINGLECLICKED: "single", BUTTON_DOUBLECLICKED: "double",
    BUTTON_MULTICLICKED: "multi", BUTTON_LONGPRESSED: "long",
    BUTTON_LONGLONGPRESSED: "longlong",
}

START_STATE_POWER_UP = 0
START_STATE_WE_ARE_ROOT = 1
START_STATE_DOWNLOAD_SUCCESS = 2

#: Tile settings in a layout (`tile a at 0,0 clock=+50ppm`) that belong to the world (the
#: tile's clock) and to the SDK (startState()), not to the game: no field may take their names.
CLOCK_KEYS = ("clock", "phase")
START_KEY = "start"

#: The emulator's program of a game (the Python backend's class, the native backend's
#: wrapper) is driven through these names, and the Python backend keeps each field and
#: timer as an attribute of the same name: a field or timer called so would hide one
#: (a field `links` broke Cluster.settle), so none may take them.
PROGRAM_NAMES = ("api", "setup", "loop", "quiet_until", "idle", "send", "start_flood",
                 "links", "display", "value", "state", "flood_within_faces", "restart")

#: What `randomize()` costs on the tile: 32 watchdog periods of about 16 ms.
RANDOMIZE_MS = 512
#: What blinkc's `blinkc_skip_frame()` spends: a little more than one 7.7 ms display frame.
SKIP_FRAME_MS = 8


class Blinklib:
    """One tile's blinklib state and API."""

    FACE_COUNT = FACE_COUNT
    IR_DATA_VALUE_MAX = IR_DATA_VALUE_MAX

    RED, ORANGE, YELLOW, GREEN = _color.RED, _color.ORANGE, _color.YELLOW, _color.GREEN
    CYAN, BLUE, MAGENTA, WHITE, OFF = (
        _color.CYAN, _color.BLUE, _color.MAGENTA, _color.WHITE, _color.OFF,
    )

    def __init__(self, entropy: int = 1, serial: bytes = bytes(9)) -> None:
        self.now = 0
        self.in_value = [0] * FACE_COUNT
        self.out_value = [0] * FACE_COUNT
        self.expire_time = [0] * FACE_COUNT
        self.send_time = [0] * FACE_COUNT
        self.in_datagram: list[bytes | None] = [None] * FACE_COUNT
        self.out_datagram: list[bytes | None] = [None] * FACE_COUNT
        self.pixels = [_color.OFF] * FACE_COUNT
        self.button_down = False
        self.button_flags = 0
        self.click_count = 0
        self.rng = Xorshift32()
        self.woken = False
        self.start_state = START_STATE_POWER_UP
        self.serial = bytes(serial[:9]).ljust(9, b"\0")
        self._prev_value = [0] * FACE_COUNT  # didValueOnFaceChange's static
        self._entropy = entropy & 0xFFFFFFFF or 1
        #: CPU time the last loop() blocked for beyond the pass (randomize()).
        self.extra_cpu_ms = 0
        #: Where the explorer's build of a game reports its probes (blinkc/ir/probes.py):
        #: probe(kind, values), set by the world engine while it has probe observers.
        self.probe: Callable[[int, tuple[int, ...]], None] | None = None

    # --- time -------------------------------------------------------------
    @property
    def entropy(self) -> int:
        """The state of the "hardware noise" randomize() draws from (for another engine to
        mirror)."""
        return self._entropy

    @entropy.setter
    def entropy(self, value: int) -> None:
        self._entropy = value

    def millis(self) -> int:
        return self.now

    def Timer(self) -> Timer:
        """A new Timer on this tile's clock (in C++: `Timer t;`)."""
        return Timer(self.millis)

    # --- face values ------------------------------------------------------
    def setValueSentOnFace(self, value: int, face: int) -> None:
        value &= 0xFF
        self.out_value[face] = IR_DATA_VALUE_MAX if value > IR_DATA_VALUE_MAX else value

    def setValueSentOnAllFaces(self, value: int) -> None:
        value &= 0xFF
        v = IR_DATA_VALUE_MAX if value > IR_DATA_VALUE_MAX else value
        self.out_value[:] = [v] * FACE_COUNT

    def getLastValueReceivedOnFace(self, face: int) -> int:
        return self.in_value[face]

    def isValueReceivedOnFaceExpired(self, face: int) -> bool:
        return self.expire_time[face] < self.now

    def didValueOnFaceChange(self, face: int) -> bool:
        cur = self.in_value[face]
        if cur == self._prev_value[face]:
            return False
        self._prev_value[face] = cur
        return True

    def isAlone(self) -> bool:
        now = self.now
        return all(e < now for e in self.expire_time)

    # --- datagrams --------------------------------------------------------
    def sendDatagramOnFace(self, data: bytes, face: int) -> None:
        """Queue 1..16 bytes for the face's next transmit slot (replaces an unsent one)."""
        data = bytes(data)
        if len(data) > IR_DATAGRAM_LEN:
            return  # the SDK silently ignores oversized datagrams
        # A new send replaces an unsent one; an empty one cancels it, as on the tile.
        self.out_datagram[face] = data or None

    def isDatagramReadyOnFace(self, face: int) -> bool:
        return self.in_datagram[face] is not None

    def getDatagramLengthOnFace(self, face: int) -> int:
        d = self.in_datagram[face]
        return 0 if d is None else len(d)

    def getDatagramOnFace(self, face: int) -> bytes:
        return self.in_datagram[face] or b""

    def markDatagramReadOnFace(self, face: int) -> None:
        self.in_datagram[face] = None

    # --- button -----------------------------------------------------------
    def _take(self, bit: int) -> bool:
        hit = bool(self.button_flags & bit)
        self.button_flags &= ~bit
        return hit

    def buttonDown(self) -> bool:
        return self.button_down

    def buttonPressed(self) -> bool:
        return self._take(BUTTON_PRESSED)

    def buttonReleased(self) -> bool:
        return self._take(BUTTON_RELEASED)

    def buttonSingleClicked(self) -> bool:
        return self._take(BUTTON_SINGLECLICKED)

    def buttonDoubleClicked(self) -> bool:
        return self._take(BUTTON_DOUBLECLICKED)

    def buttonMultiClicked(self) -> bool:
        return self._take(BUTTON_MULTICLICKED)

    def buttonClickCount(self) -> int:
        return self.click_count

    def buttonLongPressed(self) -> bool:
        return self._take(BUTTON_LONGPRESSED)

    def buttonLongLongPressed(self) -> bool:
        return self._take(BUTTON_LONGLONGPRESSED)

    # --- display ----------------------------------------------------------
    def setColor(self, c: int) -> None:
        self.pixels[:] = [c] * FACE_COUNT

    def setColorOnFace(self, c: int, face: int) -> None:
        self.pixels[face] = c

    def setFaceColor(self, face: int, c: int) -> None:
        self.pixels[face] = c

    makeColorRGB = staticmethod(_color.makeColorRGB)
    makeColorHSB = staticmethod(_color.makeColorHSB)
    dim = staticmethod(_color.dim)
    lighten = staticmethod(_color.lighten)

    # --- numbers ----------------------------------------------------------
    def random(self, limit: int) -> int:
        return self.rng.random(limit)

    def randomWord(self) -> int:
        return self.rng.random_word()

    def randomize(self) -> None:
        """Reseed from 'hardware noise': in the emulator, from the world seed and the tile."""
        seed = self._entropy
        state = 0
        for _ in range(32):  # one noisy bit per watchdog period, as on the tile
            seed ^= (seed << 13) & 0xFFFFFFFF
            seed ^= seed >> 17
            seed ^= (seed << 5) & 0xFFFFFFFF
            state = ((state << 1) | (seed >> 7 & 1)) & 0xFFFFFFFF
        self._entropy = seed
        self.rng.state = state or 1
        self.extra_cpu_ms += RANDOMIZE_MS

    map = staticmethod(map_range)
    sin8_C = staticmethod(sin8_C)

    # --- misc -------------------------------------------------------------
    def hasWoken(self) -> bool:
        woke, self.woken = self.woken, False
        return woke

    def startState(self) -> int:
        return self.start_state

    def blinkc_skip_frame(self) -> None:
        """blinkc's own (not in the SDK): busy-wait about a frame, so this pass transmits late."""
        self.extra_cpu_ms += SKIP_FRAME_MS

    def blinkc_probe(self, kind: int, *values: int) -> None:
        """The explorer's build only (ir/probes.py): report a probe to whoever listens."""
        probe = self.probe
        if probe is not None:
            probe(kind, values)

    def getSerialNumberByte(self, n: int) -> int:
        return self.serial[n] if 0 <= n <= 8 else 0
