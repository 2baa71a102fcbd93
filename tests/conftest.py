"""Fixtures shared by several test folders."""

import pytest

from .tools import require_tool


@pytest.fixture
def avrdude() -> str:
    """avrdude's path; skipped without it, except in CI (BLINKC_REQUIRE_TOOLS=1)."""
    return require_tool("avrdude")
