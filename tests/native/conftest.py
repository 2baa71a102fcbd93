"""Fixtures for native-tile tests: compilers (skip or fail), and sketches compiled once."""

from __future__ import annotations

from pathlib import Path

import pytest

from blinkc.native import NativeSketch, load_sketch

from ..tools import require_tool

SKETCHES = Path(__file__).parent / "sketches"


def need(tool: str, what: str) -> None:
    """Skip without the tool, or fail when BLINKC_REQUIRE_TOOLS=1 says it must be there."""
    require_tool({"host": "g++", "avr": "avr-g++"}[tool])


@pytest.fixture(scope="session")
def gxx() -> None:
    need("host", "g++ (needed to run sketches natively)")


@pytest.fixture(scope="session")
def avr() -> None:
    need("avr", "avr-g++ (gcc-avr, needed for the AVR compile check)")


def _load(name: str) -> NativeSketch:
    return load_sketch(SKETCHES / name, check_int16=False)


@pytest.fixture(scope="session")
def spinner(gxx) -> NativeSketch:
    return _load("Spinner")


@pytest.fixture(scope="session")
def relay(gxx) -> NativeSketch:
    return _load("Relay")


@pytest.fixture(scope="session")
def probe_sketch(gxx) -> NativeSketch:
    return _load("Probe")


@pytest.fixture(scope="session")
def globals_sketch(gxx) -> NativeSketch:
    return _load("Globals")
