"""Faces, rotations, link timing and expiry in the emulated world."""

from itertools import pairwise

import pytest

from blinkc.blinklib import FACE_COUNT
from blinkc.world import Faults, World
from blinkc.world.clock import (
    FRAME_US,
    ISR_BEFORE_TICK_US,
    ISR_US,
    PASS_START_US,
    TICK_US,
    TX_AFTER_SEND_US,
    TX_CALL_US,
    Clock,
)
from blinkc.world.geometry import DIRECTIONS, facing_face, neighbour_pos, opposite
from blinkc.world.infrared import (
    TX_GAP_US,
    TX_LEAD_US,
    VALUE_AIR_US,
    flashing_us,
    send_blocks_us,
    value_air_us,
)

from .conftest import FaceIds, Settable


def record_launches(world):
    """Spy on every packet a tile puts on the air: (tile name, face, start µs, packet, the
    millis of the pass that sent it)."""
    log = []
    engine = world.event_engine  # the PythonEngine: it looks _launch up at every packet
    real = engine._launch

    def spy(tile, face, start, pkt):
        log.append((tile.name, face, start, pkt, tile.api.now))
        real(tile, face, start, pkt)

    engine._launch = spy
    return log


def test_opposite_faces():
    assert [opposite(f) for f in range(6)] == [3, 4, 5, 0, 1, 2]


@pytest.mark.parametrize("rot_a", range(6))
@pytest.mark.parametrize("rot_b", range(6))
def test_all_36_rotation_pairs_map_faces(rot_a, rot_b):
    """What A sends on the face pointing at B arrives on B's face pointing back at A."""
    direction = (rot_a + 2 * rot_b) % 6  # vary the direction too
    w = World(seed=rot_a * 6 + rot_b)
    a = w.add_tile("a", FaceIds(10), (0, 0), rot_a)
    b = w.add_tile("b", FaceIds(30), neighbour_pos((0, 0), direction), rot_b)
    w.run_for(1500)
    face_a = (direction - rot_a) % 6             # A's local face toward B
    face_b = (direction + 3 - rot_b) % 6          # docs/platform.md's mapping
    assert facing_face(face_a, rot_a, rot_b) == face_b
    assert b.api.in_value[face_b] == 10 + face_a
    assert a.api.in_value[face_a] == 30 + face_b
    # Every other face of each tile saw nothing.
    assert [f for f in range(FACE_COUNT) if b.api.in_value[f]] == [face_b]
    assert [f for f in range(FACE_COUNT) if a.api.in_value[f]] == [face_a]


def test_value_change_reaches_neighbour_within_one_air_time_plus_one_pass():
    w = World(seed=3, idle_skip=False)
    src = Settable(5)
    w.add_tile("a", src, (0, 0), 0)
    b = w.add_tile("b", Settable(1), (0, 1), 0)
    w.run_for(1000)
    launches = record_launches(w)
    latch = {}
    real_pass = w.event_engine._pass

    def spy(tile):
        real_pass(tile)
        if tile is b and b.api.in_value[0] == 42 and "t" not in latch:
            latch["t"] = w.now

    w.event_engine._pass = spy
    src.value = 42
    w.run_for(300)
    first = min(start for name, face, start, pkt, _ in launches
                if name == "a" and face == 3 and pkt.byte0 & 0x3F == 42)
    # A frame plus the longest transmit phase (six packets back to back).
    one_pass = FRAME_US + 6 * (flashing_us(VALUE_AIR_US[0]) + TX_GAP_US)
    assert latch["t"] - first <= value_air_us(42) + one_pass
    assert latch["t"] - first >= value_air_us(42)  # cannot beat the air time


def test_separated_face_expires_after_200_ms_not_before_and_keeps_its_value():
    w = World(seed=5, idle_skip=False)
    a = w.add_tile("a", FaceIds(10), (0, 0), 0)
    w.add_tile("b", FaceIds(40), (0, 1), 0)
    w.run_for(1000)
    assert a.api.in_value[3] == 40 and not a.program.seen[-1][2][3]  # b's face 0 faces a
    a.program.seen.clear()
    lift_ms = a.clock.millis(w.now)
    w.lift("b")
    w.run_for(600)
    # The last packet latched set expiry to (latch time + 200): one that came before the lift,
    # latched at the next pass (at most a frame and six packets later).
    longest_ms = (FRAME_US + 6 * (flashing_us(VALUE_AIR_US[0]) + TX_GAP_US)) / 1000
    expired_at = [ms for ms, _, exp in a.program.seen if exp[3]]
    fresh = [ms for ms, _, exp in a.program.seen if not exp[3]]
    assert expired_at, "face 3 never expired"
    assert min(expired_at) > a.api.expire_time[3] - 0  # strictly after expiry time
    assert a.api.expire_time[3] - 200 <= lift_ms + longest_ms
    assert max(fresh, default=lift_ms) <= a.api.expire_time[3]
    # Expired within 200 ms plus one ping-pong round and a pass of the lift.
    assert min(expired_at) - lift_ms <= 200 + 40
    # The last value stays readable after expiry.
    assert all(vals[3] == 40 for _, vals, _ in a.program.seen)


