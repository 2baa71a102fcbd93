"""Native tiles: the cost of one pass through ctypes, and a busy cluster's speed.

Per pass: µs for one `NativeProgram.loop(api)` (copy inputs in, one ctypes
call, copy outputs out) with a sketch whose loop() does next to nothing,
next to the same for a hand-written Python program.

Usage: python bench/native_pass.py [--passes N]
"""

from __future__ import annotations

import argparse
import time

from blinkc.blinklib import Blinklib
from blinkc.native import load_sketch_text
from blinkc.programs import BusyCounter
from blinkc.world import World

EMPTY = "void setup() {}\nvoid loop() {}\n"

BUSY = """
byte n;
void setup() {}
void loop() {
  n = (n + 1) & 63;
  FOREACH_FACE(f) { setValueSentOnFace((n + f) & 63, f); }
  setColorOnFace(makeColorHSB(n * 4, 255, 255), n % FACE_COUNT);
}
"""


def per_pass_us(program, passes: int) -> float:
    api = Blinklib()
    program.setup(api)
    t0 = time.perf_counter()
    for i in range(passes):
        api.now = i
        program.loop(api)
    return (time.perf_counter() - t0) / passes * 1e6


def cluster_speed(factory, tiles: int = 19, seconds: float = 5.0) -> float:
    world = World(seed=1)
    for i in range(tiles):
        world.add_tile(f"t{i}", factory(), pos=(i % 5, i // 5))
    world.run_for(500)
    t0 = time.perf_counter()
    world.run_for(seconds * 1000)
    return seconds / (time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--passes", type=int, default=200_000)
    args = parser.parse_args()
    empty = load_sketch_text(EMPTY, "bench_empty", check_int16=False)
    busy = load_sketch_text(BUSY, "bench_busy", check_int16=False)
    print(f"native loop() call, empty sketch: {per_pass_us(empty(), args.passes):.2f} µs/pass")
    print(f"native loop() call, busy sketch:  {per_pass_us(busy(), args.passes):.2f} µs/pass")
    python_us = per_pass_us(BusyCounter(), args.passes)
    print(f"Python BusyCounter.loop():        {python_us:.2f} µs/pass")
    print(f"19 busy native tiles: {cluster_speed(busy):.1f} simulated s per wall s")
    print(f"19 busy Python tiles: {cluster_speed(BusyCounter):.1f} simulated s per wall s")


if __name__ == "__main__":
    main()
