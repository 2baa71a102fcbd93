"""A tile whose code never returns is stopped, in both worlds.

A loop() that never returns freezes its tile and the world runs on
(tests/world/test_frozen_tile.py has the model); setup() or an emulator hook
that never returns stops the run with a TileHangError. The command line's
behaviour (messages, exit status, Ctrl-C) is checked in
tests/cli/test_no_hang.py; these check the library: which tile and call the
error names, that the world refuses to run on, that working tiles and later
worlds are not disturbed, and the budget's settings.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from blinkc.blinklib import Blinklib
from blinkc.native import load_sketch, load_sketch_text
from blinkc.world import World, WorldError, make_world
from blinkc.world.watchdog import TileOverrun
from blinkc.world.world import TileHangError

from ..tools import require_tool

SKETCHES = Path(__file__).resolve().parents[1] / "native" / "sketches"
BUDGET = 0.15


class Forever:
    def setup(self, b: Blinklib) -> None:
        pass

    def loop(self, b: Blinklib) -> None:
        while True:
            pass


class ForeverSetup(Forever):
    def setup(self, b: Blinklib) -> None:
        while True:
            pass

    def loop(self, b: Blinklib) -> None:
        pass


class Swallows(Forever):
    """Its own `except Exception` must not keep it alive."""

    def loop(self, b: Blinklib) -> None:
        while True:
            try:
                sum(range(100))
            except Exception:
                pass


class Slow:
    """Spends `seconds` of CPU time in its first loop(), then returns at once."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.loops = 0

    def setup(self, b: Blinklib) -> None:
        pass

    def loop(self, b: Blinklib) -> None:
        self.loops += 1
        if self.loops == 1:
            end = time.thread_time() + self.seconds
            while time.thread_time() < end:
                pass


class Hop:
    def setup(self, b: Blinklib) -> None:
        pass

    def loop(self, b: Blinklib) -> None:
        b.setValueSentOnAllFaces(1)


def world_with(program, engine: str = "python", budget: float = BUDGET) -> World:
    world = make_world(seed=1, engine=engine)
    world.tile_budget_s = budget
    world.add_tile("ok", Hop() if engine == "python" else load(SKETCHES / "Relay")(), pos=(0, 0))
    world.add_tile("stuck", program, pos=(1, 0))
    return world


def froze(world: World, ms: float = 1000) -> str:
    """Run: the stuck tile must freeze, and the world run on; the freeze's line."""
    started = time.monotonic()
    world.run_until(ms)
    assert time.monotonic() - started < 10
    assert world.dead is None
    [freeze] = world.freezes
    assert freeze.tile == "stuck" and world.tile("stuck").stuck is freeze
    world.run_for(10)
    return freeze.line()


def stopped(world: World, ms: float = 1000) -> str:
    started = time.monotonic()
    with pytest.raises(TileHangError) as caught:
        world.run_until(ms)
    assert time.monotonic() - started < 10
    message = str(caught.value)
    assert world.dead == message
    with pytest.raises(WorldError, match="this world cannot run any more: tile 'stuck'"):
        world.run_for(10)
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)  # the watchdog is off again
    return message


# -------------------------------------------------------------------- Python
def test_a_python_program_whose_setup_never_returns_is_stopped():
    message = stopped(world_with(ForeverSetup()))
    assert message.startswith("tile 'stuck' (program ForeverSetup): setup() did not return "
                              "within 0.15 s of CPU time (at t = ")
    assert "stays dark and silent" in message and "BLINKC_TILE_BUDGET" in message


@pytest.mark.parametrize("program", [Forever(), Swallows()])
def test_a_python_program_whose_loop_never_returns_freezes(program):
    line = froze(world_with(program))
    assert line.startswith(f"tile 'stuck' (program {type(program).__name__}) froze at t = ")
    assert "loop() did not return within 0.15 s of CPU time" in line


def test_a_slow_call_within_the_budget_is_not_stopped():
    world = world_with(Slow(0.05), budget=1)
    world.run_until(500)
    assert world.dead is None and world.tile("stuck").program.loops > 10


def test_budget_zero_turns_the_watchdog_off():
    world = world_with(Slow(0.3), budget=0)
    world.run_until(100)
    assert world.dead is None and not world.freezes
    assert "did not return within 0.1 s" in froze(world_with(Slow(0.3), budget=0.1), 100)


def test_the_budget_comes_from_the_environment(monkeypatch):
    world = world_with(ForeverSetup(), budget=BUDGET)
    world.tile_budget_s = None
    monkeypatch.setenv("BLINKC_TILE_BUDGET", "0.1")
    assert "within 0.1 s" in stopped(world)
    monkeypatch.setenv("BLINKC_TILE_BUDGET", "soon")
    with pytest.raises(WorldError, match="BLINKC_TILE_BUDGET='soon' is not a number of seconds"):
        World().run_until(10)


# -------------------------------------------------------------------- native
def load(path: Path):
    require_tool("g++")
    return load_sketch(path, check_int16=False)


