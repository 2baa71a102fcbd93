"""From what the user names (GAME.py, SKETCH.ino, FILE.hex) to a checked image."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

from .errors import BuildUnavailableError, FlashError, HexFileError
from .hexfile import Image, check_image, load_image
from .targets import BLINKS, BLINKS_PART, BlinksLayout, Part

HEX_SUFFIXES = {".hex", ".ihex", ".ihx"}
BUILD_SUFFIXES = {".py", ".ino"}


@dataclass(frozen=True)
class Source:
    hex_path: Path
    image: Image
    warnings: tuple[str, ...]
    built: bool


def layout_for(part: Part, raw: bool) -> BlinksLayout | None:
    """The Blink flash map applies to the Blink's chip unless --raw says otherwise."""
    return None if raw or part != BLINKS_PART else BLINKS


def build_game(path: Path, sdk: str | None, force: bool = False) -> Path:
    """GAME.py / SKETCH.ino -> a with-bootloader hex, via blinkc.build if this blinkc has it."""
    try:
        build = importlib.import_module("blinkc.build")
    except ModuleNotFoundError as e:
        if e.name not in ("blinkc.build",):
            raise
        build = None
    fn = getattr(build, "build_for_flash", None)
    if fn is None:
        raise BuildUnavailableError(
            f"Cannot flash {path.name}: building games is not available in this version "
            "of blinkc.",
            fix="build the game into a .hex (merged with the BIOS) and flash that file")
    try:
        return Path(fn(path, sdk=sdk, force=force))
    except FlashError:
        raise
    except Exception as e:   # the build layer's own errors (BuildError): shown as its message
        message = getattr(e, "message", None) or str(e)
        raise FlashError(f"Building {path.name} failed: {message}",
                         fix=getattr(e, "hint", None) or "fix the problem above and flash again"
                         ) from None


def resolve(source: Path, part: Part, *, raw: bool = False, sdk: str | None = None,
            force: bool = False) -> Source:
    """The checked image of `source`; a game is built first (into build/<name>, which must be
    blinkc's own unless `force`)."""
    suffix = source.suffix.lower()
    built = False
    if suffix in BUILD_SUFFIXES:
        if not source.exists():
            raise HexFileError(f"{source}: no such file.", fix="check the path")
        hex_path, built = build_game(source, sdk, force), True
    elif suffix in HEX_SUFFIXES or not suffix:
        hex_path = source
    elif suffix == ".eep":
        raise HexFileError(f"{source.name} is an EEPROM image; blinkc flashes program images.",
                           fix="flash the game's .hex (GAME.with_bootloader.hex)")
    else:
        raise HexFileError(
            f"Don't know how to flash {source.name}.",
            fix="give a game (GAME.py) or an Intel HEX file (GAME.with_bootloader.hex)")
    image = load_image(hex_path)
    warnings = check_image(image, part, layout_for(part, raw))
    return Source(hex_path, image, tuple(warnings), built)
