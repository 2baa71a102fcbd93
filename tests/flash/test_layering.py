"""The flashing layers stay apart: no CLI in the library, no policy in the protocols."""

import ast
from pathlib import Path

import pytest

FLASH = Path(__file__).resolve().parents[2] / "blinkc" / "flash"


def imports(module: str) -> set[str]:
    tree = ast.parse((FLASH / f"{module}.py").read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            found.add(("." * node.level) + (node.module or "").split(".")[0])
    return found


@pytest.mark.parametrize("module", sorted(p.stem for p in FLASH.glob("*.py")))
def test_no_flash_module_imports_click(module):
    assert "click" not in imports(module)


@pytest.mark.parametrize("module", ["stk500v1", "stk500v2", "transport", "hexfile"])
def test_protocols_and_the_hex_reader_know_nothing_of_the_flasher(module):
    assert not {".flasher", ".source", ".console"} & imports(module)
