"""Flash and RAM use against the tile's budgets, and what takes the space.

Figures come from the linked ELF (read with pyelftools):
* flash = every byte that goes into the hex: the loadable segments placed in
  flash, i.e. the code plus the initial values of initialised variables
  (they are copied to RAM at start-up). The limit is the built-in game area,
  5,888 bytes.
* RAM = every allocated section in data memory, from 0x100 up: the BIOS's
  shared blocks (0x100..0x27D on the SDK), the game's globals, and what is
  left is the stack. The limit is the chip's 1,024 bytes.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile

from ..flash.errors import FlashError
from ..flash.hexfile import Image, bios_problem, check_image, load_image
from ..flash.targets import BLINKS, BLINKS_PART
from .errors import BuildError
from .hexmerge import BUILTIN_BASE, GAME_MAX_BYTES

RAM_LIMIT = 1024
RAM_BASE = 0x800000  # avr-gcc's data address space
EEPROM_BASE = 0x810000
LOW_STACK_BYTES = 128  # warn below this: blinklib's loop and the BIOS interrupts need room


class BudgetExceeded(BuildError):
    def __init__(self, message: str, report: SizeReport):
        super().__init__(message, "See what takes the space in the report above.")
        self.report = report


@dataclass(frozen=True)
class Symbol:
    name: str
    size: int
    address: int
    kind: str  # "function" or "variable"
    region: str  # "flash" or "ram"


@dataclass(frozen=True)
class SizeReport:
    source: Path
    flash: int
    ram: int | None  # None when read from a hex file
    bios_ram: int = 0
    flash_limit: int = GAME_MAX_BYTES
    ram_limit: int = RAM_LIMIT
    symbols: tuple[Symbol, ...] = ()

    @property
    def game_ram(self) -> int | None:
        return None if self.ram is None else self.ram - self.bios_ram

    @property
    def stack_free(self) -> int | None:
        return None if self.ram is None else self.ram_limit - self.ram

    def problems(self) -> list[str]:
        found = []
        if self.flash > self.flash_limit:
            found.append(
                f"flash: {self.flash:,} bytes is {self.flash - self.flash_limit:,} over the "
                f"{self.flash_limit:,}-byte game image limit"
            )
        if self.ram is not None and self.ram > self.ram_limit:
            found.append(
                f"RAM: {self.ram:,} bytes is {self.ram - self.ram_limit:,} over the "
                f"{self.ram_limit:,} bytes"
            )
        return found

    def check(self) -> None:
        """Raise BudgetExceeded when the program cannot run on a tile."""
        found = self.problems()
        if found:
            raise BudgetExceeded("Over budget: " + "; ".join(found) + ".", self)

    def top(self, region: str, count: int) -> list[Symbol]:
        chosen = [s for s in self.symbols if s.region == region]
        return sorted(chosen, key=lambda s: (-s.size, s.name))[:count]

    def format(self, top: int = 10) -> str:
        def pct(n: int, of: int) -> str:
            return f"{100 * n / of:5.1f}%"

        def room(n: int, what: str) -> str:
            return f"{n:,} {what}" if n >= 0 else f"{-n:,} OVER"

        lines = [
            f"Flash: {self.flash:6,} of {self.flash_limit:,} bytes "
            f"({pct(self.flash, self.flash_limit)}),"
            f" {room(self.flash_limit - self.flash, 'free')}"
        ]
        if self.ram is not None and self.stack_free is not None:
            lines.append(
                f"RAM:   {self.ram:6,} of {self.ram_limit:,} bytes "
                f"({pct(self.ram, self.ram_limit)}),"
                f" {room(self.stack_free, 'left for the stack')}"
            )
            if self.bios_ram:
                lines.append(
                    f"       ({self.bios_ram:,} bytes are the BIOS shared blocks at 0x100-0x"
                    f"{0x100 + self.bios_ram - 1:X}; the game's globals use {self.game_ram:,})"
                )
        for problem in self.problems():
            lines.append(f"OVER BUDGET: {problem}")
        if self.stack_free is not None and 0 <= self.stack_free < LOW_STACK_BYTES:
            lines.append(f"Warning: only {self.stack_free} bytes left for the stack.")
        for region, title in (("flash", "Largest in flash"), ("ram", "Largest in RAM")):
            biggest = self.top(region, top)
            if top and biggest:
                lines.append(f"{title}:")
                lines += [f"  {s.size:6,}  {s.name} ({s.kind})" for s in biggest]
        return "\n".join(lines)


def elf_report(
    path: Path, flash_limit: int = GAME_MAX_BYTES, ram_limit: int = RAM_LIMIT
) -> SizeReport:
    try:
        with path.open("rb") as f:
            elf = ELFFile(f)
            flash = sum(
                seg["p_filesz"]
                for seg in elf.iter_segments()
                if seg["p_type"] == "PT_LOAD" and seg["p_paddr"] < RAM_BASE
            )
            ram_sections = [
                s
                for s in elf.iter_sections()
                if s["sh_flags"] & SH_FLAGS.SHF_ALLOC and RAM_BASE <= s["sh_addr"] < EEPROM_BASE
            ]
            ram = sum(s["sh_size"] for s in ram_sections)
            bss = elf.get_section_by_name(".bss")
            symbols, bss_start = _symbols(elf)
    except (OSError, ELFError) as exc:
        raise BuildError(f"Cannot read {path} as an ELF file: {exc}") from None
    # The SDK's linker script puts the BIOS shared blocks at the start of .bss and
    # __bss_start (where zeroing begins) after them, so they survive the game's start-up.
    bios_ram = 0
    if bss is not None and bss_start is not None:
        bios_ram = max(0, bss_start - bss["sh_addr"])
    return SizeReport(
        path, flash, ram, bios_ram, flash_limit, ram_limit, tuple(_demangled(symbols))
    )


def _symbols(elf: ELFFile) -> tuple[list[Symbol], int | None]:
    table = elf.get_section_by_name(".symtab")
    if table is None:
        return [], None
    found: dict[tuple[int, int, str], Symbol] = {}
    bss_start = None
    for sym in table.iter_symbols():
        if sym.name == "__bss_start":
            bss_start = sym["st_value"]
        kind = {"STT_FUNC": "function", "STT_OBJECT": "variable"}.get(sym["st_info"]["type"])
        size, addr = sym["st_size"], sym["st_value"]
        if not kind or not size or addr >= EEPROM_BASE:
            continue
        region = "ram" if addr >= RAM_BASE else "flash"
        found.setdefault((addr, size, region), Symbol(sym.name, size, addr, kind, region))
    return list(found.values()), bss_start


def _demangled(symbols: list[Symbol]) -> list[Symbol]:
    """C++ names made readable with c++filt when one is installed (optional)."""
    tool = shutil.which("avr-c++filt") or shutil.which("c++filt")
    mangled = [s for s in symbols if s.name.startswith("_Z")]
    if not tool or not mangled:
        return symbols
    try:
        out = subprocess.run(
            [tool],
            input="\n".join(s.name for s in mangled),
            capture_output=True,
            text=True,
            check=True,
        ).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return symbols
    names = dict(zip((s.name for s in mangled), out, strict=False))
    return [Symbol(names.get(s.name, s.name), s.size, s.address, s.kind, s.region) for s in symbols]


def hex_report(
    path: Path, base: int = BUILTIN_BASE, flash_limit: int = GAME_MAX_BYTES
) -> SizeReport:
    """Flash use of a game hex (relocated or not), or of a merged hex without its BIOS.

    The file is read and checked as `blinkc flash` reads it (the whole file,
    strictly, in bounded memory; it must fit the tile's chip), and a hex with
    bytes in the BIOS area must hold a real BIOS, as the flasher demands,
    unless those bytes are a game that is simply too big (then every byte of
    it is counted and the report says how far over it is).
    """
    try:
        image = load_image(path)
        check_image(image, BLINKS_PART, None)               # fits the 16 KB chip
        in_bios = image.bytes_in(BLINKS.bios)
        if in_bios and (bios_problem(image, BLINKS_PART, BLINKS) is None
                        or not _game_runs_into(image, BLINKS.bios.start)):
            check_image(image, BLINKS_PART, BLINKS)         # a with-bootloader image
            counted = image.bytes_in(range(base, base + flash_limit))
        else:
            counted = image.size                            # all of it is the game
    except FlashError as err:
        raise BuildError(err.what, _hint(err)) from None
    return SizeReport(path, counted, None, flash_limit=flash_limit)


def _game_runs_into(image: Image, bios_start: int) -> bool:
    """Every byte at or above `bios_start` belongs to a run that starts below it."""
    return all(addr < bios_start for addr, data in image.segments
               if addr + len(data) > bios_start)


def _hint(err: FlashError) -> str | None:
    parts = ([f"Likely cause: {err.cause}"] if err.cause else []) + (
        [f"Fix: {err.fix}"] if err.fix else [])
    return "\n".join(parts) or None


HEX_SUFFIXES = (".hex", ".ihex", ".ihx")


def report_for(
    target: Path, flash_limit: int = GAME_MAX_BYTES, ram_limit: int = RAM_LIMIT
) -> SizeReport:
    """A size report for an ELF, a hex, or a build folder (its ELF)."""
    target = Path(target)
    if target.is_dir():
        elves = sorted(target.glob("*.elf"))
        if len(elves) != 1:
            what = "no .elf file" if not elves else f"{len(elves)} .elf files"
            raise BuildError(f"{target} has {what}; name the ELF or hex to measure.")
        target = elves[0]
    if not target.exists():
        raise BuildError(f"{target} does not exist.")
    if target.suffix.lower() in HEX_SUFFIXES:
        return hex_report(target, flash_limit=flash_limit)
    if not target.is_file():
        raise BuildError(
            f"{target} is not a regular file (a device or a pipe); name the ELF or hex to measure."
        )
    return elf_report(target, flash_limit, ram_limit)
