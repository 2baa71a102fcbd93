"""The generated C++ (run natively) and the generated Python agree exactly on random scenarios.

Each case runs twice in the same emulated world: once with every tile running
the Python backend's program, once with the C++ backend's, compiled for this
host. The traces (face values sent and received, expiry, colours, game state)
must be identical line for line. A failure prints a reproducer.
"""

import os
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from blinkc.differential import Case, cases, compare, reproducer
from blinkc.games import load_program

from ..tiers import tiered
from ..tools import require_tool

GAME = Path(__file__).resolve().parents[2] / "firmware" / "pirates_lasers.py"
#: The flagship's cases in the long tier (BLINKC_DIFFERENTIAL_RUNS sets it) and in the default
#: tier; the smaller test games get a fifth of them, the games without messages a twentieth.
RUNS = int(os.environ.get("BLINKC_DIFFERENTIAL_RUNS", "1000"))
DEFAULT_RUNS = 100
FLAGSHIP = tiered(DEFAULT_RUNS, RUNS)
FEWER = tiered(DEFAULT_RUNS // 5, max(RUNS // 5, 20))
FEWEST = tiered(DEFAULT_RUNS // 10, max(RUNS // 20, 10))


@pytest.fixture(scope="module", autouse=True)
def _gxx():
    require_tool("g++")


def _assert_agree(game: Path, strategy, runs: int) -> None:
    """`runs` cases of `strategy` (the same ones each run) play alike on both backends."""

    @settings(max_examples=runs, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(case=strategy)
    def agree(case):
        difference = compare(game, case)
        assert difference is None, f"{difference}\n\nReproduce with:\n{reproducer(game, case)}"

    agree()


@FLAGSHIP
def test_python_and_native_backends_agree(size):
    _assert_agree(GAME, cases(load_program(GAME)), size)


GAMES = Path(__file__).resolve().parents[1] / "golden" / "games"
BEACON, TALLY, FLEET = GAMES / "beacon.py", GAMES / "tally.py", GAMES / "fleet.py"
CONVOY = GAMES / "convoy.py"


@FEWER
def test_backends_agree_on_a_game_with_payloads_timers_and_signed_fields(size):
    _assert_agree(BEACON, cases(load_program(BEACON)), size)


@FEWER
def test_backends_agree_on_a_game_with_per_face_fields_and_a_short_queue(size):
    _assert_agree(TALLY, cases(load_program(TALLY)), size)


@FEWER
def test_backends_agree_on_a_game_with_a_flood_confined_to_a_group(size):
    _assert_agree(FLEET, cases(load_program(FLEET)), size)


def _signalling(case: Case) -> Case:
    """The case with ship tiles and sea in turn (where the case sets no ship=) and a
    multi-click on every tile at its end, after whatever else it does: fleet.py's Hail, and
    its Signal, a message confined to a ship, sent inside and outside it (a long press may
    have made a tile a ship or sea meanwhile)."""
    tiles = [(name, pos, rot, {"ship": i % 2 == 0, **settings} if "ship" not in settings
              else settings) for i, (name, pos, rot, settings) in enumerate(case.tiles)]
    tiles = [(name, pos, rot, {k: int(v) for k, v in settings.items()})
             for name, pos, rot, settings in tiles]
    at = case.run_ms - 2000 + 100
    steps = list(case.steps)
    for name, _pos, _rot, _settings in tiles:
        steps.append((at, "multi", name, (3,)))
        at += 3 * 80 + 2 * 150 + 60
    return replace(case, tiles=tiles, steps=steps, run_ms=at + 2000)


@FEWER
def test_backends_agree_on_a_game_with_a_message_confined_to_a_group(size):
    _assert_agree(FLEET, cases(load_program(FLEET)).map(_signalling), size)


WHAM = Path(__file__).resolve().parents[2] / "firmware" / "wham.py"


@FEWER
def test_backends_agree_on_wham_with_presses_five_floods_and_a_message(size):
    _assert_agree(WHAM, cases(load_program(WHAM)), size)


@FEWER
def test_backends_agree_on_a_game_with_wide_messages_flood_values_and_gathers(size):
    _assert_agree(CONVOY, cases(load_program(CONVOY)), size)


def test_idle_tiles_draw_the_same_colours_on_both_backends():
    # Colours of idle tiles (their loop() skipped) are computed on demand by the display hook.
    from blinkc.testing import Cluster

    ships = [Cluster(GAME, Path(__file__).resolve().parents[2] / "examples" / "ship.layout",
                     backend=b, seed=2) for b in ("python", "native")]
    for ship in ships:
        ship.click("z")
        ship.settle()
        ship.wait(700)
    assert all(t.skipped for t in ships[1].world.tiles)
    for name in ships[0].names():
        assert ships[0].colors(name) == ships[1].colors(name), name


BROADSIDE = Path(__file__).resolve().parents[2] / "firmware" / "broadside.py"


@FEWER
def test_backends_agree_on_broadside_with_groups_gathers_flood_values_and_per_face_fields(size):
    _assert_agree(BROADSIDE, cases(load_program(BROADSIDE)), size)


FLEET_COMBOS = Path(__file__).resolve().parents[2] / "firmware" / "fleet_combos.py"


@FEWER
def test_backends_agree_on_fleet_combos_with_a_wide_message_two_gathers_and_per_face_fields(size):
    _assert_agree(FLEET_COMBOS, cases(load_program(FLEET_COMBOS)), size)


CORPUS = Path(__file__).resolve().parents[2] / "bench" / "corpus"
NEIGHBORS, BLINKER = CORPUS / "neighbors.py", CORPUS / "blinker.py"


@FEWEST
def test_backends_agree_on_a_game_that_only_broadcasts(size):
    _assert_agree(NEIGHBORS, cases(load_program(NEIGHBORS)), size)


@FEWEST
def test_backends_agree_on_a_game_with_a_timer_and_no_protocol(size):
    _assert_agree(BLINKER, cases(load_program(BLINKER)), size)
