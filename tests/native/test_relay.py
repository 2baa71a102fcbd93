"""The Relay sketch (sketches/Relay) chases a baton along a line of native tiles."""

from __future__ import annotations

from blinkc.blinklib.color import OFF, dim, makeColorHSB
from blinkc.world import World

from .native_helpers import Recorder, click

HOLD_MS, HUE_STEP = 300, 40


def hop_colour(hop: int) -> int:
    """The colour a tile shows when it takes the baton (full brightness)."""
    return dim(makeColorHSB(hop * HUE_STEP, 255, 255), 255)


def line_of_three(relay) -> tuple[World, list[Recorder]]:
    world = World(seed=11)
    recs = [Recorder(relay(), world) for _ in range(3)]
    # (0,0) face 1 touches (1,-1) face 4; (1,-1) face 1 touches (2,-2) face 4.
    for name, rec, pos in zip("abc", recs, [(0, 0), (1, -1), (2, -2)], strict=True):
        world.add_tile(name, rec, pos=pos)
    world.run_for(500)
    return world, recs


def lit(rec: Recorder):
    return rec.first(lambda p: p.pixels[0] != OFF)


def test_idle_tiles_are_dark_and_send_zero(relay):
    _, recs = line_of_three(relay)
    for rec in recs:
        assert rec.passes[-1].pixels == (OFF,) * 6
        assert rec.passes[-1].values == (0,) * 6


def test_a_click_sends_the_baton_down_the_line_with_a_new_hue_each_hop(relay):
    world, recs = line_of_three(relay)
    click(world, "a")
    world.run_for(3000)
    firsts = [lit(r) for r in recs]
    assert all(firsts), "every tile should light up once"
    assert [p.pixels[0] for p in firsts] == [hop_colour(1), hop_colour(2), hop_colour(3)]
    # Each tile holds for HOLD_MS before handing on.
    assert firsts[1].world_ms >= firsts[0].world_ms + HOLD_MS
    assert firsts[2].world_ms >= firsts[1].world_ms + HOLD_MS


def test_the_glow_fades_with_the_hold_timer(relay):
    world, recs = line_of_three(relay)
    click(world, "a")
    world.run_for(3000)
    start = lit(recs[0])
    glow = [p for p in recs[0].passes if p.pixels[0] != OFF]
    reds = [p.pixels[0] & 31 for p in glow]
    assert reds == sorted(reds, reverse=True) and reds[0] > reds[-1]
    # The last lit pass is the last one with millis() <= start + HOLD_MS (strict expiry).
    assert glow[-1].millis <= start.millis + HOLD_MS


def test_the_baton_goes_out_of_the_opposite_face_only_and_never_returns(relay):
    world, recs = line_of_three(relay)
    click(world, "a")
    world.run_for(3000)
    b_sent = {p.values for p in recs[1].passes}
    assert (0, 3, 0, 0, 0, 0) in b_sent  # hop 3, out of face 1 (entered by face 4)
    assert all(v[4] == 0 for v in b_sent)
    runs = 0
    previous = OFF
    for p in recs[0].passes:
        if p.pixels[0] != OFF and previous == OFF:
            runs += 1
        previous = p.pixels[0]
    assert runs == 1
    for rec in recs:
        assert rec.passes[-1].pixels == (OFF,) * 6
        assert rec.passes[-1].values == (0,) * 6
