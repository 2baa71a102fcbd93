"""Every rule and decision of Pirates & Lasers, played in the emulator and checked by the referee.

Positions are axial (q, r) on the flat-top lattice; from a tile, N is (0,-1),
NE (1,-1), SE (1,0), S (0,1), SW (-1,1), NW (-1,0). With rotation 0 a tile's
face f points in direction f; a Hull's Repair face is 5 (NW).
"""

import pytest

from blinkc.blinklib.color import channels
from blinkc.dsl import RED, WHITE

from .pirates import Game

H, Z, R = "HULL", "HAZARD", "REDIRECTOR"


# --- setup ---------------------------------------------------------------------
def test_double_click_while_alone_cycles_hull_hazard_redirector_hull():
    g = Game([("a", (0, 0), 0, {"hp": 2})])
    seen = []
    for _ in range(3):
        g.act("a", "double_click")
        g.check()
        seen.append((g.state("a")["kind"], g.state("a")["hp"]))
    assert seen == [("HAZARD", 5), ("REDIRECTOR", 5), ("HULL", 5)]


def test_double_click_with_a_neighbour_does_nothing():
    g = Game([("a", (0, 0), 0, {}), ("b", (0, 1), 0, {})])
    g.act("a", "double_click")
    g.check()
    assert g.state("a")["kind"] == "HULL"


# --- repair ----------------------------------------------------------------------
def test_repair_into_a_damaged_hull_moves_one_hp():
    g = Game([("a", (0, 0), 0, {}), ("b", (-1, 0), 0, {"hp": 3, "water": 3})])
    g.act("a")
    g.check()
    assert (g.state("a")["hp"], g.state("b")["hp"]) == (4, 4)


def test_repair_into_a_full_hull_is_lost():
    g = Game([("a", (0, 0), 0, {}), ("b", (-1, 0), 0, {})])
    g.act("a")
    g.check()
    assert (g.state("a")["hp"], g.state("b")["hp"]) == (4, 5)


def test_repair_into_a_hazard_is_lost_and_does_no_hidden_damage():
    g = Game([("a", (0, 0), 0, {}), ("z", (-1, 0), 0, {"kind": Z})])
    g.act("a")
    g.check()
    assert g.state("a")["hp"] == 4 and g.state("z")["hp"] == 5


def test_repair_into_empty_water_is_lost():
    g = Game([("a", (0, 0), 0, {}), ("b", (0, 1), 0, {"hp": 2})])
    g.act("a")  # face 5 points NW: nobody there
    g.check()
    assert (g.state("a")["hp"], g.state("b")["hp"]) == (4, 2)


def test_repair_follows_the_tiles_rotation():
    # Rotated by 2, face 5 points in direction 1 (NE).
    g = Game([("a", (0, 0), 2, {}), ("b", (1, -1), 0, {"hp": 1, "water": 15})])
    g.act("a")
    g.check()
    assert g.state("b")["hp"] == 2


def test_nothing_but_a_reset_heals_a_flooded_hull():
    # A Hull at 0 HP has flooded: a repair into it is lost (only a reset brings it back).
    g = Game([("a", (0, 0), 0, {}), ("b", (-1, 0), 0, {"hp": 0, "water": 31})])
    g.act("a")
    g.check()
    assert (g.state("a")["hp"], g.state("b")["hp"]) == (4, 0)
    g.act("b", "multi_click")
    g.check()
    assert g.state("b")["hp"] == 5


def test_a_hull_can_sink_itself_and_its_hp_still_goes_to_the_neighbour():
    g = Game([("a", (0, 0), 0, {"hp": 1, "water": 15}), ("b", (-1, 0), 0, {"hp": 2, "water": 7}),
              ("c", (0, 1), 0, {})])
    g.act("a")
    g.check()
    assert g.state("a")["hp"] == 0 and g.state("b")["hp"] == 3
    assert all(g.state(n)["sunk"] for n in "abc")


def test_a_zero_hp_hull_cannot_be_pressed():
    # Defect 2 of the original sketch: a 0-HP hull gave HP it did not have.
    g = Game([("a", (0, 0), 0, {"hp": 0, "water": 31}), ("b", (-1, 0), 0, {"hp": 2, "water": 7})])
    g.act("a")
    g.check()
    assert (g.state("a")["hp"], g.state("b")["hp"]) == (0, 2)


# --- lasers ------------------------------------------------------------------------
def test_beams_go_out_of_three_alternate_faces_through_hulls_and_hazards():
    # z fires N, SE and SW. North: two hulls, a hazard, a hull. SE: one hull. SW: open water.
    g = Game([("z", (0, 0), 0, {"kind": Z}),
              ("n1", (0, -1), 0, {}), ("n2", (0, -2), 3, {}), ("nz", (0, -3), 1, {"kind": Z}),
              ("n4", (0, -4), 0, {}), ("se", (1, 0), 5, {})])
    g.act("z")
    g.check()
    assert [g.state(n)["hp"] for n in ("n1", "n2", "n4", "se")] == [4, 4, 4, 4]
    assert g.state("nz")["hp"] == 5 and g.state("z")["hp"] == 5
    assert g.state("z")["orient"] == 1  # the red faces flipped


