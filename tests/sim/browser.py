"""Driving Debian's Chromium with Playwright (headless, its own fresh profile, no network)."""

from __future__ import annotations

import io
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from ..tools import require_tool

#: Chromium's switches for a machine without a network or a GPU (and, in a container, as root
#: and with a small /dev/shm).
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
VIEWPORT = {"width": 1400, "height": 860}


def chromium() -> str:
    """Debian's Chromium; a skip without it (a failure in CI)."""
    for name in ("chromium", "chromium-browser"):
        if shutil.which(name):
            return shutil.which(name) or name
    return require_tool("chromium")


def sync_playwright() -> Any:
    try:
        from playwright.sync_api import sync_playwright as start
    except ImportError:
        if os.environ.get("BLINKC_REQUIRE_TOOLS") == "1":
            pytest.fail("BLINKC_REQUIRE_TOOLS=1 but playwright is missing: pip install -e '.[dev]'")
        pytest.skip("playwright is not installed (pip install -e '.[dev]')")
    return start()


@contextmanager
def browser_context(profile: Path) -> Iterator[Any]:
    """A headless Chromium with a fresh user-data dir; downloads allowed."""
    path = chromium()
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile), executable_path=path, headless=True, args=CHROMIUM_ARGS,
            viewport=VIEWPORT, accept_downloads=True)
        try:
            yield context
        finally:
            context.close()


def open_sim(context: Any, url: str) -> Any:
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(url)
    page.wait_for_function("window.blinkcSim && window.blinkcSim.ready()", timeout=20_000)
    return page


#: Colours kept in a saved screenshot: the page's few colours survive, the file stays small.
SCREENSHOT_COLOURS = 96


def screenshot(page: Any, name: str) -> None:
    """Save a picture for docs/sim.md when BLINKC_SIM_SCREENSHOTS names a folder (the page as
    the test sees it, in a small palette PNG)."""
    folder = os.environ.get("BLINKC_SIM_SCREENSHOTS")
    if not folder:
        return
    from PIL import Image

    Path(folder).mkdir(parents=True, exist_ok=True)
    picture = Image.open(io.BytesIO(page.screenshot())).convert("RGB")
    small = picture.quantize(SCREENSHOT_COLOURS, method=Image.Quantize.MEDIANCUT)
    small.save(Path(folder) / name, optimize=True)
