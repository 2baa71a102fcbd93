"""Fixtures shared by several test folders."""

import pytest

from .tools import require_tool


@pytest.fixture
def avrdude() -> str:
    """avrdude's path; skipped without it, except in CI (BLINKC_REQUIRE_TOOLS=1)."""
    return require_tool("avrdude")


def pytest_collection_modifyitems(config, items):
    """The `long` tier runs only when asked for: `-m long` (or any -m naming it), or
    BLINKC_LONG=1."""
    import os

    if "long" in (config.getoption("-m") or "") or os.environ.get("BLINKC_LONG") == "1":
        return
    skip = pytest.mark.skip(reason="a long campaign: run with -m long or BLINKC_LONG=1")
    for item in items:
        if item.get_closest_marker("long") is not None:
            item.add_marker(skip)


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true",
                     help="rewrite the golden files of generated code (tests/golden) instead of comparing")


@pytest.fixture
def update_golden(request) -> bool:
    import os

    return bool(request.config.getoption("--update-golden")) or os.environ.get("BLINKC_UPDATE_GOLDEN") == "1"