def test_the_red_faces_flip_after_each_shot():
    g = Game([("z", (0, 0), 0, {"kind": Z}), ("n", (0, -1), 0, {}), ("ne", (1, -1), 0, {})])
    g.act("z")   # fires N, SE, SW: hits n
    g.act("z")   # now fires NE, S, NW: hits ne
    g.check()
    assert (g.state("n")["hp"], g.state("ne")["hp"]) == (4, 4)
    assert g.state("z")["orient"] == 2


@pytest.mark.parametrize("orient, exit_pos", [
    (3, (-1, -1)),   # enters on its face 3 = o: leaves on o+2 = 5 (NW)
    (1, (1, -2)),    # enters on its face 3 = o+2: leaves on o = 1 (NE)
    (0, (0, -2)),    # enters elsewhere: straight on, out of face 0 (N)
])
def test_a_redirector_bends_or_passes_a_beam_then_turns(orient, exit_pos):
    targets = [("t_nw", (-1, -1)), ("t_ne", (1, -2)), ("t_n", (0, -2))]
    tiles = [("z", (0, 0), 0, {"kind": Z}), ("r", (0, -1), 0, {"kind": R, "orient": orient})]
    tiles += [(n, p, 0, {}) for n, p in targets]
    g = Game(tiles)
    g.act("z")
    g.check()
    hit = [p for n, p in targets if g.state(n)["hp"] == 4]
    assert hit == [exit_pos]
    assert g.state("r")["orient"] == (orient + 1) % 6  # it turned after the beam passed


def test_pressing_a_redirector_turns_it():
    g = Game([("r", (0, 0), 0, {"kind": R, "orient": 5}), ("h", (0, 1), 0, {})])
    g.act("r")
    g.check()
    assert g.state("r")["orient"] == 0


def test_two_beams_of_one_shot_into_one_hull_deal_two_damage():
    # Beam 0 goes N, is bent NE by r0 into h. Beam 1 goes SE and is bent round by r1, r2, r3 into h.
    g = Game([("z", (0, 0), 0, {"kind": Z}),
              ("r0", (0, -1), 0, {"kind": R, "orient": 1}), ("h", (1, -2), 0, {}),
              ("r1", (1, 0), 0, {"kind": R, "orient": 5}), ("r2", (2, -1), 0, {"kind": R, "orient": 4}),
              ("r3", (2, -2), 0, {"kind": R, "orient": 3})])
    g.act("z")
    g.check()
    assert g.state("h")["hp"] == 3


def test_a_ring_of_redirectors_cannot_make_a_beam_circulate():
    # Six redirectors round a Hull. The top one bends the beam into the ring; the others are set
    # to pass it on round. A beam can only come back to a tile it crossed after four bends, so
    # it ends at the Redirector that would bend it a fourth time (r3): r0..r3 turn once each,
    # r4 and r5 never see it.
    ring = [(0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0)]
    tiles = [("z", (0, -2), 0, {"kind": Z, "orient": 3}), ("h", (0, 0), 0, {})]
    tiles += [(f"r{i}", p, 0, {"kind": R, "orient": o})
              for i, (p, o) in enumerate(zip(ring, [0, 3, 4, 5, 0, 1], strict=True))]
    g = Game(tiles)
    g.act("z")
    g.check()
    assert any("fourth bend" in line for s in g.expected for line in s.log)  # the rule was needed
    assert [g.state(f"r{i}")["orient"] for i in range(6)] == [1, 4, 5, 0, 0, 1]
    g.act("z")  # the ring, turned, sends the next shot elsewhere; it too must end
    g.check()


# --- sinking and reset ---------------------------------------------------------------
CHAIN = [(f"c{i}", (0, i), 0, {}) for i in range(6)]


def test_sinking_reaches_every_tile_of_the_ship():
    tiles = [("z", (0, -1), 0, {"kind": Z, "orient": 3})] + [
        (n, p, r, ({"hp": 1, "water": 15} if n == "c0" else s)) for n, p, r, s in CHAIN]
    g = Game(tiles)
    g.act("z")  # fires S into c0 (1 HP): it sinks; the beam goes on down the chain
    g.check()
    assert all(g.state(n)["sunk"] for n in g.pos)


def test_while_sunk_only_reset_does_anything():
    g = Game([("a", (0, 0), 0, {"hp": 1, "water": 15}), ("z", (0, 1), 0, {"kind": Z})])
    g.act("a")
    assert g.state("z")["sunk"]
    g.act("z")  # a sunk hazard does not fire
    g.act("a", "double_click")
    g.check()
    assert g.state("z")["orient"] == 0 and g.state("z")["shots"] == 0


