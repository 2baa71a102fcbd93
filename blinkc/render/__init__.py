"""Pictures of a cluster: in the terminal (`terminal`) and as PNG images (`png`).

Both draw from the world's snapshot (`World.snapshot()`: a dict per tile with
at least name, pos, rot and colors), so they work the same for a live world,
a `--json` dump or a test's hand-made tiles.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..blinklib.color import NAMED, channels, to_rgb888
from ..world.geometry import Pos


@dataclass(frozen=True)
class TileLook:
    """What a picture needs of one tile."""

    name: str
    pos: Pos | None
    rot: int
    colors: tuple[int, ...]

    def color_towards(self, direction: int) -> int:
        """The colour of the face pointing in global `direction` (0 = N, clockwise)."""
        return self.colors[(direction - self.rot) % 6]


def looks(tiles: Iterable[Mapping]) -> list[TileLook]:
    """TileLooks from snapshot dicts (or anything with name, pos, rot, colors)."""
    out = []
    for t in tiles:
        pos = t.get("pos")
        out.append(TileLook(str(t["name"]), tuple(pos) if pos is not None else None,  # type: ignore[arg-type]
                            int(t.get("rot", 0)), tuple(t["colors"])))
    return out


_LETTERS = {"RED": "R", "ORANGE": "O", "YELLOW": "Y", "GREEN": "G", "CYAN": "C",
            "BLUE": "B", "MAGENTA": "M", "WHITE": "W", "OFF": "."}
_BY_VALUE = {v: k for k, v in NAMED.items()}


def color_name(c: int) -> str:
    """RED, ORANGE, ... for the named colours, else `#rrggbb` (as a screen shows it)."""
    name = _BY_VALUE.get(c)
    if name is not None:
        return name
    r, g, b = to_rgb888(c)
    return f"#{r:02x}{g:02x}{b:02x}"


def _dimmed_name(c: int) -> str | None:
    """The named colour `c` is a darker version of, if any."""
    r, g, b = channels(c)
    top = max(r, g, b)
    if top == 0:
        return None
    scaled = [round(x * 31 / top) for x in (r, g, b)]
    for name, value in NAMED.items():
        if name != "OFF" and all(abs(s - n) <= 2 for s, n in zip(scaled, channels(value),
                                                                    strict=True)):
            return name
    return None


def color_letter(c: int) -> str:
    """One letter for a colour: R O Y G C B M W; lower case when dimmed; `.` off; `*` other."""
    name = _BY_VALUE.get(c)
    if name is not None:
        return _LETTERS[name]
    dimmed = _dimmed_name(c)
    return _LETTERS[dimmed].lower() if dimmed else "*"


LETTER_KEY = ("R red, O orange, Y yellow, G green, C cyan, B blue, M magenta, W white, "
              ". off; lower case: dimmer; * another colour")


def faces_text(colors: Iterable[int]) -> str:
    """The face colours 0..5 in words, `all RED` when they agree."""
    names = [color_name(c) for c in colors]
    if len(set(names)) == 1:
        return f"all {names[0]}"
    return " ".join(names)