def test_unconnected_faces_probe_every_150_plus_f_ms():
    w = World(seed=1, idle_skip=False, faults=Faults(skew=0))
    t = w.add_tile("a", FaceIds(), (0, 0), 0)
    sends = record_launches(w)
    w.run_for(2000)
    # The longest pass: a frame, then all six faces' packets back to back.
    longest_ms = (FRAME_US + 6 * (flashing_us(VALUE_AIR_US[0]) + TX_GAP_US)) / 1000
    for f in range(FACE_COUNT):
        # sendTime = now + 150 + f, `now` the millis of the pass that sent: checked each pass.
        times = [ms for _, face, _, _, ms in sends if face == f]
        gaps = [b - a for a, b in pairwise(times)]
        assert gaps, f"face {f} never probed"
        assert all(150 + f <= g <= 150 + f + longest_ms for g in gaps), (f, gaps)
    assert t.api.out_value == [10, 11, 12, 13, 14, 15]


def test_a_pass_sends_its_packets_back_to_back_with_the_bios_timing():
    """What co-simulation measured on the BIOS's pins (docs/cosim.md): the first flash
    comes TX_LEAD_US after blinklib asks, the next packet TX_GAP_US after the last flash of
    the one before (its closing syncs), and the CPU is back once the last data bit is out;
    blinklib's own steps in between take their CPU time, held up by the tick interrupt."""
    w = World(seed=1, idle_skip=False, faults=Faults(skew=0))
    a = w.add_tile("a", FaceIds(), (0, 0), 0)
    sends = record_launches(w)
    passes = []
    real_pass = w.event_engine._pass
    w.event_engine._pass = lambda tile: (passes.append(w.now), real_pass(tile))
    w.run_for(100)
    first = [(face, start, pkt) for _, face, start, pkt, _ in sends[:FACE_COUNT]]
    assert [face for face, _, _ in first] == list(range(FACE_COUNT))
    # passes[0] runs setup() and the first loop(); the frame's return, then face 0's call.
    frame = a.clock.next_frame(passes[0] + 1)
    assert first[0][1] == a.clock.cpu_done(frame, TX_CALL_US) + TX_LEAD_US
    assert first[0][1] - frame <= TX_CALL_US + ISR_US + TX_LEAD_US
    for (_, start, pkt), (_, after, _) in pairwise(first):
        assert after - start == flashing_us(pkt.air_us) + TX_GAP_US
    _, last, pkt = first[-1]
    back = last + send_blocks_us(pkt.air_us)
    assert passes[1] == a.clock.cpu_done(back, TX_AFTER_SEND_US + PASS_START_US)
    assert back < passes[1] <= back + TX_AFTER_SEND_US + PASS_START_US + ISR_US


def test_the_tick_interrupt_holds_blinklib_up():
    """Clock.cpu_done: work runs between the BIOS's tick interrupts (ISR_US from
    ISR_BEFORE_TICK_US before each 256 µs tick), never during one."""
    c = Clock(offset=0)
    start = TICK_US - ISR_BEFORE_TICK_US                  # an interrupt begins at 224
    assert c.cpu_done(100, 10) == 110                     # none in the way
    assert c.cpu_done(0, 10) == ISR_US - ISR_BEFORE_TICK_US + 10   # one runs at the tick
    assert c.cpu_done(start - 10, 10) == start            # ends just as one begins
    assert c.cpu_done(start - 10, 11) == start + ISR_US + 1
    assert c.cpu_done(start + 5, 1) == start + ISR_US + 1  # begun during one: waits it out
    free = TICK_US - ISR_US                               # code time between two interrupts
    assert c.cpu_done(start + ISR_US, 2 * free) == start + ISR_US + 2 * TICK_US - ISR_US


def test_connected_faces_ping_pong_much_faster_than_probes():
    w = World(seed=2, idle_skip=False)
    w.add_tile("a", FaceIds(), (0, 0), 0)
    w.add_tile("b", FaceIds(), (0, 1), 0)
    sends = record_launches(w)
    w.run_for(2000)
    times = [s for name, face, s, _, _ in sends if name == "a" and face == 3]
    gaps = sorted((b - a) / 1000 for a, b in pairwise(times[10:]))
    median = gaps[len(gaps) // 2]
    assert 7 <= median <= 50  # docs/platform.md: a connected face refreshes every 15–50 ms or so


def test_directions_are_clockwise_from_north():
    # Flat-top hexes: N, NE, SE, S, SW, NW; opposite directions cancel.
    for d in range(6):
        dq, dr = DIRECTIONS[d]
        oq, or_ = DIRECTIONS[(d + 3) % 6]
        assert (dq + oq, dr + or_) == (0, 0)
    assert DIRECTIONS[0] == (0, -1)
