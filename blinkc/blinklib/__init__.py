"""The blinklib API in Python, with the SDK's exact semantics."""

from .api import FACE_COUNT, IR_DATA_VALUE_MAX, Blinklib
from .color import BLUE, CYAN, GREEN, MAGENTA, OFF, ORANGE, RED, WHITE, YELLOW
from .rng import Xorshift32
from .timer import NEVER, Timer

__all__ = [
    "BLUE", "CYAN", "FACE_COUNT", "GREEN", "IR_DATA_VALUE_MAX", "MAGENTA", "NEVER", "OFF",
    "ORANGE", "RED", "WHITE", "YELLOW", "Blinklib", "Timer", "Xorshift32",
]
