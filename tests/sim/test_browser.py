"""The simulator in a real browser: Playwright drives Debian's Chromium (headless) against a
Pirates & Lasers ship (examples/ship.layout), and checks the page against the emulator."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from blinkc.runtime.color import to_rgb888
from blinkc.sim.background import BackgroundServer

from .browser import browser_context, open_sim, screenshot
from .helpers import ship_session

UNLIT = [70, 70, 78]  # an LED that is off (draw.js, render/png.py)


def expected_rgb(colour: int) -> list[int]:
    return list(to_rgb888(colour)) if colour else UNLIT


@pytest.fixture(scope="module")
def context(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with browser_context(tmp_path_factory.mktemp("chromium-profile")) as ctx:
        yield ctx


@pytest.fixture
def sim() -> Iterator[BackgroundServer]:
    with BackgroundServer(ship_session()) as server:
        yield server


def wait_for(check: Callable[[], Any], timeout: float = 15.0, what: str = "") -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = check()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what or check}")


def pause(page: Any, sim: BackgroundServer) -> float:
    """Pause the world from the page; returns the time the page shows, once it shows it."""
    page.evaluate("blinkcSim.send('pause')")
    wait_for(lambda: not sim.call(lambda: sim.session.running), what="the pause")
    now = sim.call(lambda: sim.session.now_ms)
    wait_for(lambda: page.evaluate("blinkcSim.frame().t") == now, what="the paused frame")
    return now


def world_colours(sim: BackgroundServer) -> dict[str, list[int]]:
    def read() -> dict[str, list[int]]:
        world = sim.session.world
        return {t.name: world.colors(t) for t in world.tiles}
    return sim.call(read)


def page_pixels(page: Any, names: list[str]) -> dict[str, list[list[int]]]:
    return page.evaluate("(names) => Object.fromEntries(names.map((n) => "
                         "[n, [0,1,2,3,4,5].map((f) => blinkcSim.ledPixel(n, f))]))", names)


def check_page_shows_the_world(page: Any, sim: BackgroundServer) -> dict[str, list[int]]:
    """Every LED on the canvas has the world's colour now (the world is paused)."""
    colours = world_colours(sim)
    frame = {t["name"]: t["colors"] for t in page.evaluate("blinkcSim.frame().tiles")}
    assert frame == colours
    pixels = page_pixels(page, list(colours))
    assert pixels == {n: [expected_rgb(c) for c in cs] for n, cs in colours.items()}
    return colours


def click_button(page: Any, tile: str, down_s: float = 0.08) -> None:
    x, y = page.evaluate(f"blinkcSim.tileCentre({tile!r})")
    page.mouse.move(x, y)
    page.mouse.down()
    time.sleep(down_s)
    page.mouse.up()


def drag(page: Any, tile: str, to: tuple[int, int], shift: bool = False) -> None:
    """Drag a tile by its rim so that its centre lands on lattice place `to`."""
    cx, cy = page.evaluate(f"blinkcSim.tileCentre({tile!r})")
    rx, ry = page.evaluate(f"blinkcSim.rimPoint({tile!r})")
    tx, ty = page.evaluate(f"blinkcSim.hexCentre({to[0]}, {to[1]})")
    if shift:
        page.keyboard.down("Shift")
    page.mouse.move(rx, ry)
    page.mouse.down()
    page.mouse.move(rx + (tx - cx), ry + (ty - cy), steps=8)
    page.mouse.up()
    if shift:
        page.keyboard.up("Shift")


def placed(page: Any, sim: BackgroundServer, tile: str, pos: tuple[int, int]) -> None:
    """Wait until the world has the tile at `pos`, and the page shows it there."""
    wait_for(lambda: sim.call(lambda: sim.session.world.tile(tile).pos) == pos,
             what=f"{tile} at {pos}")
    wait_for(lambda: page.evaluate(f"blinkcSim.frame().tiles.find((t) => t.name === {tile!r}).pos")
             == list(pos), what=f"the page showing {tile} at {pos}")


