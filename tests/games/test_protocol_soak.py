"""A CI-sized sample of the protocol soak (bench/protocol_soak.py runs 10,000 ships each).

Random legal ships played turn after turn by the rules -- Repair, Redirect, every Hazard,
sometimes two Hazards at the same moment, a reset after a sinking -- under every clock and
loss condition, checked against the referee after every action; resets are counted on
every tile. Nothing may be lost, duplicated or left unsettled.
"""

import os

import pytest

from .soak import CONDITIONS, soak_ship

SHIPS = int(os.environ.get("BLINKC_SOAK_SHIPS", "4"))


@pytest.mark.parametrize("condition", list(CONDITIONS))
def test_random_ships_played_by_the_rules_lose_and_duplicate_nothing(condition):
    played = 0
    for i in range(SHIPS):
        o = soak_ship(i, condition, base_seed=7, backend="python", max_tiles=16, count_resets=True)
        assert not o.failures, f"ship {i} ({condition}): " + "\n".join(o.failures)
        played += o.actions
    assert played >= SHIPS  # every ship played at least one action


@pytest.mark.parametrize("condition", ["identical clocks", "30 % drop"])
def test_rearranged_ships_lose_and_duplicate_nothing(condition):
    # Turns that start by splitting the ship and joining it again elsewhere (the Rearrange
    # phase): links end and start while the game goes on.
    for i in range(SHIPS):
        o = soak_ship(i, condition, base_seed=11, backend="python", max_tiles=12,
                      count_resets=True, moves=True)
        assert not o.failures, f"ship {i} ({condition}): " + "\n".join(o.failures)
