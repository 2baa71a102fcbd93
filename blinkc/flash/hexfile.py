"""Intel HEX in, checked flash pages out.

Reading is strict and whole-file (`parse_hex`): every way a file can be
wrong becomes a `HexFileError` that names the file and line, before anything
is sent to a tile. `check_image` then checks an image against a part and the
Blink flash map. Writing goes through the `intelhex` library.
"""

from __future__ import annotations

import io
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import intelhex

from .errors import HexFileError, ImageError
from .targets import BlinksLayout, Part

# The biggest honest image: a whole 32 KB chip, one byte per record, CRLF, is 480 KB.
MAX_HEX_FILE_BYTES = 1024 * 1024


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

    def pages_to_write(self, page_size: int) -> list[tuple[int, bytes]]:
        """The pages a flash writes: those holding a byte other than 0xFF (an erase leaves
        0xFF everywhere, so a blank page needs no write)."""
        blank = b"\xff" * page_size
        return [(a, d) for a, d in self.pages(page_size) if d != blank]

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
    return parse_hex(read_hex_file(path), source=str(path))


def read_hex_file(path: str | Path, limit: int = MAX_HEX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; HexFileError otherwise.

    Devices (/dev/zero), FIFOs and sockets are refused before a byte is read:
    the file is opened without blocking and checked with fstat, and never more
    than `limit` + 1 bytes are read, whatever the file claims its size is.
    """
    p = Path(path)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise HexFileError(f"{p}: no such file.",
                           fix="check the path (tab completion helps)") from None
    except IsADirectoryError:
        raise _directory(p) from None
    except PermissionError:
        if p.is_dir():
            raise _directory(p) from None
        raise HexFileError(f"{p}: permission denied.", fix="check the file's permissions") from None
    except OSError as e:
        raise HexFileError(f"{p}: cannot open it ({e.strerror or e}).",
                           fix="check the path and the file's permissions") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise _directory(p)
        if not stat.S_ISREG(info.st_mode):
            raise HexFileError(
                f"{p} is not a regular file (it is {_file_kind(info.st_mode)}).",
                cause="an image is read from a .hex file on disk, not from a device or a pipe",
                fix="give the path of the .hex file itself")
        if info.st_size > limit:
            raise _too_big(p, info.st_size, limit)
        with os.fdopen(fd, "rb", closefd=True) as f:
            fd = -1
            raw = f.read(limit + 1)
    except OSError as e:
        raise HexFileError(f"{p}: cannot read it ({e.strerror or e}).",
                           fix="check the file and copy it again") from None
    finally:
        if fd >= 0:
            os.close(fd)
    if len(raw) > limit:                     # it grew while we read it
        raise _too_big(p, len(raw), limit)
    return raw


def _directory(p: Path) -> HexFileError:
    return HexFileError(f"{p} is a directory, not a .hex file.",
                        fix="give the path of the .hex file itself")


def _too_big(p: Path, size: int, limit: int) -> HexFileError:
    return HexFileError(
        f"{p} is {size:,} bytes or more, far too big to be an image for a Blink "
        f"(an Intel HEX image of a whole 32 KB chip is under {limit // 1024:,} KB).",
        cause="this is not a tile image (a log, a disk image, or the wrong file)",
        fix="check that you picked the right file")


def _file_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a plain file"


# Intel HEX record types
DATA, END_OF_FILE, EXT_SEGMENT, START_SEGMENT, EXT_LINEAR, START_LINEAR = range(6)
_RECORD_LENGTHS = {END_OF_FILE: 0, EXT_SEGMENT: 2, START_SEGMENT: 4, EXT_LINEAR: 2,
                   START_LINEAR: 4}
_RECORD_NAMES = {END_OF_FILE: "end-of-file", EXT_SEGMENT: "extended segment address",
                 START_SEGMENT: "start segment address", EXT_LINEAR: "extended linear address",
                 START_LINEAR: "start linear address"}
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_TRAILER = " \t\r\n\x0c\x1a"       # what may follow the end-of-file record (^Z: old DOS tools)


def parse_hex(raw: bytes | str, source: str = "<hex>") -> Image:
    """Parse a whole Intel HEX file strictly. Never raises anything but HexFileError.

    Every record must be well formed (':', an even number of hex digits, the
    length its byte count says, a correct checksum, a known record type with
    the length that type has); there must be exactly one end-of-file record and
    nothing but blank space after it; no address may be written twice and no
    data record may run past the end of its 64 KB address window.
    """
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
    runs: list[tuple[int, int, bytes]] = []       # (address, line, data)
    base = 0
    eof_line = 0
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for number, line in enumerate(lines, 1):
        line = line.strip(_TRAILER)
        if not line:
            continue
        if eof_line:
            raise _damaged(
                source, f"the end-of-file record on line {eof_line} is not the last record "
                        f"(line {number} follows it: {_show(line)})",
                cause="two files were joined (`cat a.hex b.hex`), or the file was edited by hand",
                fix="flash one image: rebuild it, or merge images with a tool that keeps one "
                    "end-of-file record")
        body = _record_bytes(line, number, source)
        count, offset, rtype = body[0], (body[1] << 8) | body[2], body[3]
        data = body[4:-1]
        if rtype == DATA:
            if offset + count > 0x10000:
                raise _damaged(source, f"line {number}: the data record at 0x{offset:04X} crosses "
                                       f"a 64 KB boundary: {_show(line)}")
            if count:
                runs.append((base + offset, number, data))
            continue
        if rtype not in _RECORD_LENGTHS:
            raise _damaged(source, f"line {number}: unknown record type 0x{rtype:02X} (Intel HEX "
                                   f"has types 00-05): {_show(line)}")
        name = _RECORD_NAMES[rtype]
        if count != _RECORD_LENGTHS[rtype]:
            raise _damaged(source, f"line {number}: an {name} record needs "
                                   f"{_RECORD_LENGTHS[rtype]} data bytes, this one has {count}: "
                                   f"{_show(line)}")
        if offset:
            raise _damaged(source, f"line {number}: an {name} record must have address 0000: "
                                   f"{_show(line)}")
        if rtype == END_OF_FILE:
            eof_line = number
        elif rtype == EXT_SEGMENT:
            base = ((data[0] << 8) | data[1]) << 4
        elif rtype == EXT_LINEAR:
            base = ((data[0] << 8) | data[1]) << 16
    if not eof_line:
        if not runs and not any(line.strip(_TRAILER) for line in lines):
            raise HexFileError(f"{source} is empty.", fix="rebuild the image")
        raise HexFileError(
            f"{source} has no end-of-file record (:00000001FF): the file is incomplete.",
            cause="it was truncated: a copy or download that stopped early, or a disk that "
                  "filled up while it was written",
            fix="rebuild the image or copy it again")
    if not runs:
        raise HexFileError(f"{source} contains no data records.",
                           fix="rebuild the image; this file holds no program")
    return Image(_merge(runs, source), source)


def _record_bytes(line: str, number: int, source: str) -> bytes:
    """One record's bytes, count to checksum, after every check but the record type."""
    if not line.startswith(":"):
        raise _damaged(source, f"line {number}: a record must start with ':': {_show(line)}")
    digits = line[1:]
    if any(c not in _HEX_DIGITS for c in digits):
        raise _damaged(source, f"line {number}: non-hex characters in the record: {_show(line)}")
    if len(digits) % 2:
        raise _damaged(source, f"line {number}: odd number of hex digits: {_show(line)}")
    body = bytes.fromhex(digits)
    if len(body) < 5:
        raise _damaged(source, f"line {number}: the record is too short: {_show(line)}")
    if len(body) != body[0] + 5:
        raise _damaged(source, f"line {number}: the record says {body[0]} data bytes but has "
                               f"{len(body) - 5}: {_show(line)}")
    want = (-sum(body[:-1])) & 0xFF
    if body[-1] != want:
        raise _damaged(source, f"line {number}: invalid checksum (checksum is 0x{body[-1]:02X}, "
                               f"should be 0x{want:02X}): {_show(line)}")
    return body


def _merge(runs: list[tuple[int, int, bytes]], source: str) -> tuple[tuple[int, bytes], ...]:
    """Sorted, merged segments; HexFileError if two records write the same address."""
    runs.sort(key=lambda r: (r[0], r[1]))
    segments: list[tuple[int, bytearray]] = []
    last_line = 0
    for addr, line, data in runs:
        if segments:
            start, buf = segments[-1]
            end = start + len(buf)
            if addr < end:
                raise HexFileError(
                    f"{source}: line {max(line, last_line)} writes address 0x{addr:04X} a "
                    "second time.",
                    cause="the file was merged from images that overlap (for a Blink: a game "
                          "bigger than its 5,888-byte slot running into the BIOS)",
                    fix="rebuild the image; check the game's size against the 5,888-byte limit")
            if addr == end:
                buf += data
                last_line = line
                continue
        segments.append((addr, bytearray(data)))
        last_line = line
    return tuple((a, bytes(b)) for a, b in segments)


def _show(line: str) -> str:
    return repr(line if len(line) <= 60 else line[:57] + "...")


def _damaged(source: str, what: str, cause: str | None = None,
             fix: str | None = None) -> HexFileError:
    return HexFileError(f"{source}: {what}.",
                        cause=cause or "the file is damaged, truncated, or not Intel HEX",
                        fix=fix or "rebuild it or copy it again")


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
    check_bios(image, part, layout)
    game = image.bytes_in(layout.builtin_game)
    if not game:
        warnings.append("the image has no game at 0x1700: the tile will have the BIOS only")
    return warnings


def check_bios(image: Image, part: Part, layout: BlinksLayout) -> None:
    """ImageError unless the BIOS area holds something that really is a BIOS.

    Bytes there are not enough (a 6,144-byte game reaches 0x2EFF). The chip
    resets into the BIOS's vector table at 0x3800 and games call the BIOS
    through its slots there, so the reset slot and every entry slot must be a
    JMP or RJMP to an address inside the BIOS area that the image fills with
    code (not the erased 0xFFFF). Only the AVR instruction encoding and the
    documented entry slots are used: nothing of the BIOS itself.
    """
    bios = layout.bios
    held = image.bytes_in(bios)
    fix = ("flash the merged GAME.with_bootloader.hex (blinkc builds it from GAME.py with the "
           "Blinks SDK's BIOS), not the plain sketch hex; use --raw only for a non-Blinks image")
    spill = _game_spill(image, layout)
    if spill:
        game = range(layout.builtin_game.start, spill)
        first = next(max(a, game.start) for a, d in image.segments if a + len(d) > game.start)
        size = image.bytes_in(game)
        over = size - layout.max_game_bytes
        if not held or bios_problem(image, part, layout) is not None:
            raise ImageError(
                f"{image.source}: the game runs past the end of its area: bytes from "
                f"0x{first:04X} to 0x{spill - 1:04X} ({size:,} bytes, {over:,} over "
                f"the {layout.max_game_bytes:,}-byte limit, into the BIOS area at "
                f"0x{bios.start:04X}), and there is no BIOS.",
                cause="the game is too big for a Blink, or the image was not merged with the "
                      "BIOS; every ISP flash erases the whole chip, so the tile would have no BIOS",
                fix="make the game smaller (`blinkc size` shows what takes the space), then "
                    "flash the merged GAME.with_bootloader.hex")
    if not held:
        raise ImageError(
            f"{image.source} has no BIOS (nothing at 0x{bios.start:04X}-0x{bios.stop - 1:04X}).",
            cause="every ISP flash erases the whole chip, so this image would leave the "
                  "tile without its BIOS: it would not run, blink or share games",
            fix=fix)
    problem = bios_problem(image, part, layout)
    if problem is not None:
        raise ImageError(
            f"{image.source} has no BIOS: 0x{bios.start:04X}-0x{bios.stop - 1:04X} holds "
            f"{held:,} bytes, but not a BIOS ({problem}).",
            cause=f"a Blink resets into the BIOS's vector table at 0x{layout.bios_vectors:04X} "
                  "(the extended fuse 0xF8 sends it there) and games call the BIOS through it; "
                  "these bytes are something else: an image for another board, a damaged "
                  "merge, or a game that overlaps the BIOS area",
            fix=fix)


def _game_spill(image: Image, layout: BlinksLayout) -> int:
    """One past the end of the run that starts in the game area, if it crosses its end."""
    game_end = layout.builtin_game.stop
    for addr, data in image.segments:
        if addr < game_end < addr + len(data) and addr >= layout.builtin_game.start:
            return addr + len(data)
    return 0


def bios_problem(image: Image, part: Part, layout: BlinksLayout) -> str | None:
    """Why the BIOS vector table is not one, or None if every needed slot is a good jump."""
    flat = image.flat(part.flash_size)
    defined = bytearray(part.flash_size)
    for addr, data in image.segments:
        defined[addr:addr + len(data)] = b"\x01" * len(data)

    def word(a: int) -> int | None:
        if a < 0 or a + 1 >= part.flash_size or not (defined[a] and defined[a + 1]):
            return None
        return flat[a] | flat[a + 1] << 8

    for n in layout.bios_entries:
        slot = layout.bios_vectors + 4 * n
        name = "the reset vector" if n == 0 else f"BIOS entry vector {n}"
        w = word(slot)
        if w is None:
            return f"{name} at 0x{slot:04X} is missing"
        if w & 0xFE0E == 0x940C:                       # JMP k: 1001 010k kkkk 110k + 16 bits
            low = word(slot + 2)
            if low is None:
                return f"{name} at 0x{slot:04X} is half a JMP"
            target = (((w >> 3) & 0x3E | w & 1) << 16 | low) * 2
        elif w & 0xF000 == 0xC000:                     # RJMP k: 1100 kkkk kkkk kkkk
            k = w & 0x0FFF
            k -= 0x1000 if k & 0x0800 else 0
            target = (slot + 2 + 2 * k) % part.flash_size
        else:
            return f"{name} at 0x{slot:04X} is 0x{w:04X}, not a jump"
        if target not in layout.bios:
            return (f"{name} at 0x{slot:04X} jumps to 0x{target:04X}, outside the BIOS area "
                    f"0x{layout.bios.start:04X}-0x{layout.bios.stop - 1:04X}")
        code = word(target)
        if code is None or code == 0xFFFF:
            return (f"{name} at 0x{slot:04X} jumps to 0x{target:04X}, where the image has "
                    "no code")
    return None


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


def synthetic_bios(seed: int = 1, small: bool = False) -> dict[int, int]:
    """Made-up bytes that pass `check_bios`: random bytes with a vector table at 0x3800.

    Every slot of the table is an RJMP (and a NOP) to random bytes in the same
    page. `small` fills only that page (128 bytes) instead of 0x2E00-0x3FFF.
    Never real BIOS code: the bytes come from `synthetic_image`.
    """
    region = [(0x3800, 128)] if small else [(0x2E00, 0x4000 - 0x2E00)]
    cells = synthetic_image(region, seed=seed).to_map()
    for n in range(17):
        slot = 0x3800 + 4 * n
        target = 0x3844 + 2 * n
        k = (target - (slot + 2)) // 2
        w = 0xC000 | (k & 0x0FFF)
        cells[slot], cells[slot + 1], cells[slot + 2], cells[slot + 3] = w & 0xFF, w >> 8, 0, 0
        if cells[target] == cells[target + 1] == 0xFF:
            cells[target] = 0x00
    return cells


def synthetic_blinks_image(game: int = 5000, seed: int = 12, source: str = "<synthetic>",
                           small_bios: bool = False) -> Image:
    """A with-bootloader image for tests: a made-up game at 0x1700 and `synthetic_bios`."""
    cells = synthetic_image([(0x1700, game)], seed=seed).to_map() if game else {}
    cells.update(synthetic_bios(seed + 1, small=small_bios))
    return Image.from_map(cells, source)
