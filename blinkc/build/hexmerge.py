"""Intel HEX: checking the relocated game image and merging it with the BIOS.

ISP programming erases the whole chip, so what gets written is one image:
the game (linked for address 0, relocated by the SDK's objcopy recipe to the
built-in game area at 0x1700) plus the BIOS (0x2E00 up). The merged file keeps
the BIOS's start address: at reset the chip jumps into the BIOS, which copies
the built-in game down to 0x0000.
"""

from __future__ import annotations

from pathlib import Path

from intelhex import AddressOverlapError, IntelHex

from .errors import BuildError

BUILTIN_BASE = 0x1700
GAME_MAX_BYTES = 5888  # 46 pages of 128 bytes: 0x1700..0x2DFF


def load(path: Path) -> IntelHex:
    try:
        return IntelHex(str(path))
    except Exception as exc:  # intelhex raises several unrelated types for bad files
        raise BuildError(f"{path} is not a valid Intel HEX file: {exc}") from None


def check_game(game: IntelHex, base: int = BUILTIN_BASE, max_bytes: int = GAME_MAX_BYTES) -> None:
    """The game image must lie inside the built-in game area."""
    if not len(game):
        raise BuildError("The game hex is empty.")
    lo, hi = game.minaddr(), game.maxaddr()
    if lo < base or hi >= base + max_bytes:
        raise BuildError(
            f"The game hex spans 0x{lo:04X}..0x{hi:04X}, outside the built-in game area "
            f"0x{base:04X}..0x{base + max_bytes - 1:04X} ({hi - base + 1} of {max_bytes} bytes)."
        )


def merge_with_bios(
    game_hex: Path,
    bios_hex: Path,
    out: Path,
    base: int = BUILTIN_BASE,
    max_bytes: int = GAME_MAX_BYTES,
) -> Path:
    """Write `out`: the game image plus the BIOS, ready for ISP programming."""
    game, bios = load(game_hex), load(bios_hex)
    check_game(game, base, max_bytes)
    if len(bios) and bios.minaddr() < base + max_bytes:
        raise BuildError(
            f"The BIOS hex {bios_hex} starts at 0x{bios.minaddr():04X}, inside the game area "
            f"(which ends at 0x{base + max_bytes - 1:04X}): wrong BIOS file?"
        )
    merged = IntelHex()
    merged.merge(bios, overlap="error")
    game.start_addr = None  # the chip starts in the BIOS, not in the game
    try:
        merged.merge(game, overlap="error")
    except AddressOverlapError as exc:
        raise BuildError(f"The game and the BIOS overlap: {exc}") from None
    out.parent.mkdir(parents=True, exist_ok=True)
    merged.write_hex_file(str(out))
    return out
