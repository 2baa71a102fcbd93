"""The fault stream both world engines draw from (blinkc/world/splitmix.py)."""

from hypothesis import given
from hypothesis import strategies as st

from blinkc.world.splitmix import SplitMix64


def test_splitmix64_gives_the_reference_outputs():
    # The first outputs of Vigna's splitmix64.c for the seed 1234567.
    rng = SplitMix64(1234567)
    assert [rng.next64() for _ in range(5)] == [
        6457827717110365317, 3203168211198807973, 9817491932198370423,
        4593380528125082431, 16408922859458223821]


def test_a_seed_text_always_gives_the_same_stream_and_another_text_another():
    a, b, c = (SplitMix64.from_text(t) for t in ("0:faults", "0:faults", "1:faults"))
    first = [a.next64() for _ in range(3)]
    assert first == [b.next64() for _ in range(3)]
    assert first != [c.next64() for _ in range(3)]


@given(seed=st.integers(0, 2**64 - 1), n=st.integers(1, 2**32 - 1))
def test_below_stays_in_range(seed, n):
    rng = SplitMix64(seed)
    assert all(0 <= rng.below(n) < n for _ in range(20))


def test_chance_drops_about_the_share_asked_for():
    rng = SplitMix64.from_text("share")
    for p in (0.0, 0.1, 0.5, 1.0):
        hits = sum(rng.chance(p) for _ in range(20_000))
        assert abs(hits / 20_000 - p) < 0.015, (p, hits)
