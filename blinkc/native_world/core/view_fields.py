"""The fields of a tile's view (core_view_t), declared once: view.h and the Python layout are
made from FIELDS (docs/native.md, "The world core").

The view is the flat record through which Python reads and writes one tile of the C++ world
core. The core keeps each tile's state in typed C++ structures; the Python objects the rest
of blinkc reads (Tile, its Blinklib `api`, its ButtonModel) are mirrors, refreshed from the
view after the core has run and written back through it after Python ran a program hook on
the tile (blinkc/native_world/engine.py: `_pull`, `_push`).

From FIELDS come:

- view.h (`header()`): the C struct, in this order; a static_assert per field on the offset
  Python expects; `CORE_VIEW_LAYOUT`, this layout as text, which the core hands back to
  Python (`core_view_layout`) so that a core built from another layout is refused; and
  `CORE_VIEW_PUBLISH` / `CORE_VIEW_LOAD`, the copies between the view and the core's own
  state (`core`: the C++ expression of a field's copy in the core, for a tile `t`; fields
  without one live in the view only). view.h is generated and committed:
  `python blinkc/native_world/core/view_fields.py` writes it, `--check` says whether it is up to
  date; the core's build refuses a stale one (sources.py) and a test fails on it;
- the Python side (`View`, `VIEW`): the `struct` format, and a pack and an unpack by name
  (`VIEW.pack_into(buf, now=..., in_value=..., ...)` takes every field by keyword, no more
  and no less; `VIEW.unpack_from(buf)` gives a `View` with one attribute per field).

Python's layout is little-endian without padding ("<"): `pad` fields are the only padding,
and `layout()` refuses a field the C compiler would align elsewhere.

This module imports nothing of blinkc: sources.py (which setup.py loads by its path, before
blinkc is installed) loads it by its path too.
"""

from __future__ import annotations

import struct
import sys
from collections import namedtuple
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple

HEADER = Path(__file__).resolve().with_name("view.h")

#: The sizes the fields' dimensions are given in (#defines of view.h).
SIZES = {"VIEW_FACES": 6, "VIEW_DGRAM": 16}
_C_SIZE = {"int64_t": 8, "uint8_t": 1}


class Field(NamedTuple):
    """One field of core_view_t."""

    name: str
    ctype: str                    #: "int64_t" or "uint8_t"
    dims: tuple[str | int, ...]   #: array dimensions (names of SIZES, or numbers); () a scalar
    group: str                    #: the comment above its group in view.h
    #: The C++ expression of the core's own copy of the field, for a tile `t`: CORE_VIEW_PUBLISH
    #: copies it into the view, CORE_VIEW_LOAD back (None: the field lives in the view only).
    core: str | None = None
    #: False: only published (the core's copy cannot be assigned, e.g. a count).
    load: bool = True


def _f(name: str, ctype: str = "int64_t", dims: tuple[str | int, ...] = (), *, group: str,
       core: str | None = None, load: bool = True) -> Field:
    return Field(name, ctype, dims, group, core, load)


_API = "Blinklib (api) fields, by their Python names: the core keeps them here"
_TILE = "Tile fields: the core's copies are in its Tile (CORE_VIEW_PUBLISH / _LOAD)"
_BUTTON = "ButtonModel fields (raw changes are read with core_button_raw)"
_DGRAM = "datagrams (a length of 0 is None), the serial number, padding to 8 bytes"
F = "VIEW_FACES"

