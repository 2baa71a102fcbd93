"""The C++ world core (NativeEngine) behaves exactly like the Python engine (python_engine.py).

Every scenario runs twice with the same native tiles: once in the reference
Python world, once with the event loop in C++. The traces (every record,
line for line) and the statistics (passes, skips, packets, drops,
collisions) must be identical, with and without faults.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blinkc.differential import cases, reproducer, run_world
from blinkc.games import game_resolver, load_program
from blinkc.native import load_sketch_text
from blinkc.native_world.world import NativeWorld
from blinkc.sketches import sketch_resolver
from blinkc.testing import Cluster
from blinkc.world import Faults, Trace, World, WorldError, make_world
from blinkc.world.emulation import EmulationOptions, emulate
from blinkc.world.layout_file import parse_layout
from blinkc.world.scenario_file import parse_scenario

from ..tiers import tiered
from ..tools import require_tool

ROOT = Path(__file__).resolve().parents[2]
PIRATES = ROOT / "firmware" / "pirates_lasers.py"
BEACON = ROOT / "tests" / "golden" / "games" / "beacon.py"
SKETCHES = ROOT / "tests" / "native" / "sketches"
CHAOS = Faults(drop=0.1, jitter_ms=2, skew=0.1)


@pytest.fixture(scope="module", autouse=True)
def _gxx():
    require_tool("g++")


def both(layout: str, scenario: str, resolver, time_ms: float, seed: int = 1,
         faults: Faults | None = None, idle_skip: bool = True):
    """(trace, stats, snapshot) of one run in each world; the C++ one must have been used."""
    out = []
    for engine in ("python", "native"):
        trace = Trace()
        done = emulate(parse_layout(layout, "<test>"),
                       parse_scenario(scenario) if scenario else None,
                       EmulationOptions(seed=seed, faults=faults or Faults(), time_ms=time_ms,
                                        trace=trace, resolver=resolver, world=engine,
                                        idle_skip=idle_skip))
        assert getattr(done.world, "engine", "python") == engine
        out.append((trace.lines, dict(done.world.stats), done.snapshot() + mirrors(done.world)))
    return out


def mirrors(world: World) -> list[dict]:
    """What Python code can read of each tile: its api, its bookkeeping, its button model."""
    out = []
    for t in world.tiles:
        api, b = t.api, t.button
        out.append({
            "api": (api.now, api.in_value, api.out_value, api.expire_time, api.send_time,
                    api.in_datagram, api.out_datagram, api.pixels, api.button_down,
                    api.button_flags, api.click_count, api.rng.state, api._entropy, api.woken,
                    api.extra_cpu_ms),
            "tile": (t.started, t.epoch, t.quiet_until, t.skipped, t.passes,
                     t.viral_faces, t.viral_lockout_until, t.tx_start,
                     t.tx_end, t.pos, t.rot),
            "button": (b.down, b.flags, b.click_count, b.raw, b._raw_down, b._last_accept,
                       b._pending_clicks, b._window_end, b._down_since, b._long_fired),
        })
    return out


def assert_same(runs) -> None:
    (trace_py, stats_py, snap_py), (trace_c, stats_c, snap_c) = runs
    for i, (a, b) in enumerate(zip(trace_py, trace_c)):
        assert a == b, f"trace line {i + 1}:\n  python: {a}\n  C++:    {b}"
    assert len(trace_py) == len(trace_c)
    assert stats_py == stats_c
    assert snap_py == snap_c


# ------------------------------------------------------------- random cases
def _worlds_agree(game: Path, runs: int) -> None:
    """`runs` random cases of the game (the same ones each run) run alike in both worlds."""

    @settings(max_examples=runs, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(case=cases(load_program(game)))
    def agree(case):
        py = run_world(game, case, "native", "python")
        cc = run_world(game, case, "native", "native")
        assert py == cc, f"the worlds differ; reproduce with:\n{reproducer(game, case)}"

    agree()


@tiered(30, 480)
def test_random_pirates_scenarios_agree(size):
    _worlds_agree(PIRATES, size)


@tiered(10, 160)
def test_random_beacon_scenarios_agree(size):
    _worlds_agree(BEACON, size)


# ----------------------------------------------------------- chosen cases
SHIP = (ROOT / "examples" / "ship.layout").read_text()


@pytest.mark.parametrize("faults", [Faults(), CHAOS], ids=["clean", "faults"])
def test_a_ship_turn(faults):
    runs = both(SHIP, (ROOT / "examples" / "turn.scenario").read_text(),
                game_resolver(PIRATES, "native"), 12_000, seed=5, faults=faults)
    assert_same(runs)
    assert runs[1][1]["skipped"]  # quiet tiles skipped loops


def test_without_idle_skipping():
    runs = both(SHIP, (ROOT / "examples" / "turn.scenario").read_text(),
                game_resolver(PIRATES, "native"), 8000, seed=6, idle_skip=False)
    assert_same(runs)
    assert runs[1][1]["passes"] and not runs[1][1]["skipped"]


def test_moves_adds_and_gestures():
    layout = "tile a at 0,0\ntile b at 0,1 kind=HAZARD orient=3\ntile c at 1,0\ntile d at -1,1\n"
    scenario = """
        at 700ms multi a 4
        at 2s lift b
        at 2.5s place b at 2,-1 rot 4
        at 3s rotate c +2
        at 3.5s add e at 0,-1 rot 1
        at 4s long d 3.5s
        at 8.5s double e
        at 9.5s move d to -2,2
        at 10s press c
        at 17s release c
    """
    for faults in (Faults(), CHAOS):
        runs = both(layout, scenario, game_resolver(PIRATES, "native"), 19_000, seed=11,
                    faults=faults)
        assert_same(runs)
    events = [line for line in runs[1][0] if '"ev":"longlong"' in line or '"ev":"sleep"' in line]
    assert events  # the 7 s hold reached the BIOS's long-long press and sleep marks


def test_the_explorers_cuts_and_stalls():
    # The adversary of blinkc explore in the core: one-way cuts (dropped packets, traced
    # with `cut`), a cut made longer, a stall that delays a pass, with and without faults;
    # steps at one moment (the core hands such calls over one after the other, in order).
    layout = "tile a at 0,0\ntile b at 0,1 kind=HAZARD orient=3\ntile c at 1,0\n"
    scenario = """
        at 400ms cut a 3 for 300ms
        at 500ms cut b 0 for 3s
        at 600ms cut b 0 for 3.5s
        at 800ms stall c 16ms
        at 1s click b
        at 1.01s stall a 40ms
        at 1.02s stall a 8ms
        at 5s cut c 4 for 60ms
        at 5s stall c 16ms
        at 5s cut c 4 for 90ms
        at 5s lift a
    """
    for faults in (Faults(), CHAOS):
        runs = both(layout, scenario, game_resolver(PIRATES, "native"), 9000, seed=4,
                    faults=faults)
        assert_same(runs)
    assert any('"cut":true' in line for line in runs[1][0])


def test_plain_sketches_without_hooks():
    # No quiet_until: nothing is skipped; Relay and Spinner exercise buttons and values.
    for name in ("Relay", "Spinner"):
        layout = "tile a at 0,0\ntile b at 1,-1\ntile c at 1,0 rot 3\n"
        runs = both(layout, "at 500ms click a\nat 1.5s double b\nat 3s lift c\n",
                    sketch_resolver(SKETCHES / name), 5000, seed=3, faults=CHAOS)
        assert_same(runs)


DATAGRAMS = """
byte got[IR_DATAGRAM_LEN];
byte gotLen, reads, clicks;
void setup() {}
void loop() {
  if (buttonSingleClicked()) {
    clicks++;
    const byte msg[] = {7, 8, clicks, 10, 11};
    sendDatagramOnFace(msg, sizeof(msg), 1);
    sendDatagramOnFace(msg, 2, 4);
  }
  if (buttonDoubleClicked()) randomize();
  FOREACH_FACE(f) {
    if (isDatagramReadyOnFace(f)) {
      gotLen = getDatagramLengthOnFace(f);
      for (byte i = 0; i < gotLen; i++) got[i] = getDatagramOnFace(f)[i];
      reads++;
      if (gotLen > 2) markDatagramReadOnFace(f);  // the 2-byte ones stay unread
    }
  }
  setValueSentOnFace(gotLen, 0);
  setValueSentOnFace(got[2] + random(3), 2);
}
#ifdef BLINKC_HOST
const blinkc_field_t blinkc_state_fields[] = {
  BLINKC_FIELD(gotLen), BLINKC_FIELD(reads), BLINKC_FIELD(clicks), BLINKC_ARRAY_FIELD(got),
  BLINKC_FIELDS_END};
