"""A simulated AVRISP-compatible STK500v2 programmer (as a Pololu v2 presents itself).

It signs on as "AVRISP_2", checks every frame's checksum (a bad one is
answered with ANSWER_CKSUM_ERROR), echoes the sequence number, and runs the
ISP commands of AVR068 against the chip model: ENTER_PROGMODE_ISP retries
Programming Enable `synchLoops` times and fails if the echo never matches,
flash addresses are words that auto-increment after each read or write.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import ClassVar

from .chip import Target
from .server import ProgrammerServer

START, TOKEN = 0x1B, 0x0E
OK, FAILED, CKSUM_ERROR, UNKNOWN = 0x00, 0xC0, 0xC1, 0xC9
ANSWER_CKSUM_ERROR = 0xB0
MAX_BODY = 275
SIGNATURE = b"AVRISP_2"

DEFAULT_PARAMS = {
    0x80: 0x00, 0x81: 0x00,           # build number
    0x90: 0x02,                       # HW_VER
    0x91: 0x02, 0x92: 0x0A,           # SW 2.10
    0x94: 30, 0x95: 30,               # VTARGET 3.0 V (a coin cell), VADJUST
    0x96: 0x00, 0x97: 0x00,           # oscillator off
    0x98: 0x01,                       # SCK_DURATION: faster than a 1 MHz tile allows
    0x9A: 0xFF,                       # no top card
    0x9C: 0x00, 0x9D: 0x00,
    0x9E: 0x01,                       # RESET_POLARITY: AVR (active low)
    0x9F: 0x00,
}


def frame(seq: int, body: bytes) -> bytes:
    head = bytes([START, seq, len(body) >> 8, len(body) & 0xFF, TOKEN])
    check = 0
    for b in head + body:
        check ^= b
    return head + body + bytes([check])


class Stk500v2Server(ProgrammerServer):
    protocol = "stk500v2"

    def __init__(self, chip: Target) -> None:
        self.params = dict(DEFAULT_PARAMS)
        self.address = 0               # word address for flash, byte address for EEPROM
        super().__init__(chip)

    def run(self) -> Generator[None, None, None]:
        while True:
            if (yield from self.getch()) != START:
                continue
            seq = yield from self.getch()
            hi = yield from self.getch()
            lo = yield from self.getch()
            if (yield from self.getch()) != TOKEN:
                continue
            size = (hi << 8) | lo
            if size == 0 or size > MAX_BODY:
                continue
            body = yield from self.fill(size)
            check = yield from self.getch()
            total = 0
            for b in bytes([START, seq, hi, lo, TOKEN]) + body:
                total ^= b
            self.commands += 1
            if total != check:
                self.reply(frame(seq, bytes([ANSWER_CKSUM_ERROR, CKSUM_ERROR])))
                continue
            self.reply(frame(seq, self.handle(body)))

    def spi(self, instr: bytes) -> bytes:
        return self.chip.spi(bytes(instr))

    def handle(self, body: bytes) -> bytes:
        cmd, args = body[0], body[1:]
        handler = self.HANDLERS.get(cmd)
        if handler is None:
            return bytes([cmd, UNKNOWN])
        try:
            return bytes([cmd]) + handler(self, args)
        except IndexError:                 # a short command: the firmware would fail it
            return bytes([cmd, FAILED])

    # -- commands (each returns status + data) ---------------------------

    def sign_on(self, _args: bytes) -> bytes:
        return bytes([OK, len(SIGNATURE)]) + SIGNATURE

    def set_parameter(self, args: bytes) -> bytes:
        self.params[args[0]] = args[1]
        return bytes([OK])

    def get_parameter(self, args: bytes) -> bytes:
        if args[0] not in self.params:
            return bytes([FAILED])
        return bytes([OK, self.params[args[0]]])

    def load_address(self, args: bytes) -> bytes:
        self.address = int.from_bytes(args[:4], "big") & 0x7FFFFFFF
        return bytes([OK])

    def enter_progmode(self, args: bytes) -> bytes:
        synch_loops, poll_value, poll_index = args[3], args[5], args[6]
        instr = args[7:11]
        self.chip.reset(True)
        for _ in range(max(1, synch_loops)):
            out = self.spi(instr)
            if poll_index == 0 or out[poll_index - 1] == poll_value:
                return bytes([OK])
        self.chip.reset(False)
        return bytes([FAILED])

    def leave_progmode(self, _args: bytes) -> bytes:
        self.chip.reset(False)
        return bytes([OK])

    def chip_erase(self, args: bytes) -> bytes:
        self.spi(args[2:6])
        return bytes([OK])

    def program_flash(self, args: bytes) -> bytes:
        n = (args[0] << 8) | args[1]
        mode, cmd1, cmd2 = args[2], args[4], args[5]
        data = args[9:9 + n]
        if len(data) != n:
            return bytes([FAILED])
        start = self.address
        for i, b in enumerate(data):
            word = start + i // 2
            op = cmd1 | (0x08 if i & 1 else 0)
            self.spi(bytes([op, (word >> 8) & 0xFF, word & 0xFF, b]))
        if mode & 0x01 and mode & 0x80:        # paged: commit the page
            self.spi(bytes([cmd2, (start >> 8) & 0xFF, start & 0xFF, 0x00]))
        self.address = start + n // 2
        return bytes([OK])

    def read_flash(self, args: bytes) -> bytes:
        n = (args[0] << 8) | args[1]
        cmd1 = args[2]
        out = bytearray([OK])
        for i in range(n):
            word = self.address + i // 2
            op = cmd1 | (0x08 if i & 1 else 0)
            out.append(self.spi(bytes([op, (word >> 8) & 0xFF, word & 0xFF, 0x00]))[3])
        self.address += n // 2
        out.append(OK)
        return bytes(out)

    def program_eeprom(self, args: bytes) -> bytes:
        n = (args[0] << 8) | args[1]
        for i, b in enumerate(args[9:9 + n]):
            addr = self.address + i
            self.spi(bytes([0xC0, (addr >> 8) & 0xFF, addr & 0xFF, b]))
        self.address += n
        return bytes([OK])

    def read_eeprom(self, args: bytes) -> bytes:
        n = (args[0] << 8) | args[1]
        out = bytearray([OK])
        for i in range(n):
            addr = self.address + i
            out.append(self.spi(bytes([args[2], (addr >> 8) & 0xFF, addr & 0xFF, 0]))[3])
        self.address += n
        out.append(OK)
        return bytes(out)

    def program_fuse(self, args: bytes) -> bytes:
        self.spi(args[0:4])
        return bytes([OK, OK])

    def read_fuse(self, args: bytes) -> bytes:
        ret_addr = args[0]
        out = self.spi(args[1:5])
        return bytes([OK, out[(ret_addr - 1) & 0x03], OK])

    def spi_multi(self, args: bytes) -> bytes:
        num_tx, num_rx, rx_start = args[0], args[1], args[2]
        tx = bytes(args[3:3 + num_tx])
        shifted = bytearray()
        for i in range(0, len(tx), 4):
            chunk = tx[i:i + 4].ljust(4, b"\x00")
            shifted += self.spi(chunk)
        rx = bytes(shifted[rx_start:rx_start + num_rx]).ljust(num_rx, b"\x00")
        return bytes([OK]) + rx + bytes([OK])

    HANDLERS: ClassVar[dict[int, Callable[[Stk500v2Server, bytes], bytes]]] = {
        0x01: sign_on, 0x02: set_parameter, 0x03: get_parameter, 0x06: load_address,
        0x10: enter_progmode, 0x11: leave_progmode, 0x12: chip_erase,
        0x13: program_flash, 0x14: read_flash, 0x15: program_eeprom, 0x16: read_eeprom,
        0x17: program_fuse, 0x18: read_fuse, 0x19: program_fuse, 0x1A: read_fuse,
        0x1B: read_fuse, 0x1C: read_fuse, 0x1D: spi_multi,
    }