#: The fields, in the order of the struct.
FIELDS: tuple[Field, ...] = (
    _f("now", group=_API),
    _f("in_value", dims=(F,), group=_API),
    _f("out_value", dims=(F,), group=_API),
    _f("expire_time", dims=(F,), group=_API),
    _f("send_time", dims=(F,), group=_API),
    _f("pixels", dims=(F,), group=_API),
    _f("button_down", group=_API),
    _f("button_flags", group=_API),
    _f("click_count", group=_API),
    _f("rng_state", group=_API),
    _f("entropy", group=_API),
    _f("woken", group=_API),
    _f("start_state", group=_API),
    _f("extra_cpu_ms", group=_API),
    _f("started", group=_TILE, core="t.started"),
    _f("epoch", group=_TILE, core="t.epoch"),
    _f("has_quiet", group=_TILE, core="t.has_quiet"),
    _f("quiet_until", group=_TILE, core="t.quiet_until"),
    _f("skipped", group=_TILE, core="t.skipped"),
    _f("passes", group=_TILE, core="t.passes"),
    _f("viral_faces", group=_TILE, core="t.viral_faces"),
    _f("viral_lockout_until", group=_TILE, core="t.viral_lockout_until"),
    _f("tx_start", dims=(F,), group=_TILE, core="t.tx_start"),
    _f("tx_end", dims=(F,), group=_TILE, core="t.tx_end"),
    _f("b_down", group=_BUTTON, core="t.button.down"),
    _f("b_flags", group=_BUTTON, core="t.button.flags"),
    _f("b_click_count", group=_BUTTON, core="t.button.click_count"),
    _f("b_raw_down", group=_BUTTON, core="t.button.raw_down"),
    _f("b_last_accept", group=_BUTTON, core="t.button.last_accept"),
    _f("b_pending_clicks", group=_BUTTON, core="t.button.pending_clicks"),
    _f("b_window_end", group=_BUTTON, core="t.button.window_end"),
    _f("b_down_since", group=_BUTTON, core="t.button.down_since"),
    _f("b_long_fired", group=_BUTTON, core="t.button.long_fired"),
    _f("b_raw_count", group=_BUTTON, core="(int64_t)t.button.raw.size()", load=False),
    _f("in_dgram_len", "uint8_t", (F,), group=_DGRAM),
    _f("out_dgram_len", "uint8_t", (F,), group=_DGRAM),
    _f("in_dgram", "uint8_t", (F, "VIEW_DGRAM"), group=_DGRAM),
    _f("out_dgram", "uint8_t", (F, "VIEW_DGRAM"), group=_DGRAM),
    _f("serial", "uint8_t", (9,), group=_DGRAM),
    _f("pad", "uint8_t", (3,), group=_DGRAM),
)


class Place(NamedTuple):
    """Where a field is: its byte offset in the struct, its `struct` format, and its place in
    an unpacked tuple (an index, a slice for an array of numbers; None for padding)."""

    field: Field
    offset: int
    fmt: str
    item: int | slice | None


def _dims(field: Field) -> list[int]:
    return [SIZES[d] if isinstance(d, str) else d for d in field.dims]


def layout(fields: tuple[Field, ...] = FIELDS) -> list[Place]:
    """Each field's place. An int64_t is one tuple item, and so is each element of an int64_t
    array or of a uint8_t array of VIEW_FACES; any other uint8_t array (the serial number,
    the datagram slots) is one bytes item; `pad` is padding."""
    places, offset, n = [], 0, 0
    names = set()
    for f in fields:
        if f.ctype not in _C_SIZE:
            raise ValueError(f"view field {f.name}: type {f.ctype}, not int64_t or uint8_t")
        if f.name in names:
            raise ValueError(f"view field {f.name} is declared twice")
        names.add(f.name)
        size = _C_SIZE[f.ctype]
        if offset % size:
            raise ValueError(f"view field {f.name} at offset {offset} is not aligned to {size}: "
                             "add padding before it")
        dims = _dims(f)
        total = 1
        for d in dims:
            total *= d
        if f.name == "pad":
            fmt, item = f"{total}x", None
        elif f.ctype == "int64_t" or dims == [SIZES["VIEW_FACES"]]:
            code = "q" if f.ctype == "int64_t" else "B"
            fmt, item = f"{total}{code}", (slice(n, n + total) if dims else n)
            n += total
        else:
            fmt, item = f"{total}s", n
            n += 1
        places.append(Place(f, offset, fmt, item))
        offset += size * total
    if offset % 8:
        raise ValueError(f"core_view_t is {offset} bytes: pad it to a multiple of 8")
    return places


def struct_of(fields: tuple[Field, ...] = FIELDS) -> struct.Struct:
    return struct.Struct("<" + "".join(p.fmt for p in layout(fields)))


def layout_text(fields: tuple[Field, ...] = FIELDS) -> str:
    """The layout as one line of text (CORE_VIEW_LAYOUT): name:type[dims]@offset per field."""
    return ";".join(f"{p.field.name}:{p.field.ctype}{''.join(f'[{d}]' for d in _dims(p.field))}"
                    f"@{p.offset}" for p in layout(fields))


