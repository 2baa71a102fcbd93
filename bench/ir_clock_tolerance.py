"""How far apart may two tiles' clocks be before the real BIOS stops decoding their IR?

    BLINKS_SDK=... python bench/ir_clock_tolerance.py [--from -20] [--to 20] [--step 1]
                          [--figures -20,-19,...] [--datagram BYTES]
                          [--seconds 10] [--seeds 2] [--jobs N]

Two co-simulated tiles (the SDK's BlinkBIOS and a small sketch of ours, below) face each
other. Tile `r` runs at its nominal clock, tile `s` at the figure swept (in %, + faster).
Every pass each tile sends a new face value, so every packet a face decodes changes the
value it reads; the sketch counts the changes per face. The harness counts the packets
each face sent (bursts of flashes). Per direction, the share decoded is the packets the
receiver counted over the packets the sender sent. The BIOS times each bit's gap by its
own clock, so what matters is the receiver's clock over the sender's: `rx/tx` below,
+12 % when the receiver runs 12 % faster than the sender (it sees the sender's gaps 12 %
long).

Printed: per clock ratio, the packets sent and the share decoded, from every run that had
that ratio in one direction or the other (so each ratio is measured with the slower tile
sending and with the faster one). Beside it: the emulator's model of the decoder
(blinkc/world/infrared.py, `decoded_share`), and the same two tiles in the emulator (its
Python world, EMULATED_SEEDS runs a figure), with every packet decoded (`ideal`: what it
loses of its own) and with its model (`emulated`). Last, a (window, points) table for
infrared.py fitted so that the emulator with it decodes the shares the real BIOS did
(`fit`). With --datagram BYTES the tiles send a datagram of that length on every face every
pass instead of face values (docs/emulator.md has the measurement by length).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from blinkc.build import build, find_sdk  # noqa: E402
from blinkc.cosim.cluster import Cluster  # noqa: E402
from blinkc.cosim.firmware import load_firmware  # noqa: E402
from blinkc.cosim.tile import CosimTile  # noqa: E402
from blinkc.runner import Job, Options, run  # noqa: E402
from blinkc.world.infrared import decoded_share, table_share  # noqa: E402

SKETCH = """\
// Counts the value packets each face decodes: the sender changes its value every pass.
uint8_t next_value = 0;
uint16_t decoded[FACE_COUNT];

void setup() {
}

void loop() {
  setValueSentOnAllFaces(next_value);
  next_value = (next_value + 1) & 63;
  FOREACH_FACE(f) {
    if (didValueOnFaceChange(f)) decoded[f]++;
  }
}
"""
DATAGRAM_SKETCH = """\
// Counts the datagrams each face decodes: the sender sends one on every face every pass.
uint8_t payload[DATAGRAM_BYTES];
uint16_t decoded[FACE_COUNT];

void setup() {
}

void loop() {
  payload[0]++;
  FOREACH_FACE(f) {
    sendDatagramOnFace(payload, DATAGRAM_BYTES, f);
    if (isDatagramReadyOnFace(f)) {
      decoded[f]++;
      markDatagramReadOnFace(f);
    }
  }
}
"""
#: The faces that touch: s's face 0 faces r's face 3.
S_FACE, R_FACE = 0, 3


def _serial(k: int) -> bytes:
    return bytes([0x42, k, 7, 1, 2, 3, 4, 5, 6 + k])


def _setup(shared: dict) -> dict:
    with tempfile.TemporaryDirectory(prefix="blinkc-irclock-") as tmp:
        sketch = Path(tmp) / "ir_count" / "ir_count.ino"
        sketch.parent.mkdir()
        n = shared["datagram"]
        sketch.write_text(f"#define DATAGRAM_BYTES {n}\n" + DATAGRAM_SKETCH if n else SKETCH)
        result = build(sketch, Path(tmp) / "out", sdk=find_sdk(shared["sdk"]))
        return {"firmware": load_firmware(result.with_bootloader, result.elf),
                "seconds": shared["seconds"]}


def _decoded(tile: CosimTile, face: int) -> int:
    """The sketch's count of packets decoded on `face` (its uint16_t decoded[face])."""
    sym = tile.firmware.objects["decoded"]
    return int.from_bytes(tile.read(sym.address + 2 * face, 2), "little")


def _play(setup: dict, spec: tuple[int, int]) -> dict:
    ppm, seed = spec
    with Cluster(seed=seed) as cluster:
        r = CosimTile("r", setup["firmware"], _serial(2 * seed), 0)
        s = CosimTile("s", setup["firmware"], _serial(2 * seed + 1), ppm)
        for tile in (r, s):
            tile.boot()
            cluster.add(tile)
        cluster.link([("s", S_FACE, "r", R_FACE), ("r", R_FACE, "s", S_FACE)])
        cluster.run_until(setup["seconds"] * 1000.0)
        return {"ppm": ppm, "seed": seed,
                "s_to_r": [cluster.packets_sent("s", S_FACE), _decoded(r, R_FACE)],
                "r_to_s": [cluster.packets_sent("r", R_FACE), _decoded(s, S_FACE)]}


