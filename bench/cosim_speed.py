"""Co-simulation speed: simulated time per wall second for 1, 3 and 7 tiles of real firmware.

Each tile runs Pirates & Lasers as `blinkc build` makes it (game + the SDK's BlinkBIOS) on
simavr; the tiles of a cluster touch (a compact blob), so IR flows between them. Printed per
tile count and thread count: simulated seconds per wall second (x real time), per CPU second
(what the figures would be on an unloaded machine with that many cores), and simulated MHz
per tile. Needs BLINKS_SDK and libsimavr-dev.

Usage: BLINKS_SDK=... python bench/cosim_speed.py [--seconds S] [--game GAME.py]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from blinkc.build import build, find_sdk
from blinkc.cosim.cluster import Cluster
from blinkc.cosim.firmware import load_firmware
from blinkc.cosim.library import HarnessUnavailable, harness
from blinkc.cosim.tile import F_CPU, CosimTile
from blinkc.world import World

ROOT = Path(__file__).resolve().parent.parent


def blob(n: int) -> list[tuple[int, int]]:
    """n positions: the origin, then ring 1 (7 tiles make a flower)."""
    ring = [(0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0)]
    return [(0, 0), *ring][:n]


def measure(firmware, n: int, threads: int, seconds: float) -> tuple[float, float, int]:
    world = World(seed=1)
    for i, pos in enumerate(blob(n)):
        world.add_tile(f"t{i}", object(), pos)
    with Cluster(seed=1, threads=threads) as cluster:
        for t in world.tiles:
            cluster.add(CosimTile(t.name, firmware, t.api.serial, t.clock.ppm))
        cluster.link((t.name, f, o.name, of) for t in world.tiles
                     for f, o, of in world.neighbours_of(t))
        wall0, cpu0 = time.perf_counter(), time.process_time()
        cluster.run_until(seconds * 1000)
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        return wall, cpu, cluster.flashes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="simulated seconds per run")
    ap.add_argument("--game", default=str(ROOT / "firmware" / "pirates_lasers.py"))
    args = ap.parse_args()
    if not os.environ.get("BLINKS_SDK"):
        print("skipped: set BLINKS_SDK to a Blinks SDK (co-simulation runs its BlinkBIOS)")
        return
    try:
        harness()
    except HarnessUnavailable as e:
        print(f"skipped: {e}")
        return
    sdk = find_sdk(os.environ.get("BLINKS_SDK"))
    with tempfile.TemporaryDirectory() as tmp:
        result = build(args.game, Path(tmp) / "fw", sdk=sdk)
        firmware = load_firmware(result.with_bootloader, result.elf)
        print(f"{Path(args.game).name}, {args.seconds:g} simulated s per run; "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        print(f"{'tiles':>5} {'threads':>7} {'x real (wall)':>14} {'x real (cpu)':>13} "
              f"{'MHz/tile':>9} {'flashes':>8}")
        for n in (1, 3, 7):
            for threads in (1, 2):
                if n == 1 and threads == 2:
                    continue
                wall, cpu, flashes = measure(firmware, n, threads, args.seconds)
                by_cpu = args.seconds / cpu * threads if cpu else float("nan")
                mhz = F_CPU * args.seconds * n / cpu / 1e6 if cpu else float("nan")
                print(f"{n:>5} {threads:>7} {args.seconds / wall:>14.2f} {min(by_cpu, 1e9):>13.2f} "
                      f"{mhz:>9.1f} {flashes:>8}")
    print("x real (cpu): simulated s per CPU s, times the threads: the wall figure on an idle\n"
          "machine with that many cores; MHz/tile: simulated AVR cycles per CPU second per tile.")


if __name__ == "__main__":
    main()
