"""Idle skipping changes nothing a program can observe.

A tile whose program declared itself quiet skips loop() while its inputs are unchanged, and
its BIOS side (receiving, answering, probing) keeps running, so each packet leaves when it
would have with every loop run. Random Pirates & Lasers cases (the differential generator:
random clusters, gestures and moves) must give the same trace with idle skipping as with
`idle_skip=False`, record for record and µs for µs (colours aside: blinkc.differential,
UNCOMPARED_WHEN_SKIPPING), with no loss and ±10 % clocks (where the emulator's sleep of
earlier versions went another way in 1 case of 60) and with each case's own faults.
`bench/skipping_exact.py` counts a larger sample; the `long` tier runs 2,000 cases.
"""

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from blinkc.differential import cases, compare_skipping, reproducer
from blinkc.games import load_program
from blinkc.world import Faults

from ..tools import require_tool

PIRATES = Path(__file__).resolve().parents[2] / "firmware" / "pirates_lasers.py"
SKEWED = Faults(skew=0.1)  # no loss, ±10 % clocks


def _check(case, backend: str, world: str) -> None:
    difference = compare_skipping(PIRATES, case, backend, world)
    assert difference is None, f"{difference}\nreproduce with:\n{reproducer(PIRATES, case)}"


def _sample(n: int):
    return settings(max_examples=n, derandomize=True, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck))


@_sample(24)
@given(case=cases(load_program(PIRATES)))
def test_skipping_changes_nothing_with_native_tiles(case):
    require_tool("g++")
    _check(replace(case, faults=SKEWED), "native", "auto")
    _check(case, "native", "auto")


@_sample(6)
@given(case=cases(load_program(PIRATES)))
def test_skipping_changes_nothing_in_the_python_world(case):
    _check(replace(case, faults=SKEWED), "python", "python")


@pytest.mark.long
@settings(max_examples=2000, database=None, deadline=None,
          suppress_health_check=list(HealthCheck))
@given(case=cases(load_program(PIRATES)))
def test_skipping_changes_nothing_over_many_cases(case):
    require_tool("g++")
    _check(replace(case, faults=SKEWED), "native", "auto")
    _check(case, "native", "auto")
