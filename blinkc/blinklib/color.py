"""Blinks colours: 5 bits per channel, exactly as blinklib computes them.

A colour is an int `r | g << 5 | b << 10` (each channel 0..31). blinklib's
own 16-bit layout also has a reserved bit; it never affects what is shown,
so it is left out here.
"""

from __future__ import annotations

Color = int


def rgb5(r: int, g: int, b: int) -> Color:
    """A colour from 5-bit channels (0..31 each)."""
    return (r & 31) | (g & 31) << 5 | (b & 31) << 10


def channels(c: Color) -> tuple[int, int, int]:
    """The (r, g, b) 5-bit channels of a colour."""
    return c & 31, (c >> 5) & 31, (c >> 10) & 31


def to_rgb888(c: Color) -> tuple[int, int, int]:
    """An 8-bit-per-channel approximation for screens (31 → 255)."""
    r, g, b = channels(c)
    return (r * 255 // 31, g * 255 // 31, b * 255 // 31)


RED = rgb5(31, 0, 0)
ORANGE = rgb5(31, 15, 0)
YELLOW = rgb5(31, 31, 0)
GREEN = rgb5(0, 31, 0)
CYAN = rgb5(0, 31, 31)
BLUE = rgb5(0, 0, 31)
MAGENTA = rgb5(31, 0, 31)
WHITE = rgb5(31, 31, 31)
OFF = rgb5(0, 0, 0)

NAMED = {
    "RED": RED, "ORANGE": ORANGE, "YELLOW": YELLOW, "GREEN": GREEN, "CYAN": CYAN,
    "BLUE": BLUE, "MAGENTA": MAGENTA, "WHITE": WHITE, "OFF": OFF,
}


def makeColorRGB(red: int, green: int, blue: int) -> Color:
    """blinklib's makeColorRGB: each 0..255 channel shifted right by 3."""
    return rgb5((red & 0xFF) >> 3, (green & 0xFF) >> 3, (blue & 0xFF) >> 3)


def makeColorHSB(hue: int, saturation: int, brightness: int) -> Color:
    """blinklib's makeColorHSB, integer for integer (16-bit unsigned intermediates)."""
    h, s, v = hue & 0xFF, saturation & 0xFF, brightness & 0xFF
    if s == 0:
        r = g = b = v
    else:
        scaled = (h * 6) & 0xFFFF
        sector = scaled >> 8
        off = scaled - (sector << 8)
        p = ((v * (255 - s)) & 0xFFFF) >> 8
        q = ((v * (255 - ((s * off) >> 8))) & 0xFFFF) >> 8
        t = ((v * (255 - ((s * (255 - off)) >> 8))) & 0xFFFF) >> 8
        r, g, b = (
            (v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q),
        )[min(sector, 5)]
    return makeColorRGB(r & 0xFF, g & 0xFF, b & 0xFF)


def dim(c: Color, brightness: int) -> Color:
    """Each 5-bit channel × brightness / 255, rounded down."""
    bri = brightness & 0xFF
    r, g, b = channels(c)
    return rgb5(r * bri // 255, g * bri // 255, b * bri // 255)


def lighten(c: Color, brightness: int) -> Color:
    """Each channel moved toward 31 by (31 - channel) × brightness / 255."""
    bri = brightness & 0xFF
    r, g, b = channels(c)
    return rgb5(r + (31 - r) * bri // 255, g + (31 - g) * bri // 255, b + (31 - b) * bri // 255)
