"""Tests that need a tool skip without it on a user's machine, and fail in CI.

CI sets BLINKC_REQUIRE_TOOLS=1 (see .ci/run): there a missing tool is an error.
"""

from __future__ import annotations

import os
import shutil

import pytest

_TOOLS = {
    "g++": ("g++", "g++ (runs the generated C++ on the host)"),
    "avr-gcc": ("avr-gcc", "avr-gcc (Debian: gcc-avr avr-libc)"),
    "avrdude": ("avrdude", "avrdude"),
}


def require_tool(tool: str) -> None:
    exe, what = _TOOLS[tool]
    if shutil.which(exe):
        return
    message = f"{what} is not installed"
    if os.environ.get("BLINKC_REQUIRE_TOOLS") == "1":
        pytest.fail(f"{message} (BLINKC_REQUIRE_TOOLS=1)")
    pytest.skip(message)