class _EmulatedCounter:
    """DATAGRAM_SKETCH (or SKETCH, `length` 0) for the emulator's Python world."""

    def __init__(self, length: int) -> None:
        self.length = length
        self.payload = bytearray(max(1, length))
        self.decoded = [0] * 6

    def setup(self, b) -> None:
        pass

    def loop(self, b) -> None:
        if not self.length:
            b.setValueSentOnAllFaces(self.payload[0])
            self.payload[0] = (self.payload[0] + 1) & 63
            for f in range(6):
                self.decoded[f] += b.didValueOnFaceChange(f)
            return
        self.payload[0] = (self.payload[0] + 1) & 0xFF
        for f in range(6):
            b.sendDatagramOnFace(bytes(self.payload), f)
            if b.isDatagramReadyOnFace(f):
                self.decoded[f] += 1
                b.markDatagramReadOnFace(f)


def _emulate(length: int, ppm: int, seed: int, seconds: float, decoder=True) -> dict:
    """The same two tiles in the emulator (the Python world): with its decoder model
    (`decoder` True), with every packet decoded (False), or with the table `decoder` (a
    (window, points) as in infrared.py) for this length."""
    from blinkc.world import Faults, World, python_engine

    sent: dict[tuple[str, int], int] = {}
    launch = python_engine.PythonEngine._launch
    model = python_engine.decoded_share

    def counting(self, sender, face, start, pkt):
        sent[sender.name, face] = sent.get((sender.name, face), 0) + 1
        return launch(self, sender, face, start, pkt)

    python_engine.PythonEngine._launch = counting
    if decoder is False:
        python_engine.decoded_share = lambda ratio, n=0: 1.0
    elif decoder is not True:
        python_engine.decoded_share = \
            lambda ratio, n=0: table_share(decoder, ratio) if n == length else model(ratio, n)
    try:
        r, s = _EmulatedCounter(length), _EmulatedCounter(length)
        w = World(seed=seed, faults=Faults(skew=0))
        w.add_tile("s", s, (0, 0), ppm=ppm)     # s's face 3 (S) touches ...
        w.add_tile("r", r, (0, 1), ppm=0)       # ... r's face 0 (N)
        w.run_for(seconds * 1000.0)
    finally:
        python_engine.PythonEngine._launch = launch
        python_engine.decoded_share = model
    return {"ppm": ppm, "seed": seed, "s_to_r": [sent.get(("s", 3), 0), r.decoded[0]],
            "r_to_s": [sent.get(("r", 0), 0), s.decoded[3]]}


def rx_over_tx(rx_ppm: int, tx_ppm: int) -> float:
    """The receiver's clock over the sender's, less 1, in %."""
    return ((1_000_000 + rx_ppm) / (1_000_000 + tx_ppm) - 1.0) * 100.0


#: Out from equal clocks, the decoder's window ends before the first ratio whose share (over
#: the emulator's with every packet decoded) is below this.
WINDOW_SHARE = 0.9
#: Emulated runs a clock figure (they take next to no time).
EMULATED_SEEDS = 8


def tally(results, key: str = "") -> dict[float, list[int]]:
    """rx/tx % (to 0.1) -> [sent, decoded], both directions of every run."""
    rows: dict[float, list[int]] = {}
    for res in results:
        for (sent, got), ratio in ((res["s_to_r"], rx_over_tx(0, res["ppm"])),
                                   (res["r_to_s"], rx_over_tx(res["ppm"], 0))):
            row = rows.setdefault(round(ratio, 1), [0, 0])
            row[0] += sent
            row[1] += got
    return rows


def share(row: list[int]) -> float:
    return row[1] / row[0] if row[0] else 0.0


def _table(over: dict[float, float]) -> tuple[tuple[float, float], list[tuple[float, float]]]:
    """(window, points) from shares by ratio: the window the ratios around 0 whose shares are
    all at least WINDOW_SHARE, the points beyond it."""
    ratios = sorted(over)
    lo = hi = 0.0
    for r in sorted((r for r in ratios if r < 0), reverse=True):
        if over[r] < WINDOW_SHARE:
            break
        lo = r
    for r in (r for r in ratios if r > 0):
        if over[r] < WINDOW_SHARE:
            break
        hi = r
    points = ([(r, round(over[r], 2)) for r in ratios if r < lo] + [(lo, 1.0), (hi, 1.0)]
              + [(r, round(over[r], 2)) for r in ratios if r > hi])
    # Beyond the last ratio that decoded anything, nothing: one zero point a side is enough.
    while len(points) > 2 and points[0][1] == 0.0 and points[1][1] == 0.0:
        points.pop(0)
    while len(points) > 2 and points[-1][1] == 0.0 and points[-2][1] == 0.0:
        points.pop()
    # A point between two of the same share adds nothing.
    points = [p for k, p in enumerate(points)
              if p[0] in (lo, hi) or not (0 < k < len(points) - 1
                                          and points[k - 1][1] == p[1] == points[k + 1][1])]
    return (round(lo, 3), round(hi, 3)), [(round(x, 3), y) for x, y in points]


