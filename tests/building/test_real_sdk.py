"""Against the real Blinks SDK (only with BLINKS_SDK): sizes close to the
reference figures of docs/platform.md (Debian avr-gcc 5.4, SDK recipe)."""

from __future__ import annotations

import os

import pytest

pytestmark = pytest.mark.skipif(
    not os.environ.get("BLINKS_SDK"), reason="set BLINKS_SDK to a Blinks SDK checkout"
)

REFERENCE_EMPTY_FLASH = 1876
REFERENCE_EMPTY_RAM = 696


@pytest.fixture(scope="module")
def real(built):
    if built.sdk.name == "Standin":
        pytest.skip("this module checks the real SDK")
    return built


def test_empty_sketch_matches_the_reference_sizes(real):
    report = real.results["Empty"].report
    print(f"empty sketch with {real.sdk.describe()}: flash {report.flash}, RAM {report.ram}")
    # Within a few dozen bytes: SDK releases differ slightly (1.1.x vs 1.3.x).
    assert abs(report.flash - REFERENCE_EMPTY_FLASH) <= 64
    assert abs(report.ram - REFERENCE_EMPTY_RAM) <= 32
    assert report.bios_ram == 0x27E - 0x100  # the BIOS shared blocks, 0x100..0x27D


def test_test_sketches_fit_and_grow_from_the_empty_one(real):
    empty = real.results["Empty"].report
    for name in ("Spinner", "NeighbourGlow"):
        report = real.results[name].report
        assert empty.flash < report.flash <= report.flash_limit
        assert report.ram <= report.ram_limit
