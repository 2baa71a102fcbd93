"""The Spinner sketch (sketches/Spinner) runs natively and does what its source says."""

from __future__ import annotations

from blinkc.blinklib.color import BLUE, GREEN, RED, YELLOW, dim
from blinkc.world import World

from .native_helpers import Recorder, click

READY, SPINNING, TAG, IT = 1, 2, 3, 4
SPIN_MS, STEP_MS = 600, 50
IDLE_LOOK = dim(BLUE, 64)


def lone_spinner(spinner) -> tuple[World, Recorder]:
    world = World(seed=3)
    rec = Recorder(spinner(), world)
    world.add_tile("a", rec, pos=(0, 0))
    world.run_for(500)
    return world, rec


def test_idle_tile_sends_ready_and_glows_dim_blue(spinner):
    _, rec = lone_spinner(spinner)
    last = rec.passes[-1]
    assert last.values == (READY,) * 6
    assert last.pixels == (IDLE_LOOK,) * 6


def test_a_click_spins_then_points_at_the_first_random_face(spinner):
    world, rec = lone_spinner(spinner)
    click(world, "a")
    world.run_for(1500)
    spinning = rec.first(lambda p: p.values == (SPINNING,) * 6)
    assert spinning is not None
    assert RED in spinning.pixels
    # random(5) from power-up starts 1, 4, 2, ...: the pointer rests on face 1.
    assert rec.passes[-1].values == (READY, TAG, READY, READY, READY, READY)
    assert rec.passes[-1].pixels[1] == RED


def test_spin_ends_on_the_first_pass_after_its_timer_expires(spinner):
    world, rec = lone_spinner(spinner)
    click(world, "a")
    world.run_for(1500)
    start = rec.first(lambda p: p.values == (SPINNING,) * 6)
    landed = rec.first(lambda p: TAG in p.values)
    assert start is not None and landed is not None
    before = rec.passes[rec.passes.index(landed) - 1]
    # Timer.isExpired() is strict: millis() > set time + SPIN_MS.
    assert landed.millis > start.millis + SPIN_MS >= before.millis
    assert before.values == (SPINNING,) * 6


def test_the_pointer_steps_one_face_each_time_the_step_timer_expires(spinner):
    world, rec = lone_spinner(spinner)
    click(world, "a")
    world.run_for(1500)
    spin = [p for p in rec.passes if p.values == (SPINNING,) * 6]
    pointer = [p.pixels.index(RED) for p in spin]
    moves = [i for i in range(1, len(spin)) if pointer[i] != pointer[i - 1]]
    assert moves, "the pointer never moved"
    last_set = spin[0].millis
    for i in moves:
        assert pointer[i] == (pointer[i - 1] + 1) % 6
        assert spin[i].millis > last_set + STEP_MS >= spin[i - 1].millis
        last_set = spin[i].millis


def test_ten_spins_follow_the_sdk_random_sequence(spinner):
    world, rec = lone_spinner(spinner)
    landed = []
    for _ in range(10):
        click(world, "a")
        world.run_for(1200)
        landed.append(rec.passes[-1].values.index(TAG))
    assert landed == [1, 4, 2, 2, 4, 3, 0, 0, 0, 1]


def test_the_pointed_at_neighbour_is_tagged_and_the_pointer_turns_green(spinner):
    world = World(seed=5)
    a, b = Recorder(spinner(), world), Recorder(spinner(), world)
    world.add_tile("a", a, pos=(0, 0))
    world.add_tile("b", b, pos=(1, -1))  # a's face 1 touches b's face 4
    world.run_for(500)
    assert b.passes[-1].pixels == (IDLE_LOOK,) * 6
    click(world, "a")
    world.run_for(1500)
    assert b.passes[-1].pixels == (YELLOW,) * 6
    assert b.passes[-1].values == (IT,) * 6
    assert a.passes[-1].pixels[1] == GREEN
    assert a.passes[-1].values[1] == TAG
