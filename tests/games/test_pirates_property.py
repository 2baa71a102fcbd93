"""Random ships, random turns: the emulated firmware always agrees with the referee.

Without faults, and with 10 % packet loss, up to 2 ms of jitter and ±10 % clock
skew. A lost or duplicated beam, heal or reset would make HP, orientation or
sunk state disagree with the referee after that action.
"""

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blinkc.world import Faults
from blinkc.world.infrared import LINKING_SKEW

from ..tiers import tiered
from .pirates import Game
from .ships import legal_ships, turns
from .soak import reset_counter

#: Ships per test: 20 in the default tier, 300 in the long tier (BLINKC_PROPERTY_EXAMPLES sets it).
EXAMPLES = tiered(20, int(os.environ.get("BLINKC_PROPERTY_EXAMPLES", "300")))


def _common(size: int):
    return settings(max_examples=size, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def play(tiles, actions, seed, faults=None):
    g = Game(tiles, seed=seed, faults=faults)
    resets = reset_counter(g)  # a duplicated reset changes no state: it is counted where it runs
    asked = 0
    for name, action in actions:
        g.act(name, action)
        g.check()
        asked += action == "multi_click"
        assert set(resets.values()) == {asked}, f"reset reached tiles {resets} times, not {asked}"


@EXAMPLES
def test_firmware_agrees_with_referee(size):
    @_common(size)
    @given(data=st.data(), seed=st.integers(0, 2**16))
    def agrees(data, seed):
        tiles = data.draw(legal_ships())
        play(tiles, data.draw(turns(tiles)), seed)

    agrees()


@EXAMPLES
def test_firmware_agrees_with_referee_under_faults(size):
    @_common(size)
    @given(data=st.data(), seed=st.integers(0, 2**16))
    def agrees(data, seed):
        tiles = data.draw(legal_ships(max_tiles=20))
        play(tiles, data.draw(turns(tiles, max_actions=4)), seed,
             Faults(drop=0.1, jitter_ms=2, skew=LINKING_SKEW))

    agrees()
