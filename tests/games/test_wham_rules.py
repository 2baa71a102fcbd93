"""WHAM!'s rules on the port (firmware/wham.py), on both backends, watched the way a
player watches: by the colours only (tests/games/wham_play.py). The same scenarios run
on Move38's original in test_wham_original.py."""

from __future__ import annotations

import pytest

from blinkc.testing import Cluster

from ..tools import require_tool
from .wham_play import LET_GO, LONG, MISS, PORT, ROUNDS, Plan, Player, play

TRIANGLE = "tile a at 0,0\ntile b at 0,1\ntile c at 1,0"
FLOWER = """
tile o at 0,0
tile a at 0,-1
tile b at 1,-1
tile c at 1,0
tile d at 0,1
tile e at -1,1
tile f at -1,0
"""


@pytest.fixture(params=["python", "native"])
def backend(request):
    if request.param == "native":
        require_tool("g++")
    return request.param


def original_round_ms(level: int) -> int:
    """The original's round, from its comments' rule: each interval shrinks linearly from
    level 1 to 15 (emerge 2000 -> 500 ms, a mole up 3000 -> 1500 ms); a round is the
    moles rising (twice: once more as the pause), the drift, the mole up and the flash."""
    emerge = 2000 - (level - 1) * 1500 // 14
    above = 3000 - (level - 1) * 1500 // 14
    return 2 * emerge + 200 + above + 500


def test_whacking_every_mole_wins_after_30_rounds_at_a_quickening_pace(backend):
    story = play(PORT, TRIANGLE, Plan(seed=3), seed=3, backend=backend)
    assert (story.end, story.end_round, story.strikes) == ("victory", ROUNDS, [])
    assert story.started_at is not None and story.rounds[0] - story.started_at == \
        pytest.approx(2000, abs=120)  # the first round comes 2 s after the start
    for r, length in enumerate(story.round_lengths(), start=1):
        assert length == pytest.approx(original_round_ms(min(r, 15)), abs=120), r
    # Every round raised at least one mole, and every mole was a tile of the cluster.
    assert {r for r, _, _ in story.moles} == set(range(1, ROUNDS + 1))


def test_the_third_press_without_a_mole_loses_and_its_tile_pulses_white(backend):
    plan = Plan({2: MISS, 4: MISS, 5: MISS}, seed=5)
    story = play(PORT, TRIANGLE, plan, seed=5, backend=backend)
    assert plan.expected() == ("death", 5, [1, 2])
    assert story.summary() == ("death", 5, [1, 2], [2, 4])  # yellow, then orange
    last_miss = [tile for tile, _, why in story.presses if why == "miss"][-1]
    assert story.death_sources == {last_miss}


def test_a_mole_that_gets_away_loses_and_its_tile_pulses_white(backend):
    story = play(PORT, FLOWER, Plan({3: LET_GO}, seed=2), seed=2, backend=backend)
    assert story.summary() == ("death", 3, [], [])
    moles_of_round_3 = {tile for r, tile, _ in story.moles if r == 3}
    # (moles that get away within a flood's crossing of each other all end the game)
    assert story.death_sources and story.death_sources <= moles_of_round_3
    source = min(story.death_sources, key=lambda tile: min(
        when for r, t, when in story.moles if r == 3 and t == tile))
    # It got away once its time was up (3 s at level 1, 107 ms less a level): the pips
    # show from a sixth of that time on, the whole cluster pulses soon after it ends.
    above = 3000 - 2 * 107
    burning = min(when for r, tile, when in story.moles if r == 3 and tile == source)
    assert above * 5 // 6 - 60 <= story.end_at - burning <= above * 5 // 6 + 250


def test_a_long_press_whacks_as_well_as_a_click(backend):
    story = play(PORT, TRIANGLE, Plan({r: LONG for r in range(1, 4)} | {4: LET_GO}, seed=1),
                 seed=1, backend=backend)
    assert story.summary() == ("death", 4, [], [])


def test_a_lone_tile_raises_a_mole_every_round(backend):
    story = play(PORT, "tile a at 0,0", Plan({6: LET_GO}, seed=4), seed=4, backend=backend)
    assert story.summary() == ("death", 6, [], [])
    assert [r for r, _, _ in story.moles] == [1, 2, 3, 4, 5, 6]


def test_each_press_of_a_double_click_is_a_strike(backend):
    # On a flower the first strike is still crossing the cluster when the second press
    # comes: it must count all the same.
    c = Cluster(PORT, FLOWER, seed=1, backend=backend)
    player = Player(c, Plan(seed=1))
    player.start("o")
    for _ in range(40):
        player.step()  # the game has started; the first round is 2 s away: no mole yet
    now = c.world.now_ms
    player.due += [(now, "o", 80, "miss"), (now + 230, "o", 80, "miss")]  # 150 ms apart
    for _ in range(30):
        player.step()
    assert not player.watch.story.rounds  # both presses came before the first round
    assert [n for n, _, _ in player.watch.story.strikes] == [1, 2]


def test_after_the_end_a_double_click_shows_the_field_and_another_starts_again(backend):
    c = Cluster(PORT, TRIANGLE, seed=6, backend=backend)
    player = Player(c, Plan({2: LET_GO}, seed=6))
    story = player.play("a")
    assert story.summary() == ("death", 2, [], [])
    story = player.back_to_field("c")
    assert story.back_to_field_at is not None
    again = Player(c, Plan({1: LET_GO}, seed=7))
    assert again.play("b").summary() == ("death", 1, [], [])
