"""Flash speed: blinkc's flasher against avrdude on the same baud-paced simulated link.

For each protocol and baud rate, a fresh `blinkc programmer-sim --baud B`
(a programmer paced like a real serial line) is flashed with a full 16 KB
image (write + read-back verify), once by `blinkc flash` and once by
`avrdude`. Both are timed end to end as a person would run them. The wire
time lower bound is the bytes that crossed the link divided by baud/10
(8N1: 10 bits per byte), as counted by the simulator.

Targets: blinkc <= 1.1x avrdude's time, and <= 1.3x its own wire-time bound.

    python bench/flash_speed.py                 # all four runs, about two minutes
    python bench/flash_speed.py --bauds 115200  # the quick half
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from blinkc.flash.hexfile import synthetic_image

MAX_VS_AVRDUDE = 1.1
MAX_VS_WIRE = 1.3


@dataclass
class Run:
    seconds: float
    wire_bytes: int
    baud: int

    @property
    def bound(self) -> float:
        return self.wire_bytes / (self.baud / 10)


def start_sim(protocol: str, baud: int) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "blinkc", "programmer-sim", "--protocol", protocol,
         "--baud", str(baud)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("port:"):
            return proc, line.split()[1]
    raise RuntimeError("the simulator did not start")


def stop_sim(proc: subprocess.Popen[str]) -> int:
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=10)
    m = re.search(r"Link: (\d+) bytes from the host, (\d+) bytes to the host", out)
    if not m:
        raise RuntimeError(f"no link summary from the simulator:\n{out}")
    return int(m.group(1)) + int(m.group(2))


def timed_run(cmd: list[str], protocol: str, baud: int) -> Run:
    proc, port = start_sim(protocol, baud)
    try:
        cmd = [c.replace("{port}", port) for c in cmd]
        start = time.monotonic()
        result = subprocess.run(cmd, capture_output=True, text=True)
        seconds = time.monotonic() - start
    finally:
        wire = stop_sim(proc)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{result.stdout}{result.stderr}")
    return Run(seconds, wire, baud)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--protocols", nargs="+", default=["stk500v1", "stk500v2"])
    ap.add_argument("--bauds", nargs="+", type=int, default=[19200, 115200])
    args = ap.parse_args()
    avrdude = shutil.which("avrdude")
    if avrdude is None:
        print("avrdude is not installed: this bench compares against it (apt install avrdude)")
        return 1 if os.environ.get("BLINKC_REQUIRE_TOOLS") else 0
    with tempfile.TemporaryDirectory() as tmp:
        hexfile = Path(tmp) / "full16k.hex"
        synthetic_image([(0, 16 * 1024)], seed=2024).write_hex(hexfile)
        print("Full 16 KB image, write + verify, simulated programmer paced at the baud rate.")
        print(f"{'protocol':9} {'baud':>6} | {'blinkc':>7} {'avrdude':>7} {'ratio':>6} | "
              f"{'wire bound':>10} {'blinkc/bound':>12} {'avrdude/bound':>13} | targets")
        ok = True
        for protocol in args.protocols:
            for baud in args.bauds:
                prog = "arduinoisp" if protocol == "stk500v1" else "stk500v2"
                ours = timed_run([sys.executable, "-m", "blinkc", "flash", str(hexfile),
                                  "--port", "{port}", "--programmer", prog,
                                  "--baud", str(baud), "--raw"], protocol, baud)
                theirs = timed_run([avrdude, "-q", "-p", "atmega168pb", "-c", protocol,
                                    "-P", "{port}", "-b", str(baud),
                                    "-U", f"flash:w:{hexfile}:i"], protocol, baud)
                ratio = ours.seconds / theirs.seconds
                vs_wire = ours.seconds / ours.bound
                met = ratio <= MAX_VS_AVRDUDE and vs_wire <= MAX_VS_WIRE
                ok &= met
                print(f"{protocol:9} {baud:>6} | {ours.seconds:6.2f}s {theirs.seconds:6.2f}s "
                      f"{ratio:6.2f} | {ours.bound:9.2f}s {vs_wire:12.2f} "
                      f"{theirs.seconds / theirs.bound:13.2f} | {'met' if met else 'MISSED'}",
                      flush=True)
                print(f"{'':16} | wire bytes: blinkc {ours.wire_bytes:,}, "
                      f"avrdude {theirs.wire_bytes:,}")
    print(f"Targets: blinkc <= {MAX_VS_AVRDUDE}x avrdude, <= {MAX_VS_WIRE}x the wire-time bound: "
          + ("all met." if ok else "NOT all met."))
    return 0


if __name__ == "__main__":
    sys.exit(main())
