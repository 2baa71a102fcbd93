"""`blinkc size` refuses what `blinkc flash` refuses, in bounded memory (issue 11)."""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner

from blinkc.cli import main
from blinkc.flash.hexfile import Image, synthetic_blinks_image, synthetic_image


def size(path: Path):
    return CliRunner().invoke(main, ["size", str(path)])


def assert_refused(result, *words: str) -> None:
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit)
    assert result.output.startswith("Error: ")
    for w in words:
        assert w in result.output, result.output


def game_hex(tmp_path: Path, image: Image, name: str = "game.hex") -> Path:
    path = tmp_path / name
    image.write_hex(path)
    return path


def test_an_empty_hex_is_refused(tmp_path: Path):
    (tmp_path / "empty.hex").write_text("")
    assert_refused(size(tmp_path / "empty.hex"), "is empty")


def test_a_truncated_hex_is_refused(tmp_path: Path):
    text = game_hex(tmp_path, synthetic_image([(0x1700, 2000)])).read_text()
    (tmp_path / "cut.hex").write_text("".join(text.splitlines(True)[:40]))
    assert_refused(size(tmp_path / "cut.hex"), "no end-of-file record", "truncated")


def test_a_joined_hex_is_refused(tmp_path: Path):
    text = game_hex(tmp_path, synthetic_image([(0x1700, 200)])).read_text()
    (tmp_path / "two.hex").write_text(text + text)
    assert_refused(size(tmp_path / "two.hex"), "is not the last record")


def test_a_hex_beyond_16_kb_is_refused(tmp_path: Path):
    path = game_hex(tmp_path, synthetic_image([(0x1700, 200), (0x4000, 64)]))
    assert_refused(size(path), "does not fit the ATmega168PB", "64 bytes beyond")


def test_a_merged_hex_without_a_real_bios_is_refused(tmp_path: Path):
    path = game_hex(tmp_path, synthetic_image([(0x1700, 200), (0x3000, 64)]))
    assert_refused(size(path), "has no BIOS")


def test_a_game_too_big_for_its_area_is_over_budget_not_cut_off(tmp_path: Path):
    # The old report counted only the bytes inside 0x1700-0x2DFF: 5,888 of 5,888, exit 0.
    for start in (0x1700, 0x0000):                       # relocated, and linked at 0
        r = size(game_hex(tmp_path, synthetic_image([(start, 6144)])))
        assert r.exit_code == 1 and "Flash:  6,144 of 5,888 bytes" in r.output, r.output
        assert "256 over" in r.output


def test_good_game_and_merged_hexes_still_measure(tmp_path: Path):
    game = synthetic_image([(0x1700, 3000)])
    merged = synthetic_blinks_image(3000)
    for path in (game_hex(tmp_path, game, "g.hex"), game_hex(tmp_path, merged, "m.hex")):
        r = size(path)
        assert r.exit_code == 0 and "Flash:  3,000 of 5,888 bytes" in r.output, r.output


def test_devices_and_pipes_are_refused_without_reading(tmp_path: Path):
    assert_refused(size(Path("/dev/zero")), "not a regular file")
    fifo = tmp_path / "game.hex"
    os.mkfifo(fifo)
    assert_refused(size(fifo), "not a regular file")
    assert_refused(size(tmp_path / "missing.hex"), "does not exist")


def test_a_huge_hex_is_refused_in_bounded_memory(tmp_path: Path):
    # 2 MB of well-formed records: the old reader held every byte in a dict.
    def record(addr: int, rtype: int, data: bytes) -> str:
        body = bytes([len(data), addr >> 8, addr & 0xFF, rtype]) + data
        return ":" + (body + bytes([(-sum(body)) & 0xFF])).hex().upper() + "\n"

    with (tmp_path / "huge.hex").open("w") as f:
        for block in range(0x30):
            f.write(record(0, 0x04, block.to_bytes(2, "big")))
            f.writelines(record(i * 16, 0x00, bytes(16)) for i in range(1000))
        f.write(":00000001FF\n")
    assert (tmp_path / "huge.hex").stat().st_size > 2_000_000
    tracemalloc.start()
    try:
        r = size(tmp_path / "huge.hex")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert_refused(r, "too big to be an image")
    assert peak < 4_000_000


@pytest.mark.parametrize("name", ["x.ihex", "x.ihx"])
def test_other_hex_suffixes_are_read_as_hex(tmp_path: Path, name: str):
    (tmp_path / name).write_text(":00000001FF\n")
    assert_refused(size(tmp_path / name), "no data records")
