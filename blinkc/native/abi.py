"""The state one native tile shares with the emulator (`blinkc_tile_t`), declared once.

TILE_FIELDS declares the fields; from it come
- blinkc_tile.h (`header()`), which blinkc_native.h includes: the C struct, in this order,
  with a static_assert per field on the offset Python expects. It is generated and
  committed: `python blinkc/native/abi.py` writes it, `--check` says whether it is up to
  date; a native build refuses a stale one (build.py) and a test fails on it;
- `TileState`, the ctypes mirror, for readable access;
- the per-pass copies: `PASS_IN` packs the inputs (`now` to `woken`) by name in one call,
  and `PASS_OUT` unpacks the outputs (`rng_state` to `datagram_read`) in one call, read by
  name through `OUT`. (Attribute-by-attribute ctypes access costs several microseconds a
  pass.) A reordered field changes where each name lands, never which value it gets.

Bump ABI_VERSION whenever the layout changes: a library built for another is refused.
"""

from __future__ import annotations

import ctypes
import struct
import sys
from pathlib import Path
from typing import Any, NamedTuple

ABI_VERSION = 1
FACES = 6
DATAGRAM_LEN = 16
SERIAL_LEN = 9
HEADER = Path(__file__).resolve().with_name("blinkc_tile.h")
_u8, _u32 = ctypes.c_uint8, ctypes.c_uint32

#: The sizes the fields' dimensions are given in (#defines of blinkc_tile.h).
SIZES = {"BLINKC_FACES": FACES, "BLINKC_DATAGRAM_LEN": DATAGRAM_LEN,
         "BLINKC_SERIAL_LEN": SERIAL_LEN}
_TYPES = {"uint8_t": (ctypes.c_uint8, "B"), "uint16_t": (ctypes.c_uint16, "H"),
          "uint32_t": (ctypes.c_uint32, "I")}


class TileField(NamedTuple):
    """One field of blinkc_tile_t."""

    name: str
    ctype: str                    #: "uint8_t", "uint16_t" or "uint32_t"
    dims: tuple[str | int, ...]   #: array dimensions (names of SIZES, or numbers); () a scalar
    group: str                    #: the comment above its group in the header
    comment: str = ""


def _group(group: str, *fields: tuple) -> tuple[TileField, ...]:
    return tuple(TileField(name, ctype, dims, group, *rest) for name, ctype, dims, *rest in fields)


_F = ("BLINKC_FACES",)
TILE_FIELDS: tuple[TileField, ...] = (
    *_group("inputs: set by the emulator before every pass",
            ("now", "uint32_t", (), "millis(), frozen for the pass"),
            ("expire_time", "uint32_t", _F, "a face is expired when expire_time < now"),
            ("in_value", "uint8_t", _F, "last value received, 0..63"),
            ("button_down", "uint8_t", (), "debounced state"),
            ("click_count", "uint8_t", (), "clicks of the last multi-click"),
            ("start_state", "uint8_t", (), "START_STATE_*"),
            ("pad0", "uint8_t", (3,))),
    *_group("inputs and outputs",
            ("rng_state", "uint32_t", (), "xorshift32 state of random()"),
            ("entropy", "uint32_t", (), 'the "hardware noise" randomize() draws on'),
            ("button_flags", "uint8_t", (), "sticky events; the button...() calls clear them"),
            ("woken", "uint8_t", (), "hasWoken() reports and clears it"),
            ("pad1", "uint8_t", (2,))),
    *_group("outputs: read by the emulator after every pass",
            ("out_value", "uint8_t", _F, "0..63"),
            ("pad2", "uint8_t", (2,)),
            ("pixels", "uint16_t", _F, "r | g << 5 | b << 10, 5 bits each"),
            ("extra_cpu_ms", "uint32_t", (), "CPU time the pass blocked for (randomize)"),
            ("datagram_sent", "uint8_t", (), "bit f: a datagram was queued on face f"),
            ("datagram_read", "uint8_t", (), "bit f: the datagram on face f was marked read"),
            ("pad3", "uint8_t", (2,))),
    *_group("datagram buffers (copied only when they change) and the serial number",
            ("in_datagram_len", "uint8_t", _F, "0: none waiting"),
            ("out_datagram_len", "uint8_t", _F),
            ("in_datagram", "uint8_t", ("BLINKC_FACES", "BLINKC_DATAGRAM_LEN")),
            ("out_datagram", "uint8_t", ("BLINKC_FACES", "BLINKC_DATAGRAM_LEN")),
            ("serial", "uint8_t", ("BLINKC_SERIAL_LEN",), "getSerialNumberByte()"),
            ("pad4", "uint8_t", (3,))),
)


def _dims(field: TileField) -> list[int]:
    return [SIZES[d] if isinstance(d, str) else d for d in field.dims]


def _ctypes_of(field: TileField) -> Any:
    kind = _TYPES[field.ctype][0]
    for d in reversed(_dims(field)):
        kind = kind * d
    return kind


class TileState(ctypes.Structure):
    """ctypes mirror of `blinkc_tile_t`."""

    _fields_ = [(f.name, _ctypes_of(f)) for f in TILE_FIELDS]


