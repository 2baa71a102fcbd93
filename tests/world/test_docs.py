"""The Python examples in the layout and scenario docs run as written."""

import re
from pathlib import Path

import pytest

from blinkc.world import World
from blinkc.world.layout_file import parse_layout

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.mark.parametrize("doc", ["layouts.md", "scenarios.md"])
def test_python_examples_in_the_docs_run(doc, monkeypatch):
    monkeypatch.chdir(DOCS.parent)
    world = World()
    parse_layout("tile k at 0,0 clicks\ntile j at 1,0 clicks").build(world)
    blocks = re.findall(r"```python\n(.*?)```", (DOCS / doc).read_text(), re.S)
    assert blocks
    for code in blocks:
        exec(code, {"world": world})
