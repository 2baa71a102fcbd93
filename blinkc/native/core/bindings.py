"""ctypes bindings of the world core, and the layout of its per-tile view (view.h)."""

from __future__ import annotations

import ctypes
import re
import struct
from functools import cache
from pathlib import Path
from typing import Any

from .build import core_library
from .sources import source_key

FACES = 6

# Event kinds, as python_engine.py numbers them (KINDS).
PASS, TX, ARRIVE, CALL, FLASH = range(5)

# Trace callback kinds (world_core.cpp: Record).
REC_PASS, REC_DROP, REC_BUTTON, REC_SPECIAL, REC_SERIAL = range(5)

STAT_NAMES = ("passes", "skipped", "packets", "dropped", "collisions")

# What the core's events did (world_core.cpp: EventCount), for benchmarks.
EVENT_COUNT_NAMES = ("pass, loop() run", "pass, loop() skipped", "transmit, sent",
                     "transmit, no face due", "arrive", "call", "stale", "flash")

# What core_run returns (world_core.cpp: Status), and the calls core_failure names (Phase).
REACHED, CALL_DUE, TILE_STOPPED, INTERRUPTED, TILE_FROZE = range(5)
PHASES = ("setup", "loop", "quiet_until")

RECORD_FN = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64)
#: The arrival observer (world_core.cpp: arrive_fn): tile, face, sender, sender's face, byte0,
#: datagram pointer and length (0: a face value), latched, world time.
ARRIVE_FN = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                             ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
                             ctypes.c_int64)

def _view_layout(header: str) -> tuple[struct.Struct, dict[str, int | slice]]:
    """The `struct` format of core_view_t and each field's place in an unpacked tuple, read
    from view.h itself: the layout is declared once, there (an int64 is one tuple item, and
    so is each element of an int64 array or of a uint8 array of VIEW_FACES; any other uint8
    array, the serial number and the datagram slots, is one bytes item; `pad` is padding)."""
    body = header[header.index("typedef struct core_view {"):header.index("} core_view_t;")]
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    sizes = {"VIEW_FACES": FACES, "VIEW_DGRAM": 16}
    for name, value in re.findall(r"#define (VIEW_\w+) (\d+)", header):
        sizes[name] = int(value)
    fmt, places, n = "<", {}, 0
    for ctype, names in re.findall(r"(int64_t|uint8_t)\s+([^;]+);", body):
        for decl in names.split(","):
            name, *dims = [p.strip("[] ") for p in decl.strip().split("[")]
            dims = [sizes.get(d, None) or int(d) for d in dims]
            if name == "pad":
                fmt += f"{dims[0]}x"
            elif ctype == "int64_t" or dims == [FACES]:
                count = dims[0] if dims else 1
                fmt += f"{count}{'q' if ctype == 'int64_t' else 'B'}"
                places[name] = slice(n, n + count) if dims else n
                n += count
            else:   # bytes: serial[9], or the datagram slots [6][16] as one item of 96
                total = 1
                for d in dims:
                    total *= d
                fmt += f"{total}s"
                places[name] = n
                n += 1
    return struct.Struct(fmt), places


VIEW, FIELDS = _view_layout((Path(__file__).with_name("view.h")).read_text())

