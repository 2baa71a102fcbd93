"""Helpers for the build layer's tests. Tests that need avr-gcc skip when it is missing,
except under BLINKC_REQUIRE_TOOLS=1 (CI), where a missing tool is a failure.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from intelhex import IntelHex

from ..tools import require_tool

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
STANDIN = FIXTURES / "standin_sdk"
SKETCHES = FIXTURES / "sketches"
AVR_TOOLS = ("avr-gcc", "avr-g++", "avr-gcc-ar", "avr-objcopy", "avr-size")


def require_tools(*names: str) -> None:
    """Skip (or, with BLINKC_REQUIRE_TOOLS=1, fail) when a tool is not on PATH."""
    require_tool(*names)


def write_fake_bios(path: Path) -> IntelHex:
    """A made-up 'BIOS' image: two blocks in the BIOS area and a start address in it.

    The block at 0x3800 is a vector table the flasher's BIOS check accepts:
    17 slots of RJMP + NOP, each jumping to made-up bytes in the same block.
    """
    bios = IntelHex()
    for i in range(300):
        bios[0x2E00 + i] = (i * 7 + 3) & 0xFF
    for i in range(128):
        bios[0x3800 + i] = 0xA5 ^ i
    for n in range(17):
        slot, target = 0x3800 + 4 * n, 0x3844 + 2 * n
        word = 0xC000 | ((target - slot - 2) // 2 & 0x0FFF)
        for i, b in enumerate((word & 0xFF, word >> 8, 0, 0)):
            bios[slot + i] = b
    bios.start_addr = {"CS": 0, "IP": 0x3800}
    path.parent.mkdir(parents=True, exist_ok=True)
    bios.write_hex_file(str(path))
    return bios


def make_standin(dest: Path) -> Path:
    """A usable copy of the stand-in SDK at `dest` (with its generated BIOS)."""
    shutil.copytree(STANDIN, dest)
    write_fake_bios(dest / "bootloaders" / "StandinBIOS.hex")
    return dest
