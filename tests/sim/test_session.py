"""The simulator's session: inputs, time, rewinds, and exports that replay exactly."""

from __future__ import annotations

import pytest

from blinkc.sim import Session, SimError, load_source
from blinkc.sim import inputs as ask
from blinkc.sim.session import STEP_LIMIT_MS
from blinkc.world.emulation import EmulationOptions, emulate
from blinkc.world.scenario_file import parse_scenario

from ..tools import require_tool
from .helpers import BOOTED_MS, ROOT, colours, replay_with_emulate, ship_session


def click(session, tile: str, down_ms: float = 80.0) -> None:
    session.act(ask.press(tile))
    session.run_until(session.now_ms + down_ms)
    session.act(ask.release(tile))


def test_a_hazard_click_hits_the_hulls_the_emulator_says():
    session = ship_session()
    before = session.world.snapshot()
    click(session, "z")
    session.run_until(session.now_ms + 1500)
    after = session.world.snapshot()
    hp = {t["name"]: t["state"]["hp"] for t in after}
    # The Hazard fires north, south-east and south-west: h1, h4, h6 (examples/ship.layout)
    assert [n for n in ("h1", "h4", "h6") if hp[n] < 5] == ["h1", "h4", "h6"]
    changed = {n for n, c in colours(after).items() if c != colours(before)[n]}
    assert {"h1", "h4", "h6"} <= changed
    # A scenario with the same presses, run by the emulator itself, ends the same
    scenario = parse_scenario("".join(i.text() for i in session.log))
    ran = emulate(session.src.layout, scenario,
                  EmulationOptions(time_ms=session.now_ms, resolver=session.src.resolver,
                                   world="python"))
    assert ran.snapshot() == after


def test_inputs_are_at_whole_ms_ahead_and_in_order():
    session = ship_session()
    session.run_until(5000.3)
    a = session.act(ask.press("z"))
    b = session.act(ask.release("z"))
    assert a.at_ms == 5001 and b.at_ms == 5002
    assert session.log[-1].lines == ("release z",)


def test_an_input_moves_past_an_event_queued_for_its_microsecond():
    session = ship_session()
    session.world.call_at(5001, lambda: None)  # something already due then
    entry = session.act(ask.press("z"))
    assert entry.at_ms == 5002


def test_rewind_shows_the_earlier_state_and_forward_replays_the_inputs():
    session = ship_session()
    early = session.world.snapshot()
    click(session, "z")
    session.run_until(7000)
    late = session.world.snapshot()
    session.seek(BOOTED_MS)
    assert session.now_ms == BOOTED_MS and session.world.snapshot() == early
    session.seek(7000)
    assert session.world.snapshot() == late
    session.seek(99_999)  # no further than the furthest time reached
    assert session.now_ms == 7000


def test_a_new_input_after_a_rewind_forks_the_timeline():
    session = ship_session()
    click(session, "z")
    session.run_until(7000)
    session.seek(5000)
    session.act(ask.press("h3"))
    assert [i.lines for i in session.log] == [("press h3",)]
    assert session.horizon_ms == 5000
    session.run_until(6000)
    fresh = ship_session()
    fresh.act(ask.press("h3"))
    fresh.run_until(6000)
    assert session.world.snapshot() == fresh.world.snapshot()


def test_step_takes_one_pass_of_an_idle_tile():
    session = ship_session()
    click(session, "z")
    session.running = False
    z = session.world.tile("z")
    for _ in range(3):
        passes, start = z.passes, session.now_ms
        session.step("z")
        assert z.passes == passes + 1 and start < session.now_ms < start + 400
    others = {t.name: t.passes for t in session.world.tiles}
    session.step()  # any tile's next pass
    assert sum(t.passes - others[t.name] for t in session.world.tiles) >= 1


def test_a_step_in_an_idle_cluster_stops_at_the_next_pass():
    session = ship_session()
    session.run_until(20_000)  # long after the boot: every tile skips its loop()
    h1 = session.world.tile("h1")
    start, passes = session.now_ms, h1.passes
    session.step("h1")
    assert h1.skipped and h1.passes == passes + 1 and session.now_ms < start + STEP_LIMIT_MS