def _is_pad(field: TileField) -> bool:
    return field.name.startswith("pad")


class PassCopy:
    """The fields `first` to `last` of TILE_FIELDS as one `struct`: a pack by name (every
    field by keyword, no more and no less; an array as a sequence) and `item`, each field's
    place in what `unpack_from` gives (an index, or a slice for an array)."""

    def __init__(self, first: str, last: str, fields: tuple[TileField, ...] = TILE_FIELDS) -> None:
        names = [f.name for f in fields]
        span = fields[names.index(first):names.index(last) + 1]
        self.offset = getattr(TileState, first).offset
        fmt, self.item, n = "<", {}, 0
        for f in span:
            total = 1
            for d in _dims(f):
                total *= d
            if _is_pad(f):
                fmt += f"{total * ctypes.sizeof(_TYPES[f.ctype][0])}x"
                continue
            if len(f.dims) > 1:
                raise ValueError(f"{f.name}: a per-pass copy takes scalars and arrays of one dimension")
            fmt += f"{total}{_TYPES[f.ctype][1]}"
            self.item[f.name] = slice(n, n + total) if f.dims else n
            n += total
        self.struct = struct.Struct(fmt)
        self.size = self.struct.size
        self.unpack_from = self.struct.unpack_from
        # pack_into(buf, offset, *, <every field>): generated once, as namedtuple does its
        # methods, so that a pass costs one call.
        keys = list(self.item)
        args = ", ".join(("*" if isinstance(self.item[k], slice) else "") + k for k in keys)
        src = (f"def pack_into(buf, offset, *, {', '.join(keys)}):\n"
               f"    _pack(buf, offset, {args})\n")
        scope: dict[str, Any] = {"_pack": self.struct.pack_into}
        exec(src, scope)  # generated from TILE_FIELDS' names, which are identifiers
        self.pack_into = scope["pack_into"]


#: The inputs and in/out fields, packed before a pass.
PASS_IN = PassCopy("now", "woken")
#: The in/out fields and outputs, unpacked after a pass; OUT names each one's place.
PASS_OUT = PassCopy("rng_state", "datagram_read")
OUT = PASS_OUT.item


# ------------------------------------------------------------ blinkc_tile.h
def header(fields: tuple[TileField, ...] = TILE_FIELDS) -> str:
    """The text of blinkc_tile.h."""
    out = [
        "/*",
        " * blinkc_tile.h (blinkc, host only): the state one native tile shares with the",
        " * emulator (blinkc_tile_t), included by blinkc_native.h. Fields are grouped so that",
        " * the copies before and after a pass are single contiguous blocks.",
        " *",
        " * GENERATED from blinkc/native/abi.py (TILE_FIELDS), which declares the fields once:",
        " * do not edit; change TILE_FIELDS and run `python blinkc/native/abi.py`. A native",
        " * build refuses a header that is not what TILE_FIELDS gives, and a test fails.",
        " */",
        "#ifndef BLINKC_TILE_H",
        "#define BLINKC_TILE_H",
        "",
        "#include <stddef.h>",
        "#include <stdint.h>",
        "",
        f"#define BLINKC_ABI_VERSION {ABI_VERSION}",
        *(f"#define {k} {v}" for k, v in SIZES.items()),
        "",
        "typedef struct blinkc_tile {",
    ]
    group = None
    for f in fields:
        if f.group != group:
            if group is not None:
                out.append("")
            group = f.group
            out.append(f"    /* {group} */")
        line = f"    {f.ctype} {f.name}{''.join(f'[{d}]' for d in f.dims)};"
        out.append(f"{line:<44}/* {f.comment} */" if f.comment else line)
    out += ["} blinkc_tile_t;", "", "#ifdef __cplusplus",
            "/* Where Python puts each field (abi.TileState): a field moved by hand fails here. */"]
    out += [f'static_assert(offsetof(blinkc_tile_t, {f.name}) == {getattr(TileState, f.name).offset}, '
            f'"blinkc_tile.h: {f.name} is not where abi.py says");' for f in fields]
    size = ctypes.sizeof(TileState)
    out += [f'static_assert(sizeof(blinkc_tile_t) == {size}, "blinkc_tile.h: not {size} bytes");',
            "#endif", "", "#endif /* BLINKC_TILE_H */", ""]
    return "\n".join(out)


class StaleHeader(Exception):
    """blinkc_tile.h is not what TILE_FIELDS gives."""


def check_header(path: Path = HEADER) -> None:
    """Raise StaleHeader if the header at `path` is not the one TILE_FIELDS gives."""
    if path.read_text() != header():
        raise StaleHeader(f"{path} is not what blinkc/native/abi.py declares: run "
                          "`python blinkc/native/abi.py` to write it again")


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


def main(argv: list[str] | None = None) -> int:
    """Write blinkc_tile.h from TILE_FIELDS; with --check, only say whether it is up to date."""
    args = sys.argv[1:] if argv is None else argv
    if args == ["--check"]:
        try:
            check_header()
        except StaleHeader as e:
            print(e, file=sys.stderr)
            return 1
        print(f"{HEADER} is up to date")
        return 0
    HEADER.write_text(header())
    print(f"wrote {HEADER}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
