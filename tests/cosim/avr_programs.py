"""Small AVR programs of our own, built with avr-gcc in the tests, for the harness's tests
(no SDK, no BIOS: each program does one thing the harness must get right)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from intelhex import IntelHex

from blinkc.cosim.firmware import BOOT_RESET, FLASH_BYTES, Firmware, load_firmware

#: Where the programs leave their results (RAM, above their own few globals).
RESULT = 0x300


def compile_avr(tmp: Path, name: str, source: str, text_at: int = 0, cxx: bool = False) -> Path:
    """The ELF of `source` for an atmega168, its code starting at byte `text_at`."""
    src = tmp / f"{name}.{'cpp' if cxx else 'c'}"
    src.write_text(source)
    elf = tmp / f"{name}.elf"
    cmd = ["avr-g++" if cxx else "avr-gcc", "-mmcu=atmega168", "-Os", "-DF_CPU=8000000UL",
           str(src), "-o", str(elf)]
    if text_at:
        cmd.append(f"-Wl,--section-start=.text={text_at:#x}")
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return elf


def hex_of(tmp: Path, elf: Path) -> IntelHex:
    out = tmp / (elf.stem + ".hex")
    subprocess.run(["avr-objcopy", "-O", "ihex", "-R", ".eeprom", str(elf), str(out)], check=True)
    return IntelHex(str(out))


def boot_firmware(tmp: Path, boot_source: str, app_source: str | None = None) -> Firmware:
    """A flash image laid out as a tile's: `boot_source` in the boot section (at the boot
    reset vector), `app_source` (if any) at 0; symbols from the boot program's ELF."""
    boot = compile_avr(tmp, "boot", boot_source, text_at=BOOT_RESET)
    image = hex_of(tmp, boot)
    if app_source is not None:
        image.merge(hex_of(tmp, compile_avr(tmp, "app", app_source)), overlap="error")
    assert image.maxaddr() < FLASH_BYTES
    merged = tmp / "image.hex"
    image.write_hex_file(str(merged))
    return load_firmware(merged, boot)
