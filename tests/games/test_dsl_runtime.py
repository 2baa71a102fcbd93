"""What the DSL promises at run time, on both backends: order, bounces, links, timers."""

from pathlib import Path

import pytest

from blinkc.testing import Cluster
from blinkc.world import Faults

from ..tools import require_tool

GAME = Path(__file__).parent / "fixtures" / "probe_game.py"
SMALL_QUEUE = Path(__file__).parent / "fixtures" / "small_queue_game.py"
PAIR = """
tile a at 0,0
tile b at 0,1
"""


@pytest.fixture(params=["python", "native"])
def backend(request):
    if request.param == "native":
        require_tool("g++")
    return request.param


@pytest.mark.parametrize("faults", [None, Faults(drop=0.1, jitter_ms=2, skew=0.1)],
                         ids=["clean", "faults"])
def test_back_to_back_messages_arrive_once_each_in_order(backend, faults):
    c = Cluster(GAME, PAIR, backend=backend, faults=faults, seed=4)
    c.click("a")  # a's face 3 (S) touches b
    c.settle()
    assert c.state("b")["received"] == 5 and c.state("b")["last"] == 5
    assert c.state("b")["in_order"] is True


def test_sending_to_an_empty_face_is_reported_to_the_sender(backend):
    c = Cluster(GAME, PAIR, backend=backend)
    c.click("a")
    c.settle()
    assert c.state("a")["bounced"] == 1  # the one sent out of face 0, where nobody is


def test_neighbours_joining_and_leaving(backend):
    # The face expires 200 ms after the lift; the neighbour counts as gone 3,840-4,096 ms
    # later (the default grace_ms=4000 in 256 ms ticks).
    c = Cluster(GAME, PAIR, backend=backend)
    assert c.state("a")["joined"] == 1 and c.state("b")["joined"] == 1
    c.lift("b")
    c.wait(3900)
    assert c.state("a")["left"] == 0  # still inside the grace period
    c.wait(500)
    assert c.state("a")["left"] == 1
    c.place("b", (0, 1))
    c.wait(500)
    assert c.state("a")["joined"] == 2


def test_a_neighbour_back_within_the_grace_period_keeps_its_link(backend):
    c = Cluster(GAME, PAIR, backend=backend)
    c.lift("b")
    c.wait(2000)
    c.place("b", (0, 1))
    c.wait(500)
    assert c.state("a")["left"] == 0 and c.state("a")["joined"] == 1


def test_a_neighbour_that_comes_back_starts_clean(backend):
    c = Cluster(GAME, PAIR, backend=backend)
    c.lift("b")
    c.wait(5000)
    c.place("b", (0, 1))
    c.wait(300)
    c.click("a")
    c.settle()
    assert c.state("b")["received"] == 5 and c.state("b")["in_order"] is True


def test_a_timer_fires_once_after_its_time(backend):
    c = Cluster(GAME, PAIR, backend=backend)
    c.long_press("a", 1300)  # long press fires at about 1.2 s while held
    c.wait(300)
    assert c.state("a")["rang"] == 0
    c.wait(400)
    assert c.state("a")["rang"] == 1
    c.wait(1000)
    assert c.state("a")["rang"] == 1


def test_a_payload_beyond_its_range_arrives_clamped_to_the_range(backend):
    # Num carries range(8); 3 x 5 = 15 would be another message's code: it arrives as 7.
    c = Cluster(GAME, "tile a at 0,0 received=5\ntile b at 0,1\n", backend=backend)
    c.double_click("a")
    c.settle()
    assert c.state("b")["last"] == 7 and c.state("b")["received"] == 1


def test_a_full_queue_bounces_the_message_instead_of_dropping_it(backend):
    # Twelve messages fit in the queue (QUEUE_LEN); the 13th and 14th are reported bounced.
    c = Cluster(GAME, PAIR, backend=backend)
    c.multi_click("a")
    c.settle()
    assert c.state("b")["received"] == 12 and c.state("a")["bounced"] == 2


