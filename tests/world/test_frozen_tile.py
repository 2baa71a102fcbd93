"""A tile whose loop() never returns freezes, as a real tile does, and the world runs on.

On a tile, blinklib reads the button, takes in IR, commits the LEDs and
transmits only between two calls of loop(): stuck in one, the tile keeps
showing what its last finished pass committed, sends nothing more (its
neighbours' faces expire), ignores its button and never sleeps, while every
other tile runs on. The emulator marks such a tile frozen once loop() has
used its budget, at that world time, in both worlds (traces agree), and
reports it. The command line's side: tests/cli/test_no_hang.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from blinkc.blinklib import NEVER, Blinklib
from blinkc.native import load_sketch, load_sketch_text
from blinkc.world import Trace, World, WorldError, make_world

from ..tools import require_tool

SKETCHES = Path(__file__).resolve().parents[1] / "native" / "sketches"
FREEZES_AFTER = SKETCHES / "FreezesAfter"
BUDGET = 0.15
#: FreezesAfter's 20th pass never ends: its 19th committed the last display and value.
LAST = 19


class FreezesAfter:
    """FreezesAfter.ino as a Python tile program (without the service port)."""

    def __init__(self, at: int = 20) -> None:
        self.at = at
        self.passes = 0

    def setup(self, b: Blinklib) -> None:
        pass

    def loop(self, b: Blinklib) -> None:
        self.passes += 1
        if self.at and self.passes == self.at:
            b.setValueSentOnAllFaces(63)
            b.setColor(Blinklib.RED)
            while True:
                pass
        b.setValueSentOnAllFaces(self.passes & 31)
        b.setColor(Blinklib.BLUE)


@pytest.fixture(scope="module")
def sketches():
    require_tool("g++")
    text = (FREEZES_AFTER / "FreezesAfter.ino").read_text()
    never = load_sketch_text("#define FREEZE_AT 0\n" + text, "NeverFreezes", check_int16=False)
    return load_sketch(FREEZES_AFTER, check_int16=False), never


def line_of_three(engine: str, programs, trace: Trace | None = None) -> World:
    """a - b - c in a row: a freezes, b is its neighbour, c is b's."""
    world = make_world(seed=1, engine=engine, trace=trace)
    world.tile_budget_s = BUDGET
    freezer, never = programs
    for i, (name, make) in enumerate((("a", freezer), ("b", never), ("c", never))):
        world.add_tile(name, make(), pos=(i, 0))
    return world


def programs_for(kind: str, sketches):
    if kind == "python":
        return FreezesAfter, lambda: FreezesAfter(0)
    return sketches


def face_toward(world: World, name: str, other: str) -> int:
    tile = world.tile(name)
    return next(f for f, n, _ in world.neighbours_of(tile) if n.name == other)


# (engine, programs): the Python world with Python programs and with sketches, the C++ core.
CASES = [("python", "python"), ("python", "native"), ("native", "native")]


@pytest.mark.parametrize("engine,kind", CASES)
def test_a_tile_whose_loop_never_returns_freezes_and_the_world_runs_on(engine, kind, request):
    sketches = request.getfixturevalue("sketches") if kind == "native" else None
    world = line_of_three(engine, programs_for(kind, sketches))
    world.run_until(1000)
    assert world.dead is None
    assert getattr(world, "engine", "python") == engine
    a, b, c = (world.tile(n) for n in "abc")
    assert a.passes == 20 and a.stuck is not None
    [freeze] = world.freezes
    assert (freeze.tile, freeze.what) == ("a", "loop") and 0 < freeze.at_ms < 600
    # Its last finished pass is what it shows and what it says it sends; the 20th is lost.
    assert world.colors(a) == [Blinklib.BLUE] * 6
    snap = {t["name"]: t for t in world.snapshot()}
    assert snap["a"]["sent"] == [LAST] * 6
    assert snap["a"]["froze"] == freeze.line()
    assert "froze" not in snap["b"]
    # Its neighbour heard its last value, then silence: the face has expired.
    fb = face_toward(world, "b", "a")
    assert snap["b"]["expired"][fb] and 0 < snap["b"]["received"][fb] <= LAST
    assert not snap["c"]["expired"][face_toward(world, "c", "b")]
    # The others run on; the frozen tile never runs again, whatever happens to it.
    before = b.passes, c.passes
    world.button("a", True)
    world.run_for(100)
    world.button("a", False)
    world.lift("a")
    world.place("a", (0, 1))
    world.run_for(900)
    assert a.passes == 20 and world.colors(a) == [Blinklib.BLUE] * 6
    assert b.passes > before[0] + 100 and c.passes > before[1] + 100
    assert world.freezes == [freeze]


def test_the_freeze_is_reported_in_one_line(sketches):
    world = line_of_three("native", sketches)
    world.run_until(500)
    [freeze] = world.freezes
    at = f"{freeze.at_ms / 1000:.3f}".rstrip("0").rstrip(".")
    assert freeze.line() == (
        f"tile 'a' (sketch {FREEZES_AFTER / 'FreezesAfter.ino'}) froze at t = {at} s: loop() "
        "did not return within 0.15 s of CPU time (it ends in an endless loop such as "
        "`while (1);`; a real tile freezes there too)")


@pytest.mark.parametrize("engine", ["python", "native"])
def test_what_it_printed_before_freezing_was_printed(sketches, engine):
    world = line_of_three(engine, sketches)
    world.run_until(500)
    assert world.tile("a").serial_text.splitlines() == ["freezing"]
    assert world.snapshot()[0]["serial"] == world.tile("a").serial_text