def hp(sim: BackgroundServer) -> dict[str, int]:
    return sim.call(lambda: {t["name"]: t["state"]["hp"] for t in sim.session.world.snapshot()})


def test_a_hazard_click_changes_the_hit_hulls_leds_as_the_emulator_says(context, sim):
    page = open_sim(context, sim.url)
    before = page_pixels(page, ["h1", "h4", "h6"])
    screenshot(page, "sim-ship.png")
    click_button(page, "z")  # the Hazard fires north, south-east and south-west
    wait_for(lambda: all(hp(sim)[n] < 5 for n in ("h1", "h4", "h6")), what="the hits")
    time.sleep(0.3)
    pause(page, sim)
    assert [i.lines for i in sim.call(lambda: list(sim.session.log))] == [("press z",),
                                                                          ("release z",)]
    colours = check_page_shows_the_world(page, sim)
    after = page_pixels(page, ["h1", "h4", "h6"])
    for name in ("h1", "h4", "h6"):
        assert after[name] != before[name], name
        assert after[name] == [expected_rgb(c) for c in colours[name]]
    assert [hp(sim)[n] for n in ("h3", "h5", "h7")] == [5, 5, 5]  # not in a beam
    page.evaluate("blinkcSim.select('h1')")
    wait_for(lambda: (page.evaluate("blinkcSim.inspect()") or {}).get("name") == "h1")
    screenshot(page, "sim-hit.png")
    assert page.errors == []


def test_a_tile_dragged_away_and_back_and_its_neighbours_view(context, sim):
    page = open_sim(context, sim.url)

    def z_face1() -> dict:
        page.evaluate("blinkcSim.select('z')")
        wait_for(lambda: (page.evaluate("blinkcSim.inspect()") or {}).get("name") == "z")
        return page.evaluate("blinkcSim.inspect()")["faces"][1]  # z's face 1 (NE) touches h3

    assert z_face1()["neighbour"] == ["h3", 4] and not z_face1()["expired"]
    drag(page, "h3", (4, -3))
    placed(page, sim, "h3", (4, -3))
    t = sim.call(lambda: sim.session.now_ms)
    wait_for(lambda: sim.call(lambda: sim.session.now_ms) > t + 400)  # past the 200 ms expiry
    away = z_face1()
    assert away["neighbour"] is None and away["expired"]
    screenshot(page, "sim-split.png")
    drag(page, "h3", (1, -1))
    placed(page, sim, "h3", (1, -1))
    t = sim.call(lambda: sim.session.now_ms)
    wait_for(lambda: sim.call(lambda: sim.session.now_ms) > t + 400)
    back = z_face1()
    sent = sim.call(lambda: sim.session.world.tile("h3").api.out_value[4])
    assert back["neighbour"] == ["h3", 4] and not back["expired"] and back["in"] == sent
    lines = [i.lines for i in sim.call(lambda: list(sim.session.log))]
    assert lines == [("place h3 at 4,-3",), ("place h3 at 1,-1",)]
    # a group: shift-drag h2 takes the whole ship along (one step south-east), then back
    drag(page, "h2", (1, -2), shift=True)
    placed(page, sim, "z", (1, 0))
    drag(page, "z", (0, 0), shift=True)
    placed(page, sim, "z", (0, 0))
    assert sim.call(lambda: sim.session.world.tile("r").pos) == (1, -2)
    assert page.errors == []


