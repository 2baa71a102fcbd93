"""Fixtures for the simulator's own tests."""

import os
import shutil

import pytest


@pytest.fixture
def avrdude() -> str:
    """avrdude's path; skipped without it, except in CI (BLINKC_REQUIRE_TOOLS=1)."""
    path = shutil.which("avrdude")
    if path is None:
        if os.environ.get("BLINKC_REQUIRE_TOOLS") == "1":
            pytest.fail("avrdude is required here (BLINKC_REQUIRE_TOOLS=1) but not installed")
        pytest.skip("avrdude is not installed (sudo apt-get install avrdude)")
    return path
