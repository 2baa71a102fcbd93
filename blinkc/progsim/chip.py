"""An ATmega168PB (or another classic megaAVR) as seen over ISP.

The model answers 4-byte serial-programming instructions the way the
silicon does: the second byte is echoed while the third is sent (that is how
a programmer checks Programming Enable), flash is written a page at a time
from a page buffer and programming can only clear bits, chip erase sets
flash and lock bits back to 0xFF, and fuse bits that do not exist read as 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from ..flash.targets import ATMEGA168PB, Part


class Target(Protocol):
    """What sits on the programmer's ISP lines: a chip, or a workbench of tiles."""

    def spi(self, instr: bytes) -> bytes: ...

    def reset(self, held: bool) -> None: ...


@dataclass
class Chip:
    part: Part = ATMEGA168PB
    present: bool = True               # False: nothing on the ISP lines (MISO reads 0)
    signature: bytes | None = None     # None: the part's own signature
    bad_pages: set[int] = field(default_factory=set)   # page addresses that do not hold data
    flash: bytearray = field(init=False)
    eeprom: bytearray = field(init=False)
    fuses: dict[str, int] = field(init=False)
    progmode: bool = field(default=False, init=False)
    # Every AC.. instruction (erase, fuse and lock writes) executed, for tests.
    log: list[tuple[int, int, int, int]] = field(default_factory=list, init=False)
    erases: int = field(default=0, init=False)
    page_writes: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        self.flash = bytearray(b"\xff" * self.part.flash_size)
        self.eeprom = bytearray(b"\xff" * self.part.eeprom_size)
        self.fuses = dict(self.part.factory_fuses)
        self._buffer = bytearray(b"\xff" * self.part.page_size)
        if self.signature is None:
            self.signature = self.part.signature

    # -- pins -------------------------------------------------------------

    def reset(self, held: bool) -> None:
        """RESET low enters the serial-programming state; releasing it runs the game."""
        if not held:
            self.progmode = False

    # -- fuse helpers -----------------------------------------------------

    def read_fuse(self, which: str) -> int:
        value = self.fuses[which]
        if which == "ext":
            value |= ~self.part.efuse_mask & 0xFF     # unused bits read as 1
        return value

    # -- the serial programming instruction set ---------------------------

    def spi(self, instr: bytes) -> bytes:
        """Clock one 4-byte instruction through; return the 4 bytes shifted out."""
        a, b, c, d = instr
        if not self.present:
            return b"\x00\x00\x00\x00"
        if not self.progmode:
            if (a, b) == (0xAC, 0x53):
                self.progmode = True
                return bytes([0x00, a, b, c])
            return bytes([0x00, 0x00, 0x00, 0x00])   # out of sync: nothing echoed
        if a == 0xAC:
            self.log.append((a, b, c, d))
        return bytes([0x00, a, b, self._execute(a, b, c, d)])

    def _execute(self, a: int, b: int, c: int, d: int) -> int:
        page = self.part.page_size
        if a == 0xAC:
            if b == 0x53:                      # programming enable (again)
                return c
            if b & 0xE0 == 0x80:               # chip erase
                self.flash[:] = b"\xff" * len(self.flash)
                self.eeprom[:] = b"\xff" * len(self.eeprom)
                self.fuses["lock"] = 0xFF
                self.erases += 1
                return c
            if b == 0xA0:
                self.fuses["low"] = d
            elif b == 0xA8:
                self.fuses["high"] = d
            elif b == 0xA4:
                self.fuses["ext"] = d & self.part.efuse_mask | ~self.part.efuse_mask & 0xFF
            elif b & 0xE0 == 0xE0:             # lock bits: can only be programmed (cleared)
                self.fuses["lock"] &= d | 0xC0
            return c
        if a == 0x30:                          # signature byte
            sig = self.signature or b""
            return sig[c & 0x03] if (c & 0x03) < len(sig) else 0xFF
        if a == 0x38:                          # calibration byte
            return 0x9A
        if (a, b) == (0x50, 0x00):
            return self.read_fuse("low")
        if (a, b) == (0x58, 0x08):
            return self.read_fuse("high")
        if (a, b) == (0x50, 0x08):
            return self.read_fuse("ext")
        if (a, b) == (0x58, 0x00):
            return self.read_fuse("lock") | 0xC0
        if a in (0x40, 0x48):                  # load page buffer, low / high byte
            offset = ((c % (page // 2)) * 2) + (1 if a == 0x48 else 0)
            self._buffer[offset] = d
            return c
        if a == 0x4C:                          # write the page buffer to flash
            base = (((b << 8) | c) * 2) % len(self.flash)
            base -= base % page
            self.page_writes += 1
            if base not in self.bad_pages:
                for i in range(page):          # programming only clears bits
                    self.flash[base + i] &= self._buffer[i]
            self._buffer[:] = b"\xff" * page
            return c
        if a in (0x20, 0x28):                  # read flash, low / high byte
            addr = (((b << 8) | c) * 2 + (1 if a == 0x28 else 0)) % len(self.flash)
            return self.flash[addr]
        if a == 0xA0:                          # read EEPROM
            return self.eeprom[((b << 8) | c) % len(self.eeprom)]
        if a == 0xC0:                          # write EEPROM byte
            self.eeprom[((b << 8) | c) % len(self.eeprom)] = d
            return c
        if a == 0xF0:                          # poll RDY/BSY: always ready
            return 0x00
        return 0x00