def test_reset_reaches_every_tile_exactly_once():
    tiles = [(n, p, r, {"hp": 2, "water": 7}) for n, p, r, _ in CHAIN] + [
        ("z", (1, 2), 0, {"kind": Z, "orient": 2})]
    g = Game(tiles)
    counts = {}
    for name in g.pos:
        program = g.cluster.program(name)
        real = program.f_reset

        def counted(real=real, name=name):
            counts[name] = counts.get(name, 0) + 1
            real()

        program.f_reset = counted
    g.act("c5", "multi_click")
    g.check()
    assert counts == dict.fromkeys(g.pos, 1)
    assert all(g.state(n)["hp"] == 5 for n, *_ in CHAIN)
    assert g.state("z")["orient"] == 2  # orientations are kept


def test_reset_after_sinking_clears_the_sunk_state_everywhere():
    tiles = [("z", (0, -1), 0, {"kind": Z, "orient": 3})] + [
        (n, p, r, ({"hp": 1, "water": 15} if n == "c0" else s)) for n, p, r, s in CHAIN]
    g = Game(tiles)
    g.act("z")
    g.act("c4", "multi_click")
    g.check()
    assert not any(g.state(n)["sunk"] for n in g.pos)
    assert all(g.state(n)["hp"] == 5 for n, *_ in CHAIN)


# --- illegal positions (display) ---------------------------------------------------------
def hull_face0(g, name):
    return channels(g.cluster.colors(name)[0])


TAN = (25, 17, 8)
DEEP_ORANGE = (31, 8, 0)


def test_a_legal_hull_shows_tan():
    g = Game([("a", (0, 0), 0, {}), ("b", (0, 1), 0, {}), ("c", (1, 0), 0, {})])
    assert hull_face0(g, "a") == TAN


def test_illegal_because_alone():
    g = Game([("a", (0, 0), 0, {})])
    assert hull_face0(g, "a") == DEEP_ORANGE


def test_illegal_because_of_a_weak_link():
    g = Game([("a", (0, 0), 0, {}), ("b", (0, 1), 0, {})])  # touching by one edge only
    assert hull_face0(g, "a") == DEEP_ORANGE


def test_illegal_hazard_touching_no_hull():
    # A triangle (no weak link) of a Hazard, a Redirector and a Hazard: nobody touches a Hull.
    g = Game([("a", (0, 0), 0, {"kind": Z}), ("b", (0, 1), 0, {"kind": R}),
              ("c", (1, 0), 0, {"kind": Z})])
    assert [g.cluster.value(n, "illegal") for n in "abc"] == [True, True, True]
    # The same triangle with a Hull instead of c: legal.
    g2 = Game([("a", (0, 0), 0, {"kind": Z}), ("b", (0, 1), 0, {"kind": R}), ("c", (1, 0), 0, {})])
    assert [g2.cluster.value(n, "illegal") for n in "abc"] == [False, False, False]
    assert channels(g.cluster.colors("a")[0]) == channels(RED)  # its red faces still show


def test_illegal_position_turns_the_water_into_a_whirlpool():
    g = Game([("a", (0, 0), 0, {"kind": Z})])  # alone
    blues = []
    for _ in range(6):
        blues.append(channels(g.cluster.colors("a")[1])[2])
        g.cluster.wait(40)
    assert len(set(blues)) > 2  # the whirlpool churns fast (the slow wave barely moves in 200 ms)


def test_repair_shows_a_white_pulse():
    g = Game([("a", (0, 0), 0, {}), ("b", (-1, 0), 0, {"hp": 3, "water": 3}), ("c", (0, 1), 0, {})])
    g.cluster.click("a")
    g.cluster.wait(520)
    assert channels(g.cluster.colors("b")[4])[0] > 20  # lightened toward white
    assert channels(WHITE) == (31, 31, 31)


# --- a split ship ----------------------------------------------------------------------
SPLIT = [("z", (0, -1), 0, {"kind": Z, "orient": 3}), ("c0", (0, 0), 0, {"hp": 1, "water": 15}),
         ("c1", (1, -1), 0, {}), ("b0", (1, 0), 0, {"hp": 3, "water": 3}), ("b1", (0, 1), 0, {})]


@pytest.mark.parametrize("away_ms", [300, 1500, 6000], ids=["moments", "within-grace", "beyond-grace"])
def test_a_chunk_put_back_against_a_sunk_ship_sinks(away_ms):
    # b0 and b1 are taken away; z sinks the rest (its beam floods c0); b0 and b1 come back,
    # after a moment, within the links' grace, or after it: they sink too.
    g = Game(SPLIT)
    g.lift("b0")
    g.lift("b1")
    g.act("z")
    g.check()
    assert g.state("c0")["sunk"] and not g.state("b0")["sunk"]
    g.cluster.wait(away_ms)
    g.place("b0", (1, 0))
    g.place("b1", (0, 1))
    g.check()
    assert all(g.state(n)["sunk"] for n in g.pos)
    assert g.state("b0")["hp"] == 3  # sunk, not damaged


def test_a_chunk_put_against_another_face_of_a_sunk_ship_sinks():
    g = Game(SPLIT)
    g.lift("b1")
    g.act("z")
    g.place("b1", (-1, 0))  # beside c0 now, where it never was
    g.check()
    assert g.state("b1")["sunk"]
