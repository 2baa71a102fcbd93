"""The images a tile runs, as `blinkc build` makes them, and what their ELF says.

A tile's flash is the build's `.with_bootloader.hex`: the game at the SDK's built-in base
(0x1700) and the user's BlinkBIOS in the boot section, exactly what `blinkc flash` writes.
The ELF's symbol table (read with pyelftools) gives the addresses co-simulation needs:
the BIOS's shared blocks in RAM (the pixel buffer and millis), `setup()` and `loop()`,
the end of the globals, and the game's state fields.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile
from intelhex import HexRecordError, IntelHex

#: The ATmega168PB's flash and where its data space's RAM starts and ends.
FLASH_BYTES = 16 * 1024
RAM_START = 0x100
RAM_END = 0x4FF
#: avr-gcc puts the data space at 0x800000 in the ELF's addresses.
DATA_BASE = 0x800000
#: The boot reset vector: the SDK's extended fuse 0xF8 (platform.txt) programs BOOTRST with
#: BOOTSZ = 00, the largest boot section (1,024 words), which starts at word 0x1C00.
BOOT_RESET = 0x3800
#: The BIOS blocks the game shares with the BIOS (their names in the game's ELF).
PIXEL_BLOCK = "blinkbios_pixel_block"
MILLIS_BLOCK = "blinkbios_millis_block"
#: The BIOS entry blinklib calls after each loop() to hand the pass's pixel buffer to the
#: display (BLINKBIOS_DISPLAY_PIXEL_BUFFER_VECTOR): an absolute symbol of the game's ELF.
DISPLAY_VECTOR = "boot_vector8"


class FirmwareError(Exception):
    """An image or ELF co-simulation cannot use; the text says why and what to do."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message + (f"\n  hint: {self.hint}" if self.hint else "")


@dataclass(frozen=True)
class Symbol:
    address: int  # data addresses without the 0x800000 offset; flash addresses in bytes
    size: int


@dataclass
class Firmware:
    """One program's images and the addresses co-simulation reads."""

    name: str
    flash: bytes
    elf: Path
    objects: dict[str, Symbol]    # variables in RAM
    functions: dict[str, Symbol]  # code, by demangled-enough name (setup, loop)
    globals_end: int              # the first RAM byte after every global

    @property
    def pixel_block(self) -> int:
        return self._block(PIXEL_BLOCK)

    @property
    def millis_block(self) -> int:
        return self._block(MILLIS_BLOCK)

    def _block(self, name: str) -> int:
        sym = self.objects.get(name)
        if sym is None:
            raise FirmwareError(f"{self.elf} has no {name}: it was not built against the "
                                "Blinks SDK's blinklib", "build it with `blinkc build`")
        return sym.address

    def function(self, name: str) -> int | None:
        sym = self.functions.get(name)
        return sym.address if sym is not None else None


def load_firmware(with_bootloader: Path, elf: Path) -> Firmware:
    """The flash image and the ELF's symbols of one build."""
    try:
        image = IntelHex(str(with_bootloader))
    except (OSError, HexRecordError, ValueError) as e:
        raise FirmwareError(f"cannot read {with_bootloader}: {e}") from None
    if image.maxaddr() is None or image.maxaddr() >= FLASH_BYTES:
        raise FirmwareError(f"{with_bootloader} does not fit a 16 KB ATmega168PB")
    flash = bytes(image.tobinarray(start=0, size=FLASH_BYTES))
    if flash[BOOT_RESET:BOOT_RESET + 2] == b"\xff\xff":
        raise FirmwareError(f"{with_bootloader} has no BIOS at the boot reset vector "
                            f"({BOOT_RESET:#06x})", "use the .with_bootloader.hex of a build")
    objects, functions = _symbols(elf)
    ram = [s.address + s.size for s in objects.values() if RAM_START <= s.address <= RAM_END]
    return Firmware(name=elf.name.split(".")[0], flash=flash, elf=elf, objects=objects,
                    functions=functions, globals_end=max(ram, default=RAM_START))


def _symbols(elf: Path) -> tuple[dict[str, Symbol], dict[str, Symbol]]:
    objects: dict[str, Symbol] = {}
    functions: dict[str, Symbol] = {}
    try:
        with open(elf, "rb") as f:
            table = ELFFile(f).get_section_by_name(".symtab")
            if table is None:
                raise FirmwareError(f"{elf} has no symbol table (was it stripped?)")
            for s in table.iter_symbols():
                kind, value, size = s["st_info"]["type"], s["st_value"], s["st_size"]
                if kind == "STT_OBJECT" and value >= DATA_BASE and value < DATA_BASE + 0x10000:
                    objects[_plain(s.name)] = Symbol(value - DATA_BASE, size)
                elif kind == "STT_FUNC" or s.name == DISPLAY_VECTOR:
                    functions[_plain(s.name)] = Symbol(value, size)
    except (OSError, ELFError) as e:
        raise FirmwareError(f"cannot read {elf}: {e}") from None
    return objects, functions


def _plain(name: str) -> str:
    """`_ZL4kind` -> `kind`, `_Z5setupv` -> `setup`: the C++ names of file-level variables
    and of functions without arguments, as the source says them (without the suffix link-time
    optimisation adds to a file-level name: `_ZL4ship.lto_priv.13`); others as they are."""
    if "." in name[1:]:
        name = name[0] + name[1:].split(".", 1)[0]
    for prefix in ("_ZL", "_Z"):
        if name.startswith(prefix):
            rest = name[len(prefix):]
            digits = len(rest) - len(rest.lstrip("0123456789"))
            if digits:
                n = int(rest[:digits])
                body = rest[digits:]
                if len(body) == n or (len(body) == n + 1 and body.endswith("v")):
                    return body[:n]
    return name
