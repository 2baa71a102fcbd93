"""A flood reaches a tile that joined a cluster after it ran a flood of the same slot.

A tile remembers the faces that were gone when it entered a flood's slot, and for
2 s takes a wave of that slot over one of them for the same flood come round again
(protocol.py, flood_receive; docs/protocol.md). These are the floods that rule must not
swallow: a new one over such a face once the 2 s have passed — also 65.5 s later,
when the tile's byte clock (millis() >> 8) has come round to the same value.
"""

import pytest

from blinkc.testing import Cluster

GAME = "firmware/pirates_lasers.py"


# (The Python backend, whose handlers a test can count; the C++ renders the same IR, and
# the differential test holds the two backends to the same traces.)
@pytest.mark.parametrize("later_ms", [3_500, 65_536 + 300])
def test_a_flood_from_a_tile_put_down_later_runs_on_a_tile_that_ran_one_alone(later_ms):
    # a and b have never seen a flood: both start their first Reset in the same slot.
    ship = Cluster(GAME, """
        tile a at 0,0
        tile b at 3,0
    """)
    runs = {"a": 0, "b": 0}
    for name in runs:
        program = ship.program(name)
        real = program.f_reset

        def counted(real=real, name=name):
            runs[name] += 1
            real()

        program.f_reset = counted
    ship.multi_click("a")  # alone: every face of a is gone as it enters
    ship.settle()
    assert runs == {"a": 1, "b": 0}
    ship.wait(later_ms - 3_300)
    ship.lift("b")
    ship.place("b", (1, 0))
    ship.wait(3_000)  # the link stands for 3 s before b's flood starts: a is owed it
    ship.multi_click("b")
    ship.settle()
    assert runs == {"a": 2, "b": 1}
