"""The suite's two tiers (README, Testing).

`make test` runs the default tier, every test not marked `long`, and must prove each promise
at least once; `make test-long` (and CI, after the default tier) runs the tests marked `long`:
the long campaigns. A campaign that belongs in both, at two sizes, takes `tiered`.
"""

from __future__ import annotations

import pytest


def tiered(default: int, long: int):
    """Parametrise a test's `size` (its examples, ships, cases...): `default` in the default
    tier, `long` in the long tier (the same test, marked `long`)."""
    return pytest.mark.parametrize("size", [
        pytest.param(default, id="default"),
        pytest.param(long, id="long", marks=pytest.mark.long),
    ])
