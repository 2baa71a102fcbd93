"""Division is defined wherever the DSL accepts it, and the same on both backends.

A divisor the value ranges allow to be 0 is refused (tests/dsl/test_errors.py); the one
overflow left, MIN // -1 of a signed type, wraps: it is MIN, and MIN % -1 is 0, in the
emulator's Python, in the C++ on the host (where C would trap) and on the tile.
"""

import json
import subprocess
import sys
import textwrap

import pytest

from blinkc.backends.cpp import generate_cpp
from blinkc.dsl.loader import compile_game

from ..tools import require_tool

GAME = """\
from blinkc.dsl import *
game = Game("divide")
x = game.field(range(-2**31, 2**31), default=0)
d = game.field(range(-3, 0), default=-1)
y = game.field(range(-32768, 32768), default=0)
e = game.field(range(-3, 0), default=-1)

@game.derived(range(-2**31, 2**31))
def q32(t):
    return t.x // t.d

@game.derived(range(-2**31, 2**31))
def r32(t):
    return t.x % t.d

@game.derived(range(-32768, 32768))
def q16(t):
    return t.y // t.e

@game.derived(range(-32768, 32768))
def r16(t):
    return t.y % t.e

@game.display
def look(t):
    if t.q32 == 1 or t.r32 == 1 or t.q16 == 1 or t.r16 == 1:
        t.color_all(RED)
"""

#: Runs in a child process: a trap (SIGFPE) must fail the test, not kill pytest.
VALUES = """
import json, sys
from pathlib import Path
from blinkc.dsl.loader import compile_game
from blinkc.blinklib.api import Blinklib
program = compile_game(sys.argv[1])
if sys.argv[2] == "python":
    from blinkc.backends.python import program_class
    cls = program_class(program)
else:
    from blinkc.native.game import native_class
    cls = native_class(program, Path(sys.argv[1]))
out = []
for x, d, y, e in json.loads(sys.argv[3]):
    tile = cls(x=x, d=d, y=y, e=e)
    api = Blinklib()
    tile.setup(api)
    out.append([tile.value(api, n) for n in ("q32", "r32", "q16", "r16")])
print(json.dumps(out))
"""

CASES = [(-2**31, -1, -32768, -1), (-2**31, -2, -32768, -2), (2**31 - 1, -1, 32767, -1),
         (-7, -2, -7, -3), (7, -3, 7, -2)]
EXPECTED = [[-2**31, 0, -32768, 0], [2**30, 0, 16384, 0], [-(2**31 - 1), 0, -32767, 0],
            [3, -1, 2, -1], [-2, 1, -3, 1]]


def values(path, backend):
    r = subprocess.run([sys.executable, "-c", VALUES, str(path), backend, json.dumps(CASES)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"{backend}: exit {r.returncode}\n{r.stderr[-2000:]}"
    return json.loads(r.stdout)


@pytest.fixture
def game(tmp_path):
    path = tmp_path / "divide.py"
    path.write_text(textwrap.dedent(GAME))
    return path


def test_min_divided_by_minus_one_wraps_in_the_emulator(game):
    assert values(game, "python") == EXPECTED


def test_min_divided_by_minus_one_wraps_in_the_cpp_too(game):
    require_tool("g++")
    assert values(game, "native") == EXPECTED


def test_the_cpp_guards_only_divisions_that_can_be_min_by_minus_one(tmp_path):
    path = tmp_path / "g.py"
    path.write_text(GAME.replace('d = game.field(range(-3, 0), default=-1)',
                                 'd = game.field(range(1, 4), default=1)'))
    source = generate_cpp(compile_game(path))
    assert "blinkc_div<int16_t, uint16_t>(y, e)" in source  # e can be -1, y -32768
    assert "blinkc_div<int32_t" not in source  # d is 1..3
