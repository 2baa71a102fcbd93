"""A simulated ArduinoISP: STK500v1 as the ArduinoISP sketch speaks it.

Behaviours worth knowing (they are the sketch's, kept on purpose):
  * GET_PARAMETER answers hardware 2, firmware 1.18, 'S' for 0x93, 0 otherwise;
  * SET_PARAMETER is unknown to it: the sketch answers NOSYNC (avrdude -B
    against an ArduinoISP desynchronises for this reason);
  * ENTER_PROGMODE always answers OK, even with no chip attached;
  * pages are committed using the page size from SET_DEVICE, so a host that
    skips SET_DEVICE gets a page write per word;
  * the flash address (word) auto-increments during PROG_PAGE/READ_PAGE;
  * EEPROM addresses are `here * 2` (the avrdude stk500v1 EEPROM quirk).
"""

from __future__ import annotations

from collections.abc import Generator

from .chip import Target
from .server import ProgrammerServer

EOP = 0x20
INSYNC, OK, FAILED, UNKNOWN, NOSYNC = 0x14, 0x10, 0x11, 0x12, 0x15


class Stk500v1Server(ProgrammerServer):
    protocol = "stk500v1"

    def __init__(self, chip: Target) -> None:
        self.pmode = False
        self.here = 0                  # word address
        self.pagesize = 0              # from SET_DEVICE
        self.eepromsize = 0
        super().__init__(chip)

    # -- reply helpers (the sketch's empty_reply / breply) ------------------

    def empty_reply(self) -> Generator[None, None, None]:
        if (yield from self.getch()) == EOP:
            self.reply(INSYNC, OK)
        else:
            self.reply(NOSYNC)

    def byte_reply(self, b: int) -> Generator[None, None, None]:
        if (yield from self.getch()) == EOP:
            self.reply(INSYNC, b, OK)
        else:
            self.reply(NOSYNC)

    def spi(self, a: int, b: int, c: int, d: int) -> int:
        return self.chip.spi(bytes([a & 0xFF, b & 0xFF, c & 0xFF, d & 0xFF]))[3]

    # -- the command loop -------------------------------------------------

    def run(self) -> Generator[None, None, None]:
        while True:
            ch = yield from self.getch()
            self.commands += 1
            if ch == 0x30:                                   # GET_SYNC
                yield from self.empty_reply()
            elif ch == 0x31:                                 # GET_SIGN_ON
                if (yield from self.getch()) == EOP:
                    self.reply(INSYNC, b"AVR ISP", OK)
                else:
                    self.reply(NOSYNC)
            elif ch == 0x41:                                 # GET_PARAMETER
                parm = yield from self.getch()
                value = {0x80: 2, 0x81: 1, 0x82: 18, 0x93: ord("S")}.get(parm, 0)
                yield from self.byte_reply(value)
            elif ch == 0x42:                                 # SET_DEVICE
                params = yield from self.fill(20)
                self.pagesize = (params[12] << 8) | params[13]
                self.eepromsize = (params[14] << 8) | params[15]
                yield from self.empty_reply()
            elif ch == 0x45:                                 # SET_DEVICE_EXT (5 bytes)
                yield from self.fill(5)
                yield from self.empty_reply()
            elif ch == 0x50:                                 # ENTER_PROGMODE
                if not self.pmode:
                    self.chip.reset(True)
                    self.spi(0xAC, 0x53, 0x00, 0x00)         # the echo is not checked
                    self.pmode = True
                yield from self.empty_reply()
            elif ch == 0x51:                                 # LEAVE_PROGMODE
                self.chip.reset(False)
                self.pmode = False
                yield from self.empty_reply()
            elif ch == 0x55:                                 # LOAD_ADDRESS (word, LE)
                lo = yield from self.getch()
                hi = yield from self.getch()
                self.here = lo | (hi << 8)
                yield from self.empty_reply()
            elif ch == 0x56:                                 # UNIVERSAL
                a, b, c, d = yield from self.fill(4)
                yield from self.byte_reply(self.spi(a, b, c, d))
            elif ch == 0x60:                                 # PROG_FLASH (ignored)
                yield from self.fill(2)
                yield from self.empty_reply()
            elif ch == 0x61:                                 # PROG_DATA (ignored)
                yield from self.getch()
                yield from self.empty_reply()
            elif ch == 0x64:                                 # PROG_PAGE
                yield from self.program_page()
            elif ch == 0x74:                                 # READ_PAGE
                yield from self.read_page()
            elif ch == 0x75:                                 # READ_SIGN
                if (yield from self.getch()) == EOP:
                    sig = bytes(self.spi(0x30, 0x00, i, 0x00) for i in range(3))
                    self.reply(INSYNC, sig, OK)
                else:
                    self.reply(NOSYNC)
            elif ch == EOP:                                  # expected a command
                self.reply(NOSYNC)
            else:
                self.reply(UNKNOWN if (yield from self.getch()) == EOP else NOSYNC)

    def current_page(self) -> int:
        mask = {32: 0xFFF0, 64: 0xFFE0, 128: 0xFFC0, 256: 0xFF80}.get(self.pagesize)
        return self.here & mask if mask else self.here

    def program_page(self) -> Generator[None, None, None]:
        hi = yield from self.getch()
        lo = yield from self.getch()
        length = (hi << 8) | lo
        memtype = yield from self.getch()
        if length > 256:
            self.reply(FAILED)
            return
        if memtype == ord("F"):
            data = yield from self.fill(length)
            if (yield from self.getch()) != EOP:
                self.reply(NOSYNC)
                return
            page = self.current_page()
            for x in range(0, length - 1, 2):
                if page != self.current_page():
                    self.commit(page)
                    page = self.current_page()
                self.spi(0x40, self.here >> 8, self.here, data[x])
                self.spi(0x48, self.here >> 8, self.here, data[x + 1])
                self.here += 1
            self.commit(page)
            self.reply(INSYNC, OK)
        elif memtype == ord("E"):
            data = yield from self.fill(length)
            start = self.here * 2
            for i, b in enumerate(data):
                addr = start + i
                self.spi(0xC0, addr >> 8, addr, b)
            if (yield from self.getch()) == EOP:
                self.reply(INSYNC, OK)
            else:
                self.reply(NOSYNC)
        else:
            self.reply(FAILED)

    def commit(self, word: int) -> None:
        self.spi(0x4C, word >> 8, word, 0)

    def read_page(self) -> Generator[None, None, None]:
        hi = yield from self.getch()
        lo = yield from self.getch()
        length = (hi << 8) | lo
        memtype = yield from self.getch()
        if (yield from self.getch()) != EOP:
            self.reply(NOSYNC)
            return
        out = bytearray([INSYNC])
        if memtype == ord("F"):
            for _ in range(0, length, 2):
                out.append(self.spi(0x20, self.here >> 8, self.here, 0))
                out.append(self.spi(0x28, self.here >> 8, self.here, 0))
                self.here += 1
            out.append(OK)
        elif memtype == ord("E"):
            start = self.here * 2
            for i in range(length):
                addr = start + i
                out.append(self.spi(0xA0, addr >> 8, addr, 0xFF))
            out.append(OK)
        else:
            out.append(FAILED)
        self.reply(bytes(out))
