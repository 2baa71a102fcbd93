"""The protocol explorer on a game with a flood confined to a group (tests/golden/games/fleet.py)."""

from pathlib import Path

from blinkc.explore import explore

FLEET = Path(__file__).resolve().parents[1] / "golden" / "games" / "fleet.py"


def test_a_group_of_every_tile_keeps_every_invariant(tmp_path):
    # Every tile a ship tile: the group is the whole cluster, so the explorer's own checks
    # (a flood reaches every tile once, ends, and the protocol settles) all apply to it.
    game = tmp_path / "fleet.py"
    game.write_text(FLEET.read_text().replace("game.field(bool, default=False, broadcast=True)",
                                              "game.field(bool, default=True, broadcast=True)"))
    report = explore(game, 2, clocks=["identical, in step", "±3 %"], random_runs=1, limit=3,
                     stop_at_first=False)
    assert report.violations == []
    assert report.floods > 20


def test_with_no_ship_tile_a_capture_stays_on_its_starter_and_keeps_every_invariant(world):
    # No ship tile: a Capture is owed to no tile but its starter (the monitor reads each
    # tile's predicate when a flood starts); it must not run elsewhere, run twice or hang.
    report = explore(FLEET, 2, clocks=["identical, in step"], random_runs=1, limit=3,
                     stop_at_first=False, world=world)
    assert report.violations == []
    assert report.floods > 20


def test_a_planted_engine_that_ignores_the_group_is_caught(tmp_path, monkeypatch, world):
    import blinkc.dsl.lowering as lowering
    from blinkc import games

    source = lowering.ENGINE_FILE.read_text()
    planted = (source.replace("not flood_within(s >> 1, face)", "not (flood_within(s >> 1, face) or True)")
                     .replace("not flood_within(k, f)", "not (flood_within(k, f) or True)"))
    assert planted != source
    mutated = tmp_path / "protocol.py"
    mutated.write_text(planted)
    monkeypatch.setattr(lowering, "ENGINE_FILE", mutated)
    monkeypatch.setattr(games, "_programs", {})
    monkeypatch.setattr(games, "_classes", {})
    report = explore(FLEET, 2, clocks=["identical, in step"], random_runs=1, limit=3,
                     stop_at_first=False, world=world)
    problems = [p for _run, ps in report.violations for p in ps]
    assert any("outside its group" in p for p in problems), problems
