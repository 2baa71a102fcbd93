"""Firmware size of blinkc's generated games (and any sketch), against the tile's budgets.

    python bench/firmware_size.py                      # every game in firmware/
    BLINKS_SDK=/path/to/Blinks-SDK python bench/firmware_size.py [GAME.py|SKETCH ...]
    BLINKS_SDK=/path/to/Blinks-SDK python bench/firmware_size.py --corpus

Always: the AVR code size of each game's own generated code (avr-gcc -Os,
compiled against blinkc's headers, so the SDK's functions are not counted).
With BLINKS_SDK and avr-gcc: each sketch fully built with the SDK's recipe
(-Os, LTO, its linker script) next to an empty sketch built the same way:
total flash, game flash (total minus the empty sketch), RAM, and the game's
own RAM (RAM minus the empty sketch's), with the goals for Pirates & Lasers
(at most 4,300 bytes of flash and 56 bytes of game RAM: issue 28's goals).

--corpus: each small game of bench/corpus/ (GAME.py) fully built beside its hand-written
equivalent in the SDK's style (bench/corpus/hand/GAME/GAME.ino, built the same way):
blinkc's image, the hand-written one's and the difference, then a summary line; and ping
against bench/corpus/hand/ping_once/, the hand-written ping that keeps blinkc's guarantee.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from blinkc.backends.cpp import generate_cpp  # noqa: E402
from blinkc.build import BudgetExceeded, BuildError, SizeReport, build, find_sdk  # noqa: E402
from blinkc.games import load_program  # noqa: E402
from blinkc.native import avr_code_size, sketch_from_text  # noqa: E402
from blinkc.native.toolchain import ToolMissing  # noqa: E402

EMPTY_SKETCH = "void setup() {\n}\n\nvoid loop() {\n}\n"
GOALS = {"pirates_lasers": (4_300, 56)}
CORPUS = ROOT / "bench" / "corpus"
#: Corpus games whose plain hand-written sketch gives up part of blinkc's guarantee, each with
#: a second hand-written sketch that keeps it (bench/ping_cuts.py shows the difference).
SAME_GUARANTEE = {"ping": CORPUS / "hand" / "ping_once"}
#: Corpus games that send, each with the same game without its messages (no protocol engine)
#: and the goal for the engine's part, their difference (issue 28).
ENGINE_GOALS = {"ping": (CORPUS / "without_messages" / "ping.py", 700)}


def corpus_games() -> list[Path]:
    """The corpus's games, each with its hand-written sketch (corpus_hand)."""
    return sorted(CORPUS.glob("*.py"))


def corpus_hand(game: Path) -> Path:
    return CORPUS / "hand" / game.stem


def sends_messages(game: Path) -> bool:
    """The game sends messages or floods (so it carries the protocol engine)."""
    return any(k == "PROTOCOL" and v for k, v, _ in load_program(game).constants)


def own_code(game: Path) -> int:
    """Bytes of the game's own code for the AVR (no SDK)."""
    text = generate_cpp(load_program(game))
    return sum(avr_code_size(sketch_from_text(text, game.stem, game.with_suffix(".ino"))).values())


def measure(source: Path, out: Path, sdk) -> tuple[SizeReport, bool]:
    try:
        return build(source, out, sdk=sdk, backend="avr-gcc").report, True
    except BudgetExceeded as over:
        return over.report, False


