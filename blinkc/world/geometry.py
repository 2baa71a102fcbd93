"""The flat-top hex lattice Blinks sit on.

Faces are numbered 0..5 clockwise seen from the top; with rotation 0, face 0
points north. A tile at axial coordinate (q, r) with rotation `rot` has its
local face f pointing in global direction (f + rot) mod 6.
"""

from __future__ import annotations

import math

Pos = tuple[int, int]

#: Axial offsets of the six global directions N, NE, SE, S, SW, NW (flat-top hexes).
DIRECTIONS: tuple[Pos, ...] = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))
DIRECTION_NAMES = ("N", "NE", "SE", "S", "SW", "NW")


def neighbour_pos(pos: Pos, direction: int) -> Pos:
    dq, dr = DIRECTIONS[direction]
    return pos[0] + dq, pos[1] + dr


def facing_face(face: int, rot: int, neighbour_rot: int) -> int:
    """The neighbour's face that touches our `face` (docs/platform.md's mapping)."""
    return (face + rot + 3 - neighbour_rot) % 6


def opposite(face: int) -> int:
    return (face + 3) % 6


def centre(pos: Pos, size: float = 1.0) -> tuple[float, float]:
    """Pixel centre of a flat-top hex of circumradius `size` (y grows downwards)."""
    q, r = pos
    return size * 1.5 * q, size * math.sqrt(3) * (r + q / 2)
