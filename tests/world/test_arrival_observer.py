"""The engines' arrival observer (Engine.add_arrival_observer): the same arrivals, in the same
order, with the same values, from the Python engine and from the C++ world core; and a world
without observers runs as before (tests/world/test_native_world.py compares whole runs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from blinkc.games import game_resolver
from blinkc.native import load_sketch_text
from blinkc.native_world.engine import NativeEngine
from blinkc.world import Faults, Trace, World, make_world
from blinkc.world.engine import Arrival
from blinkc.world.layout_file import parse_layout
from blinkc.world.python_engine import PythonEngine

from ..tools import require_tool

ROOT = Path(__file__).resolve().parents[2]
PIRATES = ROOT / "firmware" / "pirates_lasers.py"
CHAOS = Faults(drop=0.1, jitter_ms=2, skew=0.1)

# Datagrams beside face values, so the observer's datagram field is exercised.
DATAGRAMS = """
byte n;
void setup() {}
void loop() {
  if (buttonSingleClicked()) {
    n++;
    const byte msg[] = {7, 8, n};
    sendDatagramOnFace(msg, sizeof(msg), 0);
    sendDatagramOnFace(msg, sizeof(msg), 3);
  }
  FOREACH_FACE(f) {
    if (isDatagramReadyOnFace(f)) markDatagramReadOnFace(f);
  }
  setValueSentOnFace(n, 1);
}
"""


@pytest.fixture(scope="module", autouse=True)
def _gxx():
    require_tool("g++")


def _as_tuple(a: Arrival) -> tuple:
    return (a.t, a.tile.name, a.face, a.byte0, a.datagram, a.sender.name, a.sender_face,
            a.latched)


def _watched_run(engine: str, layout: str, make, faults: Faults, observe: bool = True):
    """(arrivals, trace lines, stats, engine name) of one run: boot, a click, a lift and a
    put-back, with an observer registered from the start (or none)."""
    world = make_world(seed=5, faults=faults, trace=Trace(), engine=engine)
    seen: list[tuple] = []
    if observe:
        world.event_engine.add_arrival_observer(lambda a: seen.append(_as_tuple(a)))
        # The observer sees world.now at the arrival's time.
        world.event_engine.add_arrival_observer(lambda a: seen.append(("now", world.now)))
    for spec in parse_layout(layout, "<t>").tiles:
        world.add_tile(spec.name, make(spec), spec.pos, spec.rot)
    world.run_for(800)
    world.button("a", True)
    world.run_for(80)
    world.button("a", False)
    world.run_for(700)
    world.lift("b")
    world.run_for(300)
    world.place("b", (1, -1))
    world.run_for(1500)
    return seen, world.trace.lines, dict(world.stats), world.engine


LAYOUT = "tile a at 0,0\ntile b at 1,-1\ntile c at 0,1 rot 2\n"


@pytest.mark.parametrize("faults", [Faults(), CHAOS], ids=["clean", "faults"])
def test_both_engines_report_the_same_arrivals(faults):
    make = game_resolver(PIRATES, "native")
    py = _watched_run("python", LAYOUT, make, faults)
    cc = _watched_run("native", LAYOUT, make, faults)
    assert py[3] == "python" and cc[3] == "native"
    assert len(py[0]) > 200
    assert py[0] == cc[0]
    assert py[1:3] == cc[1:3]  # and the runs are the same runs
    arrivals = [a for a in py[0] if a[0] != "now"]
    nows = [a[1] for a in py[0] if a[0] == "now"]
    assert nows == [a[0] for a in arrivals]


def test_datagrams_reach_the_observer_alike():
    sketch = load_sketch_text(DATAGRAMS, "obs_dgrams", check_int16=False)
    py = _watched_run("python", LAYOUT, lambda spec: sketch(), Faults())
    cc = _watched_run("native", LAYOUT, lambda spec: sketch(), Faults())
    assert cc[3] == "native"
    assert py[0] == cc[0]
    dgrams = [a for a in py[0] if a[0] != "now" and a[4] is not None]
    assert dgrams and all(a[4][:2] == b"\x07\x08" for a in dgrams)


def test_an_observer_changes_nothing_and_can_be_removed():
    """Watched or not, the same run; an observer removed is not called again, and the core
    reports nothing once none is left."""
    make = game_resolver(PIRATES, "native")
    for engine in ("python", "native"):
        watched = _watched_run(engine, LAYOUT, make, CHAOS)
        plain = _watched_run(engine, LAYOUT, make, CHAOS, observe=False)
        assert plain[0] == []
        assert watched[1:] == plain[1:]
    world = make_world(seed=1, engine="native")
    for spec in parse_layout(LAYOUT, "<t>").tiles:
        world.add_tile(spec.name, make(spec), spec.pos, spec.rot)
    seen: list[Arrival] = []
    world.event_engine.add_arrival_observer(seen.append)
    world.run_for(500)
    assert world.engine == "native" and seen
    world.event_engine.remove_arrival_observer(seen.append)
    n = len(seen)
    world.run_for(500)
    assert len(seen) == n


def test_an_observers_error_is_raised_after_the_core_returns():
    make = game_resolver(PIRATES, "native")
    world = make_world(seed=1, engine="native")
    for spec in parse_layout(LAYOUT, "<t>").tiles:
        world.add_tile(spec.name, make(spec), spec.pos, spec.rot)

    def broken(arrival: Arrival) -> None:
        raise RuntimeError("observer failed")

    world.event_engine.add_arrival_observer(broken)
    with pytest.raises(RuntimeError, match="observer failed"):
        world.run_for(500)


def test_every_engine_has_the_observer():
    assert isinstance(World().event_engine, PythonEngine)
    for engine in (PythonEngine(), NativeEngine()):
        assert engine.arrival_observers == ()
        engine.add_arrival_observer(print)
        assert engine.arrival_observers == (print,)
        engine.remove_arrival_observer(print)
        assert engine.arrival_observers == ()


# A tile that sends its own process SIGTERM when clicked (as `kill` or a scheduler would).
TERMINATES = """
#ifdef BLINKC_HOST
#include <signal.h>
#endif
void setup() {}
void loop() {
  setValueSentOnAllFaces(millis() / 100 % 8);
#ifdef BLINKC_HOST
  if (buttonSingleClicked()) raise(SIGTERM);
#endif
}
"""


def test_a_sigterm_python_handles_is_never_lost_in_the_cores_callbacks():
    # blinkc's runner stops a batch on SIGTERM as on Ctrl-C (its handler raises
    # KeyboardInterrupt). While the core runs, a Python handler could only run inside an
    # observer's callback, at its first line, where ctypes would print the KeyboardInterrupt
    # and go on: the watchdog holds SIGTERM back as it does SIGINT, and hands it over once
    # the core has returned.
    import signal

    sketch = load_sketch_text(TERMINATES, "Terminates", check_int16=False)

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGTERM, interrupt)
    try:
        world = make_world(seed=1, engine="native")
        heard = []
        world.event_engine.add_arrival_observer(heard.append)
        world.add_tile("a", sketch(), pos=(0, 0))
        world.add_tile("b", sketch(), pos=(0, 1))
        world.run_until(500)
        assert world.engine == "native" and heard
        world.button("a", True, at_ms=600)
        world.button("a", False, at_ms=700)
        with pytest.raises(KeyboardInterrupt):
            world.run_until(5000)
        assert world.now_ms < 5000
    finally:
        signal.signal(signal.SIGTERM, before)
