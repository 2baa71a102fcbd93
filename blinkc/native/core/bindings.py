"""ctypes bindings of the world core, and the layout of its per-tile view (view.h)."""

from __future__ import annotations

import ctypes
import struct
from functools import cache
from typing import Any

from .build import core_library

FACES = 6

# Event kinds, as world.py numbers them.
PASS, TX, ARRIVE, CALL, DEADLINE = range(5)

# Trace callback kinds (world_core.cpp: Record).
REC_PASS, REC_SLEEP, REC_WAKE, REC_DROP, REC_BUTTON, REC_SPECIAL, REC_SERIAL = range(7)

STAT_NAMES = ("passes", "skipped", "solo", "packets", "absorbed", "dropped", "collisions", "sleeps")

# What core_run returns (world_core.cpp: Status), and the calls core_failure names (Phase).
REACHED, CALL_DUE, TILE_STOPPED, INTERRUPTED = range(4)
PHASES = ("setup", "loop", "quiet_until")

RECORD_FN = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64)

#: core_view_t: 71 int64 fields, then the datagram slots and the serial number.
VIEW = struct.Struct("<71q6B6B96s96s9s3x")

# Positions inside a VIEW tuple.
V_NOW = 0
V_IN = slice(1, 7)
V_OUT = slice(7, 13)
V_EXPIRE = slice(13, 19)
V_SEND = slice(19, 25)
V_PIXELS = slice(25, 31)
(V_BUTTON_DOWN, V_BUTTON_FLAGS, V_CLICK_COUNT, V_RNG, V_ENTROPY, V_WOKEN, V_START_STATE,
 V_EXTRA_MS) = range(31, 39)
(V_STARTED, V_EPOCH, V_FROZEN, V_HAS_QUIET, V_QUIET_UNTIL, V_SKIPPED, V_PASSES,
 V_SLEEPING_NEIGHBOURS, V_VIRAL_FACES, V_VIRAL_LOCKOUT) = range(39, 49)
V_TX_START = slice(49, 55)
V_TX_END = slice(55, 61)
(V_B_DOWN, V_B_FLAGS, V_B_CLICKS, V_B_RAW_DOWN, V_B_LAST_ACCEPT, V_B_PENDING, V_B_WINDOW_END,
 V_B_DOWN_SINCE, V_B_LONG_FIRED, V_B_RAW_COUNT) = range(61, 71)
V_IN_DLEN = slice(71, 77)
V_OUT_DLEN = slice(77, 83)
V_IN_DGRAM, V_OUT_DGRAM, V_SERIAL = 83, 84, 85

_i64, _int, _vp = ctypes.c_int64, ctypes.c_int, ctypes.c_void_p

_SIGNATURES: dict[str, tuple[Any, list[Any]]] = {
    "core_view_size": (_i64, []),
    "core_new": (_vp, [ctypes.c_double, _i64]),
    "core_free": (None, [_vp]),
    "core_configure": (None, [_vp, _int, RECORD_FN]),
    "core_set_fault_rng": (None, [_vp, ctypes.POINTER(ctypes.c_uint32), _int]),
    "core_add_tile": (_int, [_vp, _i64, _i64, _i64, _vp, _vp, _vp, _vp]),
    "core_view": (_vp, [_vp, _int]),
    "core_set_port": (None, [_vp, _int, _vp]),
    "core_serial_pending": (_int, [_vp]),
    "core_serial_take": (_i64, [_vp, _int, ctypes.c_char_p, _i64]),
    "core_load": (None, [_vp, _int]),
    "core_place": (None, [_vp, _int, _i64, _i64, _i64]),
    "core_unplace": (None, [_vp, _int]),
    "core_set_rot": (None, [_vp, _int, _i64]),
    "core_wake": (None, [_vp, _int]),
    "core_button_push": (None, [_vp, _int, _i64, _int]),
    "core_button_raw": (_int, [_vp, _int, ctypes.POINTER(_i64), _int]),
    "core_schedule": (None, [_vp, _i64, _int, _int, _i64]),
    "core_schedule_seq": (None, [_vp, _i64, _i64, _int, _int, _i64]),
    "core_set_seq": (None, [_vp, _i64]),
    "core_run": (_int, [_vp, _i64, ctypes.POINTER(_i64)]),
    "core_set_guard": (None, [_vp, _vp, _vp, _vp]),
    "core_failure": (_int, [_vp, ctypes.POINTER(_i64)]),
    "core_now": (_i64, [_vp]),
    "core_events": (_i64, [_vp]),
    "core_stats": (None, [_vp, ctypes.POINTER(_i64)]),
    "core_take_dirty": (_int, [_vp, ctypes.POINTER(ctypes.c_int32), _int]),
    "core_publish": (None, [_vp, _int]),
    "core_clock": (None, [_i64, _i64, _i64, _i64, _i64, ctypes.POINTER(_i64)]),
    "core_fault_draws": (None, [ctypes.POINTER(ctypes.c_uint32), _int, _int, ctypes.c_uint32,
                                ctypes.POINTER(ctypes.c_double), ctypes.POINTER(_i64)]),
}


class CoreLayoutError(Exception):
    """The compiled core and this module disagree about the view layout."""


@cache
def core() -> ctypes.CDLL:
    """The loaded core library, its functions typed (builds it on first use)."""
    lib = ctypes.CDLL(str(core_library()))
    for name, (restype, argtypes) in _SIGNATURES.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    if lib.core_view_size() != VIEW.size:
        raise CoreLayoutError(f"core_view_t is {lib.core_view_size()} bytes, "
                              f"bindings.VIEW {VIEW.size}")
    return lib
