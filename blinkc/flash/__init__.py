"""Flashing Blinks: Intel HEX in, pages out, verified, over ISP.

Layers, bottom up: `transport` (pyserial), `stk500v1` / `stk500v2` (the
protocols, one class each), `flasher` (erase, write, verify, efuse),
`workshop` (tile after tile, for any programmer), `avrdude` (USB programmers
through avrdude), `source` (what to flash: a .hex, or a game built first). `targets` holds
the parts and the Blink flash map, `hexfile` the strict reader and the image
checks, `outputs` the files blinkc may write, `errors` the messages people see.
"""

from __future__ import annotations

from .errors import FlashError
from .flasher import (
    FlashResult,
    ProgrammerSpec,
    flash_image,
    open_programmer,
    parse_programmer,
    read_flash_all,
)
from .hexfile import (
    Image,
    check_image,
    load_image,
    parse_hex,
    synthetic_blinks_image,
    synthetic_image,
)
from .targets import ATMEGA168PB, ATMEGA328PB, BLINKS, PARTS, Part, get_part
from .workshop import ClipStation, PromptStation, Tally, workshop

__all__ = [
    "ATMEGA168PB",
    "ATMEGA328PB",
    "BLINKS",
    "PARTS",
    "ClipStation",
    "FlashError",
    "FlashResult",
    "Image",
    "Part",
    "ProgrammerSpec",
    "PromptStation",
    "Tally",
    "check_image",
    "flash_image",
    "get_part",
    "load_image",
    "open_programmer",
    "parse_hex",
    "parse_programmer",
    "read_flash_all",
    "synthetic_blinks_image",
    "synthetic_image",
    "workshop",
]
