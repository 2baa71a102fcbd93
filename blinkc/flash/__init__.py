"""Flashing Blinks: Intel HEX in, pages out, verified, over ISP.

Layers, bottom up: `transport` (pyserial), `stk500v1` / `stk500v2` (the
protocols, one class each), `flasher` (erase, write, verify, efuse; the
workshop loop), `avrdude` (USB programmers through avrdude). `targets` holds
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
    workshop,
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

__all__ = [
    "ATMEGA168PB", "ATMEGA328PB", "BLINKS", "PARTS", "FlashError", "FlashResult", "Image",
    "Part", "ProgrammerSpec", "check_image", "flash_image", "get_part", "load_image",
    "open_programmer", "parse_hex", "parse_programmer", "read_flash_all",
    "synthetic_blinks_image", "synthetic_image", "workshop",
]
