"""Intel HEX in, checked flash pages out.

Parsing is the `intelhex` library's; this module turns every way a file can
be wrong into a `HexFileError` that names the file and line, and checks an
image against a part and the Blink flash map.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import intelhex

from .errors import HexFileError, ImageError
from .targets import BlinksLayout, Part

MAX_HEX_FILE_BYTES = 16 * 1024 * 1024   # anything bigger is not an AVR image


@dataclass(frozen=True)
class Image:
    """A sparse flash image: sorted, non-overlapping, merged (address, bytes) runs."""

    segments: tuple[tuple[int, bytes], ...]
    source: str = field(default="<image>", compare=False)   # equal images: same bytes

    @classmethod
    def from_bytes(cls, data: bytes, start: int = 0, source: str = "<bytes>") -> Image:
        return cls(((start, bytes(data)),) if data else (), source)

    @classmethod
    def from_map(cls, cells: dict[int, int], source: str = "<map>") -> Image:
        """From an address -> byte mapping (merges adjacent addresses)."""
        segments: list[tuple[int, bytes]] = []
        run = bytearray()
        run_start = prev = None
        for addr in sorted(cells):
            if prev is not None and addr == prev + 1:
                run.append(cells[addr])
            else:
                if run_start is not None:
                    segments.append((run_start, bytes(run)))
                run_start, run = addr, bytearray([cells[addr]])
            prev = addr
        if run_start is not None:
            segments.append((run_start, bytes(run)))
        return cls(tuple(segments), source)

    @property
    def size(self) -> int:
        """Number of bytes the image defines (holes excluded)."""
        return sum(len(d) for _, d in self.segments)

    @property
    def start(self) -> int:
        return self.segments[0][0] if self.segments else 0

    @property
    def end(self) -> int:
        """One past the last defined address."""
        if not self.segments:
            return 0
        addr, data = self.segments[-1]
        return addr + len(data)

    def to_map(self) -> dict[int, int]:
        return {a + i: b for a, d in self.segments for i, b in enumerate(d)}

    def flat(self, size: int | None = None, fill: int = 0xFF) -> bytes:
        """The image laid out from address 0, holes filled with `fill` (erased flash)."""
        out = bytearray([fill]) * (self.end if size is None else size)
        for addr, data in self.segments:
            out[addr:addr + len(data)] = data
        return bytes(out)

    def bytes_in(self, region: range) -> int:
        """How many defined bytes fall inside `region`."""
        total = 0
        for addr, data in self.segments:
            lo, hi = max(addr, region.start), min(addr + len(data), region.stop)
            total += max(0, hi - lo)
        return total

    def pages(self, page_size: int) -> list[tuple[int, bytes]]:
        """Page-aligned pages that hold any defined byte, padded with 0xFF."""
        touched = sorted({a // page_size
                          for addr, data in self.segments
                          for a in range(addr - addr % page_size, addr + len(data), page_size)})
        out: list[tuple[int, bytes]] = []
        for number in touched:
            base = number * page_size
            page = bytearray(b"\xff" * page_size)
            for addr, data in self.segments:
                lo, hi = max(addr, base), min(addr + len(data), base + page_size)
                if lo < hi:
                    page[lo - base:hi - base] = data[lo - addr:hi - addr]
            out.append((base, bytes(page)))
        return out

    def to_hex(self) -> str:
        ih = intelhex.IntelHex()
        for addr, data in self.segments:
            ih.puts(addr, data)
        buf = io.StringIO()
        ih.write_hex_file(buf, write_start_addr=False)
        return buf.getvalue()

    def write_hex(self, path: str | Path) -> None:
        Path(path).write_text(self.to_hex(), encoding="ascii")


def load_image(path: str | Path) -> Image:
    """Read an Intel HEX file; any problem becomes a HexFileError naming the file."""
    p = Path(path)
    try:
        if p.is_dir():
            raise HexFileError(f"{p} is a directory, not a .hex file.",
                               fix="give the path of the .hex file itself")
        size = p.stat().st_size
        if size > MAX_HEX_FILE_BYTES:
            raise HexFileError(
                f"{p} is {size:,} bytes, far too big to be an image for a Blink.",
                fix="check that you picked the right file")
        raw = p.read_bytes()
    except FileNotFoundError:
        raise HexFileError(f"{p}: no such file.",
                           fix="check the path (tab completion helps)") from None
    except PermissionError:
        raise HexFileError(f"{p}: permission denied.", fix="check the file's permissions") from None
    except OSError as e:
        raise HexFileError(f"{p}: cannot read it ({e.strerror or e}).") from None
    return parse_hex(raw, source=str(p))


def parse_hex(raw: bytes | str, source: str = "<hex>") -> Image:
    """Parse Intel HEX text. Never raises anything but HexFileError."""
    if isinstance(raw, bytes):
        if raw.startswith(b"\x7fELF"):
            raise HexFileError(
                f"{source} is an ELF file, not Intel HEX.",
                fix="flash the .hex the build wrote next to it "
                    "(or convert with `avr-objcopy -O ihex GAME.elf GAME.hex`)")
        try:
            text = raw.decode("ascii")
        except UnicodeDecodeError as e:
            line = raw[:e.start].count(b"\n") + 1
            raise HexFileError(
                f"{source} is not an Intel HEX text file "
                f"(binary byte 0x{raw[e.start]:02X} on line {line}).",
                fix="give the .hex file (Intel HEX text), not a .bin or .elf") from None
    else:
        text = raw
    ih = intelhex.IntelHex()
    try:
        ih.loadhex(io.StringIO(text, newline=None))
    except intelhex.AddressOverlapError as e:
        raise HexFileError(
            f"{source}: line {getattr(e, 'line', '?')} writes address "
            f"0x{getattr(e, 'address', 0):04X} a second time.",
            cause="the file was merged from images that overlap (for a Blink: a game "
                  "bigger than its 5,888-byte slot running into the BIOS)",
            fix="rebuild the image; check the game's size against the 5,888-byte limit") from None
    except intelhex.HexReaderError as e:
        raise HexFileError(
            f"{source}: {_describe(e, text)}",
            cause="the file is damaged, truncated, or not Intel HEX",
            fix="rebuild it or copy it again") from None
    except (ValueError, TypeError, UnicodeError) as e:   # intelhex internals, defensive
        raise HexFileError(f"{source}: not a valid Intel HEX file ({e}).") from None
    if not ih.segments():
        if not any(line.strip() for line in text.splitlines()):
            raise HexFileError(f"{source} is empty.", fix="rebuild the image")
        raise HexFileError(f"{source} contains no data records.",
                           fix="rebuild the image; this file holds no program")
    segments = tuple((start, bytes(ih.tobinarray(start=start, end=stop - 1)))
                     for start, stop in ih.segments())
    return Image(segments, source)


def _describe(err: intelhex.HexReaderError, text: str) -> str:
    """intelhex's message plus what exactly is wrong with the line."""
    line_no = getattr(err, "line", None)
    msg = str(err)
    if not line_no:
        return msg
    lines = io.StringIO(text, newline=None).readlines()
    if not 0 < line_no <= len(lines):
        return msg
    line = lines[line_no - 1].strip()
    shown = line if len(line) <= 60 else line[:57] + "..."
    if not line.startswith(":"):
        detail = "a record must start with ':'"
    elif len(line) % 2 == 0:
        detail = "odd number of hex digits"
    elif any(c not in "0123456789abcdefABCDEF" for c in line[1:]):
        detail = "non-hex characters"
    elif isinstance(err, intelhex.RecordChecksumError):
        body = bytes.fromhex(line[1:])
        want = (-sum(body[:-1])) & 0xFF
        detail = f"checksum is 0x{body[-1]:02X}, should be 0x{want:02X}"
    else:
        detail = ""
    return f"{msg}" + (f" ({detail})" if detail else "") + f": {shown!r}"