#endif
"""


def test_datagrams_and_randomize():
    sketch = load_sketch_text(DATAGRAMS, "dgrams", check_int16=False)
    layout = "tile a at 0,0\ntile b at 1,-1\ntile c at -1,1\ntile d at 0,1\n"
    scenario = ("at 400ms click a\nat 1s click b\nat 1.6s double c\nat 2.4s click d\n"
                "at 3s click a\nat 3.6s click a\nat 4.2s click b\n")
    for faults in (Faults(), CHAOS):
        runs = both(layout, scenario, lambda spec: sketch(), 6000, seed=8, faults=faults)
        assert_same(runs)
        states = [line for line in runs[1][0] if '"ev":"state"' in line]
        assert any('"clicks":3' in line for line in states)


# ------------------------------------------------------- the public API
def test_cluster_reads_the_same_in_both_worlds():
    clusters = [Cluster(PIRATES, SHIP, backend="native", seed=2, world=w, trace=True)
                for w in ("python", "auto")]
    assert type(clusters[0].world) is World
    assert clusters[1].world.engine == "native"
    for c in clusters:
        c.click("z")
        c.settle()
        c.multi_click("h3", 3)
        c.wait(700)
    py, cc = clusters
    assert py.states() == cc.states()
    assert py.world.stats == cc.world.stats
    assert py.world.now == cc.world.now
    assert py.world.is_quiet() == cc.world.is_quiet()
    for name in py.names():
        assert py.colors(name) == cc.colors(name), name
        a, b = py.world.tile(name), cc.world.tile(name)
        assert (a.api.out_value, a.api.in_value, a.api.expire_time, a.passes) == \
               (b.api.out_value, b.api.in_value, b.api.expire_time, b.passes)
    cc.wait(3000)
    py.wait(3000)
    assert py.world.trace.lines == cc.world.trace.lines


def test_a_python_tile_keeps_the_world_in_python():
    from blinkc.programs import NeighbourColours

    world = make_world(seed=1)
    assert isinstance(world, NativeWorld)
    world.add_tile("py", NeighbourColours(), pos=(0, 0))
    world.run_for(100)
    assert world.engine == "python"
    with pytest.raises(WorldError, match="C\\+\\+ core"):
        forced = make_world(seed=1, engine="native")
        forced.add_tile("py", NeighbourColours(), pos=(0, 0))
        forced.run_for(100)


def test_a_python_tile_cannot_join_a_running_native_world():
    from blinkc.programs import NeighbourColours

    world = make_world(seed=1)
    world.add_tile("a", game_resolver(PIRATES, "native")(parse_layout(
        "tile a at 0,0", "<t>").tiles[0]), pos=(0, 0))
    world.run_for(100)
    assert world.engine == "native"
    with pytest.raises(WorldError, match="native programs"):
        world.add_tile("py", NeighbourColours(), pos=(0, 1))


def test_direct_calls_agree_step_by_step():
    """World methods called one by one (as tests and notebooks do), compared after each."""
    make = game_resolver(PIRATES, "native")
    specs = parse_layout("tile a at 0,0\ntile b at 0,1\ntile c at 1,0 kind=HAZARD\n"
                         "tile d held\n", "<t>").tiles

    def steps(world: World):
        for spec in specs:
            world.add_tile(spec.name, make(spec), spec.pos, spec.rot)
        yield "boot", world.run_for(900)
        world.button("a", True, at_ms=1000)
        world.button("a", False, at_ms=1080)
        yield "future presses", world.run_until(1600)
        world.lift("b")
        world.rotate("b", 4)  # turned while held
        yield "lifted", world.run_for(500)
        with pytest.raises(WorldError, match="taken"):
            world.place("b", (0, 0))
        world.place("b", (0, -1))
        world.place("d", (1, 1), rot=2)
        world.call_at(world.now_ms + 50, lambda: world.button("c", True))
        world.call_at(world.now_ms + 130, lambda: world.button("c", False))
        yield "moved", world.run_for(1000)
        yield "idle", world.run_for(5000)
        yield "value", [world.evaluate(t, lambda api: list(api.expire_time))
                        for t in world.tiles]
        world.rotate("c", 5)
        yield "turned", world.run_for(3000)

    worlds = [make_world(seed=4, trace=Trace(), engine=e) for e in ("python", "native")]
    for (label, a), (_, b) in zip(steps(worlds[0]), steps(worlds[1]), strict=True):
        py, cc = worlds
        assert a == b, label
        assert py.trace.lines == cc.trace.lines, label
        assert py.stats == cc.stats, label
        assert py.snapshot() == cc.snapshot(), label
        assert mirrors(py) == mirrors(cc), label
    assert worlds[1].engine == "native"


def test_a_closed_tile_program_stops_the_run_instead_of_crashing():
    make = game_resolver(PIRATES, "native")
    world = make_world(seed=1, engine="native")
    spec = parse_layout("tile a at 0,0", "<t>").tiles[0]
    world.add_tile("a", make(spec), (0, 0))
    world.run_for(100)
    world.tile("a").program.native.close()
    with pytest.raises(RuntimeError, match="closed"):
        world.run_for(100)


# ------------------------------------------------- the core's arithmetic
@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(ppm=st.integers(-500_000, 500_000), offset=st.integers(-2**50, 2**50),
       phase=st.integers(0, 7699), t=st.integers(-2**52, 2**52),
       local=st.integers(-2**52, 2**52))
def test_clock_arithmetic_is_pythons(ppm, offset, phase, t, local):
    import ctypes

    from blinkc.native_world.core.bindings import core
    from blinkc.world.clock import Clock

    out = (ctypes.c_int64 * 5)()
    core().core_clock(ppm, offset, phase, t, local, out)
    c = Clock(ppm=ppm, offset=offset, frame_phase=phase)
    assert list(out) == [c.local_us(t), c.millis(t), c.world_us(local),
                         c.local_duration_to_world(local), c.next_frame(t)]


@pytest.mark.parametrize("seed", [0, 7, 123456])
@pytest.mark.parametrize("p,bound", [(0.1, 1), (0.5, 2), (0.3, 2001), (0.999, 2**32 - 1)])
def test_both_worlds_draw_the_same_fault_stream(seed, p, bound):
    import ctypes

    from blinkc.native_world.core.bindings import core
    from blinkc.world.splitmix import SplitMix64

    rng = SplitMix64.from_text(f"{seed}:faults")
    n = 2000
    chances, belows = (ctypes.c_int * n)(), (ctypes.c_int64 * n)()
    core().core_fault_draws(rng.state, n, p, bound, chances, belows)
    for i in range(n):
        assert bool(chances[i]) == rng.chance(p)
        assert belows[i] == rng.below(bound)


def _lockstep(clusters, steps: int, inside) -> None:
    for _ in range(steps):
        for c in clusters:
            c.wait(20)
        inside(clusters)


def test_a_lazy_block_reads_what_a_fresh_one_reads_and_ends_fresh():
    """Inside world.lazy_mirrors() the C++ core leaves the tiles' Python mirrors as they were,
    yet calm() says what the mirrors of a world without the block say, step for step, and the
    block's end (or a scenario action due in a run) brings every mirror up to date."""
    eager, lazy = (Cluster(PIRATES, SHIP, backend="native", seed=4, world="native")
                   for _ in range(2))
    for c in (eager, lazy):
        c.click("z")
    seen: list[tuple] = []

    def compare(clusters):
        e, z = clusters
        for a, b in zip(e.world.tiles, z.world.tiles, strict=True):
            assert z.world.calm(b) == (a.skipped, a.button.idle(), a.button.flags), a.name
        seen.append((e.world.tile("z").passes, z.world.tile("z").passes))

    acted: list[int] = []
    for c in (eager, lazy):  # an action due inside the block sees fresh mirrors
        c.world.call_at(c.world.now_ms + 150, lambda c=c: acted.append(c.world.tile("h1").passes))
    with lazy.world.lazy_mirrors():
        _lockstep([eager, lazy], 25, compare)
        assert seen[-1][1] < seen[-1][0]  # the lazy mirror fell behind: it was not pulled
    assert acted[0] == acted[1] > 0
    assert mirrors(eager.world) == mirrors(lazy.world)
    assert eager.world.trace is None and eager.states() == lazy.states()


def test_settle_ends_at_the_same_moment_with_lazy_mirrors(monkeypatch):
    """Cluster.settle() polls in a lazy block: it returns at the time, and leaves the world in
    the state, that the same loop with every mirror pulled after each run did."""
    from contextlib import nullcontext

    results = []
    for lazy in (True, False):
        c = Cluster(PIRATES, SHIP, backend="native", seed=6, world="native",
                    faults=Faults(drop=0.2))
        if not lazy:
            monkeypatch.setattr(c.world, "lazy_mirrors", nullcontext)
        c.click("z")
        took = c.settle()
        c.multi_click("h3", 3)
        took2 = c.settle()
        results.append((took, took2, c.world.now, mirrors(c.world), c.states()))
    assert results[0] == results[1]
