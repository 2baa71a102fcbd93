"""The with-bootloader image: game bytes and BIOS bytes, each at its address."""

from __future__ import annotations

from pathlib import Path

import pytest
from intelhex import IntelHex

from blinkc.build import BuildError
from blinkc.build.hexmerge import merge_with_bios

from .helpers import write_fake_bios


def write_game(path: Path, start: int, data: bytes) -> IntelHex:
    game = IntelHex()
    game.frombytes(data, offset=start)
    game.start_addr = {"CS": 0, "IP": start}
    game.write_hex_file(str(path))
    return game


def test_merge_keeps_every_byte_and_the_bios_start_address(tmp_path: Path):
    game = write_game(tmp_path / "g.hex", 0x1700, bytes(range(256)) * 3)
    bios = write_fake_bios(tmp_path / "bios.hex")
    out = merge_with_bios(tmp_path / "g.hex", tmp_path / "bios.hex", tmp_path / "m.hex")
    merged = IntelHex(str(out))
    assert set(merged.addresses()) == set(game.addresses()) | set(bios.addresses())
    assert all(merged[a] == game[a] for a in game.addresses())
    assert all(merged[a] == bios[a] for a in bios.addresses())
    assert merged.start_addr == {"CS": 0, "IP": 0x3800}


def test_a_full_game_area_fits_exactly(tmp_path: Path):
    write_game(tmp_path / "g.hex", 0x1700, b"\x11" * 5888)
    write_fake_bios(tmp_path / "bios.hex")
    merged = IntelHex(
        str(merge_with_bios(tmp_path / "g.hex", tmp_path / "bios.hex", tmp_path / "m.hex"))
    )
    assert merged[0x2DFF] == 0x11 and merged[0x2E00] == 3


@pytest.mark.parametrize(
    ("start", "size", "why"),
    [
        (0x0000, 16, "outside the built-in game area"),
        (0x1700, 5889, "outside the built-in game area"),
    ],
)
def test_a_game_outside_its_area_is_refused(tmp_path: Path, start: int, size: int, why: str):
    write_game(tmp_path / "g.hex", start, b"\x01" * size)
    write_fake_bios(tmp_path / "bios.hex")
    with pytest.raises(BuildError, match=why):
        merge_with_bios(tmp_path / "g.hex", tmp_path / "bios.hex", tmp_path / "m.hex")


def test_a_bios_reaching_into_the_game_area_is_refused(tmp_path: Path):
    write_game(tmp_path / "g.hex", 0x1700, b"\x01" * 16)
    write_game(tmp_path / "bios.hex", 0x2D00, b"\x02" * 16)
    with pytest.raises(BuildError, match="wrong BIOS file"):
        merge_with_bios(tmp_path / "g.hex", tmp_path / "bios.hex", tmp_path / "m.hex")
