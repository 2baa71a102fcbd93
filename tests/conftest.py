"""Fixtures shared by several test folders."""

import pytest

from .tools import require_tool


@pytest.fixture
def avrdude() -> str:
    """avrdude's path; skipped without it, except in CI (BLINKC_REQUIRE_TOOLS=1)."""
    return require_tool("avrdude")


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true",
                     help="rewrite the golden files of generated code (tests/golden) instead of comparing")


@pytest.fixture
def update_golden(request) -> bool:
    import os

    return bool(request.config.getoption("--update-golden")) or os.environ.get("BLINKC_UPDATE_GOLDEN") == "1"
