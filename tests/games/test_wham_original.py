"""The port against Move38's original: the same scenarios on firmware/wham.py and on the
unmodified WHAM.ino of the Blinks SDK, watched by the colours only (wham_play.py), must
tell the same story. Skipped unless BLINKS_SDK names an SDK checkout (the sketch is
read from there and never copied). docs/wham.md lists the differences."""

from __future__ import annotations

import pytest

from blinkc.testing import Cluster

from ..tools import require_tool
from .test_wham_rules import FLOWER, TRIANGLE
from .wham_play import LET_GO, LONG, MISS, PORT, Plan, Player, Story, original_sketch, play

ORIGINAL = original_sketch()
pytestmark = [
    pytest.mark.skipif(ORIGINAL is None, reason="BLINKS_SDK is not set (or has no WHAM.ino):"
                       " the original sketch comes from the SDK"),
]

LINE = "tile a at 0,0\ntile b at 0,1\ntile c at 0,2\ntile d at 0,3"
PAIR = "tile a at 0,0\ntile b at 0,1"
ROUND_SLACK_MS = 150

SCENARIOS = {
    "perfect play on a triangle": (TRIANGLE, Plan(seed=11)),
    "three misses on a line": (LINE, Plan({2: MISS, 3: MISS, 6: MISS}, seed=12)),
    "a mole let go on a flower": (FLOWER, Plan({4: LET_GO}, seed=13)),
    "long presses on a pair": (PAIR, Plan({1: LONG, 2: LONG, 3: MISS, 5: LONG, 7: LET_GO},
                                          seed=14)),
    "a lone tile": ("tile a at 0,0", Plan({9: MISS, 12: LET_GO}, seed=15)),
}


@pytest.fixture(scope="module", autouse=True)
def _gpp():
    require_tool("g++")


def both(layout: str, plan: Plan, seed: int = 1) -> tuple[Story, Story]:
    return play(PORT, layout, plan, seed=seed), play(ORIGINAL, layout, plan, seed=seed)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_the_port_and_the_original_tell_the_same_story(name):
    layout, plan = SCENARIOS[name]
    port, original = both(layout, plan)
    end, end_round, strikes = plan.expected()
    for story in (port, original):
        assert story.summary()[:3] == (end, end_round, strikes)
    assert port.summary() == original.summary()
    assert len(port.rounds) == len(original.rounds)
    for r, (a, b) in enumerate(zip(port.round_lengths(), original.round_lengths()), start=1):
        assert abs(a - b) <= ROUND_SLACK_MS, f"round {r}: {a} ms on the port, {b} ms"
    if end == "death" and plan.of(end_round) == MISS:
        for story in (port, original):
            assert story.death_sources == {[t for t, _, why in story.presses
                                            if why == "miss"][-1]}
    if end == "death" and plan.of(end_round) == LET_GO:
        for story in (port, original):
            assert story.death_sources <= {t for r, t, _ in story.moles if r == end_round}


def test_a_lone_tile_is_a_mole_every_round_on_both():
    port, original = both("tile a at 0,0", Plan({7: LET_GO}, seed=3))
    assert [r for r, _, _ in port.moles] == [r for r, _, _ in original.moles] == list(range(1, 8))


def strikes_after(game, layout: str, presses: list[tuple[str, float]]) -> list[int]:
    c = Cluster(game, layout, seed=2, backend="native")
    player = Player(c, Plan(seed=2))
    player.start("a")
    for _ in range(30):
        player.step()  # the game has started; no mole before the first round (2 s)
    now = c.world.now_ms
    player.due += [(now + at, tile, 80, "miss") for tile, at in presses]
    for _ in range(40):
        player.step()
    assert not player.watch.story.rounds
    return [n for n, _, _ in player.watch.story.strikes]


@pytest.mark.parametrize("presses, strikes", [
    ([("o", 0), ("o", 230)], [1, 2]),   # a double click: each press is a strike
    ([("a", 0), ("d", 0)], [1]),        # two misses at once: the larger count, one strike
    ([("a", 0), ("d", 400)], [1, 2]),
], ids=["double click", "two at once", "two apart"])
def test_strikes_count_the_same_on_both(presses, strikes):
    assert strikes_after(PORT, FLOWER, presses) == strikes
    assert strikes_after(ORIGINAL, FLOWER, presses) == strikes


def test_after_the_end_a_double_click_brings_the_field_back_on_both():
    for game in (PORT, ORIGINAL):
        c = Cluster(game, TRIANGLE, seed=4, backend="native")
        player = Player(c, Plan({2: LET_GO}, seed=4))
        assert player.play("a").summary() == ("death", 2, [], [])
        assert player.back_to_field("b").back_to_field_at is not None, game.name
        assert Player(c, Plan({1: LET_GO}, seed=5)).play("c").summary() == ("death", 1, [], [])


def looks_of_a_late_tile(game) -> set[str]:
    c = Cluster(game, TRIANGLE + "\ntile z held", seed=3, backend="native")
    player = Player(c, Plan(seed=3))
    player.start("a")
    while len(player.watch.story.rounds) < 2:
        player.step()
    c.place("z", (1, -1))  # against a and c
    seen = set()
    for _ in range(500):  # 10 s: a round and more
        player.step()
        seen.add(player.watch.look["z"])
    return seen


def test_a_tile_put_down_during_a_game_joins_only_on_the_original():
    # A decision (docs/wham.md): the original pulls a tile on the field into the game
    # it touches, with its rounds counted from 0 (it would win, or slow down, out of
    # step); the port leaves it on the field until the next game.
    assert {"mole", "stir"} & looks_of_a_late_tile(ORIGINAL)
    assert not {"mole", "stir"} & looks_of_a_late_tile(PORT)