# Places inside a VIEW tuple, by the names view.h gives the fields.
V_NOW = FIELDS["now"]
V_IN, V_OUT = FIELDS["in_value"], FIELDS["out_value"]
V_EXPIRE, V_SEND, V_PIXELS = FIELDS["expire_time"], FIELDS["send_time"], FIELDS["pixels"]
V_BUTTON_DOWN, V_BUTTON_FLAGS = FIELDS["button_down"], FIELDS["button_flags"]
V_CLICK_COUNT, V_RNG, V_ENTROPY = FIELDS["click_count"], FIELDS["rng_state"], FIELDS["entropy"]
V_WOKEN, V_START_STATE, V_EXTRA_MS = FIELDS["woken"], FIELDS["start_state"], FIELDS["extra_cpu_ms"]
V_STARTED, V_EPOCH = FIELDS["started"], FIELDS["epoch"]
V_HAS_QUIET, V_QUIET_UNTIL = FIELDS["has_quiet"], FIELDS["quiet_until"]
V_SKIPPED, V_PASSES = FIELDS["skipped"], FIELDS["passes"]
V_VIRAL_FACES = FIELDS["viral_faces"]
V_VIRAL_LOCKOUT = FIELDS["viral_lockout_until"]
V_TX_START, V_TX_END = FIELDS["tx_start"], FIELDS["tx_end"]
V_B_DOWN, V_B_FLAGS, V_B_CLICKS = FIELDS["b_down"], FIELDS["b_flags"], FIELDS["b_click_count"]
V_B_RAW_DOWN, V_B_LAST_ACCEPT = FIELDS["b_raw_down"], FIELDS["b_last_accept"]
V_B_PENDING, V_B_WINDOW_END = FIELDS["b_pending_clicks"], FIELDS["b_window_end"]
V_B_DOWN_SINCE, V_B_LONG_FIRED = FIELDS["b_down_since"], FIELDS["b_long_fired"]
V_B_RAW_COUNT = FIELDS["b_raw_count"]
V_IN_DLEN, V_OUT_DLEN = FIELDS["in_dgram_len"], FIELDS["out_dgram_len"]
V_IN_DGRAM, V_OUT_DGRAM, V_SERIAL = FIELDS["in_dgram"], FIELDS["out_dgram"], FIELDS["serial"]

_i64, _int, _vp = ctypes.c_int64, ctypes.c_int, ctypes.c_void_p

_SIGNATURES: dict[str, tuple[Any, list[Any]]] = {
    "core_source_key": (ctypes.c_char_p, []),
    "core_view_size": (_i64, []),
    "core_new": (_vp, [ctypes.c_double, _i64]),
    "core_free": (None, [_vp]),
    "core_configure": (None, [_vp, _int, RECORD_FN]),
    "core_set_fault_rng": (None, [_vp, ctypes.c_uint64]),
    "core_set_observer": (None, [_vp, ARRIVE_FN]),
    "core_add_tile": (_int, [_vp, _i64, _i64, _i64, _vp, _vp, _vp, _vp]),
    "core_view": (_vp, [_vp, _int]),
    "core_set_port": (None, [_vp, _int, _vp]),
    "core_set_program": (None, [_vp, _int, _vp, _vp, _vp, _vp]),
    "core_dormant": (None, [_vp, _int, _int]),
    "core_set_clock_offset": (None, [_vp, _int, _i64]),
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
    "core_frozen": (_int, [_vp]),
    "core_now": (_i64, [_vp]),
    "core_events": (_i64, [_vp]),
    "core_event_counts": (None, [_vp, ctypes.POINTER(_i64)]),
    "core_stats": (None, [_vp, ctypes.POINTER(_i64)]),
    "core_take_dirty": (_int, [_vp, ctypes.POINTER(ctypes.c_int32), _int]),
    "core_publish": (None, [_vp, _int]),
    "core_clock": (None, [_i64, _i64, _i64, _i64, _i64, ctypes.POINTER(_i64)]),
    "core_fault_draws": (None, [ctypes.c_uint64, _int, ctypes.c_double, ctypes.c_uint32,
                                ctypes.POINTER(_int), ctypes.POINTER(_i64)]),
}


class CoreLayoutError(Exception):
    """The compiled core and this module disagree about the view layout or the sources."""


@cache
def core() -> ctypes.CDLL:
    """The loaded core library, its functions typed (build.py: the one built at install time,
    else one built now)."""
    path = core_library()
    lib = ctypes.CDLL(str(path))
    for name, (restype, argtypes) in _SIGNATURES.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    if lib.core_view_size() != VIEW.size:
        raise CoreLayoutError(f"core_view_t is {lib.core_view_size()} bytes, "
                              f"bindings.VIEW {VIEW.size}")
    if lib.core_source_key().decode() != source_key():
        raise CoreLayoutError(f"{path} was compiled from other sources than those beside it")
    return lib
