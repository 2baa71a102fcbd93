"""Fleet Combos in the simulator, in a real browser (Playwright, Debian's Chromium): the
first ship started with a long press, two ships dragged against it, and the turn read back
from a click on a ship of the sea, on the page as in the emulator."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from blinkc.blinklib.color import channels
from blinkc.sim import Session, load_source, view
from blinkc.sim.background import BackgroundServer

from .browser import browser_context, open_sim, screenshot
from .helpers import ROOT
from .test_browser import (
    check_page_shows_the_world,
    click_button,
    drag,
    log_lines,
    pause,
    placed,
    set_speed,
    wait_for,
    world_time,
)

LAYOUT = ROOT / "examples" / "fleet.layout"
MAGENTA = (31, 0, 31)


@pytest.fixture(scope="module")
def context(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with browser_context(tmp_path_factory.mktemp("chromium-profile")) as ctx:
        yield ctx


@pytest.fixture
def fleet() -> Iterator[BackgroundServer]:
    session = Session(load_source(str(LAYOUT)))
    session.run_until(1000)
    with BackgroundServer(session) as server:
        yield server


def state(sim: BackgroundServer, name: str) -> dict:
    return sim.call(lambda: view.inspect(sim.session, name)["state"])


def test_lay_three_ships_and_read_the_turn_back(context, fleet):
    page = open_sim(context, fleet.url)
    x, y = page.evaluate("blinkcSim.tileCentre('a')")  # a long press: the first ship
    page.mouse.move(x, y)
    page.mouse.down()
    wait_for(lambda: log_lines(fleet)[-1:] == [("press a",)], what="the press")
    pressed = fleet.call(lambda: fleet.session.log[-1].at_ms)
    wait_for(lambda: world_time(fleet) > pressed + 1300, what="1.3 s held")
    page.mouse.up()
    wait_for(lambda: state(fleet, "a")["sea"], what="a, the first ship")
    drag(page, "b", (1, 0))  # magenta's first ship, against a
    placed(page, fleet, "b", (1, 0))
    wait_for(lambda: state(fleet, "b")["sea"] and state(fleet, "a")["count"] == 2,
             timeout=30, what="b laid")
    drag(page, "c", (0, 1))  # green, against its own a
    placed(page, fleet, "c", (0, 1))
    wait_for(lambda: all(state(fleet, n)["count"] == 3 for n in "abc"), timeout=30,
             what="turn 3 on every ship")
    set_speed(page, fleet, "0.25")  # a slow mouse still clicks within the 330 ms window
    click_button(page, "c")
    wait_for(lambda: state(fleet, "c")["val_b"] == 4, what="the turn shown on c")
    # turn 4 (three ships laid): tens (0: a dim ring), then the units, 4 faces in the colour
    # of the player to lay (magenta), for 512 ms of the world's time each
    shown = fleet.call(lambda: fleet.session.now_ms)
    wait_for(lambda: world_time(fleet) > shown + 700, what="the units digit")
    pause(page, fleet)
    colours = check_page_shows_the_world(page, fleet)
    look = [channels(c) for c in colours["c"]]
    assert look[:4] == [MAGENTA] * 4 and MAGENTA not in look[4:]
    screenshot(page, "sim-fleet-turn.png")
    assert page.errors == []
