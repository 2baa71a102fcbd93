"""How long blinkc takes to compile each game: lowering (the DSL to the optimised IR) and each
backend's rendering (the Arduino sketch, the emulator's Python), the best of several runs in one
process (what `blinkc gen`, a test or the explorer pays per game once blinkc is imported).

Usage: python bench/compile_speed.py [--runs N] [GAME.py ...]   (default: firmware/*.py)
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from blinkc.backends.cpp import generate_cpp
from blinkc.backends.python import generate_python
from blinkc.dsl.loader import compile_game

ROOT = Path(__file__).resolve().parents[1]


def best_ms(step: Callable[[], object], runs: int) -> float:
    """The fastest of `runs` timings of step(), in ms (the others met the machine's noise)."""
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        step()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games", nargs="*", type=Path)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    games = args.games or sorted((ROOT / "firmware").glob("*.py"))
    print(f"{'game':<16} {'lower':>9} {'C++':>9} {'Python':>9}   (ms, best of {args.runs})")
    for game in games:
        program = compile_game(game)
        lower = best_ms(partial(compile_game, game), args.runs)
        cpp = best_ms(partial(generate_cpp, program), args.runs)
        python = best_ms(partial(generate_python, program), args.runs)
        print(f"{game.stem:<16} {lower:>9.0f} {cpp:>9.0f} {python:>9.0f}", flush=True)


if __name__ == "__main__":
    main()
