"""The BIOS's IR decoder times each gap by the receiver's own clock, so two tiles whose
clocks are too far apart do not understand each other (measured in co-simulation on the real
BIOS: bench/ir_clock_tolerance.py, docs/emulator.md). The emulator loses those packets as
the measurement says, one way or both, the same in both engines."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blinkc.blinklib import Blinklib
from blinkc.native import load_sketch_text
from blinkc.world import Faults, Trace, World
from blinkc.world.emulation import EmulationOptions, emulate
from blinkc.world.infrared import (
    DECODE_WINDOW,
    DECODERS,
    LINKING_SKEW,
    decoded_share,
)
from blinkc.world.layout_file import parse_layout

from ..tools import require_tool


class Counter:
    """Sends a new value every pass and counts the values it hears change on face `face`."""

    def __init__(self, face: int) -> None:
        self.face = face
        self.heard = 0
        self.next = 0

    def setup(self, b: Blinklib) -> None:
        pass

    def loop(self, b: Blinklib) -> None:
        b.setValueSentOnAllFaces(self.next)
        self.next = (self.next + 1) & 63
        if b.didValueOnFaceChange(self.face):
            self.heard += 1


def pair(ppm_s: int, ppm_r: int, seconds: float = 5.0) -> tuple[int, int]:
    """(values r heard from s, values s heard from r) in `seconds`."""
    s, r = Counter(3), Counter(0)
    w = World(seed=5, faults=Faults(skew=0))
    w.add_tile("s", s, (0, 0), ppm=ppm_s)      # face 3 (S) touches ...
    w.add_tile("r", r, (0, 1), ppm=ppm_r)      # ... face 0 (N) of r
    w.run_for(seconds * 1000)
    return r.heard, s.heard


def test_tiles_a_few_per_cent_apart_hear_each_other_both_ways():
    heard_by_r, heard_by_s = pair(+30_000, -30_000)
    assert heard_by_r > 100 and heard_by_s > 100


def test_a_tile_much_faster_than_its_neighbour_is_deaf_to_it_while_the_slower_one_hears():
    # r runs 20 % faster than s: s's gaps look 20 % long to r's decoder, and nothing gets
    # through; s reads r's shorter gaps well (co-simulation: 0 of 304 and all of them).
    heard_by_r, heard_by_s = pair(-100_000, +80_000)
    assert heard_by_r == 0 and heard_by_s > 10


def test_the_decoder_takes_everything_within_its_window_and_less_beyond():
    low, high = DECODE_WINDOW
    assert decoded_share(0.0) == decoded_share(low) == decoded_share(high) == 1.0
    assert decoded_share(high + 0.01) < 1.0 and decoded_share(low - 0.01) < 1.0
    assert decoded_share(0.3) == decoded_share(-0.3) == 0.0
    # A datagram has more gaps to misread than a face value: a faster receiver loses it sooner.
    assert decoded_share(0.06, 8) < decoded_share(0.06) == 1.0


@pytest.mark.parametrize("window, points", DECODERS)
def test_each_table_holds_its_window_and_runs_outward_from_it(window, points):
    xs = [x for x, _ in points]
    assert xs == sorted(xs) and all(0.0 <= y <= 1.0 for _, y in points)
    assert (window[0], 1.0) in points and (window[1], 1.0) in points


@given(st.integers(-round(LINKING_SKEW * 1e6), round(LINKING_SKEW * 1e6)),
       st.integers(-round(LINKING_SKEW * 1e6), round(LINKING_SKEW * 1e6)))
def test_any_two_tiles_within_the_linking_skew_decode_each_other(a, b):
    assert decoded_share((1_000_000 + a) / (1_000_000 + b) - 1.0) == 1.0


COUNTER = """
byte next_value = 0;
uint16_t heard = 0;
void setup() {}
void loop() {
  setValueSentOnAllFaces(next_value);
  next_value = (next_value + 1) & 63;
  FOREACH_FACE(f) { if (didValueOnFaceChange(f)) heard++; }
}
"""


DATAGRAMS = """
byte payload[LENGTH];
uint16_t heard = 0;
void setup() {}
void loop() {
  payload[0]++;
  FOREACH_FACE(f) {
    sendDatagramOnFace(payload, LENGTH, f);
    if (isDatagramReadyOnFace(f)) { heard++; markDatagramReadOnFace(f); }
  }
}
"""


@pytest.fixture(scope="module", params=["values", "datagrams1", "datagrams4", "datagrams16"])
def counter_sketch(request):
    # Datagrams of 1, 4 and 16 bytes: each length has its own decoder table (infrared.py).
    require_tool("g++")
    length = request.param.removeprefix("datagrams")
    source = COUNTER if request.param == "values" else \
        DATAGRAMS.replace("LENGTH", length)
    return load_sketch_text(source, request.param, check_int16=False)


@pytest.mark.parametrize("clocks", ["-100000ppm +80000ppm", "+90000ppm -80000ppm",
                                    "+0ppm +75000ppm"])
def test_both_engines_lose_the_same_packets(counter_sketch, clocks):
    a, b = clocks.split()
    layout = parse_layout(f"tile s at 0,0 clock={a}\ntile r at 0,1 clock={b}\n", "<test>")
    traces = [emulate(layout, None, EmulationOptions(seed=4, time_ms=3000, trace=Trace(),
                                                     resolver=lambda spec: counter_sketch(),
                                                     world=engine)).world.trace.lines
              for engine in ("python", "native")]
    assert traces[0] == traces[1]
    assert any('"drop"' in line for line in traces[0])
