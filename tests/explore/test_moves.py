"""The monitor's links follow the run's moves (blinkc/explore/links.py): a tile put down at
another place or rotation is judged on the links of each moment."""

from pathlib import Path

from blinkc.dsl.loader import compile_game
from blinkc.explore import Run, play, subject
from blinkc.explore.clusters import Tile
from blinkc.explore.links import Links
from blinkc.explore.monitor import Monitor

GAME = Path(__file__).resolve().parents[2] / "firmware" / "pirates_lasers.py"

# A line of three: t0 - t1 - t2 (each tile's face 2 to the next one's face 5).
LINE = (Tile("t0", (0, 0), 0), Tile("t1", (1, 0), 0), Tile("t2", (2, 0), 0))
# t2 goes to (0, 1), where nobody is: beside t0 (south of it) and t1 (south-west), turned.
AWAY = ((1005.0, "lift t2"), (7005.0, "place t2 at 0,1 rot 1"))


def test_links_follow_a_tile_put_down_elsewhere():
    links = Links(LINE, AWAY)
    assert links.at(("t1", 2), 0) == ("t2", 5)
    assert links.at(("t1", 2), 1005) is None and links.at(("t2", 5), 2000) is None
    # At (0, 1) turned to 1: its face 5 looks north, to t0's face 3; its face 0, to t1's 4.
    assert links.at(("t0", 3), 7005) == ("t2", 5) and links.at(("t2", 5), 9000) == ("t0", 3)
    assert links.at(("t1", 4), 7005) == ("t2", 0)
    assert links.at(("t1", 2), 9000) is None
    assert links.during(("t1", 2), 0, 9000) == {("t2", 5)}
    assert links.during(("t0", 3), 0, 9000) == {("t2", 5)}
    assert links.away["t2"] == [[1005.0, 7005.0]]
    # t2's face 5 touched t1's face 2 before, t0's face 3 after: another face.
    assert links.met_another(("t2", 5), 0, 9000)
    assert not links.met_another(("t2", 5), 7006, 9000)
    assert not links.met_another(("t0", 3), 0, 9000)   # (nobody there before)


def test_links_take_steps_at_one_moment_in_the_worlds_order():
    """A put-back and a new lift of one tile at the same moment (the random runs make them)
    happen as the world plays them (Run.scenario_text: by time, then text: the lift first),
    whatever order the run lists them in. (In the run's order the tile seemed away from
    4,185 ms, and Broadside's 3-tile exploration found floods "outside their group".)"""
    steps = ((2185.0, "lift t2"), (4185.0, "place t2 at 2,0 rot 0"), (4185.0, "lift t2"),
             (9185.0, "place t2 at 2,0 rot 0"))
    links = Links(LINE, steps)
    assert links.at(("t1", 2), 5000) == ("t2", 5)
    assert links.away["t2"] == [[2185.0, 4185.0], [9185.0, 9185.0]]


def test_links_of_a_lift_put_back_where_it_was_do_not_change():
    steps = ((1020.0, "lift t2"), (1400.0, "place t2 at 2,0 rot 0"))
    links = Links(LINE, steps)
    before = links.layouts[0]
    assert links.at(("t1", 2), 1200) is None
    assert all(links.at(k, 1400) == v for k, v in before.items())
    assert not any(links.met_another(k, 0, 2000) for k in before)
    assert links.away["t2"] == [[1020.0, 1400.0]]


def test_turns_and_moves_without_a_lift_count_as_away_for_an_instant():
    links = Links(LINE, ((2000.0, "rotate t1 +2"), (3000.0, "place t2 at 0,1"),
                         (4000.0, "rotate t1 1")))
    assert links.away == {"t0": [], "t1": [[2000.0, 2000.0], [4000.0, 4000.0]],
                          "t2": [[3000.0, 3000.0]]}
    assert links.at(("t1", 0), 2000) == ("t2", 5)     # turned by 2: face 0 looks south-east
    assert links.met_another(("t2", 5), 2000, 2000)   # (t1's face 0, not its face 2)
    # At rot 1, t1's face 4 looks north-west to t0, its face 3 south-west to t2 at (0, 1).
    assert links.at(("t1", 4), 4000) == ("t0", 2)
    assert links.at(("t1", 3), 4000) == ("t2", 1)


def _judge(steps) -> Monitor:
    """A monitor of LINE with the steps whose every face heard its neighbour every 100 ms."""
    monitor = Monitor(compile_game(GAME, observable=True), Run(LINE, steps))
    for t in LINE:
        for f in range(6):
            monitor.heard[(t.name, f)] = [ms / 10 for ms in range(0, 200_000, 1000)]
    return monitor


def test_a_bounce_is_judged_as_before_after_a_lift_put_back_where_it_was():
    # Put back where it was: a bounce of a message sent a second later, with the link
    # heard all along, is one while the same neighbour was there (as the static links
    # judged it); near the lift it is not.
    monitor = _judge(((1020.0, "lift t2"), (1400.0, "place t2 at 2,0 rot 0")))
    assert not monitor._flapped("t1", 2, 2400, 2500)
    assert monitor._flapped("t1", 2, 1300, 1500)


def test_a_face_that_met_another_may_bounce_for_a_while():
    # Turned within the grace: its faces may still be in the sessions they had with the
    # faces before; a bounce on them is no violation for the grace and JOIN_MS after.
    monitor = _judge(((1005.0, "lift t2"), (1080.0, "place t2 at 2,0 rot 3")))
    assert monitor._flapped("t1", 2, 2400, 2500)
    assert not monitor._flapped("t1", 2, 1080 + monitor.recent_ms + 1, 20_000)


def test_a_tile_put_down_elsewhere_has_every_message_accounted_for(world):
    # Messages both ways as t2 is lifted, then over every face of every tile once it is down
    # at its new place: each is delivered to the tile it faces then, or bounced.
    sends = [(at, f"send {t.name} Laser(1) {f}") for at in (1000.0, 9000.0)
             for t in LINE for f in range(6)]
    monitor = play(subject(GAME, world), Run(LINE, (*sends, *AWAY), seed=3))
    assert monitor.problems == []
    delivered = sum(len(d) for d in monitor.delivered.values())
    # (a Laser a tile gets goes on out of the opposite face: sent again)
    assert delivered + monitor.bounces == monitor.messages > len(sends)
    # t2 at its new place got the messages t0 and t1 sent it there, and they got its own.
    for key in (("t0", 3), ("t1", 4), ("t2", 5), ("t2", 0)):
        assert [m.sent_ms for m in monitor.delivered[key]] == [9000.0], key
    assert [m.sent_ms for m in monitor.delivered[("t1", 5)]] == [1000.0, 9000.0]
