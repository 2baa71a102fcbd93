"""The one cache of native builds (blinkc/native/compile_cache.py): where it is, what its
key covers, and that an entry is published whole or not at all, then reused."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from blinkc.native import compile_cache


def test_the_cache_lives_where_the_environment_says(tmp_path, monkeypatch):
    monkeypatch.delenv("BLINKC_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert compile_cache.cache_dir() == tmp_path / "xdg/blinkc/native"
    monkeypatch.setenv("BLINKC_CACHE_DIR", str(tmp_path / "mine"))
    assert compile_cache.cache_dir() == tmp_path / "mine/native"
    assert compile_cache.entry("guard", "k") == tmp_path / "mine/native/guard-k.so"


def test_the_key_changes_with_every_input(tmp_path):
    source = tmp_path / "a.cpp"
    source.write_text("int a;")
    base = compile_cache.key(("g++ 12", "-O2"), (source,))
    assert compile_cache.key(("g++ 12", "-O2"), (source,)) == base
    assert compile_cache.key(("g++ 13", "-O2"), (source,)) != base
    assert compile_cache.key(("g++ 12", "-Os"), (source,)) != base
    assert compile_cache.key(("g++ 12-O", "2"), (source,)) != base  # parts are separated
    source.write_text("int b;")
    assert compile_cache.key(("g++ 12", "-O2"), (source,)) != base


def test_an_entry_is_made_once_then_reused(tmp_path, monkeypatch):
    monkeypatch.setenv("BLINKC_CACHE_DIR", str(tmp_path))
    target = compile_cache.entry("thing", "k1")
    calls = []

    def make(scratch: Path) -> Path:
        calls.append(scratch)
        assert scratch.parent == target.parent  # same file system: the rename is atomic
        (scratch / "out").write_text("built")
        return scratch / "out"

    assert compile_cache.reuse_or_make(target, make) == target
    assert compile_cache.reuse_or_make(target, make) == target
    assert len(calls) == 1 and target.read_text() == "built"
    assert not list(target.parent.glob("build-*"))  # no scratch left


def test_a_failed_make_publishes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("BLINKC_CACHE_DIR", str(tmp_path))
    target = compile_cache.entry("thing", "k2")

    def fail(scratch: Path) -> Path:
        (scratch / "out").write_text("half")
        raise RuntimeError("does not compile")

    with pytest.raises(RuntimeError):
        compile_cache.reuse_or_make(target, fail)
    assert not target.exists() and not list(target.parent.glob("build-*"))


def test_workers_that_need_one_entry_at_once_make_it_once(tmp_path, monkeypatch):
    """pytest-xdist's workers (or two blinkc runs) that ask for the same build together: one
    compiles, the others wait for it and reuse its entry instead of compiling it again."""
    monkeypatch.setenv("BLINKC_CACHE_DIR", str(tmp_path))
    target = compile_cache.entry("thing", "k3")
    calls = []

    def make(scratch: Path) -> Path:
        calls.append(scratch)
        time.sleep(0.3)  # a compile: long enough for every worker to arrive meanwhile
        (scratch / "out").write_text("built")
        return scratch / "out"

    results = []
    workers = [threading.Thread(target=lambda: results.append(
        compile_cache.reuse_or_make(target, make))) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert results == [target] * 4 and target.read_text() == "built"
    assert len(calls) == 1
