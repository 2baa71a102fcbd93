"""The memory layout shared with the C runtime (blinkc_native.h), mirrored for ctypes.

`TileState` is the ctypes mirror of `blinkc_tile_t`, for readable access.
The per-pass copies use two precompiled `struct` formats over the same
memory instead (one call each way), because attribute-by-attribute ctypes
access costs several microseconds a pass; a test checks that the formats and
the Structure agree with each other and with the C compiler's layout.
"""

from __future__ import annotations

import ctypes
import struct

ABI_VERSION = 1
FACES = 6
DATAGRAM_LEN = 16
SERIAL_LEN = 9

_u8, _u16, _u32 = ctypes.c_uint8, ctypes.c_uint16, ctypes.c_uint32


class TileState(ctypes.Structure):
    """ctypes mirror of `blinkc_tile_t`."""

    _fields_ = [
        # inputs
        ("now", _u32),
        ("expire_time", _u32 * FACES),
        ("in_value", _u8 * FACES),
        ("button_down", _u8),
        ("click_count", _u8),
        ("start_state", _u8),
        ("pad0", _u8 * 3),
        # inputs and outputs
        ("rng_state", _u32),
        ("entropy", _u32),
        ("button_flags", _u8),
        ("woken", _u8),
        ("pad1", _u8 * 2),
        # outputs
        ("out_value", _u8 * FACES),
        ("pad2", _u8 * 2),
        ("pixels", _u16 * FACES),
        ("extra_cpu_ms", _u32),
        ("datagram_sent", _u8),
        ("datagram_read", _u8),
        ("pad3", _u8 * 2),
        # datagram buffers
        ("in_datagram_len", _u8 * FACES),
        ("out_datagram_len", _u8 * FACES),
        ("in_datagram", (_u8 * DATAGRAM_LEN) * FACES),
        ("out_datagram", (_u8 * DATAGRAM_LEN) * FACES),
        ("serial", _u8 * SERIAL_LEN),
        ("pad4", _u8 * 3),
    ]


#: Inputs and in/out fields, from `now` to `woken`:
#: now, expire_time×6, in_value×6, button_down, click_count, start_state,
#: rng_state, entropy, button_flags, woken.
PASS_IN = struct.Struct("<I6I6BBBB3xIIBB2x")
PASS_IN_OFFSET = TileState.now.offset

#: In/out fields and outputs, from `rng_state` to `datagram_read`:
#: rng_state, entropy, button_flags, woken, out_value×6, pixels×6,
#: extra_cpu_ms, datagram_sent, datagram_read.
PASS_OUT = struct.Struct("<IIBB2x6B2x6HIBB2x")
PASS_OUT_OFFSET = TileState.rng_state.offset

# Positions inside a PASS_OUT tuple.
OUT_RNG, OUT_ENTROPY, OUT_FLAGS, OUT_WOKEN = 0, 1, 2, 3
OUT_VALUES = slice(4, 10)
OUT_PIXELS = slice(10, 16)
OUT_EXTRA_MS, OUT_DGRAM_SENT, OUT_DGRAM_READ = 16, 17, 18

#: blinkc_probe_fn (blinkc_native.h): ctx, kind, then PROBE_VALUES values.
PROBE_VALUES = 5
PROBE_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int,
                            *[ctypes.c_int] * PROBE_VALUES)

#: blinkc_service_port_t: len, lost, then the bytes.
SERVICE_PORT_LEN = 4096


class ServicePort(ctypes.Structure):
    """ctypes mirror of `blinkc_service_port_t` (what a tile wrote to its service port)."""

    _fields_ = [("len", _u32), ("lost", _u32), ("data", _u8 * SERVICE_PORT_LEN)]


SERVICE_INPUT_LEN = 4096


class ServiceInput(ctypes.Structure):
    """ctypes mirror of `blinkc_service_input_t` (bytes waiting for Serial.read())."""

    _fields_ = [("pos", _u32), ("len", _u32), ("data", _u8 * SERVICE_INPUT_LEN)]


# Type codes of blinkc_state_fields (blinkc_hooks.h) and their ctypes.
FIELD_TYPES: dict[int, type] = {
    1: ctypes.c_uint8, 2: ctypes.c_int8, 3: ctypes.c_uint16, 4: ctypes.c_int16,
    5: ctypes.c_uint32, 6: ctypes.c_int32, 7: ctypes.c_bool,
}


class StateField(ctypes.Structure):
    """ctypes mirror of `blinkc_field_t`."""

    _fields_ = [
        ("name", ctypes.c_char_p),
        ("type", ctypes.c_uint8),
        ("count", ctypes.c_uint16),
        ("addr", ctypes.c_void_p),
    ]
