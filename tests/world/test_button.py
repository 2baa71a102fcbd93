"""The BIOS button model, through a tile's snapshot of button events."""

import pytest

from blinkc.programs import ClickCounter
from blinkc.world import Faults, Trace, World
from blinkc.world.button import ButtonModel


def press_pattern(world, name, start_ms, pattern):
    """pattern: list of (down_ms, up_ms) pairs relative to start."""
    for down, up in pattern:
        world.call_at(start_ms + down, lambda: world.button(name, True))
        world.call_at(start_ms + up, lambda: world.button(name, False))


def run_pattern(pattern, after_ms=1000):
    w = World(seed=1, trace=Trace(), faults=Faults(skew=0))
    t = w.add_tile("a", ClickCounter(), (0, 0))
    w.run_for(100)
    press_pattern(w, "a", 100, pattern)
    w.run_for(max(up for _, up in pattern) + after_ms)
    events = [e for rec in w.trace.events("button", "a") for e in rec["events"]]
    return t.program, events, w


def test_single_click():
    prog, events, _ = run_pattern([(0, 80)])
    assert prog.clicks == 1 and prog.doubles == 0
    assert events.count("single") == 1


def test_double_click():
    prog, events, _ = run_pattern([(0, 80), (200, 280)])
    assert prog.doubles == 1 and events.count("double") == 1 and "single" not in events


def test_triple_click_is_a_multi_click_with_its_count():
    prog, events, w = run_pattern([(0, 80), (200, 280), (400, 480)])
    assert prog.multis == 1 and "single" not in events and "double" not in events
    assert w.tile("a").api.buttonClickCount() == 3


def test_click_fires_330_ms_after_the_last_press_down():
    _, _, w = run_pattern([(0, 80)])
    (rec,) = [r for r in w.trace.events("button", "a") if "single" in r["events"]]
    fired_ms = rec["t"] / 1000
    # Pressed at 100 ms; the window ends at 430 ms; the next pass sees it. A pass is at
    # most a frame plus a transmit phase (a lone tile probes all six faces at once).
    assert 429 <= fired_ms <= 430 + 7.7 + 6 * 7.6 + 1  # the BIOS counts whole ms of its own clock


def test_clicks_are_discarded_when_held_past_the_window():
    prog, events, _ = run_pattern([(0, 80), (200, 700)])  # second press held 500 ms
    assert prog.clicks == 0 and prog.doubles == 0 and prog.multis == 0
    assert {"single", "double", "multi"}.isdisjoint(events)


def test_long_press_fires_once_at_about_1200_ms():
    prog, events, w = run_pattern([(0, 2000)])
    assert prog.longs == 1 and events.count("long") == 1
    (rec,) = [r for r in w.trace.events("button", "a") if "long" in r["events"]]
    assert 100 + 1199 <= rec["t"] / 1000 <= 100 + 1200 + 7.7 + 6 * 7.6 + 1
    assert prog.clicks == 0


def test_a_5_ms_bounce_is_one_press():
    # Contact closes, bounces open for 2 ms, closes again: one press, one release, one click.
    prog, events, _ = run_pattern([(0, 2), (5, 90)])
    assert events.count("pressed") == 1 and events.count("released") == 1
    assert prog.clicks == 1


def test_release_bounce_is_one_release():
    prog, events, _ = run_pattern([(0, 80), (83, 85)])
    assert events.count("released") == 1 and events.count("pressed") == 1
    assert prog.clicks == 1


@pytest.mark.parametrize("hold_ms, flag", [(3500, "longlong"), (6500, "sleep")])
def test_long_long_press_and_sleep_milestones(hold_ms, flag):
    m = ButtonModel()
    m.push(0, True)
    m.advance(0)
    specials = m.advance(hold_ms)
    assert flag in specials


def test_button_down_is_debounced_state():
    m = ButtonModel()
    m.push(10, True)
    m.advance(10)
    assert m.down
    m.push(15, False)  # within 20 ms of the accepted change: held back
    m.advance(20)
    assert m.down
    m.advance(30)      # stable long enough now: accepted
    assert not m.down
