"""`make demo`: Pirates & Lasers, from the game file to a laser shot and an HP transfer.

Compiles firmware/pirates_lasers.py, writes the generated Arduino sketch,
then plays a turn in the emulator on examples/ship.layout and draws the ship
before the shot, as the beams fly, after the shot, and after a Hull hands one
HP to its damaged neighbour.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .cli.check import describe
from .games import load_program, tile_class
from .render.terminal import show, use_color
from .testing import Cluster

ROOT = Path(__file__).resolve().parents[1]
GAME = ROOT / "firmware" / "pirates_lasers.py"
LAYOUT = ROOT / "examples" / "ship.layout"
OUT = ROOT / "out"


def hp_line(ship: Cluster) -> str:
    return "  ".join(f"{n}:{s['hp']}" for n, s in ship.states().items() if s["kind"] == "HULL")


def main() -> None:
    missing = [p for p in (GAME, LAYOUT) if not p.is_file()]
    if missing:  # an installed blinkc has no firmware/ or examples/ beside it
        sys.exit(f"The demo plays {GAME.relative_to(ROOT)} on {LAYOUT.relative_to(ROOT)} from a "
                 f"checkout of blinkc, and {missing[0]} is not there: run `make demo` in a "
                 "checkout of blinkc.")
    out = sys.stdout
    color = use_color(out)
    print(f"== 1. Compile {GAME.relative_to(ROOT)}")
    program = load_program(GAME)
    print(describe(program))
    tile_class(GAME)  # the Python backend's tile program
    try:
        from .backends.cpp import generate_cpp
    except ImportError:
        print("\n(the C++ backend is not available in this version)")
    else:
        from .build.errors import BuildError
        from .build.outputs import write_generated

        try:  # like `blinkc gen`: never over a sketch blinkc did not write
            ino = write_generated(OUT / program.name, f"{program.name}.ino", generate_cpp(program))
            print(f"\nArduino sketch for the Blinks SDK written to {ino.relative_to(ROOT)}")
        except BuildError as e:
            print(f"\nThe Arduino sketch was not written: {e}")

    print(f"\n== 2. A ship in the emulator ({LAYOUT.relative_to(ROOT)})")
    ship = Cluster(GAME, LAYOUT, seed=1)
    show(ship.world.snapshot(), out, color, "before: Hulls tan with a white Repair face, "
                                            "Hazard z red, Redirector r magenta")
    print("HP  " + hp_line(ship))

    print("\n== 3. A laser shot: press the Hazard z")
    ship.click("z")
    ship.world.run_for(400)  # the click registers, the Arm wave goes round
    flashed = ship.world.now_ms
    while ship.world.now_ms - flashed < 1500:
        ship.world.run_for(20)
        if any(s["flash_faces"] and n != "z" for n, s in ship.states().items()):
            break
    show(ship.world.snapshot(), out, color, "the beams fly: faces they cross flash red")
    ship.settle()
    show(ship.world.snapshot(), out, color, "after the shot: each Hull in a beam lost a tan face")
    print("HP  " + hp_line(ship))

    print("\n== 4. An HP transfer: press Hull h3 (its Repair face touches h1)")
    before = ship.states()
    ship.click("h3")
    ship.world.run_for(450)
    show(ship.world.snapshot(), out, color, "the HP crosses: a white pulse")
    ship.settle()
    after = ship.states()
    show(ship.world.snapshot(), out, color, "after the transfer")
    print("HP  " + hp_line(ship))
    print(f"h3: {before['h3']['hp']} -> {after['h3']['hp']}   h1: {before['h1']['hp']} -> "
          f"{after['h1']['hp']}   (nothing created from nothing)")
    stats = ship.world.stats
    print(f"\nemulated {ship.world.now_ms / 1000:.1f} s: {stats['passes']} passes, "
          f"{stats['packets']} IR packets; {stats['skipped']} idle loops skipped")


if __name__ == "__main__":
    main()