HOOKS = """
byte passes = 0;
void setup() {}
void loop() { passes++; setColor(BLUE); }
#ifdef BLINKC_HOST
uint32_t blinkc_quiet_until(void) {
  if (STUCK_QUIET) { while (1); }
  return BLINKC_NEVER;
}
void blinkc_display(void) {
  if (STUCK_DISPLAY) { while (1); }
  setColor(RED);
}
#endif
"""


def hooks(quiet: bool = False, display: bool = False):
    require_tool("g++")
    text = HOOKS.replace("STUCK_QUIET", str(int(quiet))).replace("STUCK_DISPLAY", str(int(display)))
    return load_sketch_text(text, f"Hooks{int(quiet)}{int(display)}", check_int16=False)


@pytest.mark.parametrize("engine", ["native", "python"])
@pytest.mark.parametrize("name", ["Forever", "ForeverSetup"])
def test_a_sketch_that_never_returns_is_stopped(engine, name):
    world = world_with(load(SKETCHES / name)(), engine)
    if name == "Forever":
        line = froze(world)
        assert line.startswith(f"tile 'stuck' (sketch {SKETCHES / name / name}.ino) froze at ")
        assert "loop() did not return within 0.15 s" in line
    else:
        message = stopped(world)
        assert message.startswith(f"tile 'stuck' (sketch {SKETCHES / name / name}.ino): setup() "
                                  f"did not return within 0.15 s")
    assert getattr(world, "engine", "python") == engine
    # The sketch's state is torn: it cannot be called again, not even outside the world.
    with pytest.raises(TileOverrun):
        world.tile("stuck").program.loop(Blinklib())


@pytest.mark.parametrize("engine", ["native", "python"])
def test_a_stuck_quiet_until_hook_is_stopped(engine):
    message = stopped(world_with(hooks(quiet=True)(), engine))
    assert "quiet_until() did not return" in message
    assert "emulator hooks, not run on a tile" in message


def test_a_stuck_display_hook_is_stopped():
    world = world_with(hooks(display=True)(), "native")
    world.run_until(2000)  # the tile skips loop(): its colours come from the display hook
    stuck = world.tile("stuck")
    assert stuck.skipped
    with pytest.raises(TileHangError, match=r"tile 'stuck' .*: display\(\) did not return"):
        world.colors(stuck)


def test_later_worlds_run_and_are_watched_as_before():
    relay = load(SKETCHES / "Relay")
    for _ in range(2):  # the second stuck tile is caught like the first
        froze(world_with(load(SKETCHES / "Forever")(), "native"))
        stopped(world_with(load(SKETCHES / "ForeverSetup")(), "native"))
        world = make_world(seed=2, engine="native")
        for i in range(3):
            world.add_tile(f"t{i}", relay(), pos=(i, 0))
        world.run_until(3000)
        # Three linked tiles pass about 90 times a second each (their packets stretch passes).
        assert world.dead is None and world.stats["passes"] > 3 * 3 * 80


def test_working_tiles_are_not_disturbed_by_the_watchdog():
    # Same seed, same run: with a budget and without one.
    relay = load(SKETCHES / "Relay")
    runs = []
    for budget in (0.0, 5.0):
        world = make_world(seed=3, engine="native")
        world.tile_budget_s = budget
        for i in range(3):
            world.add_tile(f"t{i}", relay(), pos=(i, 0))
        world.button("t0", True, at_ms=100)
        world.button("t0", False, at_ms=180)
        world.run_until(5000)
        runs.append((world.snapshot(), dict(world.stats)))
    assert runs[0] == runs[1]


def test_a_python_world_with_native_tiles_uses_the_same_budget():
    world = world_with(load(SKETCHES / "Forever")(), "python", budget=0.3)
    assert "within 0.3 s" in froze(world)


class StuckDisplay(Hop):
    def quiet_until(self, b: Blinklib) -> int:
        return 0xFFFFFFFF

    def display(self, b: Blinklib) -> None:
        while True:
            pass


def test_a_python_display_hook_that_never_returns_is_stopped():
    world = world_with(StuckDisplay())
    world.run_until(2000)
    stuck = world.tile("stuck")
    assert stuck.skipped
    with pytest.raises(TileHangError, match=r"tile 'stuck' \(program StuckDisplay\): display\(\)"):
        world.colors(stuck)


class SlowDisplay(Hop):
    """A display hook that takes `seconds` of CPU time, well within the budget."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def quiet_until(self, b: Blinklib) -> int:
        return 0xFFFFFFFF

    def display(self, b: Blinklib) -> None:
        end = time.thread_time() + self.seconds
        while time.thread_time() < end:
            pass


def test_a_display_hook_within_the_budget_is_not_stopped_however_long_the_thread_has_run():
    # The budget counts from the call, not from when the thread began: after a long test
    # session, a display hook of a few milliseconds was stopped as if it had hung.
    world = world_with(SlowDisplay(0.04), budget=0.05)
    world.run_until(2000)
    stuck = world.tile("stuck")
    assert stuck.skipped
    end = time.thread_time() + 0.2  # the thread has now used well over the budget
    while time.thread_time() < end:
        pass
    for _ in range(5):
        world.colors(stuck)
    assert world.dead is None
