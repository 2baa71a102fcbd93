"""A game with a single message code keeps its queue as a count per face (protocol.py,
ONE_CODE): the same promises as the queue of entries, on both backends. A full queue
bounces; a link that ends bounces what waited for it, once each; nothing waits past it."""

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blinkc.testing import Cluster
from blinkc.world import Faults

from ..tools import require_tool

BEAT = Path(__file__).parent / "fixtures" / "beat_game.py"
# b on a's face 3 (S), c on its face 0 (N)
THREE = "tile a at 0,0\ntile b at 0,1\ntile c at 0,-1\n"
PAIR = "tile a at 0,0\ntile b at 0,1\n"
#: The game without its bounce handler: nobody hears of bounces.
QUIET = ("@game.on_bounce(Beat)\ndef lost(t, face):\n    t.bounced += 1\n", "")


@pytest.fixture(params=["python", "native"])
def backend(request):
    if request.param == "native":
        require_tool("g++")
    return request.param


def test_the_queue_length_counts_every_face_together(backend):
    # queue_len=4 holds four messages in all, not four per face: three for b and one for c
    # go, and the last two for c find the queue full.
    c = Cluster(BEAT, THREE, backend=backend)
    c.click("a")
    c.settle()
    assert c.state("b")["received"] == 3
    assert c.state("c")["received"] == 1
    assert c.state("a")["bounced"] == 2


def test_a_link_that_ends_bounces_what_waited_for_it_once_each(backend):
    c = Cluster(BEAT, PAIR, backend=backend)
    c.double_click("a")
    c.lift("b")  # before the three can cross
    c.wait(5000)  # past the grace: the link ends
    assert c.state("a")["bounced"] + c.state("b")["received"] == 3
    assert c.state("a")["bounced"] >= 1
    c.place("b", (0, 1))
    c.wait(1000)
    received = c.state("b")["received"]
    c.double_click("a")  # the queue is empty again: all three fit and cross
    c.settle()
    assert c.state("b")["received"] == received + 3


def test_without_a_bounce_handler_what_waited_is_gone_with_the_link(backend, tmp_path):
    # Nobody hears of these bounces, so the count goes at once (queued_for[f] = 0): the new
    # neighbour gets none of the old messages, and the queue has room for four again.
    game = tmp_path / "beat_quiet.py"
    game.write_text(BEAT.read_text().replace(*QUIET))
    c = Cluster(game, PAIR, backend=backend)
    c.double_click("a")
    c.lift("b")
    c.wait(5000)
    before = c.state("b")["received"]
    c.place("b", (0, 1))
    c.wait(2000)
    assert c.state("b")["received"] == before
    c.double_click("a")
    c.settle()
    assert c.state("b")["received"] == before + 3


# --- the count per face against the queue of entries -------------------------------------------
# The same game with a second message that is never sent has two codes, so it keeps the queue
# of (face, code) entries; its face values are laid out alike (codes 0..2 and HELLO in two
# bits), so whatever the players do, both must send the same values at the same times and end
# in the same state: every record of their traces the same.
ENTRIES_GAME = BEAT.read_text().replace(
    'Beat = game.message("Beat")\n',
    'Beat = game.message("Beat")\nNever = game.message("Never")  # (never sent)\n').replace(
    "@game.on_bounce(Beat)", "@game.on_message(Never)\ndef never(t, face):\n    pass\n\n\n"
                             "@game.on_bounce(Beat)")
ACTIONS = st.sampled_from(["click", "double", "lift b", "place b", "lift c", "place c",
                           "turn c", "away b", "away c", "fire at b", "fire at c"])
WHERE = {"b": (0, 1), "c": (0, -1)}


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    """{(entries, bounces): game file}: the count per face and the queue of entries, each with
    and without a bounce handler (without, a link that ends drops the counts at once)."""
    folder = tmp_path_factory.mktemp("queues")
    out = {}
    for entries, text in ((False, BEAT.read_text()), (True, ENTRIES_GAME)):
        for bounces in (True, False):
            path = folder / f"{'entries' if entries else 'counts'}{'' if bounces else '_quiet'}" / "beat.py"
            path.parent.mkdir()
            path.write_text(text if bounces else text.replace(*QUIET))
            out[entries, bounces] = path
    return out


def _play(game, backend, script, seed, drop):
    c = Cluster(game, THREE, backend=backend, seed=seed, trace=True,
                faults=Faults(drop=drop, jitter_ms=2, skew=0.03) if drop else None)
    for action, wait_ms in script:
        if action in ("click", "double"):
            (c.click if action == "click" else c.double_click)("a")
            wait_ms += 400  # (the click window closes: the next press is a gesture of its own)
        elif action.startswith("fire at"):  # away while a fires: its link ends with Beats waiting
            name = action.split()[-1]
            c.lift(name)
            c.click("a")
            c.wait(5000)
            c.place(name, WHERE[name])
        else:
            verb, name = action.split()
            if verb in ("lift", "away"):
                c.lift(name)
            if verb == "away":
                c.wait(5000)  # past the grace: a's link with it ends
            if verb != "lift":
                c.place(name, WHERE[name], 3 if verb == "turn" else None)
        c.wait(wait_ms)
    c.wait(6000)  # past the grace: every link that ended has ended
    return c.world.trace.lines, c.states()


PLAYS = dict(script=st.lists(st.tuples(ACTIONS, st.integers(0, 4500)), max_size=6),
             seed=st.integers(0, 2**16), drop=st.sampled_from([0.0, 0.1, 0.3]),
             bounces=st.booleans(), backend=st.sampled_from(["native", "python"]))


def _same(games, script, seed, drop, bounces, backend):
    if backend == "native":
        require_tool("g++")
    assert _play(games[False, bounces], backend, script, seed, drop) == \
        _play(games[True, bounces], backend, script, seed, drop)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**PLAYS)
def test_the_count_per_face_sends_what_the_queue_of_entries_sends(games, script, seed, drop,
                                                                  bounces, backend):
    _same(games, script, seed, drop, bounces, backend)


@pytest.mark.long
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**PLAYS)
def test_the_count_per_face_sends_what_the_queue_of_entries_sends_at_length(
        games, script, seed, drop, bounces, backend):
    _same(games, script, seed, drop, bounces, backend)