def fit(rows: dict[float, list[int]], emulate, rounds: int = 3):
    """(window, points) for blinkc/world/infrared.py such that the emulator, with that table
    for this packet, decodes the shares the real BIOS did. The emulator loses packets of its
    own (collisions, a face blinded while it sends, the one-slot buffer), and how many depends
    on which packets get through (the replies blinklib paces by), so the table is found by
    rounds: each ratio's share is scaled by the real BIOS's share over the emulator's with the
    last table (`emulate(table)` -> rows; the first table decodes everything), at most 1."""
    table = None
    for _ in range(rounds):
        got = emulate(table) if table is not None else emulate(False)
        over = {}
        for ratio, row in rows.items():
            now = table_share(table, ratio / 100.0) if table is not None else 1.0
            mine = share(got[ratio])
            over[ratio / 100.0] = (min(1.0, now * share(row) / mine) if mine > 0 else
                                   min(1.0, max(2 * now, share(row))) if share(row) > 0 else 0.0)
        table = _table(over)
    return table


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--from", dest="low", type=float, default=-20.0, help="s's clock, %%")
    ap.add_argument("--to", dest="high", type=float, default=20.0)
    ap.add_argument("--step", type=float, default=1.0)
    ap.add_argument("--figures", default=None, metavar="LIST",
                    help="s's clocks, in %%, comma-separated (instead of --from/--to/--step)")
    ap.add_argument("--seconds", type=float, default=10.0, help="simulated time a run")
    ap.add_argument("--seeds", type=int, default=2, help="runs per clock figure")
    ap.add_argument("--jobs", type=int, default=None)
    ap.add_argument("--ray", default=None)
    ap.add_argument("--sdk", default=None)
    ap.add_argument("--datagram", type=int, default=0, metavar="BYTES",
                    help="send datagrams of BYTES (1-16) instead of face values")
    args = ap.parse_args()
    if not (args.sdk or os.environ.get("BLINKS_SDK")):
        print("set BLINKS_SDK to a Blinks SDK (co-simulation runs its BlinkBIOS)")
        return 2
    if args.figures:
        figures = [round(float(f) * 10_000) for f in args.figures.split(",")]
    else:
        n = round((args.high - args.low) / args.step) + 1
        figures = [round((args.low + k * args.step) * 10_000) for k in range(n)]
    specs = [(ppm, seed) for ppm in figures for seed in range(args.seeds)]
    shared = {"sdk": args.sdk, "seconds": args.seconds, "datagram": args.datagram}
    job = Job("IR clock tolerance", shared, _setup, shared, _play, specs)
    outcome = run(job, Options(jobs=args.jobs, ray=args.ray, progress=sys.stderr.isatty()))
    rows = tally(res for _, res in outcome.ordered())
    espec = [(ppm, seed) for ppm in figures for seed in range(EMULATED_SEEDS)]

    def emulate(decoder):
        return tally(_emulate(args.datagram, ppm, seed, args.seconds, decoder)
                     for ppm, seed in espec)

    emulated = {decoder: emulate(decoder) for decoder in (False, True)}
    what = f"{args.datagram}-byte datagrams" if args.datagram else "face values"
    print(f"IR clock tolerance on the real BIOS ({what}): two tiles, {args.seconds:g} s a run, "
          f"{args.seeds} runs a figure ({outcome.wall_s:.0f} s on {outcome.engine})")
    print("share: the real BIOS's; ideal: the emulator's with every packet decoded; model: "
          "decoded_share; emulated: the emulator's with it")
    print(f"{'rx/tx %':>8} {'sent':>6} {'decoded':>8} {'share':>6} {'ideal':>6} {'model':>6} "
          f"{'emulated':>8}")
    for ratio in sorted(rows):
        sent, got = rows[ratio]
        print(f"{ratio:>+8.1f} {sent:>6} {got:>8} {share(rows[ratio]):>6.2f} "
              f"{share(emulated[False][ratio]):>6.2f} "
              f"{decoded_share(ratio / 100.0, args.datagram):>6.2f} "
              f"{share(emulated[True][ratio]):>8.2f}")
    window, points = fit(rows, emulate)
    print(f"as a table for infrared.py (share over ideal):\nwindow {window}\n"
          f"points {tuple(points)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
