"""The generated C++: golden files, a warning-free AVR compile, fixed-width types only.

Regenerate the golden files after an intended change with:
    pytest tests/backends/test_cpp_output.py --update-golden
"""

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from blinkc.backends.cpp import generate_cpp
from blinkc.cli import main
from blinkc.games import load_program
from blinkc.native import avr_compile_check, sketch_from_text

from ..tools import require_tool

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
GAMES = sorted((ROOT / "firmware").glob("*.py")) + sorted((GOLDEN / "games").glob("*.py"))


def generated(game: Path) -> str:
    # Name the source relative to the repository, so golden files do not depend on the checkout.
    program = load_program(game)
    text = generate_cpp(program)
    return text.replace(program.source, str(game.relative_to(ROOT)))


@pytest.mark.parametrize("game", GAMES, ids=[g.stem for g in GAMES])
def test_generated_sketch_matches_its_golden_file(game, update_golden):
    golden = GOLDEN / f"{game.stem}.ino"
    text = generated(game)
    if update_golden:
        golden.write_text(text)
    assert golden.exists(), f"no golden file; run pytest with --update-golden to create {golden}"
    assert text == golden.read_text(), f"{game.name}: generated C++ changed (see module docstring)"


@pytest.mark.parametrize("game", GAMES, ids=[g.stem for g in GAMES])
def test_generated_sketch_compiles_for_the_tile_without_warnings(game):
    require_tool("avr-gcc")
    sketch = sketch_from_text(generated(game), game.stem, game.with_suffix(".ino"))
    assert avr_compile_check(sketch) == []


CODE = re.compile(r"//.*?$|/\*.*?\*/", re.S | re.M)
FORBIDDEN = re.compile(r"\b(int|long|short|unsigned|signed|float|double|malloc|free|new|delete|String)\b")


@pytest.mark.parametrize("game", GAMES, ids=[g.stem for g in GAMES])
def test_generated_code_uses_fixed_width_types_no_heap_no_floating_point(game):
    code = CODE.sub("", generated(game))
    assert "#include <blinklib.h>" in code
    # Type names like uint8_t contain "int" only inside a longer word, so \b keeps them apart.
    found = sorted({m.group(0) for m in FORBIDDEN.finditer(code)})
    assert found == [], f"{game.name} uses {found}"


def test_every_function_says_where_it_came_from():
    text = generated(ROOT / "firmware" / "pirates_lasers.py")
    heads = re.findall(r"^// .*\[(.*?)\]\n(?:__attribute__\(\(unused\)\) )?(?:static )?\w+ \w+\(", text, re.M)
    assert "pirates_lasers.py:150" in " ".join(heads) or any("pirates_lasers.py" in h for h in heads)
    assert any(h.startswith("engine.py:") for h in heads)
    assert re.search(r"hp = .*// pirates_lasers\.py:\d+", text)


def test_gen_writes_a_sketch_folder_for_the_arduino_ide(tmp_path):
    r = CliRunner().invoke(main, ["gen", str(ROOT / "firmware" / "pirates_lasers.py"), "-o", str(tmp_path)])
    assert r.exit_code == 0, r.output
    ino = tmp_path / "pirates_lasers" / "pirates_lasers.ino"
    assert ino.exists() and "void loop(void)" in ino.read_text()


def test_gen_reports_a_broken_game_without_a_traceback(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from blinkc.dsl import *\ngame = Game('b')\n@game.on_click\ndef f(t):\n    t.x = 2.5\n")
    r = CliRunner().invoke(main, ["gen", str(bad), "-o", str(tmp_path)])
    assert r.exit_code == 1 and "bad.py:5" in r.output and "Traceback" not in r.output