def check_image(image: Image, part: Part, layout: BlinksLayout | None) -> list[str]:
    """Raise ImageError if the image cannot go on `part`; return warnings.

    With `layout` (a Blink), also refuse images that would leave the tile
    without a BIOS or put code where the BIOS overwrites it at reset.
    """
    if image.size == 0:
        raise ImageError(f"{image.source} contains no data.", fix="rebuild the image")
    if image.end > part.flash_size:
        beyond = image.bytes_in(range(part.flash_size, max(image.end, part.flash_size)))
        raise ImageError(
            f"{image.source} does not fit the {part.desc}: it reaches address "
            f"0x{image.end - 1:04X} ({beyond:,} bytes beyond the end of its "
            f"{part.flash_size // 1024} KB flash, 0x0000-0x{part.flash_size - 1:04X}).",
            cause="the image was built for a bigger chip, or is not a Blinks image",
            fix="build for the right board (a Blink is an ATmega168PB)")
    warnings: list[str] = []
    if layout is None:
        return warnings
    low = image.bytes_in(layout.active_game)
    if low:
        raise ImageError(
            f"{image.source} has {low:,} bytes at 0x0000-0x{layout.active_game.stop - 1:04X}, "
            "the active-game area that the BIOS overwrites at every reset.",
            cause="this looks like a sketch linked at address 0 that was not relocated to "
                  "0x1700 and merged with the BIOS",
            fix="flash the merged GAME.with_bootloader.hex (blinkc builds it from GAME.py); "
                "for a non-Blinks image use --raw")
    if not image.bytes_in(layout.bios):
        raise ImageError(
            f"{image.source} has no BIOS (nothing at 0x{layout.bios.start:04X}-"
            f"0x{layout.bios.stop - 1:04X}).",
            cause="every ISP flash erases the whole chip, so this image would leave the "
                  "tile without its BIOS: it would not run, blink or share games",
            fix="flash the merged GAME.with_bootloader.hex, not the plain sketch hex; "
                "use --raw only for a non-Blinks image")
    game = image.bytes_in(layout.builtin_game)
    if not game:
        warnings.append("the image has no game at 0x1700: the tile will have the BIOS only")
    return warnings


def synthetic_image(segments: Iterable[tuple[int, int]], seed: int = 1,
                    source: str = "<synthetic>") -> Image:
    """Deterministic pseudo-random bytes at (address, length) runs, for tests and benches.

    Never real SDK or BIOS code: the bytes come from a xorshift generator.
    """
    x = seed or 1
    cells: dict[int, int] = {}
    for addr, length in segments:
        for a in range(addr, addr + length):
            x ^= (x << 13) & 0xFFFFFFFF
            x ^= x >> 17
            x ^= (x << 5) & 0xFFFFFFFF
            cells[a] = x & 0xFF
    return Image.from_map(cells, source)
