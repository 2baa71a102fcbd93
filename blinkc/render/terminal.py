"""A cluster in the terminal: one small hexagon per tile, edges lit in the face colours.

    _______
   /       \\       each edge is drawn in the colour of the LED on the face
  /  name   \\      pointing that way (top = north); `*` marks face 0, so the
  \\         /      tile's rotation shows. Tiles sit on the flat-top lattice:
   \\_______/       a tile's south-east neighbour is right and half a row down.

With colour (a true-colour terminal, through rich) the edges carry the
colours; without it (not a terminal, NO_COLOR, --no-color) the picture is
plain ASCII with a colour letter for each face inside the hexagon and a
legend of every tile's faces below.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Mapping
from typing import IO

from rich.console import Console
from rich.style import Style
from rich.text import Text

from ..blinklib.color import OFF, to_rgb888
from . import LETTER_KEY, TileLook, color_letter, faces_text, looks

# The sprite: 13 x 5 characters. Each entry: (line, column, char, global direction).
_EDGES: list[tuple[int, int, str, int]] = [
    *((0, c, "_", 0) for c in range(3, 10)),
    (1, 2, "/", 5), (1, 10, "\\", 1),
    (2, 1, "/", 5), (2, 11, "\\", 1),
    (3, 1, "\\", 4), (3, 11, "/", 2),
    (4, 2, "\\", 4), *((4, c, "_", 3) for c in range(3, 10)), (4, 10, "/", 2),
]
#: Inside the hexagon, next to each edge (by global direction): face letters, face-0 mark.
_RING = {0: (1, 6), 1: (1, 9), 2: (3, 9), 3: (3, 6), 4: (3, 3), 5: (1, 3)}
_NAME_LINE, _NAME_COL, _NAME_WIDTH = 2, 2, 9
_WIDTH, _HEIGHT = 13, 5
#: Columns of the lattice are 10 characters apart; half a row is 3 lines.
_DX, _HALF_ROW = 10, 3
#: An unlit face is drawn grey, so the tile's outline stays visible.
_UNLIT = (90, 90, 90)

Cell = tuple[str, "tuple[int, int, int] | str | None"]


def use_color(stream: IO[str] | None = None) -> bool:
    """Colour only for a terminal, and never when NO_COLOR is set or TERM is dumb."""
    stream = stream or _stdout()
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":  # no-color.org
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _stdout() -> IO[str]:
    import sys

    return sys.stdout


def _canvas(tiles: list[TileLook], color: bool) -> list[list[Cell]]:
    """Characters with styles: an RGB tuple (edge colour), "name" (bold) or None."""
    placed = [t for t in tiles if t.pos is not None]
    if not placed:
        return []
    cols = [t.pos[0] for t in placed]  # type: ignore[index]
    halves = [2 * t.pos[1] + t.pos[0] for t in placed]  # type: ignore[index]
    q0, h0 = min(cols), min(halves)
    width = (max(cols) - q0) * _DX + _WIDTH
    height = (max(halves) - h0) * _HALF_ROW + _HEIGHT
    grid: list[list[Cell]] = [[(" ", None)] * width for _ in range(height)]
    for t, q, h in zip(placed, cols, halves, strict=True):
        x, y = (q - q0) * _DX, (h - h0) * _HALF_ROW
        for line, col, ch, direction in _EDGES:
            c = t.color_towards(direction)
            rgb = to_rgb888(c) if c != OFF else _UNLIT
            grid[y + line][x + col] = (ch, rgb if color else None)
        for direction, (line, col) in _RING.items():
            if color:
                if direction == t.rot % 6:
                    grid[y + line][x + col] = ("*", None)
            else:
                grid[y + line][x + col] = (color_letter(t.color_towards(direction)), None)
        label = t.name[:_NAME_WIDTH].center(_NAME_WIDTH)
        for k, ch in enumerate(label):
            if ch != " ":
                grid[y + _NAME_LINE][x + _NAME_COL + k] = (ch, "name")
    return grid


def _layout_rows(tiles: list[TileLook]) -> tuple[list[TileLook], list[TileLook]]:
    """The tiles on the table, and the held ones laid out in a row of their own."""
    table = [t for t in tiles if t.pos is not None]
    held = [TileLook(t.name, (2 * i, -i), t.rot, t.colors)
            for i, t in enumerate(x for x in tiles if x.pos is None)]
    return table, held


def render_text(tiles: Iterable[Mapping], title: str | None = None, color: bool = True) -> Text:
    """The picture as rich Text (styled when `color`)."""
    table, held = _layout_rows(looks(tiles))
    out = Text()
    if title:
        out.append(title + "\n", style="bold")
    _append_grid(out, _canvas(table, color), color)
    if held:
        out.append("in the hand:\n")
        _append_grid(out, _canvas(held, color), color)
    return out


def _append_grid(out: Text, grid: list[list[Cell]], color: bool) -> None:
    for row in grid:
        line = Text()
        k = 0
        while k < len(row):  # one span per run of equally styled characters
            style = row[k][1] if color else None
            j = k
            while j < len(row) and (row[j][1] if color else None) == style:
                j += 1
            chars = "".join(ch for ch, _ in row[k:j])
            if style is None:
                line.append(chars)
            elif style == "name":
                line.append(chars, style="bold")
            else:
                r, g, b = style  # type: ignore[misc]
                line.append(chars, style=Style(color=f"rgb({r},{g},{b})", bold=True))
            k = j
        line.rstrip()
        out.append_text(line)
        out.append("\n")


def render_plain(tiles: Iterable[Mapping], title: str | None = None) -> str:
    """The picture in plain ASCII, with a legend of each tile's faces below it."""
    items = looks(tiles)
    text = render_text([_as_dict(t) for t in items], title, color=False).plain
    legend = [legend_line(t) for t in items]
    return text + "\n".join(legend) + "\nfaces inside the hexagons: " + LETTER_KEY + "\n"


def legend_line(t: TileLook) -> str:
    where = "held" if t.pos is None else f"at {t.pos[0]},{t.pos[1]}"
    return f"{t.name}: {where} rot {t.rot}, faces 0-5 {faces_text(t.colors)}"


def _as_dict(t: TileLook) -> dict:
    return {"name": t.name, "pos": t.pos, "rot": t.rot, "colors": list(t.colors)}


def render_ansi(tiles: Iterable[Mapping], title: str | None = None,
                color_system: str = "truecolor") -> str:
    """The coloured picture as a string with ANSI escapes (what a terminal is sent)."""
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, color_system=color_system,  # type: ignore[arg-type]
                      no_color=False, width=10_000, highlight=False)
    console.print(render_text(tiles, title, color=True), end="", soft_wrap=True)
    return buf.getvalue()


def show(tiles: Iterable[Mapping], stream: IO[str] | None = None, color: bool | None = None,
         title: str | None = None) -> None:
    """Print the cluster to `stream` (stdout), in colour when the terminal allows it."""
    stream = stream or _stdout()
    if color is None:
        color = use_color(stream)
    if not color:
        stream.write(render_plain(tiles, title))
        return
    console = Console(file=stream, force_terminal=True, no_color=False, highlight=False)
    console.print(render_text(tiles, title, color=True), end="", soft_wrap=True)
