"""The protocol soak as tests: 4 ships per condition in the default tier, 100 in the long tier
(BLINKC_SOAK_SHIPS sets it; bench/protocol_soak.py runs 10,000 each, natively).

Random legal ships played turn after turn by the rules -- Repair, Redirect, every Hazard,
sometimes two Hazards at the same moment, a reset after a sinking -- under every clock and
loss condition, checked against the referee after every action; resets are counted on
every tile. Nothing may be lost, duplicated or left unsettled.
"""

import os

import pytest

from ..tiers import tiered
from .soak import BEYOND_THE_DECODER, CONDITIONS, soak_ship

SHIPS = tiered(4, int(os.environ.get("BLINKC_SOAK_SHIPS", "100")))


@SHIPS
@pytest.mark.parametrize("condition", list(CONDITIONS))
def test_random_ships_played_by_the_rules_lose_and_duplicate_nothing(condition, size):
    played = 0
    for i in range(size):
        o = soak_ship(i, condition, base_seed=7, backend="python", max_tiles=16, count_resets=True)
        assert not o.failures, f"ship {i} ({condition}): " + "\n".join(o.failures)
        played += o.actions
    assert played >= size  # every ship played at least one action


@SHIPS
@pytest.mark.parametrize("condition", list(BEYOND_THE_DECODER))
def test_ships_whose_tiles_cannot_all_hear_each_other_duplicate_nothing(condition, size):
    # Beyond the decoder's clock tolerance a link may be deaf one way: turns may stall and
    # messages bounce, but no HP, sinking or turn may happen twice or out of order.
    deaf = 0
    for i in range(size):
        o = soak_ship(i, condition, base_seed=7, backend="python", max_tiles=16, count_resets=True)
        assert o.duplicated == 0 and o.other == 0, f"ship {i} ({condition}): " + "\n".join(o.failures)
        deaf += bool(o.lost or o.stalled)
    # (The condition is a real one: at ±10 % some ships do lose turns.)
    assert deaf or size < 4


@SHIPS
@pytest.mark.parametrize("condition", ["identical clocks", "30 % drop"])
def test_rearranged_ships_lose_and_duplicate_nothing(condition, size):
    # Turns that start by splitting the ship and joining it again elsewhere (the Rearrange
    # phase): links end and start while the game goes on.
    for i in range(size):
        o = soak_ship(i, condition, base_seed=11, backend="python", max_tiles=12,
                      count_resets=True, moves=True)
        assert not o.failures, f"ship {i} ({condition}): " + "\n".join(o.failures)
