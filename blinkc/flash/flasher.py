"""Flashing a tile, start to end: check the chip, erase, write, verify, fuse.

The policy lives here, whatever the protocol:
  * the signature must be the part's, and a blank one means "no chip";
  * pages that are all 0xFF are not written (the erase already left them so);
  * everything written is read back and compared, always;
  * the extended fuse is judged from two reads that agree, written only if it
    differs, only ever to 0xF8, and read back (twice) after the write;
  * no other fuse and never the lock bits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from .errors import (
    DisconnectedError,
    FlashError,
    NoResponseError,
    NoTargetError,
    ProtocolError,
    VerifyError,
    WrongChipError,
)
from .hexfile import Image
from .isp import IspProgrammer, Timeouts
from .stk500v1 import Stk500v1
from .stk500v2 import Stk500v2
from .targets import BLINKS, Part, chip_name, signature_is_blank
from .transport import SerialTransport, Transport

VERIFY_BLOCK = 256


@dataclass(frozen=True)
class ProgrammerSpec:
    """What --programmer names: a serial protocol we speak, or an avrdude programmer."""

    name: str
    protocol: str | None          # "stk500v1" / "stk500v2"; None for avrdude
    default_baud: int | None
    avrdude: str | None = None    # avrdude's -c for the avrdude backend

    @property
    def needs_port(self) -> bool:
        return self.protocol is not None


SERIAL_PROGRAMMERS = {
    "arduinoisp": ProgrammerSpec("arduinoisp", "stk500v1", 19200),
    "stk500v1": ProgrammerSpec("stk500v1", "stk500v1", 19200),
    "stk500v2": ProgrammerSpec("stk500v2", "stk500v2", 115200),
}


def parse_programmer(text: str) -> ProgrammerSpec:
    key = text.strip().lower()
    if key in SERIAL_PROGRAMMERS:
        return SERIAL_PROGRAMMERS[key]
    if key.startswith("avrdude:") and len(key) > len("avrdude:"):
        name = key.split(":", 1)[1]
        return ProgrammerSpec(key, None, None, avrdude=name)
    raise FlashError(
        f"Unknown programmer '{text}'.",
        fix="use arduinoisp, stk500v1, stk500v2, or avrdude:NAME for a USB programmer "
            "(avrdude:usbtiny for the Blinks dev kit's, avrdude:usbasp)")


def open_programmer(spec: ProgrammerSpec, part: Part, *, port: str | None = None,
                    baud: int | None = None, transport: Transport | None = None,
                    timeouts: Timeouts | None = None) -> IspProgrammer:
    """A protocol object on a serial port (or on `transport`, e.g. the simulator's)."""
    if transport is None:
        if not port:
            raise FlashError(
                f"--port is needed for the {spec.name} programmer.",
                fix="run `blinkc ports` to find it, then add --port PORT")
        transport = SerialTransport(port, baud or spec.default_baud or 115200)
    if spec.protocol == "stk500v1":
        return Stk500v1(transport, part, timeouts)
    if spec.protocol == "stk500v2":
        return Stk500v2(transport, part, timeouts)
    raise FlashError(f"{spec.name} is not a serial programmer.")


class Progress(Protocol):
    def phase(self, name: str, total_bytes: int = 0, total_pages: int = 0) -> None: ...

    def advance(self, nbytes: int, pages: int = 0) -> None: ...

    def info(self, message: str) -> None: ...


class NullProgress:
    def phase(self, name: str, total_bytes: int = 0, total_pages: int = 0) -> None:
        pass

    def advance(self, nbytes: int, pages: int = 0) -> None:
        pass

    def info(self, message: str) -> None:
        pass


@dataclass
class FlashResult:
    signature: bytes
    pages_written: int = 0
    bytes_written: int = 0
    bytes_verified: int = 0
    efuse_before: int | None = None
    efuse_written: bool = False


# -- the steps ---------------------------------------------------------------

def check_signature(prog: IspProgrammer, part: Part) -> bytes:
    return validate_signature(prog.read_signature(), part)


def validate_signature(sig: bytes, part: Part) -> bytes:
    """The signature if it is the part's; NoTargetError or WrongChipError otherwise."""
    if signature_is_blank(sig):
        raise NoTargetError(
            f"No chip answers on the ISP lines (signature reads {sig.hex(' ').upper()}).",
            cause="the ISP cable is not seated on the tile, pin 1 is on the wrong side, or "
                  "the tile has no power (flat or missing coin cell)",
            fix="seat the 6-pin connector with pin 1 at the arrow, check the battery, and "
                "try again")
    if sig != part.signature:
        raise WrongChipError(
            f"Found {chip_name(sig)}, expected the {part.desc} "
            f"({part.signature.hex(' ').upper()}).",
            cause="this is not a Blink, or the connector sits on another board"
            if part.desc == "ATmega168PB" else "another chip than the --part given",
            fix="connect a Blink, or pass --part if you really mean to flash this chip")
    return sig


def write_image(prog: IspProgrammer, image: Image, part: Part, progress: Progress) -> list[int]:
    """Erase, then write every page that holds something other than 0xFF."""
    progress.phase("Erasing")
    prog.chip_erase()
    pages = image.pages_to_write(part.page_size)
    progress.phase("Writing", len(pages) * part.page_size, len(pages))
    for addr, data in pages:
        prog.write_page(addr, data)
        progress.advance(len(data), 1)
    return [a for a, _ in pages]


def verify_image(prog: IspProgrammer, image: Image, part: Part, progress: Progress,
                 after_write: bool) -> int:
    """Read back every page the image touches; compare the bytes the image defines."""
    size = part.flash_size
    expected = image.flat(size)
    defined = bytearray(size)
    for addr, data in image.segments:
        defined[addr:addr + len(data)] = b"\x01" * len(data)
    pages = [a for a, _ in image.pages(part.page_size)]
    progress.phase("Verifying", len(pages) * part.page_size, len(pages))
    for start, length in _runs(pages, part.page_size, VERIFY_BLOCK):
        got = prog.read_flash(start, length)
        bad = [i for i in range(length) if defined[start + i] and got[i] != expected[start + i]]
        if bad:
            again = prog.read_flash(start, length)
            if again != got:
                raise _unstable_read(start, got, again)
            raise _verify_error(image, start, bad, got, expected, after_write, size)
        progress.advance(length, length // part.page_size)
    return image.size


def _runs(pages: list[int], page_size: int, block: int) -> list[tuple[int, int]]:
    """Contiguous page runs, cut into reads of at most `block` bytes."""
    out: list[tuple[int, int]] = []
    for addr in pages:
        if out and out[-1][0] + out[-1][1] == addr and out[-1][1] + page_size <= block:
            out[-1] = (out[-1][0], out[-1][1] + page_size)
        else:
            out.append((addr, page_size))
    return out


def _verify_error(image: Image, start: int, bad: list[int], got: bytes, expected: bytes,
                  after_write: bool, size: int) -> VerifyError:
    first = start + bad[0]
    what = (f"Verify failed at 0x{first:04X}: expected 0x{expected[first]:02X}, read "
            f"0x{got[bad[0]]:02X} ({len(bad)} byte{'s' if len(bad) != 1 else ''} differ in "
            f"0x{start:04X}-0x{start + len(got) - 1:04X}).")
    if after_write:
        return VerifyError(
            what,
            cause="the flash did not keep what was written: the tile's power dipped (flat "
                  "coin cell), the ISP contact is poor, or this page of flash is worn out",
            fix="check the battery and the connector and flash again; if it fails at the "
                "same address again, set this tile aside",
            address=first)
    return VerifyError(
        what,
        cause=f"the tile holds a different program than {image.source}",
        fix="flash it (without --verify-only)",
        address=first)


FUSE_READS = 2      # a fuse is judged only from this many reads that agree


def check_efuse_value(value: int) -> None:
    """The one fuse value blinkc ever writes: a Blink's extended fuse, 0xF8."""
    if value != BLINKS.efuse:
        raise FlashError(
            f"Refusing to write 0x{value:02X} to the extended fuse: blinkc writes only the "
            f"extended fuse 0x{BLINKS.efuse:02X}, the value every Blink needs.",
            cause="a program asked the flasher for another fuse value",
            fix="use --raw to leave the fuses alone, or set other fuses with avrdude yourself")


def read_fuse_surely(prog: IspProgrammer, which: str, reads: int = FUSE_READS) -> int:
    """A fuse read `reads` times; ProtocolError unless every read agrees.

    STK500v1 answers have no checksum: one flipped bit on the line turns the
    extended fuse 0xF9 into 0xF8, so one read is not enough to decide anything.
    """
    values = [prog.read_fuse(which) for _ in range(reads)]
    if len(set(values)) != 1:
        raise ProtocolError(
            f"Reading the {'extended' if which == 'ext' else which} fuse {reads} times gave "
            f"different values ({', '.join(f'0x{v:02X}' for v in values)}); nothing was "
            "written to the fuses.",
            cause="a noisy or unreliable link between computer, programmer and tile "
                  "(long or loose ISP wires, a flaky USB cable)",
            fix="shorten the wires, use another USB cable/port, then flash again")
    return values[0]


def set_efuse(prog: IspProgrammer, part: Part, value: int, verify_only: bool,
              progress: Progress) -> tuple[int, bool]:
    """Write the extended fuse only if its implemented bits differ; read it back.

    Decided on reads that agree (`read_fuse_surely`), before and after the write.
    """
    check_efuse_value(value)
    progress.phase("Fuses")
    mask = part.efuse_mask
    current = read_fuse_surely(prog, "ext")
    if current & mask == value & mask:
        return current, False
    if verify_only:
        raise VerifyError(
            f"The extended fuse is 0x{current:02X}, a Blink needs 0x{value:02X}.",
            cause="the tile was programmed without the Blinks fuse settings",
            fix="flash it (without --verify-only); blinkc sets the extended fuse")
    prog.write_fuse("ext", value)
    back = read_fuse_surely(prog, "ext")
    if back & mask != value & mask:
        raise VerifyError(
            f"The extended fuse did not take 0x{value:02X} (reads 0x{back:02X}).",
            cause="the fuses may be locked, or the tile lost power while writing",
            fix="check the battery and flash again")
    return current, True


def flash_image(prog: IspProgrammer, image: Image, part: Part, *, efuse: int | None,
                verify_only: bool = False, progress: Progress | None = None) -> FlashResult:
    """One tile, on a programmer that is already connected."""
    progress = progress or NullProgress()
    if efuse is not None:
        check_efuse_value(efuse)           # before anything is sent
    prog.enter_progmode()
    link_ok = True
    try:
        result = FlashResult(signature=check_signature(prog, part))
        if not verify_only:
            written = write_image(prog, image, part, progress)
            result.pages_written = len(written)
            result.bytes_written = len(written) * part.page_size
        result.bytes_verified = verify_image(prog, image, part, progress,
                                             after_write=not verify_only)
        if efuse is not None:
            result.efuse_before, result.efuse_written = set_efuse(
                prog, part, efuse, verify_only, progress)
        return result
    except (NoResponseError, DisconnectedError, ProtocolError):
        link_ok = False
        raise
    finally:
        if link_ok:
            _leave_quietly(prog)


def read_flash_all(prog: IspProgrammer, part: Part,
                   progress: Progress | None = None) -> tuple[bytes, dict[str, int]]:
    """The whole flash and the fuses of the tile on a connected programmer.

    Every block and every fuse is read twice and must read the same: an
    STK500v1 answer has no checksum, and a dump with one flipped byte would
    look like the tile's flash. A difference is a ProtocolError, never a file.
    """
    progress = progress or NullProgress()
    prog.enter_progmode()
    link_ok = True
    try:
        check_signature(prog, part)
        progress.phase("Reading", part.flash_size, part.pages)
        data = bytearray()
        while len(data) < part.flash_size:
            data += read_block_surely(prog, len(data), VERIFY_BLOCK)
            progress.advance(VERIFY_BLOCK, VERIFY_BLOCK // part.page_size)
        fuses = {name: read_fuse_surely(prog, name) for name in ("low", "high", "ext", "lock")}
        return bytes(data), fuses
    except (NoResponseError, DisconnectedError, ProtocolError):
        link_ok = False
        raise
    finally:
        if link_ok:
            _leave_quietly(prog)


def read_block_surely(prog: IspProgrammer, start: int, length: int) -> bytes:
    """`length` bytes of flash at `start`, read twice; ProtocolError unless both agree."""
    first = prog.read_flash(start, length)
    again = prog.read_flash(start, length)
    if first != again:
        raise _unstable_read(start, first, again, "; the dump is not trusted")
    return first


def _unstable_read(start: int, first: bytes, again: bytes, note: str = "") -> ProtocolError:
    where = next((i for i, (a, b) in enumerate(zip(first, again, strict=False)) if a != b),
                 min(len(first), len(again)))
    return ProtocolError(
        f"Reading 0x{start:04X} twice gave different data (first at "
        f"0x{start + where:04X}){note}.",
        cause="a noisy or unreliable link between computer, programmer and tile "
              "(long or loose ISP wires, a flaky USB cable)",
        fix="shorten the wires, use another USB cable/port, then try again")


def _leave_quietly(prog: IspProgrammer) -> None:
    try:
        prog.leave_progmode()
    except FlashError:
        pass


# -- what is on the clip ---------------------------------------------------------

def probe(prog: IspProgrammer) -> bytes | None:
    """The signature of whatever is on the clip, or None if nothing answers."""
    try:
        prog.enter_progmode()
    except NoTargetError:
        return None
    try:
        sig = prog.read_signature()
    finally:
        _leave_quietly(prog)
    return None if signature_is_blank(sig) else sig
