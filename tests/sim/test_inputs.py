"""The page's requests, checked for their shape and written as scenario lines."""

from __future__ import annotations

import pytest

from blinkc.sim import SimError
from blinkc.sim import inputs as ask
from blinkc.world.scenario_file import parse_scenario


def test_lines_parse_as_scenario_steps():
    lines = [*ask.press("a"), *ask.release("a"), *ask.move({"a": [1, 2]}, {"a": 3}),
             *ask.move({"a": [0, 0], "b": [1, 0]}), *ask.rotate("b", 5), *ask.turn("b", 1),
             *ask.turn("b", -2), *ask.lift(["a", "b"]),
             *ask.add("t1", [2, 2], "hops"), *ask.add("t2", None), *ask.faults(0.1, 2.5, 0.05)[1]]
    steps = parse_scenario("\n".join(lines)).steps
    assert [s.describe() for s in steps] == [
        "press a", "release a", "place a at 1,2 rot 3",
        "lift a", "lift b", "place a at 0,0", "place b at 1,0",
        "rotate b 5", "rotate b +1", "rotate b -2", "lift a", "lift b", "add t1 at 2,2 hops", "add t2 held",
        "faults drop=0.1,jitter=2.5ms,skew=0.05"]


@pytest.mark.parametrize("call", [
    lambda: ask.press("no good"),
    lambda: ask.press(3),
    lambda: ask.press("a\nclick b"),
    lambda: ask.move({}),
    lambda: ask.move({"a": [1]}),
    lambda: ask.move({"a": [1, 200]}),
    lambda: ask.move({"a": [1, True]}),
    lambda: ask.move({"a": [1, 1], "b": [1, 1]}),
    lambda: ask.rotate("a", 6),
    lambda: ask.turn("a", 0),
    lambda: ask.turn("a", 6),
    lambda: ask.turn("a", True),
    lambda: ask.lift([]),
    lambda: ask.add("t1", "here"),
    lambda: ask.faults(2, 0, 0),
    lambda: ask.faults("x", 0, 0),
    lambda: ask.faults(0, 500, 0),
])
def test_bad_requests_are_refused(call):
    with pytest.raises(SimError):
        call()
