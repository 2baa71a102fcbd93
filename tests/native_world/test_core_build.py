"""Which world core blinkc loads: the one built at install time when it was compiled from the
sources beside it, else one compiled at run time with the same recipe (blinkc/native_world/core/
build.py, sources.py; the installed wheel's case is in tests/packaging)."""

from __future__ import annotations

import re

import pytest

from blinkc.native_world.core import bindings, build, sources

from ..tools import require_tool


@pytest.fixture(scope="module", autouse=True)
def _gxx():
    require_tool("g++")


def test_the_loaded_core_was_compiled_from_the_sources_beside_it():
    key = sources.source_key()
    assert bindings.core().core_source_key().decode() == key
    assert sources.built_key(build.core_library()) == key
    assert build.origin() in ("installed", "run time")


def test_an_installed_core_is_used_only_if_it_was_compiled_from_these_sources(tmp_path, monkeypatch):
    fake = tmp_path / sources.LIBRARY
    monkeypatch.setattr(build, "INSTALLED", fake)
    assert build.installed_core() is None  # none installed: a checkout never installed
    assert build.core_library.__wrapped__() != fake

    # An editable install's core whose sources changed since (its key is another one).
    fake.write_bytes(b"\x7fELF..." + (sources.KEY_MARK + "0" * 32).encode() + b"\0...")
    assert build.installed_core() is None
    assert build.core_library.__wrapped__() != fake

    fake.write_bytes(build.core_library().read_bytes())
    assert build.installed_core() == fake
    assert build.core_library.__wrapped__() == fake


def test_the_key_covers_every_file_the_core_includes_and_the_flags():
    core_dir, native_dir = sources.CORE_DIR, sources.NATIVE_DIR
    included = set(re.findall(r'#include "([^"]+)"', (core_dir / "world_core.cpp").read_text()))
    for header in sorted(included):
        included |= set(re.findall(r'#include "([^"]+)"', (
            core_dir / header if (core_dir / header).exists() else native_dir / header).read_text()))
    # and the Python file a generated header is made from (view.h: view_fields.py)
    generated = {sources.GENERATED[h] for h in included if h in sources.GENERATED}
    assert generated == {"view_fields.py"}
    assert {p.name for p in sources.inputs()} == {*sources.SOURCES, *included, *generated}
    cmd = sources.compile_command("g++", "out.so")
    assert all(flag in cmd for flag in sources.FLAGS)
    assert f'-DBLINKC_CORE_KEY="{sources.source_key()}"' in cmd

