"""The Blinks SDK functions (blinklib) the IR may call, with the types the SDK gives them.

Front end (which names a game may call), analyses (which calls are pure) and backends
(how to render a call) all read this one table.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..blinklib.arith import U8, U16, U32, IntType
from .types import BOOL, COLOR


@dataclass(frozen=True)
class Builtin:
    """A blinklib (runtime) function callable from IR."""

    params: tuple[IntType, ...]
    ret: IntType | None
    pure: bool = True
    is_bool: bool = False


#: The blinklib API the IR may call, with the types the SDK gives them.
BLINKLIB: dict[str, Builtin] = {
    "millis": Builtin((), U32),
    "getLastValueReceivedOnFace": Builtin((U8,), U8),
    "isValueReceivedOnFaceExpired": Builtin((U8,), BOOL, is_bool=True),
    "isAlone": Builtin((), BOOL, is_bool=True),
    "setValueSentOnFace": Builtin((U8, U8), None, pure=False),
    "setValueSentOnAllFaces": Builtin((U8,), None, pure=False),
    "setColor": Builtin((COLOR,), None, pure=False),
    "setColorOnFace": Builtin((COLOR, U8), None, pure=False),
    "random": Builtin((U16,), U16, pure=False),
    "randomize": Builtin((), None, pure=False),
    "randomWord": Builtin((), U16, pure=False),
    "makeColorRGB": Builtin((U8, U8, U8), COLOR),
    "makeColorHSB": Builtin((U8, U8, U8), COLOR),
    "dim": Builtin((COLOR, U8), COLOR),
    "lighten": Builtin((COLOR, U8), COLOR),
    "sin8_C": Builtin((U8,), U8),
    "buttonPressed": Builtin((), BOOL, pure=False, is_bool=True),
    "buttonReleased": Builtin((), BOOL, pure=False, is_bool=True),
    "buttonSingleClicked": Builtin((), BOOL, pure=False, is_bool=True),
    "buttonDoubleClicked": Builtin((), BOOL, pure=False, is_bool=True),
    "buttonMultiClicked": Builtin((), BOOL, pure=False, is_bool=True),
    "buttonLongPressed": Builtin((), BOOL, pure=False, is_bool=True),
    "buttonLongLongPressed": Builtin((), BOOL, pure=False, is_bool=True),
    "getSerialNumberByte": Builtin((U8,), U8),
    # blinkc's own (not the SDK's): spend about a display frame, so this pass transmits a frame late.
    "blinkc_skip_frame": Builtin((), None, pure=False),
    # The explorer's build only (ir/probes.py): report a probe (its kind and VALUES values).
    "blinkc_probe": Builtin((U8, U16, U16, U16, U16, U16), None, pure=False),
}