@pytest.mark.parametrize("faults", [None, Faults(drop=0.1, jitter_ms=2, skew=0.1)],
                         ids=["clean", "faults"])
def test_a_game_with_a_short_queue_bounces_what_does_not_fit(backend, faults):
    # queue_len=3: of five messages sent in one pass, three wait in the queue and arrive once
    # each, in order; the 4th and 5th find it full and are reported bounced, none is lost.
    c = Cluster(SMALL_QUEUE, PAIR, backend=backend, faults=faults, seed=4)
    c.click("a")
    c.settle()
    assert c.state("b")["received"] == 3 and c.state("b")["last"] == 3
    assert c.state("b")["in_order"] is True
    assert c.state("a")["bounced"] == 2


PRESS_GAME = Path(__file__).parent / "fixtures" / "press_game.py"


def test_a_press_is_seen_at_once_and_every_press_of_a_double_click_counts(backend):
    c = Cluster(PRESS_GAME, PAIR, backend=backend)
    c.world.button("a", True)
    c.wait(40)  # still held: a press, no click yet
    assert c.state("a")["round"] == 1 and c.state("a")["floor"] == 0
    c.world.button("a", False)
    c.settle()
    assert c.state("a")["round"] == 1 and c.state("a")["floor"] == 1
    c.double_click("a")
    c.settle()
    assert c.state("a") == {**c.state("a"), "round": 3, "floor": 1, "doubles": 1}
    assert c.state("b") == {**c.state("b"), "round": 0, "floor": 0, "doubles": 1}


SHADOW = '''
from blinkc.dsl import Game, faces

game = Game("shadow", randomize=False)
hp = game.field(range(0, 8), default=0)
Hit = game.message("Hit", payload=range(4))


@game.on_click
def fire(t):
    for f in faces():
        t.send(Hit, f, 3)


@game.on_message(Hit)
def hit(t, face, hp):
    t.hp = hp  # the payload is named like the field it goes into
'''


def test_a_handler_parameter_named_like_a_field_does_not_hide_it(backend, tmp_path):
    # (The sketch once said `hp = hp;`: the parameter hid the field.)
    game = tmp_path / "shadow.py"
    game.write_text(SHADOW)
    c = Cluster(game, PAIR, backend=backend)
    c.click("a")
    c.settle()
    assert c.state("b")["hp"] == 3


DRAWS = '''
from blinkc.dsl import Game

game = Game("draws", randomize={source!r})
first = game.field(range(0, 1000), default=0)
second = game.field(range(0, 1000), default=0)


@game.on_click
def draw(t):
    t.first = t.random(999)
    t.second = t.random(999)
'''


def draws_after_a_click(backend, tmp_path, source, wait_ms):
    game = tmp_path / "draws.py"
    game.write_text(DRAWS.format(source=source))
    c = Cluster(game, "tile a at 0,0", backend=backend)
    c.wait(wait_ms)
    c.click("a")
    c.settle()
    return c.state("a")["first"], c.state("a")["second"]


def test_the_tiles_own_sequence_draws_the_same_whenever_the_player_clicks(backend, tmp_path):
    draws = {draws_after_a_click(backend, tmp_path, False, ms) for ms in (1000, 1001, 1007, 2500)}
    assert len(draws) == 1


def test_a_clock_mixed_sequence_draws_differently_for_a_click_a_pass_later(backend, tmp_path):
    # randomize="clock": the same sequence, mixed with the clock at each draw, so a game whose
    # draws follow the player's presses plays differently at every power-up. (Clicks that one
    # pass of the tile sees draw alike: the clock is read per pass, and a lone tile's pass
    # that sends its six probes back to back lasts about 57 ms, so these are 70 ms apart.)
    draws = [draws_after_a_click(backend, tmp_path, "clock", ms) for ms in (1000, 1070, 1140, 2500)]
    assert len(set(draws)) == 4
    assert all(a != b for a, b in draws)  # two draws of one pass differ too
