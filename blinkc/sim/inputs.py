"""What the page asks the world to do, as scenario lines (docs/scenarios.md).

Every input of a session is kept as the scenario lines it stands for, so the
log is a scenario: replaying it into a fresh world (a rewind, an export run by
`blinkc emulate`) does exactly what the live world did. The page's requests
are checked here for their shape; the scenario's own checks (known tiles, free
places, held buttons) run when the lines are applied.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..world import Faults
from ..world.scenario import format_faults
from .source import SimError

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,31}\Z")
#: Places on the lattice are limited like a layout's (docs/layouts.md).
COORD_LIMIT = 99


def name(value: Any) -> str:
    if not isinstance(value, str) or not _NAME.match(value):
        raise SimError(f"bad tile name {value!r}")
    return value


def place(value: Any) -> tuple[int, int]:
    ok = (isinstance(value, list | tuple) and len(value) == 2
          and all(isinstance(c, int) and not isinstance(c, bool) and abs(c) <= COORD_LIMIT
                  for c in value))
    if not ok:
        raise SimError(f"bad place {value!r}: a place is [q, r], each within ±{COORD_LIMIT}")
    return int(value[0]), int(value[1])


def rotation(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 5:
        raise SimError(f"bad rotation {value!r}: a rotation is 0..5")
    return value


def press(tile: Any) -> list[str]:
    return [f"press {name(tile)}"]


def release(tile: Any) -> list[str]:
    return [f"release {name(tile)}"]


def lift(tiles: Any) -> list[str]:
    names = _names(tiles)
    return [f"lift {n}" for n in names]


def move(moves: Any, rots: Mapping[str, Any] | None = None) -> list[str]:
    """Put tiles down at new places (a group at once: all are lifted first, then placed, so a
    group may move onto places its own tiles leave)."""
    if not isinstance(moves, dict) or not moves:
        raise SimError("a move needs {tile: [q, r], ...}")
    targets = {name(n): place(p) for n, p in moves.items()}
    if len(set(targets.values())) != len(targets):
        raise SimError("two tiles of the group would land on one place")
    rots = rots or {}
    lines = [f"lift {n}" for n in targets] if len(targets) > 1 else []
    for n, (q, r) in targets.items():
        rot = f" rot {rotation(rots[n])}" if n in rots else ""
        lines.append(f"place {n} at {q},{r}{rot}")
    return lines


def rotate(tile: Any, rot: Any) -> list[str]:
    return [f"rotate {name(tile)} {rotation(rot)}"]


def turn(tile: Any, by: Any) -> list[str]:
    """Turn a tile by steps (clockwise if positive) from wherever it is turned when the turn
    happens: two quick turns are two steps, whatever the page has seen."""
    if isinstance(by, bool) or not isinstance(by, int) or not -5 <= by <= 5 or by == 0:
        raise SimError(f"bad turn {by!r}: a turn is -5..5 steps, not 0")
    return [f"rotate {name(tile)} {by:+d}"]


def add(tile: Any, pos: Any, program: Any = None) -> list[str]:
    where = "held" if pos is None else "at {},{}".format(*place(pos))
    line = f"add {name(tile)} {where}"
    if program is not None:
        line += f" {name(program)}"
    return [line]


def faults(drop: Any, jitter_ms: Any, skew: Any) -> tuple[Faults, list[str]]:
    try:
        values = [float(v) for v in (drop, jitter_ms, skew)]
        f = Faults(drop=values[0], jitter_ms=values[1], skew=values[2])
    except (TypeError, ValueError) as e:
        raise SimError(f"bad faults: {e}") from None
    return f, [f"faults {format_faults(f)}"]


def _names(tiles: Any) -> list[str]:
    if isinstance(tiles, str):
        tiles = [tiles]
    if not isinstance(tiles, list) or not tiles:
        raise SimError("name at least one tile")
    return [name(t) for t in tiles]
