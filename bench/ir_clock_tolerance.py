"""How far apart may two tiles' clocks be before the real BIOS stops decoding their IR?

    BLINKS_SDK=... python bench/ir_clock_tolerance.py [--from -20] [--to 20] [--step 1]
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
sending and with the faster one). The emulator's model of the decoder
(blinkc/world/infrared.py, `decoded_share`) is printed beside it.
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
from blinkc.world.infrared import decoded_share  # noqa: E402

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


def rx_over_tx(rx_ppm: int, tx_ppm: int) -> float:
    """The receiver's clock over the sender's, less 1, in %."""
    return ((1_000_000 + rx_ppm) / (1_000_000 + tx_ppm) - 1.0) * 100.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--from", dest="low", type=float, default=-20.0, help="s's clock, %%")
    ap.add_argument("--to", dest="high", type=float, default=20.0)
    ap.add_argument("--step", type=float, default=1.0)
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
    n = round((args.high - args.low) / args.step) + 1
    figures = [round((args.low + k * args.step) * 10_000) for k in range(n)]
    specs = [(ppm, seed) for ppm in figures for seed in range(args.seeds)]
    shared = {"sdk": args.sdk, "seconds": args.seconds, "datagram": args.datagram}
    job = Job("IR clock tolerance", shared, _setup, shared, _play, specs)
    outcome = run(job, Options(jobs=args.jobs, ray=args.ray, progress=sys.stderr.isatty()))
    rows: dict[float, list[int]] = {}
    for _, res in outcome.ordered():
        for (sent, got), ratio in ((res["s_to_r"], rx_over_tx(0, res["ppm"])),
                                   (res["r_to_s"], rx_over_tx(res["ppm"], 0))):
            row = rows.setdefault(round(ratio, 1), [0, 0])
            row[0] += sent
            row[1] += got
    what = f"{args.datagram}-byte datagrams" if args.datagram else "face values"
    print(f"IR clock tolerance on the real BIOS ({what}): two tiles, {args.seconds:g} s a run, "
          f"{args.seeds} runs a figure ({outcome.wall_s:.0f} s on {outcome.engine})")
    print(f"{'rx/tx %':>8} {'sent':>6} {'decoded':>8} {'share':>6} {'model':>6}")
    for ratio in sorted(rows):
        sent, got = rows[ratio]
        share = got / sent if sent else 0.0
        print(f"{ratio:>+8.1f} {sent:>6} {got:>8} {share:>6.2f} "
              f"{decoded_share(ratio / 100.0, bool(args.datagram)):>6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