def test_rewind_shows_the_earlier_state(context, sim):
    page = open_sim(context, sim.url)
    t0 = pause(page, sim)
    early = check_page_shows_the_world(page, sim)
    early_hp = hp(sim)
    page.evaluate("blinkcSim.send('play')")
    click_button(page, "z")
    wait_for(lambda: hp(sim)["h1"] < 5, what="the hit")
    pause(page, sim)
    assert hp(sim) != early_hp
    # the timeline: drag it back to t0 (the page sends the rewind when it is let go)
    page.evaluate(f"""(() => {{ const s = document.getElementById('seek');
        s.value = '{t0!r}'; s.dispatchEvent(new Event('change')); }})()""")
    wait_for(lambda: page.evaluate("blinkcSim.frame().t") == t0, what="the rewind")
    assert hp(sim) == early_hp
    assert check_page_shows_the_world(page, sim) == early
    screenshot(page, "sim-rewound.png")
    # and forward again: the click replays from the log
    horizon = page.evaluate("blinkcSim.frame().horizon")
    page.evaluate(f"blinkcSim.send('seek', {{t: {horizon!r}}})")
    wait_for(lambda: hp(sim)["h1"] < 5, what="the replayed hit")
    assert page.errors == []


def test_mouse_gestures_reach_the_bios(context, sim):
    page = open_sim(context, sim.url)
    sim.call(lambda: sim.session.trace.records.clear())
    for _ in range(2):  # a double click: two presses within the 330 ms window
        click_button(page, "h2", 0.06)
        time.sleep(0.1)
    wait_for(lambda: any("double" in r.get("events", []) for r in
                         sim.call(lambda: list(sim.session.trace.records)) if r["tile"] == "h2"),
             what="a double click on h2")
    click_button(page, "h5", 1.4)  # a long press: past 1.2 s
    wait_for(lambda: any("long" in r.get("events", []) for r in
                         sim.call(lambda: list(sim.session.trace.records)) if r["tile"] == "h5"),
             what="a long press on h5")
    assert page.errors == []


def test_export_replays_with_blinkc_emulate_and_offline(context, sim, tmp_path: Path):
    page = open_sim(context, sim.url)
    click_button(page, "z")
    wait_for(lambda: hp(sim)["h1"] < 5)
    drag(page, "h7", (3, 2))  # a tile away
    placed(page, sim, "h7", (3, 2))
    # the fault panel: more loss and jitter from now on
    page.evaluate("""(() => { const d = document.getElementById('drop'); d.value = '0.05';
        d.dispatchEvent(new Event('change')); })()""")
    wait_for(lambda: sim.call(lambda: sim.session.world.faults.drop) == 0.05)
    page.evaluate("blinkcSim.send('add', {pos: [-1, -1], program: null})")
    wait_for(lambda: "t1" in sim.call(lambda: sim.session.world.by_name))
    time.sleep(0.5)
    pause(page, sim)
    final = sim.call(lambda: sim.session.world.snapshot())
    files = {}
    for link in ("exlayout", "exscenario", "exhtml"):
        with page.expect_download() as info:
            page.click(f"#{link}")
        download = info.value
        target = tmp_path / download.suggested_filename
        download.save_as(target)
        files[download.suggested_filename] = target
    assert set(files) == {"session.layout", "session.scenario", "session.html"}
    text = files["session.scenario"].read_text()
    assert "faults drop=0.05" in text and "add t1 at -1,-1" in text
    command = next(l for l in text.splitlines() if l.startswith("#   blinkc emulate"))
    words = shlex.split(command[len("#   "):])
    out = subprocess.run([sys.executable, "-m", "blinkc", *words[1:], "--json"], cwd=tmp_path,
                         capture_output=True, text=True, check=True)
    assert json.loads(out.stdout)["tiles"] == final
    # the HTML file on its own, without the server
    replay = context.new_page()
    replay.goto(files["session.html"].as_uri())
    replay.wait_for_function("window.blinkcReplay !== undefined")
    end = replay.evaluate("blinkcReplay.end")
    assert end == sim.call(lambda: sim.session.now_ms)
    replay.evaluate(f"blinkcReplay.seek({end!r})")
    for tile in final:
        for face in range(6):
            assert replay.evaluate(f"blinkcReplay.ledPixel({tile['name']!r}, {face})") == \
                expected_rgb(tile["colors"][face]), (tile["name"], face)
    screenshot(replay, "sim-replay.png")
    assert page.errors == []
