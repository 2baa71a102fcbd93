"""One tile: a simavr core running a Firmware, and what can be read from it."""

from __future__ import annotations

import ctypes
from typing import Any

from ..world.clock import TICK_US
from .firmware import BOOT_RESET, DISPLAY_VECTOR, Firmware, FirmwareError
from .library import harness

#: The tile's nominal clock: the 8 MHz internal RC oscillator (boards.txt: f_cpu).
F_CPU = 8_000_000
SERIAL_LEN = 9
#: simavr's cpu states (sim_avr.h) that end a core's run.
CPU_DONE = 6
CPU_CRASHED = 7
#: The longest boot a tile is given to reach its game (the BIOS's, from power-up to the
#: game's first instruction: measured 118.7 ms on the SDK's BIOS, docs/cosim.md).
BOOT_LIMIT_CYCLES = F_CPU


#: Bytes of one logged change (the harness's WATCH_MAX), of which the six pixels take 12.
_CHANGE_BYTES = 16
#: The BIOS's timer tick in cycles.
_TICK_CYCLES = TICK_US * F_CPU // 1_000_000
_TAKE = 256


def avr_color(word: int) -> int:
    """A BIOS pixel (pixelColor_t: reserved bit 0, then r, g, b in 5 bits each) as the
    emulator writes a colour (r | g << 5 | b << 10)."""
    r, g, b = (word >> 1) & 31, (word >> 6) & 31, (word >> 11) & 31
    return r | g << 5 | b << 10


