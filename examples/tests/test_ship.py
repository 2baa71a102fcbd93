"""An example of testing a Blinks game in CI with blinkc.testing (copy it for your game).

Run with:  pytest examples/tests
"""

from pathlib import Path

from blinkc.testing import Cluster

HERE = Path(__file__).resolve().parent
GAME = HERE.parents[1] / "firmware" / "pirates_lasers.py"
SHIP = HERE.parent / "ship.layout"


def test_a_hazard_shot_damages_the_hulls_in_its_lines():
    ship = Cluster(GAME, SHIP)
    ship.click("z")          # z fires north, south-east and south-west
    ship.settle()            # until no message is in flight anywhere
    hp = {name: s["hp"] for name, s in ship.states().items() if s["kind"] == "HULL"}
    assert hp == {"h1": 4, "h2": 4, "h3": 5, "h4": 4, "h5": 5, "h6": 4, "h7": 5}


def test_repair_moves_one_hp_to_the_damaged_neighbour():
    ship = Cluster(GAME, """
        tile giver    at 0,0
        tile taker    at -1,0  hp=2 water=7
        tile other    at 0,1
    """)
    ship.click("giver")      # its Repair face (5) points north-west, at taker
    ship.settle()
    assert ship.state("giver")["hp"] == 4
    assert ship.state("taker")["hp"] == 3


def test_reset_restores_every_hull(cluster):
    # The `cluster` fixture comes with blinkc (a pytest plugin registered on install).
    ship = cluster(GAME, SHIP)
    ship.click("z")
    ship.settle()
    ship.multi_click("h7")
    ship.settle()
    assert all(s["hp"] == 5 for s in ship.states().values())
