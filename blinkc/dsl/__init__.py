"""The game authoring DSL: what a game file imports.

    from blinkc.dsl import *

    game = Game("my_game")
    hp = game.field(range(0, 6), default=5)

    @game.on_click
    def press(t):
        t.hp -= 1

See docs/dsl.md for the whole language.
"""

from __future__ import annotations

from ..blinklib import color as _c
from .compiler import ColorConst
from .errors import DslError, GameErrors
from .game import Color, Enum, Face, Game
from .loader import compile_game, lower_game

RED = ColorConst(_c.RED)
ORANGE = ColorConst(_c.ORANGE)
YELLOW = ColorConst(_c.YELLOW)
GREEN = ColorConst(_c.GREEN)
CYAN = ColorConst(_c.CYAN)
BLUE = ColorConst(_c.BLUE)
MAGENTA = ColorConst(_c.MAGENTA)
WHITE = ColorConst(_c.WHITE)
OFF = ColorConst(_c.OFF)

FACE_COUNT = 6


def faces() -> range:
    """The six faces, 0..5 (use in `for f in faces():`)."""
    return range(6)


def opposite(face: int) -> int:
    """The face straight across: (face + 3) mod 6."""
    return (face + 3) % 6


def cw(face: int, steps: int = 1) -> int:
    """The face `steps` clockwise from `face`."""
    return (face + steps) % 6


def ccw(face: int, steps: int = 1) -> int:
    """The face `steps` anticlockwise from `face`."""
    return (face - steps) % 6


def bit(mask: int, i: int) -> bool:
    """Whether bit i of mask is set."""
    return bool(mask >> i & 1)


def rgb5(r: int, g: int, b: int) -> ColorConst:
    """A colour from 5-bit channels 0..31, as the tile stores them."""
    return ColorConst(_c.rgb5(r, g, b))


def makeColorRGB(r: int, g: int, b: int) -> ColorConst:
    return ColorConst(_c.makeColorRGB(r, g, b))


def makeColorHSB(h: int, s: int, b: int) -> ColorConst:
    return ColorConst(_c.makeColorHSB(h, s, b))


def dim(c: int, brightness: int) -> ColorConst:
    return ColorConst(_c.dim(c, brightness))


def lighten(c: int, amount: int) -> ColorConst:
    return ColorConst(_c.lighten(c, amount))


def sin8(theta: int) -> int:
    """FastLED's 8-bit sine (sin8_C on the tile): 0..255 → 0..255 around 128."""
    from ..blinklib.mathfns import sin8_C

    return sin8_C(theta)


__all__ = [
    "BLUE", "CYAN", "FACE_COUNT", "GREEN", "MAGENTA", "OFF", "ORANGE", "RED", "WHITE", "YELLOW",
    "Color", "DslError", "Enum", "Face", "Game", "GameErrors", "bit", "ccw", "compile_game", "cw", "dim",
    "faces", "lighten", "lower_game", "makeColorHSB", "makeColorRGB", "opposite", "rgb5", "sin8",
]
