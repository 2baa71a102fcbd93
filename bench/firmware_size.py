"""Firmware size of sketches on the real Blinks SDK: total flash, game flash
(total minus an empty sketch built the same way), and RAM.

    BLINKS_SDK=/path/to/Blinks-SDK python bench/firmware_size.py [SKETCH ...]

Without arguments it measures the test sketches in tests/fixtures/sketches.
Without BLINKS_SDK it says what it needs and exits (successfully: `make bench`
runs it on machines without the SDK too).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from blinkc.build import BudgetExceeded, BuildError, SizeReport, build, find_sdk  # noqa: E402

SKETCHES = ROOT / "tests" / "fixtures" / "sketches"
EMPTY_SKETCH = "void setup() {\n}\n\nvoid loop() {\n}\n"


def measure(source: Path, out: Path, sdk, backend: str) -> tuple[SizeReport, bool]:
    """The size report of `source`, and whether it fits on a tile."""
    try:
        return build(source, out, sdk=sdk, backend=backend).report, True
    except BudgetExceeded as over:
        return over.report, False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sketches", nargs="*", type=Path, help=".ino, sketch folder or GAME.py")
    parser.add_argument("--backend", default="avr-gcc", choices=("auto", "arduino-cli", "avr-gcc"))
    args = parser.parse_args()
    if not os.environ.get("BLINKS_SDK"):
        print(
            "firmware_size: needs BLINKS_SDK set to a Blinks SDK folder (a checkout of "
            "Move38/Blinks-SDK or bigjosh/Move38-Arduino-Platform) and avr-gcc; skipped."
        )
        return 0
    sketches = args.sketches or [SKETCHES / "Spinner", SKETCHES / "NeighbourGlow"]
    try:
        sdk = find_sdk()
        with tempfile.TemporaryDirectory(prefix="blinkc-size-") as tmp:
            work = Path(tmp)
            (work / "Empty").mkdir()
            (work / "Empty" / "Empty.ino").write_text(EMPTY_SKETCH)
            empty, _ = measure(work / "Empty", work / "out-empty", sdk, args.backend)
            rows = [("(empty sketch)", empty, True)]
            for i, sketch in enumerate(sketches):
                report, fits = measure(sketch, work / f"out-{i}", sdk, args.backend)
                rows.append((sketch.stem if sketch.suffix else sketch.name, report, fits))
    except BuildError as err:
        print(f"firmware_size: {err}", file=sys.stderr)
        return 1

    print(f"SDK: {sdk.describe()}; backend {args.backend}")
    limits = f"game image {empty.flash_limit:,} bytes of flash, {empty.ram_limit:,} bytes of RAM"
    print(f"Limits: {limits}")
    print(f"{'sketch':24} {'flash':>7} {'game':>7} {'RAM':>6} {'stack':>6}  fits")
    for name, report, fits in rows:
        game = report.flash - empty.flash
        print(
            f"{name:24} {report.flash:7,} {game:7,} {report.ram:6,} {report.stack_free:6,}"
            f"  {'yes' if fits else 'NO'}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