def test_both_worlds_agree_trace_for_trace(sketches):
    runs = []
    for engine in ("python", "native"):
        trace = Trace()
        world = line_of_three(engine, sketches, trace)
        world.button("b", True, at_ms=400)
        world.button("b", False, at_ms=480)
        world.run_until(1500)
        assert getattr(world, "engine", "python") == engine
        runs.append((trace.lines, dict(world.stats), world.snapshot(),
                     [(t.epoch, t.passes) for t in world.tiles]))
    assert runs[0] == runs[1]
    froze = [line for line in runs[0][0] if '"ev":"froze"' in line]
    assert len(froze) == 1 and '"tile":"a"' in froze[0] and '"call":"loop"' in froze[0]


QUIET_FREEZER = """
byte passes = 0;
void setup() {}
void loop() {
  passes++;
  if (FREEZE_AT && passes == FREEZE_AT) { setColor(RED); setValueSentOnAllFaces(9); while (1); }
  setValueSentOnAllFaces(1);
  setColor(GREEN);
}
#ifdef BLINKC_HOST
uint32_t blinkc_quiet_until(void) { return millis() + 300; }
#endif
"""


class QuietFreezer(FreezesAfter):
    """Declares itself quiet for 300 ms after every pass: the emulator skips its loop()
    until each deadline, and the 6th loop() it runs never ends."""

    def loop(self, b: Blinklib) -> None:
        self.passes += 1
        if self.at and self.passes == self.at:
            b.setColor(Blinklib.RED)
            while True:
                pass
        b.setValueSentOnAllFaces(1)
        b.setColor(Blinklib.GREEN)

    def quiet_until(self, b: Blinklib) -> int:
        return b.millis() + 300


def quiet_pair(engine: str, programs, trace: Trace | None = None) -> World:
    world = make_world(seed=2, engine=engine, trace=trace)
    world.tile_budget_s = BUDGET
    world.add_tile("a", programs[0](), pos=(0, 0))
    world.add_tile("b", programs[1](), pos=(1, 0))
    return world


def test_a_tile_that_freezes_after_skipped_loops():
    world = quiet_pair("python", (lambda: QuietFreezer(6), lambda: QuietFreezer(0)))
    world.run_until(5000)
    a, b = world.tile("a"), world.tile("b")
    assert world.stats["skipped"] > 0 and a.stuck is not None and a.program.passes == 6
    assert world.colors(a) == [Blinklib.GREEN] * 6
    assert world.snapshot()[1]["expired"][face_toward(world, "b", "a")]
    assert b.program.passes > 6


def test_both_worlds_agree_on_a_freeze_after_skipped_loops():
    require_tool("g++")
    freezer = load_sketch_text("#define FREEZE_AT 6\n" + QUIET_FREEZER, "QuietFreezer6",
                               check_int16=False)
    never = load_sketch_text("#define FREEZE_AT 0\n" + QUIET_FREEZER, "QuietFreezer0",
                             check_int16=False)
    runs = []
    for engine in ("python", "native"):
        trace = Trace()
        world = quiet_pair(engine, (freezer, never), trace)
        world.run_until(5000)
        assert world.tile("a").stuck is not None and world.stats["skipped"] > 0
        runs.append((trace.lines, dict(world.stats), world.snapshot()))
    assert runs[0] == runs[1]


def test_a_frozen_tile_cannot_be_asked_for_a_value(sketches):
    world = line_of_three("native", sketches)
    world.run_until(500)
    with pytest.raises(WorldError, match=r"tile 'a' froze at t = .*: its program cannot run"):
        world.evaluate(world.tile("a"), lambda api: 1)
    assert world.dead is None
    world.run_for(100)


def test_a_frozen_tile_never_sleeps_and_is_not_put_to_sleep():
    # Its neighbours' 6 s hold sends "sleep" to it; stuck in loop(), blinklib never reads it.
    world = World(seed=3)
    world.tile_budget_s = BUDGET
    world.add_tile("a", FreezesAfter(), pos=(0, 0))
    world.add_tile("b", FreezesAfter(0), pos=(1, 0))
    world.run_until(500)
    world.button("b", True)
    world.run_for(7000)
    world.button("b", False)
    world.run_for(11 * 60_000)  # and past the 10-minute timer
    assert world.tile("b").asleep and not world.tile("a").asleep
    assert world.colors(world.tile("a")) == [Blinklib.BLUE] * 6


class Forever:
    def setup(self, b: Blinklib) -> None:
        pass

    def loop(self, b: Blinklib) -> None:
        while True:
            pass

    def quiet_until(self, b: Blinklib) -> int:
        return NEVER


def test_two_tiles_that_freeze_in_one_run_are_both_caught():
    world = World(seed=4)
    world.tile_budget_s = BUDGET
    world.add_tile("a", Forever(), pos=(0, 0))
    world.add_tile("b", Forever(), pos=(1, 0))
    world.run_until(100)
    assert [f.tile for f in world.freezes] == ["a", "b"]
    assert world.is_quiet()


class BlueThenForever(Forever):
    def setup(self, b: Blinklib) -> None:
        b.setColor(Blinklib.BLUE)


@pytest.mark.parametrize("engine,kind", CASES)
def test_a_tile_frozen_in_its_first_loop_never_lit_up(engine, kind):
    # blinklib shows setup()'s colours only once the first loop() returns: never, here.
    if kind == "native":
        require_tool("g++")
        program = load_sketch(SKETCHES / "Forever", check_int16=False)()  # BLUE in setup()
    else:
        program = BlueThenForever()
    world = make_world(seed=5, engine=engine)
    world.tile_budget_s = BUDGET
    world.add_tile("a", program, pos=(0, 0))
    world.run_until(100)
    assert world.tile("a").stuck is not None
    assert world.colors(world.tile("a")) == [Blinklib.OFF] * 6
