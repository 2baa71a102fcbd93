"""Pirates & Lasers speed in the emulator: a 24-tile ship, 20 turns at a person's pace.

Each turn presses one Hull (repair) and each of the two Hazards, one action
every 2 s of simulated time; a sunk ship is reset with a triple click. Prints
wall time and simulated/wall ratio (and the same over this process's CPU
time, the figure to compare on a shared machine), with and without faults (10 % packet
loss, 2 ms jitter, ±10 % clock skew), for each backend that is available.
The native backend runs in the C++ world core (world "native"); with
`--world all` it is also timed in the Python world, for comparison. For the
C++ core the events it processed and their rate are shown too, and what they
did per simulated second (passes that ran or skipped loop(), transmit events
that sent or found no face due, arrivals, calls, stale events).

Usage: python bench/game_speed.py [--turns N] [--backend python|native|all]
                                  [--world auto|python|all]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from blinkc.testing import Cluster
from blinkc.world import Faults

ROOT = Path(__file__).resolve().parents[1]
GAME = ROOT / "firmware" / "pirates_lasers.py"


def ship_layout(n: int = 24) -> tuple[str, list[str], list[str]]:
    """A compact ship of n tiles: rings round the origin; two Hazards, one Redirector."""
    cells = [(0, 0)]
    dirs = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]
    k = 1
    while len(cells) < n:
        q, r = -k, k
        for dq, dr in dirs:
            for _ in range(k):
                cells.append((q, r))
                q, r = q + dq, r + dr
        k += 1
    cells = cells[:n]
    lines, hulls, hazards = [], [], []
    for i, (q, r) in enumerate(cells):
        name = f"t{i}"
        settings = ""
        if i in (0, 9):
            settings = f"kind=HAZARD orient={i % 6}"
            hazards.append(name)
        elif i == 4:
            settings = "kind=REDIRECTOR orient=2"
        else:
            hulls.append(name)
        lines.append(f"tile {name} at {q},{r} rot {(i * 5) % 6} {settings}")
    return "\n".join(lines), hulls, hazards


def play_turns(ship: Cluster, hulls: list[str], hazards: list[str], turns: int) -> None:
    """Each turn presses one Hull and each Hazard, one action every 2 s of simulated time (a
    triple click resets a sunk ship)."""
    start = ship.world.now_ms
    for turn in range(turns):
        for name in [hulls[(turn * 7) % len(hulls)], *hazards]:
            if any(s["sunk"] for s in ship.states().values()):
                ship.multi_click(name)
            else:
                ship.click(name)
            ship.wait(2000 - (ship.world.now_ms - start) % 2000 or 2000)


def play(turns: int, faults: Faults | None, backend: str,
         world: str = "auto") -> tuple[float, float, float, Cluster]:
    """Simulated s, wall s and CPU s of this process for the turns (not the set-up), and the
    ship."""
    layout, hulls, hazards = ship_layout()
    ship = Cluster(GAME, layout, seed=3, faults=faults, backend=backend, world=world)
    start_sim = ship.world.now_ms
    t0, c0 = time.perf_counter(), time.process_time()
    play_turns(ship, hulls, hazards, turns)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return (ship.world.now_ms - start_sim) / 1000, wall, cpu, ship


def configurations(backend: str, world: str) -> list[tuple[str, str]]:
    """(backend, world) pairs to time: Python tiles always run in the Python world."""
    out = []
    for b in (["python", "native"] if backend == "all" else [backend]):
        if b == "python":
            out.append(("python", "python"))
            continue
        worlds = ["python", "auto"] if world == "all" else [world]
        out += [("native", w) for w in worlds]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=20)
    ap.add_argument("--backend", default="all", choices=["python", "native", "all"])
    ap.add_argument("--world", default="auto", choices=["auto", "python", "all"],
                    help="where native tiles run: the C++ core (auto), the Python world, or both")
    args = ap.parse_args()
    print(f"{'backend':>8} {'world':>7} {'faults':>7} {'sim s':>7} {'wall s':>7} "
          f"{'× real time':>12} {'CPU s':>7} {'× (CPU)':>8} {'events':>9} {'events/s':>10}")
    results = {}
    for backend, world in configurations(args.backend, args.world):
        for label, faults in (("none", None), ("yes", Faults(drop=0.1, jitter_ms=2, skew=0.1))):
            try:
                sim, wall, cpu, ship = play(args.turns, faults, backend, world)
            except Exception as e:
                print(f"{backend:>8} {world:>7} {label:>7}  unavailable: {e}")
                continue
            engine = getattr(ship.world, "engine", "python")
            events = getattr(ship.world, "events", None)
            rate = f"{events:>9} {events / wall:>10.3g}" if events is not None else ""
            results[(backend, engine, label)] = sim / wall
            print(f"{backend:>8} {engine:>7} {label:>7} {sim:>7.1f} {wall:>7.2f} "
                  f"{sim / wall:>12.1f} {cpu:>7.2f} {sim / max(cpu, 1e-9):>8.1f} {rate}")
            counts = ship.world.event_counts
            if counts:
                per_s = ", ".join(f"{k} {v / sim:,.0f}" for k, v in counts.items() if v)
                print(f"{'':>26}events per simulated s: {per_s}")
    for label in ("none", "yes"):
        base = results.get(("python", "python", label))
        for engine in ("python", "native"):
            fast = results.get(("native", engine, label))
            if base and fast:
                print(f"native ({engine} world) / python speed, faults {label}: {fast / base:.2f}×")


if __name__ == "__main__":
    main()
