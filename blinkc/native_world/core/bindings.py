"""ctypes bindings of the world core; its per-tile view's layout is view_fields.py's."""

from __future__ import annotations

import ctypes
import struct
from functools import cache
from typing import Any

from .build import core_library
from .sources import source_key
from .view_fields import ViewCodec

FACES = 6

#: The enums of world_core.cpp, each as its C++ members in their order: the numbers below are
#: looked up here by name, and tests/world/test_engines_share_constants.py reads the C++ source
#: and checks every enum of the core (and button.h's) member by member against these.
CORE_ENUMS: dict[str, tuple[str, ...]] = {
    # Event kinds, in python_engine.py's numbering (KINDS: pass, transmit, arrive, call, flash).
    "Kind": ("PASS", "TX", "ARRIVE", "CALL", "FLASH"),
    # Trace callback kinds (REC_CUT: a drop on a cut link, the explorer's adversary).
    "Record": ("REC_PASS", "REC_DROP", "REC_BUTTON", "REC_SPECIAL", "REC_SERIAL", "REC_CUT"),
    # What core_run returns.
    "Status": ("REACHED", "CALL_DUE", "TILE_STOPPED", "INTERRUPTED", "TILE_FROZE"),
    # The calls core_failure names (PHASES).
    "Phase": ("PHASE_SETUP", "PHASE_LOOP", "PHASE_QUIET"),
    # The world's statistics (STAT_NAMES), then their count.
    "Stat": ("S_PASSES", "S_SKIPPED", "S_PACKETS", "S_DROPPED", "S_COLLISIONS", "S_COUNT"),
    # What the core's events did (EVENT_COUNT_NAMES), then their count.
    "EventCount": ("E_PASS_LOOP", "E_PASS_SKIPPED", "E_TX_SENT", "E_TX_NONE", "E_ARRIVE",
                   "E_CALL", "E_STALE", "E_FLASH", "E_COUNT"),
}
_NUMBER = {name: i for members in CORE_ENUMS.values() for i, name in enumerate(members)}

PASS, TX, ARRIVE, CALL, FLASH = (_NUMBER[n] for n in ("PASS", "TX", "ARRIVE", "CALL", "FLASH"))
REC_PASS, REC_DROP, REC_BUTTON, REC_SPECIAL, REC_SERIAL, REC_CUT = (
    _NUMBER[n] for n in ("REC_PASS", "REC_DROP", "REC_BUTTON", "REC_SPECIAL", "REC_SERIAL",
                         "REC_CUT"))
REACHED, CALL_DUE, TILE_STOPPED, INTERRUPTED, TILE_FROZE = (
    _NUMBER[n] for n in ("REACHED", "CALL_DUE", "TILE_STOPPED", "INTERRUPTED", "TILE_FROZE"))

#: Python's names of the Stat members (the keys of World.stats), in the core's order.
STAT_NAMES = tuple(n[2:].lower() for n in CORE_ENUMS["Stat"][:-1])
#: The EventCount members, as benchmarks print them.
EVENT_COUNT_NAMES = ("pass, loop() run", "pass, loop() skipped", "transmit, sent",
                     "transmit, no face due", "arrive", "call", "stale", "flash")
#: Phase's members, as Python names the calls.
PHASES = ("setup", "loop", "quiet_until")

#: What a REC_SPECIAL record's argument says (button.h: enum Special).
BUTTON_SPECIALS = {"SPECIAL_LONGLONG": 2, "SPECIAL_SLEEP": 4}
SPECIAL_LONGLONG = BUTTON_SPECIALS["SPECIAL_LONGLONG"]

RECORD_FN = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64)
#: The arrival observer (world_core.cpp: arrive_fn): a batch of ArrivalRecords and how many.
ARRIVE_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int)
#: An ArrivalRecord: world time, tile, face, sender, sender's face, byte0, latched, datagram
#: length (0: a face value), the datagram's bytes (core() checks the core's size of it).
ARRIVAL = struct.Struct("<q7i16s4x")

#: The view's struct and its pack and unpack by field name (view_fields.py declares the fields;
#: view.h is generated from the same declaration).
VIEW = ViewCodec()

_i64, _int, _vp = ctypes.c_int64, ctypes.c_int, ctypes.c_void_p

_SIGNATURES: dict[str, tuple[Any, list[Any]]] = {
    "core_source_key": (ctypes.c_char_p, []),
    "core_view_size": (_i64, []),
    "core_view_layout": (ctypes.c_char_p, []),
    "core_new": (_vp, [ctypes.c_double, _i64]),
    "core_set_decoder": (None, [_vp, ctypes.c_int, ctypes.c_double, ctypes.c_double,
                                ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double),
                                ctypes.c_int]),
    "core_free": (None, [_vp]),
    "core_configure": (None, [_vp, _int, RECORD_FN]),
    "core_set_fault_rng": (None, [_vp, ctypes.c_uint64]),
    "core_set_observer": (None, [_vp, ARRIVE_FN]),
    "core_flush_arrivals": (None, [_vp]),
    "core_arrival_size": (_i64, []),
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
    "core_cut": (None, [_vp, _int, _int, _i64]),
    "core_stall": (None, [_vp, _int, _i64]),
    "core_button_raw": (_int, [_vp, _int, ctypes.POINTER(_i64), _int]),
    "core_schedule": (None, [_vp, _i64, _int, _int, _i64]),
    "core_schedule_seq": (None, [_vp, _i64, _i64, _int, _int, _i64]),
    "core_set_seq": (None, [_vp, _i64]),
    "core_run": (_int, [_vp, _i64, ctypes.POINTER(_i64)]),
    "core_take_call": (_int, [_vp, ctypes.POINTER(_i64)]),
    "core_set_guard": (None, [_vp, _vp, _vp, _vp]),
    "core_failure": (_int, [_vp, ctypes.POINTER(_i64)]),
    "core_frozen": (_int, [_vp]),
    "core_now": (_i64, [_vp]),
    "core_events": (_i64, [_vp]),
    "core_event_counts": (None, [_vp, ctypes.POINTER(_i64)]),
    "core_stats": (None, [_vp, ctypes.POINTER(_i64)]),
    "core_take_dirty": (_int, [_vp, ctypes.POINTER(ctypes.c_int32), _int]),
    "core_publish": (None, [_vp, _int]),
    "core_calm": (_i64, [_vp, _int]),
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
    check_layout(lib.core_view_layout().decode(), lib.core_view_size())
    if lib.core_arrival_size() != ARRIVAL.size:
        raise CoreLayoutError(f"ArrivalRecord is {lib.core_arrival_size()} bytes, "
                              f"bindings.ARRIVAL {ARRIVAL.size}")
    if lib.core_source_key().decode() != source_key():
        raise CoreLayoutError(f"{path} was compiled from other sources than those beside it")
    return lib


def check_layout(core_layout: str, core_size: int, view: ViewCodec = VIEW) -> None:
    """Raise CoreLayoutError unless a core's view (its CORE_VIEW_LAYOUT and sizeof) is the
    layout Python packs and unpacks: a field moved, resized or renamed on one side only is
    an error, never a silent mis-assignment."""
    if core_size != view.size:
        raise CoreLayoutError(f"core_view_t is {core_size} bytes, bindings.VIEW {view.size}")
    if core_layout != view.text:
        theirs, ours = core_layout.split(";"), view.text.split(";")
        diff = next((f"{a} in the core, {b} here" for a, b in zip(theirs, ours) if a != b),
                    f"{len(theirs)} fields in the core, {len(ours)} here")
        raise CoreLayoutError(f"the core's view has another layout than view_fields.py: {diff}")
