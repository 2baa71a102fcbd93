"""The browser simulator's speed: a 24-tile Pirates & Lasers ship in headless Chromium.

Prints
- the frames per second the page draws at 1x (goal: at least 60), and how many new
  frames per second it gets from the emulator;
- click-to-LED latency: from the mouse going down on a Hazard to the page drawing its
  six LEDs red (it fires), split into the game's own delay (the SDK's 330 ms click
  window and the pass after it, measured in the world's time from the trace) and what
  the simulator adds (websocket, server, world, drawing; goal: at most 30 ms);
- how many times real time the page runs the ship at full speed: as it is (its tiles
  sleep while nothing changes) and with 1 % packet loss (nothing sleeps: every pass of
  every tile is simulated).

Needs Debian's Chromium (/usr/bin/chromium) and the playwright package (the dev extra).
Usage: python bench/sim_speed.py [--seconds S] [--clicks N]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from game_speed import GAME, ship_layout  # noqa: E402

from blinkc.blinklib.color import RED  # noqa: E402
from blinkc.sim import Session, load_source  # noqa: E402
from blinkc.sim.background import BackgroundServer  # noqa: E402
from blinkc.sim.session import MAX_SPEED  # noqa: E402
from tests.sim.browser import browser_context, open_sim  # noqa: E402

#: In the page: note when the mouse goes down on the canvas, and when a frame showing the
#: tile with all six LEDs red is first drawn (the draw happens in the same animation frame,
#: just before this check).
ARM = """(name) => {
  window.__latency = {down: null, drawn: null};
  const red = (t) => t && t.colors.every((c) => c === __RED__);
  document.getElementById('board').addEventListener('pointerdown',
    () => { window.__latency.down = performance.now(); }, {capture: true, once: true});
  (function check() {
    const l = window.__latency;
    const tile = blinkcSim.frame().tiles.find((t) => t.name === name);
    if (l.down !== null && red(tile)) l.drawn = performance.now();
    else requestAnimationFrame(check);
  })();
}""".replace("__RED__", str(RED))


def measure_fps(page: Any, seconds: float) -> tuple[float, float]:
    draws0, frames0 = page.evaluate("[blinkcSim.draws(), blinkcSim.framesIn()]")
    time.sleep(seconds)
    draws1, frames1 = page.evaluate("[blinkcSim.draws(), blinkcSim.framesIn()]")
    return (draws1 - draws0) / seconds, (frames1 - frames0) / seconds


def click_latency(page: Any, server: BackgroundServer, hazard: str) -> tuple[float, float]:
    """(mouse down -> six red LEDs drawn, in ms of real time; press -> six red LEDs in the
    world, in ms of the world's time)."""
    page.evaluate(ARM, hazard)
    x, y = page.evaluate(f"blinkcSim.tileCentre({hazard!r})")
    page.mouse.move(x, y)
    page.mouse.down()
    time.sleep(0.08)
    page.mouse.up()
    page.wait_for_function("window.__latency.drawn !== null", timeout=10_000)
    down, drawn = page.evaluate("[window.__latency.down, window.__latency.drawn]")

    def emulator_delay() -> float:
        session = server.session
        press = next(i.at_ms for i in reversed(session.log) if i.lines == (f"press {hazard}",))
        fired = next(r["t"] for r in session.trace.records
                     if r["tile"] == hazard and r["ev"] == "colors" and r["t"] >= press * 1000
                     and all(c == RED for c in r["colors"]))
        return fired / 1000 - press
    return drawn - down, server.call(emulator_delay)


def full_speed(page: Any, server: BackgroundServer, seconds: float) -> tuple[float, float]:
    """(times real time the world ran, frames the page drew per second) at the page's
    fastest speed."""
    page.select_option("#speed", f"{MAX_SPEED:g}")
    time.sleep(0.5)
    t0, w0 = server.call(lambda: server.session.now_ms), time.perf_counter()
    fps, _ = measure_fps(page, seconds)
    t1, w1 = server.call(lambda: server.session.now_ms), time.perf_counter()
    page.select_option("#speed", "1")
    return (t1 - t0) / ((w1 - w0) * 1000), fps


def set_drop(page: Any, drop: float) -> None:
    page.evaluate(f"""(() => {{ const d = document.getElementById('drop'); d.value = '{drop}';
        d.dispatchEvent(new Event('change')); }})()""")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0,
                        help="how long each measurement runs (s)")
    parser.add_argument("--clicks", type=int, default=6, help="clicks for the latency")
    args = parser.parse_args()
    text, _hulls, hazards = ship_layout(24)
    print(f"machine: {os.cpu_count()} CPUs ({platform.processor() or platform.machine()}), "
          f"load average {os.getloadavg()[0]:.1f} at the start")
    with tempfile.TemporaryDirectory() as tmp:
        layout = Path(tmp) / "ship24.layout"
        layout.write_text(text)
        session = Session(load_source(str(GAME), str(layout), seed=3))
        session.run_until(5000)  # links up
        with BackgroundServer(session) as server, browser_context(Path(tmp) / "profile") as ctx:
            page = open_sim(ctx, server.url)
            time.sleep(1.0)
            fps, frames = measure_fps(page, args.seconds)
            print(f"24-tile ship at 1x: the page draws {fps:.1f} frames/s "
                  f"({frames:.1f} new frames/s from the emulator; goal >= 60)")
            totals, games = [], []
            for i in range(args.clicks):
                total, game = click_latency(page, server, hazards[i % len(hazards)])
                totals.append(total)
                games.append(game)
                time.sleep(1.5)  # the beams done, the ship asleep again
            added = [t - g for t, g in zip(totals, games, strict=True)]
            print(f"click-to-LED: {statistics.median(totals):.0f} ms from mouse down to the "
                  f"Hazard's six red LEDs drawn (median of {args.clicks}), of which the game's "
                  f"own {statistics.median(games):.0f} ms (the 330 ms click window and the pass "
                  f"after it); the simulator adds {statistics.median(added):.1f} ms "
                  f"(max {max(added):.1f}; goal <= 30)")
            rate, fps_fast = full_speed(page, server, args.seconds)
            capped = " (the page's fastest setting: the limit)" if rate > 0.9 * MAX_SPEED else ""
            print(f"full speed: {rate:.1f}x real time{capped} for the 24-tile ship as it is (its "
                  f"tiles asleep between turns), the page drawing {fps_fast:.1f} frames/s")
            set_drop(page, 0.01)
            server.call(lambda: None)
            time.sleep(0.5)
            busy, fps_busy = full_speed(page, server, args.seconds)
            print(f"full speed, nothing asleep (1 % loss: every pass of every tile simulated): "
                  f"{busy:.1f}x real time, the page drawing {fps_busy:.1f} frames/s "
                  f"(Python backend, Python world)")
            print(f"load average {os.getloadavg()[0]:.1f} at the end")
            if page.errors:
                raise SystemExit(f"the page reported errors: {page.errors}")


if __name__ == "__main__":
    main()
