"""Shared by the explorer's tests: a planted bug, a one-line change to the engine."""

import pytest

import blinkc.dsl.lowering as lowering
from blinkc import games


@pytest.fixture
def planted(tmp_path, monkeypatch):
    def plant(bug: tuple[str, str]) -> None:
        source = lowering.ENGINE_FILE.read_text()
        assert bug[0] in source
        mutated = tmp_path / "protocol.py"
        mutated.write_text(source.replace(bug[0], bug[1]))
        monkeypatch.setattr(lowering, "ENGINE_FILE", mutated)
        monkeypatch.setattr(games, "_programs", {})  # no game compiled with the real engine
        monkeypatch.setattr(games, "_classes", {})

    return plant


@pytest.fixture(params=["python", "native"])
def world(request) -> str:
    """Each explorer test that takes it runs on both worlds: the game's Python backend in the
    reference world, its C++ in the C++ world core (the same results)."""
    if request.param == "native":
        from ..tools import require_tool

        require_tool("g++")
    return request.param