def test_quick_inputs_meet_the_world_the_replay_gives_them(tmp_path):
    session = ship_session()
    for _ in range(2):  # two turns by a step, sent before the world has run on: two steps
        session.act(ask.turn("h2", 1))
    session.act(ask.add("t1", [0, -3]))
    session.act(ask.turn("t1", -1))  # the tile the input before added
    assert session.now_ms < BOOTED_MS + 5
    session.run_until(session.now_ms + 300)
    assert session.world.tile("h2").rot == 2 and session.world.tile("t1").rot == 5
    assert replay_with_emulate(session, tmp_path) == session.world.snapshot()


def test_paused_inputs_show_at_once():
    session = ship_session()
    session.running = False
    session.act(ask.move({"h2": [3, -3]}))
    assert session.world.tile("h2").pos == (3, -3)


def test_speed_and_advance():
    session = ship_session()
    session.set_speed(4)
    start = session.now_ms
    ran = session.advance(10, budget_ms=1000)
    assert ran == pytest.approx(40) and session.now_ms == pytest.approx(start + 40)
    session.running = False
    assert session.advance(10) == 0
    with pytest.raises(SimError, match="speed"):
        session.set_speed(0)


@pytest.mark.parametrize(("lines", "message"), [
    (ask.release("z"), "the button of 'z' is not held down"),
    (ask.press("nobody"), "no tile named 'nobody'"),
    (ask.move({"h2": [0, 0]}), "place 0,0 is taken by tile 'z'"),
    (ask.add("z", [5, 5]), "there is already a tile named 'z'"),
])
def test_refused_inputs_say_why_and_leave_no_trace(lines, message):
    session = ship_session()
    with pytest.raises(SimError) as e:
        session.act(lines)
    assert message in str(e.value) and "\n" not in str(e.value)
    assert session.log == []


def test_the_export_replays_with_blinkc_emulate_to_the_same_final_state(tmp_path):
    session = ship_session(faults="skew=5%", seed=4)
    click(session, "z")
    session.run_until(session.now_ms + 700)
    session.act(ask.move({"h3": [4, -2]}))                      # split a tile off
    session.act(ask.rotate("h3", 2))
    session.run_until(session.now_ms + 400)
    session.act(ask.move({"h3": [1, -1]}, {"h3": 0}))            # and back
    session.act(ask.move({"h6": [-3, 2], "h7": [-2, 2]}))         # a group away (lift, place)
    session.act(ask.add(session.new_tile_name(), [2, -2]))       # a new tile (the game)
    session.act(ask.lift(["h5"]))                               # into the hand
    _, faults = ask.faults(0.05, 2, 0.1)
    session.act(faults)                                         # the fault panel
    session.run_until(session.now_ms + 1234.567)
    assert replay_with_emulate(session, tmp_path) == session.world.snapshot()


def test_watching_does_not_change_the_run():
    watched, unwatched = ship_session(), ship_session()
    for s in (watched, unwatched):
        click(s, "z")
    for _ in range(200):
        watched.run_until(watched.now_ms + 10)
        for t in watched.world.tiles:
            watched.world.colors(t)
    unwatched.run_until(watched.now_ms)
    assert watched.world.snapshot() == unwatched.world.snapshot()


def test_an_unmodified_sketch_plays_and_replays(tmp_path):
    require_tool("g++")
    sketch = ROOT / "tests" / "native" / "sketches" / "Spinner" / "Spinner.ino"
    session = Session(load_source(str(sketch), seed=5))  # on the default three tiles
    session.run_until(1000)
    before = colours(session.world.snapshot())
    click(session, "a")  # the pointer spins for 600 ms, then tags a neighbour
    session.run_until(session.now_ms + 1500)
    after = session.world.snapshot()
    assert colours(after)["a"] != before["a"]
    assert replay_with_emulate(session, tmp_path) == after
