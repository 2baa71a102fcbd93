"""Session fixtures for the build layer's tests: builds are done once per
session (the stand-in SDK always; the real SDK too when BLINKS_SDK names one)."""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest

from blinkc.build import BuildResult, Sdk, build, find_sdk

from .helpers import AVR_TOOLS, SKETCHES, make_standin, require_tools


@pytest.fixture(scope="session")
def standin_sdk(tmp_path_factory: pytest.TempPathFactory) -> Sdk:
    return find_sdk(make_standin(tmp_path_factory.mktemp("standin") / "avr"))


def _real_sdk() -> Sdk | None:
    return find_sdk(os.environ["BLINKS_SDK"]) if os.environ.get("BLINKS_SDK") else None


@dataclass
class Built:
    sdk: Sdk
    results: dict[str, BuildResult]


@pytest.fixture(scope="session", params=["standin", "real"])
def built(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The test sketches built once per session against the stand-in SDK and,
    when BLINKS_SDK is set, against the real SDK as well."""
    if request.param == "real":
        sdk = _real_sdk()
        if sdk is None:
            pytest.skip("set BLINKS_SDK to a Blinks SDK checkout to also test against it")
    else:
        sdk = request.getfixturevalue("standin_sdk")
    require_tools(*AVR_TOOLS)
    out = tmp_path_factory.mktemp(f"built-{request.param}")
    results = {
        name: build(SKETCHES / name, out / name, sdk=sdk, backend="avr-gcc")
        for name in ("Empty", "Spinner", "NeighbourGlow")
    }
    return Built(sdk, results)
