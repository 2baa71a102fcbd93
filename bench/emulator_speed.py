"""Emulator speed: simulated seconds per wall second for idle and busy clusters.

Idle: every tile runs a program whose face values and colours never change
(the world proves the tiles idle and puts them to sleep); idle*: the same
with skipping turned off, every pass and packet simulated.
Busy: every tile changes its face values on every pass, so nothing can be skipped.

Usage: python bench/emulator_speed.py [--seconds S]
"""

from __future__ import annotations

import argparse
import time

from blinkc.programs import BusyCounter, NeighbourColours
from blinkc.world import World


def blob(n: int) -> list[tuple[int, int]]:
    """n positions filling hex rings around the origin (a compact cluster)."""
    out = [(0, 0)]
    k = 1
    dirs = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]
    while len(out) < n:
        q, r = -k, k  # start of ring k
        for dq, dr in dirs:
            for _ in range(k):
                if len(out) < n:
                    out.append((q, r))
                q, r = q + dq, r + dr
        k += 1
    return out[:n]


def measure(n: int, program, seconds: float, idle_skip: bool = True) -> tuple[float, dict]:
    world = World(seed=1, idle_skip=idle_skip)
    for i, pos in enumerate(blob(n)):
        world.add_tile(f"t{i}", program(), pos, rot=i % 6)
    world.run_for(1000)  # settle links first
    t0 = time.perf_counter()
    world.run_for(seconds * 1000)
    wall = time.perf_counter() - t0
    return seconds / wall, world.stats


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="simulated seconds for busy runs")
    args = ap.parse_args()
    print(f"{'tiles':>5} {'load':>5} {'sim s':>7} {'× real time':>12} {'passes':>9} {'packets':>9}")
    for n in (6, 24, 96):
        for name, program, secs, skip in (("idle", NeighbourColours, 600.0, True),
                                          ("idle*", NeighbourColours, args.seconds, False),
                                          ("busy", BusyCounter, args.seconds, True)):
            ratio, stats = measure(n, program, secs, skip)
            print(f"{n:>5} {name:>5} {secs:>7.0f} {ratio:>12.1f} {stats['passes']:>9} "
                  f"{stats['packets']:>9}")
    print("idle: tiles whose state cannot change sleep (no work until something happens);\n"
          "idle*: the same cluster with skipping off: every pass and ping-pong simulated.")


if __name__ == "__main__":
    main()
