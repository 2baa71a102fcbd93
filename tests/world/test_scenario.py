"""Scenarios: timed gestures and tile moves, and a clear file:line error for every mistake."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blinkc.world import Trace, World
from blinkc.world.layout import Beside
from blinkc.world.layout_file import parse_layout
from blinkc.world.scenario import DOWN_MS, GAP_MS, SETTLE_MS, Scenario, ScenarioError
from blinkc.world.scenario_file import load_scenario, parse_scenario

CLICKERS = parse_layout("tile k at 0,0 clicks\ntile j at SE of k clicks\ntile h at 3,0 hops")


def play(scenario: Scenario, layout=CLICKERS, extra_ms: float = 1000, trace=None) -> World:
    world = World(trace=trace)
    layout.build(world)
    scenario.apply(world, layout=layout)
    world.run_until(scenario.end_ms + extra_ms)
    return world


def state(world: World, name: str) -> dict:
    return world.tile(name).program.state()


def test_a_click_is_a_short_press_and_the_next_step_waits_until_it_is_recognised():
    sc = parse_scenario("click k\nclick k")
    first, second = sc.steps
    assert first.contacts == ((0.0, True), (DOWN_MS, False))
    assert second.at_ms == DOWN_MS + SETTLE_MS
    assert state(play(sc), "k")["clicks"] == 2  # two single clicks, not a double


def test_a_double_click_has_a_human_gap_and_counts_as_one_double():
    sc = parse_scenario("double k")
    assert [t for t, _ in sc.steps[0].contacts] == [0, DOWN_MS, DOWN_MS + GAP_MS,
                                                    2 * DOWN_MS + GAP_MS]
    assert state(play(sc), "k") == {"clicks": 0, "doubles": 1, "multis": 0, "longs": 0}


def test_multi_long_and_press_release_reach_the_tile_as_their_button_events():
    sc = parse_scenario("multi k 4\nlong k\npress k\nwait 1.3s\nrelease k\nlong j 0.5s")
    world = play(sc)
    assert state(world, "k") == {"clicks": 0, "doubles": 0, "multis": 1, "longs": 2}
    assert world.tile("k").api.click_count == 4
    assert state(world, "j")["longs"] == 0  # held half a second: not a long press


def test_timing_options_change_the_contacts():
    sc = parse_scenario("double k down=50ms gap=100ms\nlong k 2s\nclick k down=120ms")
    assert [t for t, _ in sc.steps[0].contacts] == [0, 50, 150, 200]
    assert sc.steps[1].contacts[-1] == (2000, False)
    assert sc.steps[2].contacts[-1] == (120, False)


def test_at_sets_absolute_times_and_several_tiles_can_be_clicked_together():
    sc = parse_scenario("at 1.5s click k j\nat 500ms\nwait 250ms\nclick k")
    assert sc.steps[0].at_ms == 1500 and sc.steps[0].tiles == ("k", "j")
    assert sc.steps[1].at_ms == 750  # earlier than the step above: it is fine
    world = play(sc)
    assert state(world, "k")["clicks"] == 2 and state(world, "j")["clicks"] == 1


def test_moves_lifts_rotations_and_new_tiles_change_the_world():
    sc = parse_scenario(
        "at 100ms move j to S of k rot 2\n"
        "rotate j +5\n"
        "lift h\n"
        "add d at SE of k hops source=true\n"
        "add e held clicks\n"
    )
    world = play(sc)
    assert world.tile("j").pos == (0, 1) and world.tile("j").rot == 1
    assert world.tile("h").pos is None
    assert world.tile("d").pos == (1, 0) and state(world, "d")["source"] is True
    assert world.tile("e").pos is None


def test_added_tiles_take_the_layouts_default_program():
    layout = parse_layout("program hops\ntile a at 0,0 source=true")
    world = play(parse_scenario("add b at SE of a"), layout)
    assert state(world, "b") == {"source": False, "distance": 1}


def test_relative_places_and_rotations_use_where_tiles_are_at_that_time():
    sc = Scenario().place("j", (5, 5)).rotate("j", 2).wait(10).place("k", Beside(3, "j")) \
        .rotate("j", 5, relative=True)
    world = play(sc)
    assert world.tile("k").pos == (5, 6)
    assert world.tile("j").rot == 1


def test_the_python_api_matches_the_text():
    text = parse_scenario("click k\nwait 1s\ndouble j\nat 5s long k 2s\nmulti j 5")
    code = Scenario().click("k").wait(1000).double("j").at(5000).long("k", hold_ms=2000) \
        .multi("j", count=5)
    assert [(s.at_ms, s.action, s.tiles, s.contacts) for s in text.steps] == \
        [(s.at_ms, s.action, s.tiles, s.contacts) for s in code.steps]


def test_steps_are_recorded_in_the_trace():
    trace = Trace()
    play(parse_scenario("\nclick k\nmove j to 4,4"), trace=trace)
    actions = trace.events("action")
    assert [(a["tile"], a["do"], a["line"]) for a in actions] == [
        ("k", "click k", 2), ("j", "place j at 4,4", 3)]


def test_times_count_from_when_the_scenario_is_applied():
    world = World()
    CLICKERS.build(world)
    world.run_until(3000)
    Scenario().click("k").apply(world)
    world.run_for(1000)
    assert state(world, "k")["clicks"] == 1


def test_end_time_covers_the_last_gesture():
    sc = parse_scenario("at 2s long k 1.5s")
    assert sc.end_ms == 2000 + 1500 + SETTLE_MS


# ------------------------------------------------------------------ errors
PARSE_ERRORS = {
    "unknown action": ("wait 1s\njump k", 2, "unknown action 'jump'"),
    "misspelt action": ("clik k", 1, "unknown action 'clik'"),
    "duration without unit": ("wait 5", 1, "bad duration '5'"),
    "bad duration": ("wait soon", 1, "bad duration 'soon'"),
    "wait without duration": ("wait", 1, "`wait` takes one duration"),
    "negative time": ("at -1s click k", 1, "bad time '-1s'"),
    "at without time": ("at", 1, "`at` needs a time"),
    "at in the middle": ("click k\nwait 1s at 2s", 2, "`wait` takes one duration"),
    "at as an action": ("click k\nat 1s at 2s click k", 2, "`at` must start the line"),
    "time after the tiles": ("click k at 1s", 1, "unexpected '1s'"),
    "no tile": ("click", 1, "`click` needs a tile"),
    "tile twice": ("click k k", 1, "names a tile twice"),
    "bad tile name": ("click 2k", 1, "unexpected '2k'"),
    "bad tile name symbol": ("click k$", 1, "'k$' is not a valid tile name"),
    "bad hold": ("long k 2", 1, "bad hold time '2'"),
    "zero hold": ("long k 0s", 1, "bad hold time"),
    "bad count": ("multi k 0", 1, "bad click count 0"),
    "count twice": ("multi k 3 4", 1, "unexpected '4'"),
    "unknown option": ("click k gap=1s", 1, "`click` has no option 'gap'"),
    "option twice": ("double k gap=1s gap=2s", 1, "option 'gap' is given twice"),
    "bad option duration": ("double k down=fast", 1, "bad down time 'fast'"),
    "bad rotation": ("rotate k 6", 1, "bad rotation '6'"),
    "rotate without rotation": ("rotate k", 1, "`rotate` takes a tile and a rotation"),
    "place without place": ("move k", 1, "`move` needs a tile and a place"),
    "place bad place": ("place k at x,y", 1, "bad place 'x,y'"),
    "place extra words": ("place k at 1,1 now", 1, "unexpected 'now'"),
    "add without place": ("add d hops", 1, "`add d` needs a place"),
    "add bad rotation": ("add d at 1,1 rot 9", 1, "bad rotation '9'"),
    "unterminated quote": ('add d at 1,1 hops x="a', 1, "unterminated quote"),
}


def test_a_step_later_than_a_day_says_how_late_a_step_may_be():
    with pytest.raises(ScenarioError) as err:
        parse_scenario("at 1500min click k", "late.scenario")
    assert str(err.value).startswith("late.scenario:1: bad time ")
    assert err.value.hint == "it must be at least 0 and at most a day"


@pytest.mark.parametrize("text,line,message", PARSE_ERRORS.values(), ids=PARSE_ERRORS.keys())
def test_each_mistake_in_the_text_is_reported_at_its_line(text, line, message):
    with pytest.raises(ScenarioError) as err:
        parse_scenario(text, "bad.scenario")
    assert str(err.value).startswith(f"bad.scenario:{line}: ")
    assert message in err.value.message


APPLY_ERRORS = {
    "unknown tile": ("click x", 1, "no tile named 'x'"),
    "tile not added yet": ("click d\nadd d at 5,5 hops", 1, "no tile named 'd'"),
    "overlapping gestures": ("click k\nat 50ms click k", 2, "overlaps the click on line 1"),
    "release without press": ("release k", 1, "the button of 'k' is not held down"),
    "press while held": ("press k\nwait 1s\nclick k", 3, "already held down (press on line 1)"),
    "place taken": ("wait 1s\nmove h to 0,0", 2, "place 0,0 is taken by tile 'k'"),
    "place next to a lifted tile": ("lift k\nplace h at SE of k", 2, "'k' is not on the table"),
    "add a tile that exists": ("add k at 5,5 clicks", 1, "there is already a tile named 'k'"),
    "add unknown program": ("add d at 5,5 hopz", 1, "unknown program 'hopz'"),
    "add without program": ("add d at 5,5", 1, "tile 'd' has no program"),
    "add bad setting": ("add d at 5,5 hops colour=red", 1, "has no setting 'colour'"),
    "add onto a tile": ("add d at SE of k hops", 1, "place 1,0 is taken by tile 'j'"),
}


@pytest.mark.parametrize("text,line,message", APPLY_ERRORS.values(), ids=APPLY_ERRORS.keys())
def test_each_mistake_against_the_tiles_is_reported_at_its_line(text, line, message):
    sc = parse_scenario(text, "bad.scenario")
    world = World()
    CLICKERS.build(world)
    with pytest.raises(ScenarioError) as err:
        sc.apply(world, layout=CLICKERS)
    assert str(err.value).startswith(f"bad.scenario:{line}: ")
    assert message in err.value.message
    assert not world.event_engine.pending_calls()  # nothing was scheduled


def test_python_api_errors_point_at_the_calling_line():
    with pytest.raises(ScenarioError) as err:
        Scenario().click("k").wait(-5)
    assert err.value.where.path == __file__


def test_a_missing_scenario_file_is_an_error_not_a_crash(tmp_path):
    with pytest.raises(ScenarioError, match="cannot read scenario"):
        load_scenario(tmp_path / "none.scenario")


def test_example_scenarios_apply_to_their_layouts():
    from blinkc.world.layout_file import load_layout

    for layout, script in (("chain", "clicks"), ("flower", "flower")):
        lay = load_layout(f"examples/{layout}.layout")
        sc = load_scenario(f"examples/{script}.scenario")
        world = World()
        lay.build(world)
        sc.apply(world, layout=lay)


# --------------------------------------------------------------- properties
words = st.sampled_from(["at", "wait", "click", "double", "multi", "long", "press", "release",
                         "add", "lift", "remove", "move", "place", "rotate", "to", "of", "SE",
                         "k", "j", "h", "zz", "1s", "80ms", "3", "+1", "-7", "0,0", "1,0",
                         "rot", "hops", "down=1ms", "gap=2s", "x=1", '"', "#", "=", "0.5s"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(words | st.text(max_size=3), max_size=6), max_size=8))
def test_any_text_runs_or_gives_a_scenario_error(lines):
    text = "\n".join(" ".join(w) for w in lines)
    world = World()
    CLICKERS.build(world)
    try:
        sc = parse_scenario(text, "fuzz.scenario")
        sc.apply(world, layout=CLICKERS)
    except ScenarioError as e:
        assert str(e).startswith("fuzz.scenario")
        return
    world.run_until(min(sc.end_ms, 20_000) + 100)
