"""The per-tile view of the C++ world core is declared once, in view_fields.py: view.h (the
C struct, its offsets, the core's copies) and Python's struct with its pack and unpack by name
are made from FIELDS. A field moved, renamed or left out on one side is a build error, a
refused core or a failing test, never a silent mis-assignment."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from blinkc.native_world.core import bindings, sources, view_fields
from blinkc.native_world.core.view_fields import FIELDS, HEADER, StaleHeader, ViewCodec

from ..tools import require_tool


def _swapped(a: str, b: str) -> tuple[view_fields.Field, ...]:
    """FIELDS with the fields named a and b in each other's place."""
    names = [f.name for f in FIELDS]
    i, j = names.index(a), names.index(b)
    fields = list(FIELDS)
    fields[i], fields[j] = fields[j], fields[i]
    return tuple(fields)


def _values(codec: ViewCodec) -> dict[str, object]:
    """A distinct value for every field, by name."""
    out: dict[str, object] = {}
    for k, p in enumerate(view_fields.layout()):
        f = p.field
        if p.item is None:
            continue
        if isinstance(p.item, slice):
            out[f.name] = [(k * 7 + e) % 250 for e in range(p.item.stop - p.item.start)]
        elif f.ctype == "int64_t":
            out[f.name] = k * 1_000_003 - 5
        else:
            size = int(p.fmt[:-1])
            out[f.name] = bytes((k + e) % 256 for e in range(size))
    return out


def test_the_committed_view_h_is_what_view_fields_declares():
    view_fields.check_header()  # else: python blinkc/native_world/core/view_fields.py
    assert view_fields.main(["--check"]) == 0


def test_a_reordered_field_makes_view_h_stale_and_the_build_refuses_it(tmp_path):
    swapped = _swapped("started", "epoch")
    assert view_fields.header(swapped) != HEADER.read_text()
    with pytest.raises(StaleHeader):
        view_fields.check_header(HEADER, swapped)
    # The same in a copy of the core's sources: FIELDS reordered, view.h not written again.
    for p in sources.inputs():
        if p.parent == sources.CORE_DIR:
            shutil.copy(p, tmp_path / p.name)
    text = (tmp_path / "view_fields.py").read_text()
    started = '    _f("started", group=_TILE, core="t.started"),\n'
    epoch = '    _f("epoch", group=_TILE, core="t.epoch"),\n'
    assert started + epoch in text
    (tmp_path / "view_fields.py").write_text(text.replace(started + epoch, epoch + started))
    copy = sources.view_fields(tmp_path)  # the copy, loaded by its path as the build loads it
    with pytest.raises(copy.StaleHeader, match=r"view_fields\.py"):
        sources.compile_command("g++", tmp_path / "core.so", core_dir=tmp_path)
    # Written again, it builds.
    (tmp_path / "view.h").write_text(copy.header())
    sources.check_generated(tmp_path)
    assert sources.source_key(tmp_path) != sources.source_key()


def test_a_field_moved_by_hand_in_view_h_does_not_compile(tmp_path):
    gxx = require_tool("g++")
    text = HEADER.read_text()
    (tmp_path / "use.cpp").write_text('#include "view.h"\nint main() { return 0; }\n')
    cmd = [gxx, "-std=gnu++17", "-fsyntax-only", f"-I{tmp_path}", str(tmp_path / "use.cpp")]
    (tmp_path / "view.h").write_text(text)
    assert subprocess.run(cmd, capture_output=True, check=False).returncode == 0
    moved = text.replace("    int64_t started;\n    int64_t epoch;\n",
                         "    int64_t epoch;\n    int64_t started;\n")
    assert moved != text
    (tmp_path / "view.h").write_text(moved)
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert done.returncode != 0
    assert "view.h: started is not where view_fields.py says" in done.stderr


def test_a_core_with_another_view_layout_is_refused():
    lib = bindings.core()
    assert lib.core_view_layout().decode() == bindings.VIEW.text
    assert lib.core_view_size() == bindings.VIEW.size == view_fields.struct_of().size
    bindings.check_layout(bindings.VIEW.text, bindings.VIEW.size)
    # A core compiled from a view with two fields swapped (same size), or one renamed.
    with pytest.raises(bindings.CoreLayoutError, match="started"):
        bindings.check_layout(view_fields.layout_text(_swapped("started", "epoch")),
                              bindings.VIEW.size)
    renamed = tuple(f._replace(name="passes_run") if f.name == "passes" else f for f in FIELDS)
    with pytest.raises(bindings.CoreLayoutError, match="passes_run"):
        bindings.check_layout(view_fields.layout_text(renamed), bindings.VIEW.size)


def test_pack_and_unpack_go_by_name_and_put_each_field_at_its_offset():
    codec = bindings.VIEW
    values = _values(codec)
    buf = bytearray(codec.size)
    codec.pack_into(buf, **values)
    view = codec.unpack_from(buf)
    for name, value in values.items():
        got = getattr(view, name)
        assert (list(got) if isinstance(value, list) else got) == value, name
    # Each value is at the offset view.h's static_asserts hold the C struct to.
    for p in view_fields.layout():
        f, value = p.field, values.get(p.field.name)
        if value is None:
            continue
        if f.ctype == "int64_t":
            items = value if isinstance(value, list) else [value]
            for e, x in enumerate(items):
                at = p.offset + 8 * e
                assert int.from_bytes(buf[at:at + 8], "little", signed=True) == x, f.name
        else:
            raw = bytes(value) if isinstance(value, list) else value
            assert bytes(buf[p.offset:p.offset + len(raw)]) == raw, f.name


def test_a_field_left_out_or_renamed_is_an_error_not_a_misplaced_value():
    codec = bindings.VIEW
    values = _values(codec)
    buf = bytearray(codec.size)
    missing = dict(values)
    del missing["epoch"]
    with pytest.raises(TypeError, match="epoch"):
        codec.pack_into(buf, **missing)
    with pytest.raises(TypeError, match="epochs"):
        codec.pack_into(buf, **values, epochs=1)
    # FIELDS with a field renamed: the engine's keywords (the old names) no longer fit.
    renamed = ViewCodec(tuple(f._replace(name="passes_run") if f.name == "passes" else f
                              for f in FIELDS))
    with pytest.raises(TypeError):
        renamed.pack_into(buf, **values)
    with pytest.raises(AttributeError):
        _ = renamed.unpack_from(buf).passes
    # Reordered: by name, every value still lands in its own field.
    swapped = ViewCodec(_swapped("started", "epoch"))
    swapped.pack_into(buf, **values)
    view = swapped.unpack_from(buf)
    assert (view.started, view.epoch) == (values["started"], values["epoch"])


def test_the_layout_refuses_a_field_the_compiler_would_align_elsewhere():
    no_pad = tuple(f for f in FIELDS if f.name != "pad")
    with pytest.raises(ValueError, match="multiple of 8"):
        view_fields.layout(no_pad)
    late = (*no_pad, view_fields.Field("late", "int64_t", (), "x"))
    with pytest.raises(ValueError, match="late"):
        view_fields.layout(late)
