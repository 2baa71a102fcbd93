"""Values wider than a code, on both backends: a wide message arrives once with its value
intact or bounces, a flood's value reaches every tile, a gather brings back the combination
of every tile's value (tests/golden/games/convoy.py; docs/dsl.md, docs/protocol.md)."""

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blinkc.testing import Cluster
from blinkc.world import Faults
from blinkc.world.infrared import LINKING_SKEW

from ..tools import require_tool

GAME = Path(__file__).resolve().parents[1] / "golden" / "games" / "convoy.py"
# A triangle a-b-c with d beyond c: a gather's wave meets itself (a-b-c) and goes on (d).
CONVOY = """
tile a at 0,0 cargo=200
tile b at 0,1 cargo=13
tile c at 1,0 cargo=77
tile d at 2,0 cargo=5
"""
CARGO = {"a": 200, "b": 13, "c": 77, "d": 5}
FAULTS = Faults(drop=0.1, jitter_ms=2, skew=LINKING_SKEW)


@pytest.fixture(params=["python", "native"])
def backend(request):
    if request.param == "native":
        require_tool("g++")
    return request.param


def field(c: Cluster, name: str) -> dict[str, object]:
    return {n: c.state(n)[name] for n in c.names()}


@pytest.mark.parametrize("faults", [None, FAULTS], ids=["clean", "faults"])
def test_a_wide_message_arrives_once_with_its_value(every_face, backend, faults):
    # Out of every face (under loss a neighbour can go unheard for 200 ms just when the
    # player clicks, and convoy.py then sends it nothing): the neighbours get the value
    # once each, and every face with nobody there bounces.
    c = Cluster(every_face, CONVOY, backend=backend, faults=faults, seed=7)
    c.click("a")  # 200 to each neighbour: b and c
    c.settle()
    assert field(c, "got") == {"a": 0, "b": 200, "c": 200, "d": 0}
    assert field(c, "gifts") == {"a": 0, "b": 1, "c": 1, "d": 0}
    c.click("d")  # 5 to c
    c.settle()
    c.click("c")  # 77 to a, b and d
    c.settle()
    assert field(c, "got") == {"a": 77, "b": 77, "c": 5, "d": 77}
    assert field(c, "gifts") == {"a": 1, "b": 2, "c": 2, "d": 1}
    assert field(c, "returned") == {"a": 4, "b": 0, "c": 3, "d": 5}  # the faces with nobody


@pytest.mark.parametrize("after_ms", [0, 15, 40, 80])
def test_a_wide_message_cut_short_bounces_and_never_arrives_in_part(backend, after_ms):
    # b goes away while a's value is crossing: b gets all of it or none, and a hears of a
    # message that did not arrive (a bounce).
    c = Cluster(GAME, "tile a at 0,0 cargo=200\ntile b at 0,1\n", backend=backend, seed=3)
    c.click("a")
    a = next(t for t in c.world.tiles if t.name == "a")
    for _ in range(100):  # until the SDK reports the click and a starts sending (~0.3 s)
        if not a.program.idle(a.api):
            break
        c.wait(5)
    assert not a.program.idle(a.api), "a never sent"
    c.wait(after_ms)
    c.lift("b")
    c.wait(6000)
    got, gifts, returned = c.state("b")["got"], c.state("b")["gifts"], c.state("a")["returned"]
    assert (got, gifts) in ((0, 0), (200, 1))
    assert returned == 1 or gifts == 1


@pytest.mark.parametrize("faults", [None, FAULTS], ids=["clean", "faults"])
def test_a_flood_carries_its_value_to_every_tile_once(backend, faults):
    c = Cluster(GAME, CONVOY, backend=backend, faults=faults, seed=4)
    c.double_click("b")  # flag 0 -> 100
    c.settle()
    assert field(c, "flag") == {n: 100 for n in CARGO}
    assert field(c, "flags") == {n: 1 for n in CARGO}
    c.double_click("d")  # d's flag is 100 now: 200
    c.settle()
    assert field(c, "flag") == {n: 200 for n in CARGO}
    assert field(c, "flags") == {n: 2 for n in CARGO}