# ----------------------------------------------------------------- view.h
def header(fields: tuple[Field, ...] = FIELDS) -> str:
    """The text of view.h."""
    places = layout(fields)
    size = struct_of(fields).size
    out = [
        "/*",
        " * view.h (blinkc): the flat record through which Python reads and writes one",
        " * tile of the C++ world core (core_view_t).",
        " *",
        " * GENERATED from blinkc/native_world/core/view_fields.py (FIELDS), which declares the",
        " * fields once: do not edit; change FIELDS and run",
        " *     python blinkc/native_world/core/view_fields.py",
        " * The core's build refuses a view.h that is not what FIELDS gives, and a test fails.",
        " */",
        "#ifndef BLINKC_CORE_VIEW_H",
        "#define BLINKC_CORE_VIEW_H",
        "",
        "#include <stddef.h>",
        "#include <stdint.h>",
        "",
        *(f"#define {k} {v}" for k, v in SIZES.items()),
        "",
        "typedef struct core_view {",
    ]
    group = None
    for f in fields:
        if f.group != group:
            group = f.group
            out.append(f"    /* {group} */")
        out.append(f"    {f.ctype} {f.name}{''.join(f'[{d}]' for d in f.dims)};")
    out += [
        "} core_view_t;",
        "",
        "/* Where Python puts each field (view_fields.layout): a field moved by hand fails here. */",
        *(f'static_assert(offsetof(core_view_t, {p.field.name}) == {p.offset}, '
          f'"view.h: {p.field.name} is not where view_fields.py says");' for p in places),
        f'static_assert(sizeof(core_view_t) == {size}, "view.h: core_view_t is not {size} bytes");',
        "",
        "/* The layout Python expects, handed back by core_view_layout(). */",
        f'#define CORE_VIEW_LAYOUT "{layout_text(fields)}"',
        "",
        "/* The core's own copies of fields (view_fields.Field.core), for a tile t: into the",
        " * view before Python reads it (publish), and back when a tile joins the core (load). */",
        *_copy_macro("CORE_VIEW_PUBLISH", [(f"v.{f.name}", f.core, f.dims)
                                           for f in fields if f.core]),
        "",
        *_copy_macro("CORE_VIEW_LOAD", [(f.core, f"v.{f.name}", f.dims)
                                        for f in fields if f.core and f.load]),
        "",
        "#endif /* BLINKC_CORE_VIEW_H */",
        "",
    ]
    return "\n".join(out)


def _copy_macro(name: str, copies: list[tuple[str, str, tuple]]) -> list[str]:
    lines = []
    for dst, src, dims in copies:
        if not dims:
            lines.append(f"{dst} = {src};")
        elif len(dims) == 1:
            lines.append(f"for (int i_ = 0; i_ < {dims[0]}; ++i_) {dst}[i_] = {src}[i_];")
        else:
            raise ValueError(f"{dst}: only scalars and one-dimensional arrays are copied")
    body = [f"    {line} \\" for line in lines]
    return [f"#define {name}(v, t) \\", "    do { \\", *(" " * 4 + b for b in body),
            "    } while (0)"]


class StaleHeader(Exception):
    """view.h is not what view_fields.FIELDS gives."""


def check_header(path: Path = HEADER, fields: tuple[Field, ...] = FIELDS) -> None:
    """Raise StaleHeader if the view.h at `path` is not the one FIELDS gives."""
    if path.read_text() != header(fields):
        raise StaleHeader(f"{path} is not what blinkc/native_world/core/view_fields.py declares: run "
                          "`python blinkc/native_world/core/view_fields.py` to write it again")


# ------------------------------------------------------------- Python side
class ViewCodec:
    """The Python side of the view: its `struct`, and a pack and an unpack by field name."""

    def __init__(self, fields: tuple[Field, ...] = FIELDS) -> None:
        places = [p for p in layout(fields) if p.item is not None]
        self.struct = struct_of(fields)
        self.size = self.struct.size
        self.text = layout_text(fields)
        self.names = tuple(p.field.name for p in places)
        #: The unpacked view: one attribute per field (a tuple for an array of numbers).
        self.View = namedtuple("View", self.names)
        get = itemgetter(*(p.item for p in places))
        make, unpack = tuple.__new__, self.struct.unpack_from
        View = self.View

        def unpack_from(buf: Any, offset: int = 0) -> Any:
            return make(View, get(unpack(buf, offset)))

        self.unpack_from = unpack_from
        # pack_into(buf, offset=0, *, <every field>): every field by its name, spread in the
        # struct's order (an array of numbers as its elements). Generated once, as
        # collections.namedtuple and dataclasses generate theirs, so that it costs one call.
        args = ", ".join(("*" if isinstance(p.item, slice) else "") + p.field.name
                         for p in places)
        src = (f"def pack_into(buf, offset=0, *, {', '.join(self.names)}):\n"
               f"    _pack(buf, offset, {args})\n")
        scope: dict[str, Any] = {"_pack": self.struct.pack_into}
        exec(src, scope)  # generated from FIELDS' names, which are identifiers
        self.pack_into = scope["pack_into"]


def main(argv: list[str] | None = None) -> int:
    """Write view.h from FIELDS; with --check, only say whether it is up to date (exit 1 if not)."""
    args = sys.argv[1:] if argv is None else argv
    if args == ["--check"]:
        try:
            check_header()
        except StaleHeader as e:
            print(e, file=sys.stderr)
            return 1
        print(f"{HEADER} is up to date")
        return 0
    if args:
        print("usage: python blinkc/native_world/core/view_fields.py [--check]", file=sys.stderr)
        return 2
    HEADER.write_text(header())
    print(f"wrote {HEADER}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
