"""Fixtures for native-tile tests: compilers (skip or fail), and sketches compiled once."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from blinkc.native import NativeSketch, load_sketch
from blinkc.native.toolchain import have

SKETCHES = Path(__file__).parent / "sketches"
REQUIRE_TOOLS = os.environ.get("BLINKC_REQUIRE_TOOLS") == "1"


def need(tool: str, what: str) -> None:
    """Skip without the tool, or fail when BLINKC_REQUIRE_TOOLS=1 says it must be there."""
    if have(tool):
        return
    message = f"{what} is not installed"
    if REQUIRE_TOOLS:
        pytest.fail(f"{message} (BLINKC_REQUIRE_TOOLS=1)")
    pytest.skip(message)


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
