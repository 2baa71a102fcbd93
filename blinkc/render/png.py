"""A cluster as a PNG image: flat-top hexagons, each face's LED a coloured segment.

Each tile is a dark hexagon with a ring of six segments, one per edge, filled
with the colour of the LED on the face pointing that way (unlit faces dark
grey). A white dot inside marks face 0, so rotations show; the name sits in
the middle. Tiles in the hand are drawn in a row below the cluster.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO

from PIL import Image, ImageDraw, ImageFont

from ..runtime.color import OFF, to_rgb888
from ..world.geometry import centre
from . import TileLook, looks

BACKGROUND = (24, 24, 28)
BODY = (44, 44, 50)
UNLIT = (70, 70, 78)
TEXT = (240, 240, 240)
#: The outer edge of a tile (as a share of the lattice's hex size), leaving a seam.
OUTER = 0.93
#: The inner edge of the ring of face segments.
INNER = 0.58
#: Drawn this many times larger, then scaled down: smooth edges, exact flat colours.
_SUPER = 3

RGB = tuple[int, int, int]


def corner(cx: float, cy: float, radius: float, k: int) -> tuple[float, float]:
    """Corner k of a flat-top hexagon; edge g (N=0, clockwise) runs from corner g+4 to g+5."""
    a = math.radians(60 * k)
    return cx + radius * math.cos(a), cy + radius * math.sin(a)


def face_point(cx: float, cy: float, size: float, direction: int) -> tuple[float, float]:
    """The middle of the segment showing the face that points in `direction`."""
    a = math.radians(270 + 60 * direction)  # y grows downwards: 270° is up (north)
    apothem = size * (OUTER + INNER) / 2 * math.sqrt(3) / 2
    return cx + apothem * math.cos(a), cy + apothem * math.sin(a)


def _font(px: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    try:
        return ImageFont.load_default(size=px)
    except (TypeError, OSError):  # Pillow without FreeType: the small bitmap font
        return ImageFont.load_default()


def draw_cluster(tiles: Iterable[Mapping], title: str | None = None,
                 size: int = 48) -> Image.Image:
    """The picture as a Pillow image; `size` is a hexagon's corner radius in pixels."""
    items = looks(tiles)
    table = [t for t in items if t.pos is not None]
    held = [t for t in items if t.pos is None]
    s = size * _SUPER
    margin = s * 0.5
    spots: list[tuple[TileLook, float, float]] = []
    for t in table:
        x, y = centre(t.pos, s)  # type: ignore[arg-type]
        spots.append((t, x, y))
    half_w, half_h = s, s * math.sqrt(3) / 2
    title_h = s * 0.6 if title else 0.0
    if spots:
        left = min(x for _, x, _ in spots) - half_w - margin
        top = min(y for _, _, y in spots) - half_h - margin - title_h
        right = max(x for _, x, _ in spots) + half_w + margin
        bottom = max(y for _, _, y in spots) + half_h + margin
    else:
        left, top, right, bottom = -margin, -margin - title_h, margin, margin
    label_h = s * 0.5
    if held:
        # A row below: one hexagon width and a gap apart, under a small label.
        row_y = bottom + label_h + half_h
        for i, t in enumerate(held):
            spots.append((t, left + margin + half_w + i * 2.2 * s, row_y))
        right = max(right, left + margin + 2 * half_w + (len(held) - 1) * 2.2 * s + margin)
        bottom = row_y + half_h + margin
    width, height = math.ceil(right - left), math.ceil(bottom - top)
    img = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(img)
    font = _font(max(8, int(s * 0.3)))
    for t, x, y in spots:
        _draw_tile(draw, t, x - left, y - top, s, font)
    if title:
        draw.text((margin * 0.6, margin * 0.4), title, fill=TEXT, font=_font(int(s * 0.35)))
    if held:
        label_y = row_y - half_h - label_h - top
        draw.text((margin * 0.6, label_y), "in the hand", fill=TEXT, font=_font(int(s * 0.28)))
    return img.reduce(_SUPER)


def _draw_tile(draw: ImageDraw.ImageDraw, t: TileLook, cx: float, cy: float, s: float,
               font: ImageFont.ImageFont | ImageFont.FreeTypeFont) -> None:
    outer = [corner(cx, cy, s * OUTER, k) for k in range(6)]
    inner = [corner(cx, cy, s * INNER, k) for k in range(6)]
    draw.polygon(outer, fill=BODY)
    for direction in range(6):
        a, b = (direction + 4) % 6, (direction + 5) % 6
        c = t.color_towards(direction)
        fill: RGB = to_rgb888(c) if c != OFF else UNLIT
        draw.polygon([outer[a], outer[b], inner[b], inner[a]], fill=fill, outline=BODY,
                     width=max(1, int(s * 0.02)))
    # Face 0's mark: a dot just inside the ring, on the side face 0 points to.
    a = math.radians(270 + 60 * (t.rot % 6))
    r = s * INNER * 0.72
    dot = s * 0.06
    mx, my = cx + r * math.cos(a), cy + r * math.sin(a)
    draw.ellipse([mx - dot, my - dot, mx + dot, my + dot], fill=TEXT)
    name = t.name if len(t.name) <= 12 else t.name[:11] + "…"
    box = draw.textbbox((0, 0), name, font=font)
    room = 2 * s * INNER * 0.8
    if box[2] - box[0] > room and isinstance(font, ImageFont.FreeTypeFont):
        font = _font(max(6, int(font.size * room / (box[2] - box[0]))))  # shrink to fit
        box = draw.textbbox((0, 0), name, font=font)
    draw.text((cx - (box[0] + box[2]) / 2, cy - (box[1] + box[3]) / 2), name, fill=TEXT,
              font=font)


def save_png(tiles: Iterable[Mapping], dest: str | Path | IO[bytes], title: str | None = None,
             size: int = 48) -> Image.Image:
    """Draw the cluster and write it as a PNG file."""
    img = draw_cluster(tiles, title, size)
    img.save(dest, format="PNG")
    return img