def corpus() -> int:
    """blinkc's image of each corpus game against its hand-written equivalent's."""
    if not os.environ.get("BLINKS_SDK"):
        print("--corpus builds full images: set BLINKS_SDK to a Blinks SDK checkout.", file=sys.stderr)
        return 1
    try:
        sdk = find_sdk()
        with tempfile.TemporaryDirectory(prefix="blinkc-corpus-") as tmp:
            work = Path(tmp)
            rows = [(g.stem, measure(g, work / f"blinkc-{g.stem}", sdk)[0].flash,
                     measure(corpus_hand(g), work / f"hand-{g.stem}", sdk)[0].flash)
                    for g in corpus_games()]
            peers = {name: measure(sketch, work / f"hand-{sketch.name}", sdk)[0].flash
                     for name, sketch in SAME_GUARANTEE.items()}
            quiet = {name: measure(game, work / f"quiet-{name}", sdk)[0].flash
                     for name, (game, _) in ENGINE_GOALS.items()}
    except BuildError as err:
        print(f"firmware_size: {err}", file=sys.stderr)
        return 1
    print(f"Corpus (bench/corpus/), full images with {sdk.describe()} (avr-gcc, the SDK's recipe):")
    sends = {g.stem for g in corpus_games() if sends_messages(g)}
    print(f"  {'game':12} {'blinkc':>7} {'hand':>7} {'blinkc-hand':>12}")
    for name, ours, hand in rows:
        note = "  (sends messages: carries the protocol engine)" if name in sends else ""
        print(f"  {name:12} {ours:7,} {hand:7,} {ours - hand:+12,}{note}")
    larger = [name for name, ours, hand in rows if ours > hand]
    total = sum(o - h for _, o, h in rows)
    print(f"summary: {len(rows) - len(larger)} of {len(rows)} no larger than hand-written"
          + (f" (larger: {', '.join(larger)})" if larger else "")
          + f"; total difference {total:+,} bytes")
    ours_by_name = {name: ours for name, ours, _ in rows}
    for name, hand in peers.items():
        ours = ours_by_name[name]
        print(f"  {name} against hand/{SAME_GUARANTEE[name].name}/, hand-written with blinkc's "
              f"guarantee: blinkc {ours:,}, hand {hand:,}, blinkc-hand {ours - hand:+,}")
    for name, (game, goal) in ENGINE_GOALS.items():
        engine = ours_by_name[name] - quiet[name]
        print(f"  {name}'s protocol engine: {ours_by_name[name]:,} - {quiet[name]:,} without its "
              f"messages ({game.relative_to(ROOT)}) = {engine:,} bytes; goal <= {goal:,}: "
              + ("met" if engine <= goal else "NOT met"))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sources", nargs="*", type=Path, help="GAME.py, .ino or sketch folder")
    parser.add_argument("--corpus", action="store_true",
                        help="the corpus games of bench/corpus/ against their hand-written sketches")
    args = parser.parse_args()
    if args.corpus:
        return corpus()
    sources = args.sources or sorted((ROOT / "firmware").glob("*.py"))
    games = [s for s in sources if s.suffix == ".py"]

    print("Own generated code (avr-gcc -Os against blinkc's headers; SDK functions not counted):")
    try:
        for g in games:
            print(f"  {g.stem:24} {own_code(g):6,} bytes")
    except ToolMissing as e:
        print(f"  skipped: {e}")

    if not os.environ.get("BLINKS_SDK"):
        print("\nFull image: set BLINKS_SDK to a Blinks SDK checkout (Move38/Blinks-SDK or "
              "bigjosh/Move38-Arduino-Platform) to build against it.")
        return 0
    try:
        sdk = find_sdk()
        with tempfile.TemporaryDirectory(prefix="blinkc-size-") as tmp:
            work = Path(tmp)
            (work / "Empty").mkdir()
            (work / "Empty" / "Empty.ino").write_text(EMPTY_SKETCH)
            empty, _ = measure(work / "Empty", work / "out-empty", sdk)
            rows = [(s.stem, *measure(s, work / f"out-{i}", sdk)) for i, s in enumerate(sources)]
    except BuildError as err:
        print(f"firmware_size: {err}", file=sys.stderr)
        return 1
    print(f"\nFull image with {sdk.describe()} (avr-gcc, the SDK's recipe):")
    print(f"  limits: game image {empty.flash_limit:,} bytes of flash, {empty.ram_limit:,} bytes of RAM")
    print(f"  {'sketch':24} {'flash':>7} {'game':>7} {'RAM':>6} {'game RAM':>9}  fits  goal")
    print(f"  {'(empty sketch)':24} {empty.flash:7,} {0:7,} {empty.ram:6,} {0:9,}")
    for name, report, fits in rows:
        goal = GOALS.get(name)
        verdict = ""
        if goal:
            flash_ok, ram_ok = report.flash <= goal[0], report.ram - empty.ram <= goal[1]
            verdict = (f"flash <= {goal[0]:,}: {'met' if flash_ok else 'NOT met'}, "
                       f"game RAM <= {goal[1]}: {'met' if ram_ok else 'NOT met'}")
        print(f"  {name:24} {report.flash:7,} {report.flash - empty.flash:7,} {report.ram:6,} "
              f"{report.ram - empty.ram:9,}  {'yes' if fits else 'NO ':3}  {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
