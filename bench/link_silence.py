"""How long a link between two touching tiles goes silent: the numbers behind the grace.

    python bench/link_silence.py [--seconds 600] [--pairs 12]

A face is taken for gone when it hears nothing for the grace (4 s by default,
docs/protocol.md). This measures, for a pair of Pirates & Lasers tiles in every
rotation pair it tries, the silences each face sees (from one packet that arrives
whole to the next), under packet loss and with identical clocks in step, where the
SDK's probes keep colliding. For comparison it runs the same pairs with a bare
sketch that only sends a value (no coin to break the lock-step). It prints how
many silences passed each length and the longest, per condition.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from blinkc.games import game_resolver  # noqa: E402
from blinkc.world import Faults, World  # noqa: E402
from blinkc.world.geometry import DIRECTIONS, facing_face  # noqa: E402
from blinkc.world.layout import TileSpec  # noqa: E402

GAME = ROOT / "firmware" / "pirates_lasers.py"
MARKS_MS = (300, 500, 1000, 1500, 2000, 3000, 3840)


class BareSketch:
    """setValueSentOnAllFaces(1) and nothing else: the SDK's own probing, unaided."""

    def setup(self, api) -> None:
        api.setValueSentOnAllFaces(1)

    def loop(self, api) -> None:
        pass


def silences(program, faults: Faults, seconds: float, pairs: int, phase_us: int | None) -> list[float]:
    gaps: list[float] = []
    for i in range(pairs):
        rot_b = (i // 3) % 6
        # Every pass runs: a sleeping pair's repeats are absorbed, not sent, so they would
        # look like silence here.
        world = World(seed=i, faults=faults, idle_skip=False)
        heard: dict[tuple[str, int], float] = {}

        def arrive(arrival, heard=heard, gaps=gaps) -> None:
            if arrival.latched:
                key = (arrival.tile.name, arrival.face)
                now = arrival.t / 1000
                if key in heard:
                    gaps.append(now - heard[key])
                heard[key] = now

        world.event_engine.add_arrival_observer(arrive)
        dq, dr = DIRECTIONS[i % 3]
        # The two faces that touch: silences count from power-up, and to the end of the run.
        touching = [("a", i % 3), ("b", facing_face(i % 3, 0, rot_b))]
        for key in touching:
            heard[key] = 0.0
        world.add_tile("a", program(), pos=(0, 0), rot=0, ppm=0 if phase_us is not None else None,
                       phase_us=phase_us)
        world.add_tile("b", program(), pos=(dq, dr), rot=rot_b, ppm=0 if phase_us is not None else None,
                       phase_us=phase_us)
        world.run_until(seconds * 1000)
        gaps += [seconds * 1000 - heard[key] for key in touching]
    return gaps


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=600, help="simulated seconds per pair")
    ap.add_argument("--pairs", type=int, default=12)
    args = ap.parse_args()
    resolve = game_resolver(GAME, "python")

    def game() -> object:
        return resolve(TileSpec("x", (0, 0), game=str(GAME)))

    conditions = [
        ("P&L, identical clocks in step", game, Faults(skew=0.0), 100),
        ("bare sketch, identical clocks in step", BareSketch, Faults(skew=0.0), 100),
        ("P&L, 30 % drop", game, Faults(drop=0.3), None),
        ("P&L, 50 % drop", game, Faults(drop=0.5), None),
    ]
    link_s = args.seconds * args.pairs * 2
    print(f"silences seen by a face, {args.pairs} pairs x {args.seconds:g} s simulated "
          f"({link_s:,.0f} face-seconds per condition)")
    print(f"{'condition':40} " + " ".join(f">{m / 1000:g}s".rjust(7) for m in MARKS_MS) + "   longest")
    for name, program, faults, phase in conditions:
        start = time.perf_counter()
        gaps = silences(program, faults, args.seconds, args.pairs, phase)
        counts = [sum(g > m for g in gaps) for m in MARKS_MS]
        longest = max(gaps)
        print(f"{name:40} " + " ".join(f"{c:>7,}" for c in counts)
              + f"   {longest:,.0f} ms  [{time.perf_counter() - start:.0f} s]", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
