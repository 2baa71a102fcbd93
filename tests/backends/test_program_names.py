"""The emulator's program of a game (the Python backend's class, and the native backend's
wrapper) is called through a few methods (setup, loop, links, value, state, ...); a field
or timer of the same name would hide one, so the DSL refuses those names
(blinkc.blinklib.api.PROGRAM_NAMES). This keeps the list and the classes in step."""

from pathlib import Path

import pytest

from blinkc.blinklib.api import PROGRAM_NAMES
from blinkc.games import tile_class

from ..tools import require_tool

GAME = Path(__file__).resolve().parents[1] / "golden" / "games" / "convoy.py"


@pytest.mark.parametrize("backend", ["python", "native"])
def test_every_method_of_a_program_is_a_name_no_field_may_take(backend):
    if backend == "native":
        require_tool("g++")
    cls = tile_class(GAME, backend)
    program = cls()
    public = {n for n in dir(program) if not n.startswith("_") and not n.isupper()
              and callable(getattr(program, n)) and not n.startswith("f_")}
    assert public <= set(PROGRAM_NAMES), sorted(public - set(PROGRAM_NAMES))
