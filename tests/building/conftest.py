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
    return find_sdk() if os.environ.get("BLINKS_SDK") else None


@dataclass
class Built:
    sdk: Sdk
    results: dict[str, BuildResult]


SKETCH_NAMES = ("Empty", "Spinner", "NeighbourGlow")


def _build_all(sdk: Sdk, out) -> Built:
    require_tools(*AVR_TOOLS)
    results = {n: build(SKETCHES / n, out / n, sdk=sdk, backend="avr-gcc") for n in SKETCH_NAMES}
    return Built(sdk, results)


@pytest.fixture(scope="session")
def standin_built(standin_sdk: Sdk, tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The test sketches built once against the stand-in SDK."""
    return _build_all(standin_sdk, tmp_path_factory.mktemp("built-standin"))


@pytest.fixture(scope="session", params=["standin", "real"])
def built(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The test sketches built once per session against the stand-in SDK and,
    when BLINKS_SDK is set, against the real SDK as well."""
    if request.param == "standin":
        return request.getfixturevalue("standin_built")
    sdk = _real_sdk()
    if sdk is None:
        pytest.skip("set BLINKS_SDK to a Blinks SDK checkout to also test against it")
    return _build_all(sdk, tmp_path_factory.mktemp("built-real"))