class CosimTile:
    """A simavr atmega168 core with the tile's flash, its serial number and its clock error."""

    def __init__(self, name: str, firmware: Firmware, serial: bytes, ppm: int = 0,
                 vector_offset: int = BOOT_RESET) -> None:
        """`vector_offset`: where the interrupt vectors go while IVSEL is set (the boot
        section's start; 0 only to show what simavr does without the workaround)."""
        if len(serial) != SERIAL_LEN:
            raise ValueError(f"a serial number has {SERIAL_LEN} bytes")
        self.lib = harness()
        self.name = name
        self.firmware = firmware
        self.ppm = ppm
        handle = self.lib.cs_tile_new(firmware.flash, len(firmware.flash), BOOT_RESET,
                                      vector_offset, serial, F_CPU)
        if not handle:
            raise MemoryError("simavr could not make an atmega168 core")
        self.handle = handle
        self.lib.cs_set_clock(handle, ppm)
        self.lib.cs_set_loop_pc(handle, firmware.function("loop") or 0)
        self._service = bytearray()
        #: The local cycle at which the game started, once boot() ran; None before.
        self.booted_at: int | None = None

    def set_initial(self, values: dict[int, int]) -> None:
        """Bytes (address: value) written just before setup() runs (after the C runtime has
        set up the globals): a layout's initial state. blinklib calls setup() from `mainx`,
        where the compiler often inlines it."""
        if not values:
            return
        setup = self.firmware.function("setup") or self.firmware.function("mainx")
        if setup is None:
            raise FirmwareError(f"{self.firmware.elf} has neither setup() nor blinklib's mainx: "
                                "there is no moment to apply the layout's settings at")
        triples = b"".join(bytes((a & 0xFF, a >> 8, v & 0xFF)) for a, v in values.items())
        self.lib.cs_set_poke(self.handle, setup, triples, len(values))

    # ------------------------------------------------------------ driving
    def boot(self) -> int:
        """Power up alone and run the BIOS until the game's first instruction (setup(), or
        blinklib's mainx where setup() is inlined): the moment the emulator calls time 0.
        Returns the cycles it took; FirmwareError if the game never starts."""
        start = self.firmware.function("setup") or self.firmware.function("mainx")
        if start is None:
            raise FirmwareError(f"{self.firmware.elf} has neither setup() nor blinklib's "
                                "mainx: there is no moment the game starts")
        at = self.lib.cs_boot(self.handle, start, BOOT_LIMIT_CYCLES)
        if not at:
            raise FirmwareError(
                f"tile {self.name}: the firmware did not reach setup() within "
                f"{BOOT_LIMIT_CYCLES * 1000 // F_CPU} ms of power-up (stopped at pc "
                f"{self.pc:#06x}): is the BIOS the SDK's bootloaders/BlinkBIOS.hex?")
        self.booted_at = at
        return at

    def run(self, cycle: int) -> int:
        """Run alone (outside a cluster) to the tile's own cycle count `cycle`."""
        return self.lib.cs_run(self.handle, cycle)

    def button(self, down: bool) -> None:
        self.lib.cs_set_button(self.handle, 1 if down else 0)

    def discharge(self, face: int) -> None:
        """Light on face `face`: its cathode (PCn) is pulled low if it is an input."""
        self.lib.cs_discharge(self.handle, face)

    # ------------------------------------------------------------ reading
    def read(self, address: int, length: int) -> bytes:
        buf = ctypes.create_string_buffer(length)
        self.lib.cs_read(self.handle, address, buf, length)
        return buf.raw

    def write(self, address: int, data: bytes) -> None:
        self.lib.cs_write(self.handle, address, data, len(data))

    @property
    def cycle(self) -> int:
        return self.lib.cs_cycle(self.handle)

    @property
    def pc(self) -> int:
        return self.lib.cs_pc(self.handle)

    @property
    def crashed(self) -> bool:
        return self.lib.cs_state(self.handle) in (CPU_DONE, CPU_CRASHED)

    def colors(self) -> list[int]:
        return _pixels(self.read(self.firmware.pixel_block, 12))

    def watch_colors(self) -> None:
        """Log every change of the BIOS's pixel buffer from now on, for take_color_changes:
        taken as blinklib hands a pass's pixels to the BIOS's display (what each pass
        committed, as the emulator records it; the pass itself writes the buffer face by
        face), or at each slice's end in a cluster for an image without that entry."""
        self.lib.cs_set_watch(self.handle, self.firmware.pixel_block, 12,
                              self.firmware.function(DISPLAY_VECTOR) or 0)

    def take_color_changes(self) -> list[tuple[int, list[int]]]:
        """(world cycle, colours) of each change logged since the last call."""
        out: list[tuple[int, list[int]]] = []
        at = (ctypes.c_uint64 * _TAKE)()
        raw = ctypes.create_string_buffer(_TAKE * _CHANGE_BYTES)
        while True:
            n = self.lib.cs_take_changes(self.handle, at, raw, _TAKE)
            if n < 0:
                raise FirmwareError(f"tile {self.name}: its colours changed more than 4,096 "
                                    "times between two reads; read them more often")
            data = raw.raw
            out += [(at[k], _pixels(data[_CHANGE_BYTES * k:_CHANGE_BYTES * k + 12]))
                    for k in range(n)]
            if n < _TAKE:
                return out

    def millis(self) -> int:
        return int.from_bytes(self.read(self.firmware.millis_block, 4), "little")

    def bios_clock_us(self) -> int:
        """The BIOS's clock at its last tick (µs): millis and the millis block's carry of
        8 µs steps (blinkbios_shared_millis.h)."""
        raw = self.read(self.firmware.millis_block, 5)
        return int.from_bytes(raw[:4], "little") * 1000 + raw[4] * 8

    def variable(self, name: str, signed: bool = False) -> int | list[int] | None:
        """A global's value by its ELF name (all its bytes as one little-endian number)."""
        sym = self.firmware.objects.get(name)
        if sym is None:
            return None
        return int.from_bytes(self.read(sym.address, sym.size), "little", signed=signed)

    def service_output(self) -> bytes:
        """Everything the tile has written to its service port (USART0) so far."""
        buf = ctypes.create_string_buffer(65536)
        n = self.lib.cs_take_service(self.handle, buf, len(buf))
        self._service += buf.raw[:n]
        return bytes(self._service)

    def feed_serial(self, data: bytes) -> None:
        """Bytes the other end of the service port sends (a scenario's `serial`): into the
        UART's receive FIFO as the program reads it, at the baud rate it set."""
        taken = self.lib.cs_service_input(self.handle, data, len(data))
        if taken < len(data):
            raise ValueError(f"tile {self.name}: more service-port input waiting than the "
                             f"harness holds ({taken} of {len(data)} bytes taken)")

    def figures(self) -> dict[str, Any]:
        """stack_free_min: the fewest bytes there were between the stack and the globals;
        loop_max_us: the longest loop() (interrupts included, as on the tile), in µs of the
        tile's own clock; loops: how many loop() calls returned."""
        sp_min = self.lib.cs_sp_min(self.handle)
        loops = self.lib.cs_loops(self.handle)
        longest = self.lib.cs_loop_max(self.handle)
        return {
            "stack_free_min": None if sp_min == 0xFFFF else sp_min - self.firmware.globals_end + 1,
            "loop_max_us": round(longest * 1_000_000 / F_CPU) if loops else None,
            "loop_max_cycles": longest if loops else None,
            "loops": loops,
        }

    def close(self) -> None:
        if self.handle:
            self.lib.cs_tile_free(self.handle)
            self.handle = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


def _pixels(raw: bytes) -> list[int]:
    """The six faces' colours from the 12 bytes of a BIOS pixel buffer."""
    return [avr_color(int.from_bytes(raw[2 * f:2 * f + 2], "little")) for f in range(6)]


def clock_at_start(firmware: Firmware, serial: bytes) -> int:
    """The BIOS's clock (µs) when the game starts: it depends on the image, since the BIOS
    copies the game before starting it. The millis block says it to a tick (256 µs); a
    scratch core run on, 1 µs at a time, to the next tick says where in the tick."""
    tile = CosimTile("clock", firmware, serial)
    try:
        start = tile.boot()
        before = tile.bios_clock_us()
        cycle = start
        while cycle < start + 2 * _TICK_CYCLES:
            cycle += F_CPU // 1_000_000
            tile.run(cycle)
            if tile.bios_clock_us() != before:
                # The tick's interrupt writes millis, then its carry: read it once done.
                tile.run(cycle + _TICK_CYCLES // 4)
                return tile.bios_clock_us() - (cycle - start) * 1_000_000 // F_CPU
        raise FirmwareError(f"{firmware.elf}: the BIOS's millis did not tick within "
                            f"{2 * _TICK_CYCLES} cycles of the game's start")
    finally:
        tile.close()
