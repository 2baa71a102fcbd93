"""A cluster as a PNG image: flat-top hexagons, each face's LED a coloured segment.

Each tile is a dark hexagon with a ring of six segments, one per edge, filled
with the colour of the LED on the face pointing that way (unlit faces dark
grey). A white dot inside marks face 0, so rotations show; the name sits in
the middle. Tiles in the hand are drawn in a row below the cluster.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from PIL import Image, ImageDraw, ImageFont, PngImagePlugin

from ..blinklib.color import OFF, to_rgb888
from ..user_files import SOFTWARE
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


@dataclass
class _Plan:
    """Where everything goes, in supersampled pixels."""

    width: int
    height: int
    spots: list[tuple[TileLook, float, float]]
    held_label_y: float | None


def _plan(items: list[TileLook], title: str | None, s: float) -> _Plan:
    table = [t for t in items if t.pos is not None]
    held = [t for t in items if t.pos is None]
    margin = s * 0.5
    half_w, half_h = s, s * math.sqrt(3) / 2
    title_h = s * 0.6 if title else 0.0
    spots = [(t, *centre(t.pos, s)) for t in table]  # type: ignore[arg-type]
    if spots:
        left = min(x for _, x, _ in spots) - half_w - margin
        top = min(y for _, _, y in spots) - half_h - margin - title_h
        right = max(x for _, x, _ in spots) + half_w + margin
        bottom = max(y for _, _, y in spots) + half_h + margin
    else:
        left, top, right, bottom = -margin, -margin - title_h, margin, margin
    label_y = None
    if held:
        # A row below the cluster, under a small label, a hexagon and a gap apart.
        label_y = bottom
        row_y = bottom + s * 0.5 + half_h
        step = 2.2 * s
        spots += [(t, left + margin + half_w + i * step, row_y) for i, t in enumerate(held)]
        right = max(right, left + 2 * (margin + half_w) + (len(held) - 1) * step)
        bottom = row_y + half_h + margin
    return _Plan(math.ceil(right - left), math.ceil(bottom - top),
                 [(t, x - left, y - top) for t, x, y in spots],
                 None if label_y is None else label_y - top)


def centres(tiles: Iterable[Mapping], title: str | None = None,
            size: int = 48) -> dict[str, tuple[float, float]]:
    """Each tile's centre in the image `draw_cluster` makes with the same arguments."""
    plan = _plan(looks(tiles), title, size * _SUPER)
    return {t.name: (x / _SUPER, y / _SUPER) for t, x, y in plan.spots}


def draw_cluster(tiles: Iterable[Mapping], title: str | None = None,
                 size: int = 48) -> Image.Image:
    """The picture as a Pillow image; `size` is a hexagon's corner radius in pixels."""
    s = size * _SUPER
    plan = _plan(looks(tiles), title, s)
    img = Image.new("RGB", (plan.width, plan.height), BACKGROUND)
    draw = ImageDraw.Draw(img)
    font = _font(max(8, int(s * 0.3)))
    for t, x, y in plan.spots:
        _draw_tile(draw, t, x, y, s, font)
    if title:
        draw.text((s * 0.3, s * 0.2), title, fill=TEXT, font=_font(int(s * 0.35)))
    if plan.held_label_y is not None:
        draw.text((s * 0.3, plan.held_label_y), "in the hand", fill=TEXT,
                  font=_font(int(s * 0.28)))
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
    info = PngImagePlugin.PngInfo()
    info.add_text("Software", SOFTWARE)   # how blinkc knows the file is its own to replace
    img.save(dest, format="PNG", pnginfo=info)
    return img
