"""The explorer's probes (blinkc/ir/probes.py): declared once and rendered alike by both
backends, only in the explorer's build; and every engine reports the same probes, in the same
order among the arrivals, whether the tiles are the game's Python or its C++."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from blinkc.backends.cpp import generate_cpp
from blinkc.backends.python import program_class
from blinkc.dsl.loader import compile_game
from blinkc.games import initial_state
from blinkc.ir import probes
from blinkc.ir.probes import POINTS, ProbeKind, has_probes
from blinkc.native import abi
from blinkc.native.game import native_class
from blinkc.world import Faults, make_world
from blinkc.world.layout_file import parse_layout
from blinkc.world.scenario_file import parse_scenario

from ..tools import require_tool

ROOT = Path(__file__).resolve().parents[2]
NATIVE = ROOT / "blinkc" / "native"
GAMES = [ROOT / "tests" / "golden" / "games" / "convoy.py",  # wide values, gathers
         ROOT / "tests" / "golden" / "games" / "fleet.py",   # groups of messages and floods
         ROOT / "firmware" / "pirates_lasers.py"]


@pytest.mark.parametrize("game", GAMES, ids=lambda p: p.stem)
def test_only_the_explorers_build_has_probes(game):
    plain, watched = compile_game(game), compile_game(game, observable=True)
    assert not has_probes(plain) and "blinkc_probe" not in generate_cpp(plain)
    assert has_probes(watched)
    text = generate_cpp(watched)
    # Every probe call says its kind by the name the sketch's enum gives it.
    enum = re.search(r"enum : uint8_t \{ (BLINKC_PROBE_.*?) \};", text).group(1)
    assert enum == ", ".join(f"BLINKC_PROBE_{k.name} = {int(k)}" for k in ProbeKind)
    calls = re.findall(r"blinkc_probe\((\w+), ", text)
    assert calls and set(calls) <= {f"BLINKC_PROBE_{k.name}" for k in ProbeKind}


def test_every_point_is_in_a_game_with_every_feature():
    # Convoy has wide messages, valued floods and gathers; fleet, groups of both kinds.
    names = {f.name for g in GAMES[:2] for f in compile_game(g, observable=True).functions}
    for point in POINTS:
        assert set(point.functions) & names, f"{point.kind.name}: none of {point.functions}"
    assert {p.kind for p in POINTS} == set(ProbeKind)


def test_the_monitor_reads_each_kind_by_its_declared_names():
    # Each of the monitor's handlers takes the tile's name, its watch, then the kind's values
    # under the names POINTS gives them (and blanks for the rest).
    import inspect

    from blinkc.explore.clusters import Run, Tile
    from blinkc.explore.monitor import Monitor

    monitor = Monitor(compile_game(GAMES[0], observable=True), Run((Tile("t0", (0, 0), 0),), ()))
    assert set(monitor._on) == set(ProbeKind)
    for kind, handler in monitor._on.items():
        params = list(inspect.signature(handler).parameters)[2:]
        names = probes.NAMES[kind]
        assert params[:len(names)] == list(names), kind.name
        assert all(p.strip("_") == "" for p in params[len(names):]), kind.name


def test_the_host_runtime_carries_as_many_values_as_the_declaration():
    header = (NATIVE / "blinkc_native.h").read_text()
    assert f"#define BLINKC_PROBE_VALUES {probes.VALUES}\n" in header
    fn = re.search(r"typedef void \(\*blinkc_probe_fn\)\(void \*ctx, int kind, (.*?)\);", header)
    assert fn.group(1) == ", ".join(f"int v{i}" for i in range(probes.VALUES))
    extras = (NATIVE / "blinkc_extras.h").read_text()
    declared = re.findall(r"^void blinkc_probe\(uint8_t kind, (.*?)\)", extras, re.S | re.M)
    assert len(declared) == 2  # (on the host; deleted on the AVR)
    for decl in declared:
        assert decl.split() == ", ".join(f"uint16_t v{i}" for i in range(probes.VALUES)).split()
    assert abi.PROBE_VALUES == probes.VALUES


LAYOUT = "tile a at 0,0\ntile b at 0,1 rot 2\ntile c at 1,0 rot 4\n"
# Wide messages both ways, a valued flood, a cut that ends a session, a gather, a lift.
SCENARIO = """at 1s send a Cargo(165) 3
at 1s send b Cargo(255) 0
at 1.1s flood a Flag(421)
at 1.3s cut b 0 for 3s
at 2s flood c Tally
at 2.2s send c Cargo(0) 5
at 6s lift c
at 6.5s flood b Least
at 7s place c at 1,0 rot 4
at 9s flood c Least
"""


def _stream(world_engine: str, cls: type, program, faults: Faults) -> list[tuple]:
    """Every probe and every arrival of one run, in the order the observers heard them."""
    world = make_world(seed=3, faults=faults, engine=world_engine)
    heard: list[tuple] = []
    world.event_engine.add_probe_observer(lambda p: heard.append(
        ("probe", p.t, world.now, p.tile.name, ProbeKind(p.kind).name,
         tuple(int(v) for v in p.values))))
    world.event_engine.add_arrival_observer(lambda a: heard.append(
        ("arrival", a.t, world.now, a.tile.name, a.face, a.byte0, a.latched)))
    resolve = lambda spec: cls(**initial_state(program, spec.params, spec.name))  # noqa: E731
    layout = parse_layout(LAYOUT, "<test>")
    layout.build(world, resolve)
    parse_scenario(SCENARIO, "<test>").apply(world, resolve, layout, start_ms=0.0)
    world.run_until(14_000)
    assert world.engine == world_engine
    return heard


@pytest.mark.parametrize("faults", [Faults(), Faults(drop=0.1, jitter_ms=2)], ids=["clean", "faults"])
def test_python_tiles_and_native_ones_report_the_same_probes(faults):
    require_tool("g++")
    game = GAMES[0]
    program = compile_game(game, observable=True)
    python = _stream("python", program_class(program), program, faults)
    native = _stream("native", native_class(program, game), program, faults)
    kinds = {e[4] for e in python if e[0] == "probe"}
    assert {"SEND_WIDE", "SENT", "BOUNCE", "DELIVER", "LINK_END", "LINK_ENDED", "FLOOD_START",
            "FLOOD_ENTER", "FLOOD_ENTERED", "FLOOD_DONE"} <= kinds
    assert python == native
    # Native tiles in the Python world (NativeProgram hands its probes to its api) too.
    assert _stream("python", native_class(program, game), program, faults) == python


def test_an_error_in_a_probe_observer_is_raised_not_swallowed():
    # (A probe reaches Python through a ctypes callback, which would print an exception and
    # go on: the world raises it once the call returns.)
    require_tool("g++")
    game = GAMES[0]
    program = compile_game(game, observable=True)
    cls = native_class(program, game)
    for engine in ("python", "native"):
        world = make_world(seed=3, engine=engine)

        def fail(_probe) -> None:
            raise LookupError("the observer failed")

        world.event_engine.add_probe_observer(fail)
        world.add_tile("a", cls(), pos=(0, 0))
        world.add_tile("b", cls(), pos=(0, 1))
        world.run_until(500)
        with pytest.raises(LookupError, match="the observer failed"):
            world.tile("a").program.send("Cargo(165)", 3)  # (its probes: at once, or ...)
            world.run_until(3000)  # (... when the core returns)


def test_only_the_explorers_native_build_can_be_driven():
    require_tool("g++")
    game = GAMES[0]
    assert not hasattr(native_class(compile_game(game), game), "MESSAGES")
    driven = native_class(compile_game(game, observable=True), game)
    assert driven.MESSAGES == program_class(compile_game(game, observable=True)).MESSAGES


DICE = '''
from blinkc.dsl import Game

game = Game("dice", randomize=True)
lost = game.field(range(0, 1000), default=0)
rolled = game.field(range(0, 1000), default=0)
Roll = game.message("Roll")


@game.on_bounce(Roll)
def roll_lost(t, face):
    t.lost = t.random(999)


@game.on_click
def roll(t):
    t.rolled = t.random(999)


@game.on_double_click
def share(t):
    t.send(Roll, 0)
'''


def test_what_a_driven_call_writes_to_the_api_holds_in_both_worlds(tmp_path):
    # A scenario's send runs the game's code outside a pass (a bounce at once, its handler
    # draws a random number): the draw must hold in the C++ core as in Python, or the next
    # draw repeats it (World.touch hands the api the call wrote to the engine).
    require_tool("g++")
    game = tmp_path / "dice.py"
    game.write_text(DICE)
    program = compile_game(game, observable=True)
    states = []
    for engine, cls in (("python", program_class(program)),
                        ("native", native_class(program, game))):
        world = make_world(seed=2, engine=engine)
        resolve = lambda spec, cls=cls: cls(**initial_state(program, spec.params, spec.name))  # noqa: E731
        layout = parse_layout("tile a at 0,0\n", "<test>")
        layout.build(world, resolve)
        parse_scenario("at 9s send a Roll 2\nat 10s click a\n", "<test>").apply(
            world, resolve, layout, start_ms=0.0)
        world.run_until(12_000)
        assert world.engine == engine
        states.append(world.tile("a").program.state())
    assert states[0]["lost"] != states[0]["rolled"]
    assert states[0] == states[1]
