"""Tests that need a tool skip without it on a user's machine, and fail in CI.

CI sets BLINKC_REQUIRE_TOOLS=1 (see .ci/run): there a missing tool is an error.
"""

from __future__ import annotations

import os
import shutil

import pytest

#: How to get each tool on Debian.
_HINTS = {
    "g++": "g++ (runs the generated C++ and sketches on the host): apt-get install g++",
    "avr-gcc": "avr-gcc: apt-get install gcc-avr avr-libc",
    "avr-g++": "avr-g++: apt-get install gcc-avr avr-libc",
    "avr-objcopy": "avr-objcopy: apt-get install binutils-avr",
    "avr-size": "avr-size: apt-get install binutils-avr",
    "avrdude": "avrdude: apt-get install avrdude",
    "chromium": "chromium (the browser simulator's tests drive it): apt-get install chromium",
}


def require_tool(*names: str) -> str:
    """The path of the first tool; skip (or, in CI, fail) when any of them is missing."""
    missing = [n for n in names if shutil.which(n) is None]
    if missing:
        what = "; ".join(_HINTS.get(n, n) for n in missing)
        if os.environ.get("BLINKC_REQUIRE_TOOLS") == "1":
            pytest.fail(f"BLINKC_REQUIRE_TOOLS=1 but a tool is missing: {what}")
        pytest.skip(f"not installed: {what}")
    return shutil.which(names[0]) or names[0]


def require_simavr() -> None:
    """Skip (or, in CI, fail) unless blinkc's co-simulation harness builds against libsimavr."""
    from blinkc.cosim.library import HarnessUnavailable, harness

    try:
        harness()
    except HarnessUnavailable as e:
        if os.environ.get("BLINKC_REQUIRE_TOOLS") == "1":
            pytest.fail(f"BLINKC_REQUIRE_TOOLS=1 but co-simulation is unavailable: {e}")
        pytest.skip(f"co-simulation unavailable: {e}")
