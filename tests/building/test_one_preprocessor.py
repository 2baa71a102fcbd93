"""The tile build and the emulator preprocess a sketch alike (issue 29: one preprocessor).

`build.sketch.preprocess` (avr-gcc, the SDK) and `native.read_sketch` (g++, the
emulator) must make the same translation unit, so a sketch gets the same
prototypes on the tile and in the emulator."""

from __future__ import annotations

import itertools
import os
import shutil
from pathlib import Path

import pytest

from blinkc.build.sketch import find_sketch, preprocess
from blinkc.native import read_sketch, sketch_from_text

ROOT = Path(__file__).resolve().parents[2]
OWN_SKETCHES = sorted([*ROOT.glob("bench/corpus/**/*.ino"),
                       *ROOT.glob("tests/fixtures/sketches/*/*.ino"),
                       *ROOT.glob("tests/native/corpus/*/*.ino")])
GOLDEN = sorted(ROOT.glob("tests/golden/*.ino"))


def sdk_examples() -> list[Path]:
    sdk = os.environ.get("BLINKS_SDK")
    return sorted(Path(sdk).glob("libraries/*/examples/*/*.ino")) if sdk else []


def tile_unit(main: Path, out: Path) -> str:
    return preprocess(find_sketch(main), out / f"{main.stem}.ino.cpp").read_text()


def emulator_unit(main: Path) -> str:
    return read_sketch(main.parent).unit


def prototypes(unit: str) -> list[str]:
    """The generated declarations: the lines between the `#line`s before the first function."""
    lines = unit.splitlines()
    return [line for prev, line in itertools.pairwise(lines)
            if prev.startswith("#line ") and line.endswith(");")]


def test_the_corpus_is_found():
    assert len(OWN_SKETCHES) >= 10 and len(GOLDEN) >= 5


@pytest.mark.parametrize("main", OWN_SKETCHES, ids=lambda p: p.parent.name)
def test_own_sketches_get_one_unit_on_the_tile_and_in_the_emulator(main, tmp_path):
    unit = tile_unit(main, tmp_path)
    assert unit == emulator_unit(main)
    assert "void setup();" in prototypes(unit)


@pytest.mark.parametrize("golden", GOLDEN, ids=lambda p: p.stem)
def test_generated_game_sketches_get_one_unit_on_both(golden, tmp_path):
    # A game's sketch is built from its folder on the tile and loaded as text by the emulator.
    folder = tmp_path / golden.stem
    folder.mkdir()
    main = Path(shutil.copy(golden, folder / golden.name))
    unit = tile_unit(main, tmp_path / "out")
    assert unit == emulator_unit(main)
    assert unit == sketch_from_text(main.read_text(), main.stem, main.resolve()).unit


@pytest.mark.skipif(not os.environ.get("BLINKS_SDK"),
                    reason="BLINKS_SDK is not set: it names a checkout of the Blinks SDK whose "
                           "examples to preprocess")
def test_every_sdk_example_gets_one_unit_on_the_tile_and_in_the_emulator(tmp_path):
    examples = sdk_examples()
    assert len(examples) >= 20
    differ = [p.parent.name for p in examples
              if tile_unit(p, tmp_path / p.parent.name) != emulator_unit(p)]
    assert not differ
    for p in examples:   # each has at least setup() and loop() declared, as Arduino does
        assert {"void setup();", "void loop();"} <= set(prototypes(emulator_unit(p))), p


# What the two old preprocessors disagreed on: the tile build gave no prototype to an
# `extern "C"` function or to one with an `enum`/`struct` parameter (or a `::` in its
# return type), and the emulator none to setup() and loop().
DISAGREED = """\
#include <blinklib.h>
enum Mode { CALM, ANGRY };
struct Pair { byte a, b; };
namespace tint { typedef byte level; }

void setup() { show(CALM); }
void loop() { setValueSentOnAllFaces(sum(pair()) + c_side() + dim(2)); }

void show(enum Mode m) { setColor(m == CALM ? BLUE : RED); }
struct Pair pair() { Pair p = {1, 2}; return p; }
byte sum(struct Pair p) { return p.a + p.b; }
extern "C" byte c_side(void) { return 4; }
tint::level dim(byte x) { return x / 2; }
"""


def test_what_the_old_preprocessors_disagreed_on(tmp_path):
    folder = tmp_path / "Disagreed"
    folder.mkdir()
    main = folder / "Disagreed.ino"
    main.write_text(DISAGREED)
    unit = tile_unit(main, tmp_path / "out")
    assert unit == emulator_unit(main)
    assert prototypes(unit) == [
        "void setup();", "void loop();", "void show(enum Mode m);", "struct Pair pair();",
        "byte sum(struct Pair p);", 'extern "C" byte c_side(void);', "tint::level dim(byte x);"]


def test_the_disagreeing_sketch_compiles_for_the_tile_and_the_host(tmp_path):
    from blinkc.native import avr_compile_check, load_sketch

    from ..tools import require_tool

    require_tool("avr-g++")
    require_tool("g++")
    folder = tmp_path / "Disagreed"
    folder.mkdir()
    (folder / "Disagreed.ino").write_text(DISAGREED)
    assert avr_compile_check(folder) == []
    load_sketch(folder, check_int16=False)
