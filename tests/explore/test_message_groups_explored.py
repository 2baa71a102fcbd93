"""The protocol explorer on messages confined to a group (tests/golden/games/fleet.py's
Signal): a send out of a face the group's predicate refuses must bounce at once, on its
sender, and never be delivered; every other send keeps every promise of a message."""

from dataclasses import replace
from pathlib import Path

import blinkc.dsl.lowering as lowering
from blinkc import games
from blinkc.explore import explore
from blinkc.ir.nodes import If

FLEET = Path(__file__).resolve().parents[1] / "golden" / "games" / "fleet.py"
SIGNAL = 'game.message("Signal", payload=range(0, 2), within=same_ship)'


def variant(tmp_path: Path, *changes: tuple[str, str]) -> Path:
    source = FLEET.read_text()
    for old, new in changes:
        assert old in source
        source = source.replace(old, new)
    game = tmp_path / "fleet.py"
    game.write_text(source)
    return game


def test_a_group_of_every_tile_keeps_every_promise_of_a_message(tmp_path):
    # Every tile a ship tile: every Signal to a neighbour is inside its group and crosses as
    # any message (one out of a face nobody ever touched is not: no ship was heard there).
    game = variant(tmp_path, ("game.field(bool, default=False, broadcast=True)",
                              "game.field(bool, default=True, broadcast=True)"))
    report = explore(game, 2, clocks=["identical, in step", "±3 %"], random_runs=1, limit=3,
                     stop_at_first=False)
    assert report.violations == []
    assert report.messages > report.outside + 300


def test_with_no_ship_tile_every_signal_bounces_at_once_and_nothing_else_breaks(world):
    report = explore(FLEET, 2, clocks=["identical, in step"], random_runs=1, limit=3,
                     stop_at_first=False, world=world)
    assert report.violations == []
    assert report.outside > 20
    assert any("sent outside their group" in line for line in report.lines())


def test_a_group_of_some_faces_bounces_exactly_the_sends_outside_it(tmp_path):
    # A predicate of the face alone: on every tile, faces 0..2 are in the group and 3..5 not,
    # whatever the neighbour there, so every cluster has sends both inside and outside.
    game = variant(tmp_path, (SIGNAL, SIGNAL.replace("same_ship", "low_faces")),
                   ("def same_ship(t, face):", "def low_faces(t, face):\n    return face < 3\n\n\n"
                                               "def same_ship(t, face):"))
    report = explore(game, 2, clocks=["identical", "±0.1 %"], random_runs=2, limit=3,
                     stop_at_first=False)
    assert report.violations == []
    assert report.outside > 10 and report.messages > report.outside + 100


def plant(monkeypatch, branch: str) -> None:
    """send_grouped() that always takes one branch of its test of the group ("body": send,
    "orelse": bounce), whatever the group says."""
    real = lowering.generate_dispatch

    def planted(*args, **kwargs):
        out = []
        for f in real(*args, **kwargs):
            if f.name == "send_grouped":
                (test,) = f.body
                assert isinstance(test, If)
                f = replace(f, body=getattr(test, branch))
            out.append(f)
        return out

    monkeypatch.setattr(lowering, "generate_dispatch", planted)
    monkeypatch.setattr(games, "_programs", {})  # no game compiled with the real dispatch
    monkeypatch.setattr(games, "_classes", {})


def test_a_planted_dispatch_that_ignores_the_group_is_caught(monkeypatch, world):
    # The Signals outside the group are queued and delivered instead of bounced.
    plant(monkeypatch, "body")
    report = explore(FLEET, 2, clocks=["identical, in step"], random_runs=1, limit=3,
                     stop_at_first=False, world=world)
    problems = [p for _run, ps in report.violations for p in ps]
    assert any("outside its group" in p and "not bounced" in p for p in problems), problems
    assert any("outside its group" in p and "delivered" in p for p in problems), problems


def test_a_planted_dispatch_that_bounces_inside_the_group_is_caught(monkeypatch, tmp_path,
                                                                   world):
    # Every tile a ship: the sends inside the group bounce without going out.
    plant(monkeypatch, "orelse")
    game = variant(tmp_path, ("game.field(bool, default=False, broadcast=True)",
                              "game.field(bool, default=True, broadcast=True)"))
    report = explore(game, 2, clocks=["identical, in step"], random_runs=1, limit=1, world=world)
    problems = [p for _run, ps in report.violations for p in ps]
    assert any("did not send code" in p and "inside its group" in p for p in problems), problems


FREIGHT = Path(__file__).resolve().parents[1] / "games" / "fixtures" / "freight_game.py"


def test_a_wide_message_of_a_group_keeps_every_promise(tmp_path):
    # Every tile aboard: every Cargo is inside its group, and arrives whole or bounces.
    game = tmp_path / "freight.py"
    game.write_text(FREIGHT.read_text().replace("game.field(bool, default=False, broadcast=True)",
                                                "game.field(bool, default=True, broadcast=True)"))
    report = explore(game, 2, clocks=["identical", "±3 %"], random_runs=1, limit=2,
                     stop_at_first=False)
    assert report.violations == []
    assert report.values > 5 and report.outside == 0


def test_a_wide_message_outside_its_group_bounces_at_once():
    # No tile aboard: no Cargo goes out, none of its data codes either; each bounces.
    report = explore(FREIGHT, 2, clocks=["identical, in step"], random_runs=1, limit=2,
                     stop_at_first=False)
    assert report.violations == []
    assert report.outside == report.messages > 20 and report.values == 0