@pytest.mark.parametrize("faults", [None, FAULTS], ids=["clean", "faults"])
def test_a_gather_brings_back_the_sum_and_the_least_of_every_tile(backend, faults):
    c = Cluster(GAME, CONVOY, backend=backend, faults=faults, seed=5)
    c.long_press("c")
    c.settle()
    assert field(c, "total") == {"a": 0, "b": 0, "c": sum(CARGO.values()), "d": 0}
    c.multi_click("a")
    c.settle()
    assert field(c, "least") == {"a": 5, "b": 255, "c": 255, "d": 255}


def test_a_gather_of_a_lone_tile_is_its_own_value(backend):
    c = Cluster(GAME, "tile a at 0,0 cargo=42\n", backend=backend)
    c.long_press("a")
    c.settle()
    assert c.state("a")["total"] == 42


KINDS = '''
from blinkc.dsl import Game

game = Game("kinds", randomize=False)
cargo = game.field(range(0, 16), default=1)
crew = game.field(range(0, 64), default=0)
biggest = game.field(range(0, 16), default=0)
colours = game.field(range(0, 16), default=0)
Crew = game.gather("Crew", combine="count", payload=range(0, 64))
Biggest = game.gather("Biggest", combine="max", payload=range(0, 16))
Colours = game.gather("Colours", combine="or", payload=range(0, 16))


@game.on_click
def count(t):
    t.flood(Crew)


@game.on_flood_done(Crew)
def counted(t, total):
    t.crew = total


@game.on_double_click
def weigh(t):
    t.flood(Biggest)


@game.on_flood(Biggest)
def weight(t):
    return t.cargo


@game.on_flood_done(Biggest)
def weighed(t, total):
    t.biggest = total


@game.on_long_press
def paint(t):
    t.flood(Colours)


@game.on_flood(Colours)
def colour(t):
    return 1 << (t.cargo & 3)


@game.on_flood_done(Colours)
def painted(t, total):
    t.colours = total
'''


def test_count_max_and_or_gathers(backend, tmp_path):
    game = tmp_path / "kinds.py"
    game.write_text(KINDS)
    c = Cluster(game, "tile a at 0,0 cargo=9\ntile b at 0,1 cargo=2\ntile c at 1,0 cargo=12\n"
                      "tile d at 2,0 cargo=3\n", backend=backend, seed=6)
    c.click("a")
    c.double_click("b")
    c.long_press("d")
    c.settle()
    assert c.state("a")["crew"] == 4
    assert c.state("b")["biggest"] == 12
    assert c.state("d")["colours"] == (1 << 1) | (1 << 2) | (1 << 0) | (1 << 3)


@pytest.fixture(scope="module")
def every_face(tmp_path_factory):
    """The convoy, giving out of every face: under loss a face can have heard nothing for
    200 ms just when a player clicks (t.has_neighbor is then False)."""
    game = tmp_path_factory.mktemp("every_face") / "convoy.py"
    source = GAME.read_text()
    test = "        if t.has_neighbor(f):\n            t.send(Cargo, f, t.cargo)\n"
    assert test in source
    game.write_text(source.replace(test, "        t.send(Cargo, f, t.cargo)\n"))
    return game


