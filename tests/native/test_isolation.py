"""Tiles in one process never share a sketch's globals or statics."""

from __future__ import annotations

from blinkc.blinklib import Blinklib
from blinkc.world import World


def run_passes(program, api: Blinklib, n: int, start_ms: int = 100) -> None:
    for i in range(n):
        api.now = start_ms + 10 * i
        program.loop(api)


def test_globals_and_every_kind_of_static_are_per_tile(globals_sketch):
    a, b = globals_sketch(), globals_sketch()
    api_a, api_b = Blinklib(), Blinklib()
    api_a.now = api_b.now = 100
    a.setup(api_a)
    b.setup(api_b)
    run_passes(a, api_a, 5)
    run_passes(b, api_b, 2)
    # global, function-local static, inline member static, template static member
    assert api_a.out_value[:4] == [5, 5, 5, 5]
    assert api_b.out_value[:4] == [2, 2, 2, 2]
    run_passes(a, api_a, 1, start_ms=200)
    assert api_a.out_value[:4] == [6, 6, 6, 6]
    assert api_b.out_value[:4] == [2, 2, 2, 2]


def test_each_tile_starts_from_power_up_state(globals_sketch):
    first = globals_sketch()
    api = Blinklib()
    api.now = 100
    first.setup(api)
    run_passes(first, api, 7)
    fresh = globals_sketch()
    api2 = Blinklib()
    api2.now = 100
    fresh.setup(api2)
    run_passes(fresh, api2, 1)
    assert api2.out_value[:4] == [1, 1, 1, 1]


def test_timers_run_on_each_tiles_own_clock(globals_sketch):
    a, b = globals_sketch(), globals_sketch()
    api_a, api_b = Blinklib(), Blinklib()
    api_a.now, api_b.now = 0, 500
    a.setup(api_a)  # Timer set to 1000 ms after each tile's own start
    b.setup(api_b)
    api_a.now = api_b.now = 600
    a.loop(api_a)
    b.loop(api_b)
    assert api_a.out_value[4] == 4  # (1000 - 600) / 100
    assert api_b.out_value[4] == 9  # (1500 - 600) / 100


def test_many_tiles_in_one_world_count_independently(globals_sketch):
    world = World(seed=4)
    for i in range(7):
        world.add_tile(f"t{i}", globals_sketch(), pos=(i, 0))
    world.run_for(400)
    for t in world.tiles:
        counts = t.api.out_value[:4]
        assert counts[0] == counts[1] == counts[2] == counts[3] == min(t.passes, 63)


def test_a_closed_program_refuses_to_run(globals_sketch):
    import pytest

    program = globals_sketch()
    program.close()
    with pytest.raises(RuntimeError, match="closed"):
        program.loop(Blinklib())


def test_a_restarted_program_is_a_program_at_power_up_again(globals_sketch):
    # NativeProgram.restart (the explorer plays run after run with the same tiles): every kind
    # of storage back as loaded, and the blinklib state too (the random seed, what
    # didValueOnFaceChange saw), where a program not made restartable refuses.
    import pytest

    def power_up(program) -> list[tuple]:
        api = Blinklib(entropy=7)
        api.now = 100
        program.setup(api)
        seen = []
        for i in range(6):
            api.now = 200 + 10 * i
            program.loop(api)
            seen.append((tuple(api.out_value), api.rng.state))
        return seen

    once = globals_sketch(restartable=True)
    first = power_up(once)
    assert power_up(once) != first  # (it counts on from there)
    once.restart()
    assert power_up(once) == first == power_up(globals_sketch())
    plain = globals_sketch()
    assert not plain.can_restart
    with pytest.raises(RuntimeError, match="cannot restart"):
        plain.restart()
    once.mark_stopped("loop", 1)  # (stopped half way: its state is torn for good)
    assert not once.can_restart
