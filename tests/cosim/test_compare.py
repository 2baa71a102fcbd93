"""`--compare`'s judgement on made-up timelines (no simulator needed): what counts as the two
sides agreeing, and how a difference is reported."""

from __future__ import annotations

from blinkc.cosim.compare import Shown, Side, compare_sides

RED, OFF, BLUE = [31] * 6, [0] * 6, [31 << 10] * 6


def side(changes: list[tuple[float, list[int]]], end: float = 1000.0, state: dict | None = None,
         every: float = 20.0) -> Side:
    shown = Shown.of([(t, tuple(c)) for t, c in changes])
    samples = [(k * every, "a", list(shown.at(k * every)), state or {})
               for k in range(1, int(end // every) + 1)]
    return Side.of(samples, [(t, "a", c) for t, c in changes])


def test_the_same_timeline_agrees():
    run = [(0.0, OFF), (100.0, RED), (300.0, OFF)]
    assert compare_sides(side(run), side(run)) == []


def test_a_one_frame_flash_is_seen_though_no_sample_falls_on_it():
    """Samples every 20 ms miss a 7 ms flash; the changes do not."""
    ours = side([(0.0, OFF), (203.0, RED), (210.0, OFF)])
    theirs = side([(0.0, OFF), (205.0, RED), (212.0, OFF)])
    assert compare_sides(ours, theirs) == []
    never = side([(0.0, OFF)])
    found = compare_sides(ours, never)
    assert [(d.at_ms, d.cosim["colors"], d.emulator["colors"]) for d in found] == \
        [(203.0, RED, OFF)]


def test_timing_within_the_tolerance_agrees_and_beyond_it_differs():
    ours = side([(0.0, OFF), (100.0, RED)])
    assert compare_sides(ours, side([(0.0, OFF), (340.0, RED)]), tolerance_ms=250) == []
    late = compare_sides(ours, side([(0.0, OFF), (400.0, RED)]), tolerance_ms=250)
    assert late and late[0].at_ms == 100.0 and late[0].until_ms >= 140.0   # one stretch


def test_a_colour_only_one_side_shows_is_a_difference_both_ways():
    ours, theirs = side([(0.0, OFF), (500.0, BLUE)]), side([(0.0, OFF)])
    assert compare_sides(ours, theirs) and compare_sides(theirs, ours)


def test_the_game_state_is_compared_too():
    run = [(0.0, OFF)]
    assert compare_sides(side(run, state={"hp": 3}), side(run, state={"hp": 3})) == []
    found = compare_sides(side(run, state={"hp": 3}), side(run, state={"hp": 2}))
    assert found and found[0].cosim["state"] == {"hp": 3} and found[0].emulator["state"] == {"hp": 2}


def test_a_sample_the_changes_do_not_explain_counts():
    """A sleeping emulator tile is dark in its samples while its last pass's colours stand."""
    changes = [(0.0, RED)]
    samples = [(20.0 * k, "a", RED if k < 10 else OFF, {}) for k in range(1, 51)]
    dark = Side.of(samples, [(t, "a", c) for t, c in changes])
    assert dark.colors["a"].at(600.0) == tuple(OFF)


def test_a_change_in_the_last_tolerance_before_the_end_is_not_judged():
    """The other side may show it a moment after the end, where neither side was run; a
    difference before that still counts."""
    ours = side([(0.0, OFF), (999.0, RED)])
    theirs = side([(0.0, OFF)])   # (it would show red at 1000.5, past the end)
    assert compare_sides(ours, theirs, tolerance_ms=250)
    assert compare_sides(ours, theirs, tolerance_ms=250, end_ms=1000.0) == []
    early = side([(0.0, OFF), (500.0, RED)])
    assert compare_sides(early, theirs, tolerance_ms=250, end_ms=1000.0)