@settings(max_examples=12, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(value=st.integers(0, 255), seed=st.integers(0, 2**16), drop=st.sampled_from([0, 0.2]))
def test_any_cargo_crosses_intact(every_face, value, seed, drop):
    c = Cluster(every_face, f"tile a at 0,0 cargo={value}\ntile b at 0,1\n", seed=seed,
                faults=Faults(drop=drop))
    c.click("a")
    c.settle()
    assert (c.state("b")["got"], c.state("b")["gifts"]) == (value, 1)


SHIP_HITS = '''
from blinkc.dsl import Game

game = Game("hits", randomize=False)
ship = game.field(bool, default=False, broadcast=True)
hits = game.field(range(0, 8), default=0)
counted = game.field(range(0, 64), default=0)
sunk = game.field(range(0, 1000), default=0)


def same_ship(t, face):
    return t.ship and t.neighbor(face).ship


Hits = game.gather("Hits", combine="sum", payload=range(0, 64), within=same_ship)
Sunk = game.flood("Sunk", payload=range(0, 1000), within=same_ship)


@game.on_click
def count(t):
    t.flood(Hits)


@game.on_flood(Hits)
def my_hits(t):
    return t.hits


@game.on_flood_done(Hits)
def counted_hits(t, total):
    t.counted = total


@game.on_double_click
def sink(t):
    t.flood(Sunk, 321)


@game.on_flood(Sunk)
def sunk_by(t, value):
    t.sunk = value
'''


def test_a_gather_and_a_valued_flood_confined_to_a_ship(backend, tmp_path):
    # Broadside's case: the hits of one ship, counted across its tiles; a ship's value
    # travelling with a flood over its tiles only. d is sea; e a ship beyond it.
    game = tmp_path / "hits.py"
    game.write_text(SHIP_HITS)
    layout = ("tile a at 0,0 ship=true hits=1\ntile b at 0,1 ship=true hits=2\n"
              "tile c at 1,1 ship=true hits=4\ntile d at 0,2 hits=7\ntile e at 0,3 ship=true hits=7\n")
    c = Cluster(game, layout, backend=backend, seed=8)
    c.click("b")
    c.double_click("a")
    c.settle()
    assert c.state("b")["counted"] == 1 + 2 + 4
    assert {n: c.state(n)["sunk"] for n in c.names()} == {"a": 321, "b": 321, "c": 321,
                                                          "d": 0, "e": 0}


WIDE_SUMS = '''
from blinkc.dsl import Game

game = Game("wide_sums", randomize=False)
cargo = game.field(range(0, 65536), default=1)
points = game.field(range(0, 65536), default=0)
ships = game.field(range(0, 65536), default=0)
Points = game.gather("Points", combine="sum", payload=range(0, 65536))
Ships = game.gather("Ships", combine="sum", payload=range(0, 65536))


@game.on_click
def count(t):
    t.flood(Points)


@game.on_flood(Points)
def my_cargo(t):
    return t.cargo


@game.on_flood_done(Points)
def counted(t, total):
    t.points = total


@game.on_double_click
def count_ships(t):
    t.flood(Ships)


@game.on_flood(Ships)
def one(t):
    return 1


@game.on_flood_done(Ships)
def shipped(t, total):
    t.ships = total
'''


@pytest.mark.parametrize("cargo", [(20000, 30000, 5000), (40000, 30000, 5)], ids=["fits", "stops"])
def test_a_sum_over_the_whole_16_bits_stops_at_the_top(backend, tmp_path, cargo):
    # Two sums of payload 0..65,535 (the engine adds them in 16 bits and tells a wrapped sum by
    # its coming out below what it added to, one combination for both gathers).
    game = tmp_path / "wide_sums.py"
    game.write_text(WIDE_SUMS)
    a, b, d = cargo
    c = Cluster(game, f"tile a at 0,0 cargo={a}\ntile b at 0,1 cargo={b}\ntile d at 1,0 cargo={d}\n",
                backend=backend, seed=3)
    c.click("a")
    c.double_click("d")
    c.settle()
    assert c.state("a")["points"] == min(a + b + d, 65535)
    assert c.state("d")["ships"] == 3


def test_a_gather_handler_may_be_named_like_the_local_that_keeps_its_value(backend, tmp_path):
    # on_flood() keeps a gather handler's value in a local `mine`; a handler called `mine`
    # made the sketch `uint16_t mine = mine();`, which does not compile.
    game = tmp_path / "hits.py"
    game.write_text(SHIP_HITS.replace("def my_hits(t):", "def mine(t):"))
    layout = "tile a at 0,0 ship=true hits=1\ntile b at 0,1 ship=true hits=2\n"
    c = Cluster(game, layout, backend=backend, seed=8)
    c.click("b")
    c.settle()
    assert c.state("b")["counted"] == 1 + 2
