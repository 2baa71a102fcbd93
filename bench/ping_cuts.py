"""Pings over one-way cuts: blinkc's ping against the two hand-written ones, in one run.

    python bench/ping_cuts.py [--runs 100] [--seed 0] [--longest 3500]

Two touching tiles (a's face 3 against b's face 0), linked for 2 s. Each run then cuts the
link one way, from one of the two tiles at random (what it sends on that face does not
arrive, while it still hears its neighbour), for a random time of up to --longest ms; that
tile is clicked at a random moment from 0.5 s before the cut (the SDK counts a click some
300 ms after the press, so the ping may be on its way when the cut begins) to 1 s into it,
so its ping is held up by the cut; then the cluster runs on for 2 s after the cut. The
neighbour should show one ping on that face: the bench counts, per sketch, the runs where
it shows none (lost) or more (duplicated). Every sketch runs natively in the Python world
(the emulator), each run with the same cut and click for all three.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from blinkc.testing import Cluster  # noqa: E402

CORPUS = ROOT / "bench" / "corpus"
SKETCHES = {"blinkc ping": CORPUS / "ping.py",
            "hand-written ping": CORPUS / "hand" / "ping" / "ping.ino",
            "hand-written ping_once": CORPUS / "hand" / "ping_once" / "ping_once.ino"}
LAYOUT = "tile a at 0,0\ntile b at 0,1\n"
SETTLE_MS = 2000  # the two tiles link up before the cut
FACE = {"a": 3, "b": 0}  # the face of each tile that touches the other
#: The SDK's colours the pings are shown in (5 bits each of red, green, blue): pings 0..3.
PINGS = {0: 0, 31: 1, 31 << 5: 2, 31 << 10: 3}


def pings_shown(game: Path, click_tile: str, cut_ms: int, click_at: int) -> int:
    """How many pings the clicked tile's neighbour shows on the touching face after the run."""
    c = Cluster(game, LAYOUT, backend="native", world="python")
    c.wait(SETTLE_MS)
    if click_at < 0:  # the click first, the cut -click_at ms later
        c.click(click_tile)
        c.wait(-click_at)
        c.world.cut(click_tile, FACE[click_tile], cut_ms)
        c.wait(cut_ms + 2000)
    else:
        c.world.cut(click_tile, FACE[click_tile], cut_ms)
        if click_at:
            c.wait(click_at)
        c.click(click_tile)
        c.wait(cut_ms - click_at + 2000)
    other = "b" if click_tile == "a" else "a"
    shown = c.colors(other)[FACE[other]]
    return PINGS.get(shown, -1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--longest", type=int, default=3500, help="longest cut, ms")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    lost = dict.fromkeys(SKETCHES, 0)
    duplicated = dict.fromkeys(SKETCHES, 0)
    for _ in range(args.runs):
        click_tile = rng.choice("ab")
        cut_ms = rng.randint(200, args.longest)
        click_at = rng.randint(-500, min(1000, cut_ms))
        for name, game in SKETCHES.items():
            n = pings_shown(game, click_tile, cut_ms, click_at)
            lost[name] += n == 0
            duplicated[name] += n > 1
    print(f"{args.runs} one-way cuts of 200..{args.longest:,} ms, each holding up the ping of a click "
          f"from 0.5 s before it to 1 s into it (seed {args.seed}):")
    for name in SKETCHES:
        print(f"  {name:24} lost {lost[name]:3}  duplicated {duplicated[name]:3}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
