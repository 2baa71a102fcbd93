"""The parts we can flash, and where things live on a Blink.

Numbers come from the platform facts page (docs/platform.md) and
avrdude.conf; tests pin them. To add a part, add one `Part` to `PARTS`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Instr = tuple[int, int, int, int]


@dataclass(frozen=True)
class IspInstructions:
    """Serial-programming (ISP) instructions of the classic megaAVR family.

    There is deliberately no lock-bit write here: blinkc never writes lock bits.
    """

    program_enable: Instr = (0xAC, 0x53, 0x00, 0x00)
    chip_erase: Instr = (0xAC, 0x80, 0x00, 0x00)
    load_page_low: int = 0x40    # 40 00 aa dd (aa: word offset in the page)
    load_page_high: int = 0x48
    write_page: int = 0x4C       # 4C aH aL 00 (word address of the page)
    read_low: int = 0x20         # 20 aH aL 00 -> low byte of the word
    read_high: int = 0x28
    read_fuse: dict[str, Instr] = field(default_factory=lambda: {
        "low": (0x50, 0x00, 0x00, 0x00),
        "high": (0x58, 0x08, 0x00, 0x00),
        "ext": (0x50, 0x08, 0x00, 0x00),
        "lock": (0x58, 0x00, 0x00, 0x00),
    })
    # The value goes in the fourth byte. No "lock" entry, on purpose.
    write_fuse: dict[str, Instr] = field(default_factory=lambda: {
        "low": (0xAC, 0xA0, 0x00, 0x00),
        "high": (0xAC, 0xA8, 0x00, 0x00),
        "ext": (0xAC, 0xA4, 0x00, 0x00),
    })

    def read_signature(self, index: int) -> Instr:
        return (0x30, 0x00, index & 0x03, 0x00)


@dataclass(frozen=True)
class Stk500v2Params:
    """ISP timing parameters an STK500v2 programmer needs (avrdude.conf, m168)."""

    timeout: int = 200
    stabdelay: int = 100
    cmdexedelay: int = 25
    synchloops: int = 32
    bytedelay: int = 0
    pollindex: int = 3
    pollvalue: int = 0x53
    flash_mode: int = 0x41       # paged; bit 7 ("write the page") is added per command
    flash_delay: int = 6
    eeprom_mode: int = 0x41
    eeprom_delay: int = 20
    chip_erase_delay_ms: float = 10.5


@dataclass(frozen=True)
class Part:
    name: str                    # our name, also the -p for avrdude
    desc: str
    signature: bytes
    flash_size: int
    page_size: int
    eeprom_size: int
    eeprom_page_size: int
    stk500_devcode: int          # STK500v1 SET_DEVICE device code
    efuse_mask: int              # bits of the extended fuse that exist
    isp: IspInstructions = field(default_factory=IspInstructions)
    stk500v2: Stk500v2Params = field(default_factory=Stk500v2Params)
    factory_fuses: dict[str, int] = field(default_factory=dict)

    @property
    def pages(self) -> int:
        return self.flash_size // self.page_size

    @property
    def avrdude_id(self) -> str:
        return self.name


@dataclass(frozen=True)
class BlinksLayout:
    """The flash map of a Blink (docs/platform.md, "Flash and RAM")."""

    active_game: range = range(0x0000, 0x1700)
    builtin_game: range = range(0x1700, 0x2E00)
    bios: range = range(0x2E00, 0x4000)
    efuse: int = 0xF8
    # The extended fuse 0xF8 (BOOTSZ 1,024 words, BOOTRST programmed) sends every
    # reset to the boot section at 0x3800, where the BIOS keeps its vector table:
    # 4-byte slots, each a JMP or RJMP. Games call the BIOS through the slots
    # named in the SDK's blinkbios_shared_functions.h (boot_vectorN, N below).
    bios_vectors: int = 0x3800
    bios_entries: tuple[int, ...] = (0, 4, 8, 9, 10, 12, 13, 14, 15)

    @property
    def max_game_bytes(self) -> int:
        return len(self.builtin_game)


ATMEGA168PB = Part(
    name="atmega168pb",
    desc="ATmega168PB",
    signature=bytes([0x1E, 0x94, 0x15]),
    flash_size=16 * 1024,
    page_size=128,
    eeprom_size=512,
    eeprom_page_size=4,
    stk500_devcode=0x86,
    efuse_mask=0x07,
    factory_fuses={"low": 0x62, "high": 0xDF, "ext": 0xF9, "lock": 0xFF},
)

ATMEGA328PB = Part(
    name="atmega328pb",
    desc="ATmega328PB",
    signature=bytes([0x1E, 0x95, 0x16]),
    flash_size=32 * 1024,
    page_size=128,
    eeprom_size=1024,
    eeprom_page_size=4,
    stk500_devcode=0x86,
    efuse_mask=0x0F,
    factory_fuses={"low": 0x62, "high": 0xD9, "ext": 0xF7, "lock": 0xFF},
)

PARTS: dict[str, Part] = {p.name: p for p in (ATMEGA168PB, ATMEGA328PB)}

BLINKS = BlinksLayout()
BLINKS_PART = ATMEGA168PB

# Chips people plug in by mistake, so a wrong signature gets a name.
KNOWN_SIGNATURES: dict[bytes, str] = {
    bytes([0x1E, 0x94, 0x15]): "ATmega168PB",
    bytes([0x1E, 0x94, 0x06]): "ATmega168/168A",
    bytes([0x1E, 0x94, 0x0B]): "ATmega168P/168PA",
    bytes([0x1E, 0x95, 0x16]): "ATmega328PB",
    bytes([0x1E, 0x95, 0x0F]): "ATmega328P",
    bytes([0x1E, 0x95, 0x14]): "ATmega328",
    bytes([0x1E, 0x93, 0x0A]): "ATmega88/88A",
    bytes([0x1E, 0x93, 0x0F]): "ATmega88P/88PA",
    bytes([0x1E, 0x92, 0x05]): "ATmega48/48A",
    bytes([0x1E, 0x95, 0x87]): "ATmega32U4",
    bytes([0x1E, 0x93, 0x07]): "ATmega8",
    bytes([0x1E, 0x93, 0x0B]): "ATtiny85",
    bytes([0x1E, 0x98, 0x01]): "ATmega2560",
}


def get_part(name: str) -> Part:
    key = name.lower().replace("-", "")
    aliases = {"m168pb": "atmega168pb", "m328pb": "atmega328pb"}
    key = aliases.get(key, key)
    if key not in PARTS:
        from .errors import FlashError

        raise FlashError(
            f"Unknown part '{name}'.",
            fix=f"use one of: {', '.join(PARTS)} (a Blink is atmega168pb)",
        )
    return PARTS[key]


def chip_name(signature: bytes) -> str:
    """A readable name for a signature, e.g. 'ATmega328P (1E 95 0F)'."""
    hexsig = signature.hex(" ").upper()
    name = KNOWN_SIGNATURES.get(bytes(signature))
    return f"{name} ({hexsig})" if name else f"an unknown chip ({hexsig})"


def signature_is_blank(signature: bytes) -> bool:
    """All 00 or all FF: nothing drove MISO, so no chip answered."""
    return all(b == 0x00 for b in signature) or all(b == 0xFF for b in signature)
