"""Intel HEX loading: good files parse, every bad file is one clean HexFileError."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blinkc.flash.errors import HexFileError, ImageError
from blinkc.flash.hexfile import (
    Image,
    check_image,
    load_image,
    parse_hex,
    synthetic_bios,
    synthetic_blinks_image,
    synthetic_image,
)
from blinkc.flash.targets import ATMEGA168PB, ATMEGA328PB, BLINKS


def record(addr: int, rtype: int, data: bytes) -> str:
    body = bytes([len(data), addr >> 8, addr & 0xFF, rtype]) + data
    return ":" + (body + bytes([(-sum(body)) & 0xFF])).hex().upper()


EOF_RECORD = ":00000001FF"


def test_parses_data_and_address_records():
    text = "\n".join([
        record(0x0000, 0x04, b"\x00\x00"),             # extended linear address 0
        record(0x1700, 0x00, b"\x0c\x94\x34\x00"),
        record(0x2E00, 0x00, b"\xde\xad"),
        record(0x0000, 0x05, b"\x00\x00\x00\x00"),     # start linear address: ignored
        EOF_RECORD, ""])
    img = parse_hex(text)
    assert img.segments == ((0x1700, b"\x0c\x94\x34\x00"), (0x2E00, b"\xde\xad"))
    assert img.size == 6 and img.end == 0x2E02


def test_extended_segment_address_record():
    text = "\n".join([record(0, 0x02, b"\x01\x00"), record(0x0010, 0x00, b"\xaa"), EOF_RECORD])
    assert parse_hex(text).segments == ((0x1010, b"\xaa"),)


def test_crlf_and_blank_space_after_eof_are_fine():
    text = record(0x1700, 0x00, b"\x01\x02") + "\r\n" + EOF_RECORD + "\r\n\r\n  \x1a"
    assert parse_hex(text.encode()).segments == ((0x1700, b"\x01\x02"),)


def test_anything_but_blank_space_after_eof_is_refused():
    text = record(0x1700, 0x00, b"\x01\x02") + "\r\n" + EOF_RECORD + "\r\nnot read\r\n"
    with pytest.raises(HexFileError, match="not the last record"):
        parse_hex(text.encode())


@pytest.mark.parametrize("text, words", [
    (":0200000011223\n", "odd number of hex digits"),
    (":02170000AAZZ11\n", "non-hex characters"),
    ("02170000AABB00\n", "must start with ':'"),
    (":02170000AABB00\n", "checksum is 0x00, should be 0x82"),
    (":03170000AABB7C\n", "says 3 data bytes but has 2"),
    (record(0x1700, 0x09, b"\xaa\xbb") + "\n", "unknown record type 0x09"),
    (":00000001FE\n", "line 1"),
])
def test_bad_records_name_the_line_and_problem(text, words):
    with pytest.raises(HexFileError) as e:
        parse_hex(text, source="GAME.hex")
    assert "GAME.hex" in e.value.what and words in e.value.what
    assert e.value.fix


def test_overlapping_records_explain_the_blinks_meaning():
    text = "\n".join([record(0x2DFF, 0, b"\x01\x02"), record(0x2E00, 0, b"\x03"), EOF_RECORD])
    with pytest.raises(HexFileError) as e:
        parse_hex(text, source="merged.hex")
    assert "0x2E00" in e.value.what and "5,888" in e.value.cause


def test_elf_binary_and_empty_inputs():
    with pytest.raises(HexFileError, match="ELF"):
        parse_hex(b"\x7fELF\x01\x01\x01" + bytes(40))
    with pytest.raises(HexFileError, match="not an Intel HEX text file"):
        parse_hex(b":10\x00\xff\xfe")
    with pytest.raises(HexFileError, match="empty"):
        parse_hex(b"\n\n")
    with pytest.raises(HexFileError, match="no data records"):
        parse_hex(EOF_RECORD + "\n")


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(HexFileError, match="no such file"):
        load_image(tmp_path / "nope.hex")
    with pytest.raises(HexFileError, match="directory"):
        load_image(tmp_path)


def test_round_trip_through_a_file(tmp_path):
    img = synthetic_image([(0x1700, 300), (0x2E00, 4608)], seed=5)
    img.write_hex(tmp_path / "g.hex")
    assert load_image(tmp_path / "g.hex") == img


# -- image checks -------------------------------------------------------------------

def blinks_image(game: int = 3000) -> Image:
    return synthetic_blinks_image(game, seed=1)


def test_a_game_plus_bios_image_passes_the_blink_checks():
    assert check_image(blinks_image(), ATMEGA168PB, BLINKS) == []


def test_image_beyond_the_flash_is_refused():
    img = synthetic_image([(0x2E00, 0x1200), (0x4000, 16)])
    with pytest.raises(ImageError, match="does not fit the ATmega168PB") as e:
        check_image(img, ATMEGA168PB, BLINKS)
    assert "16 bytes beyond" in e.value.what
    # ...but it fits a 32 KB part.
    assert check_image(img, ATMEGA328PB, None) == []


def test_unrelocated_sketch_is_refused_for_a_blink_but_fine_raw():
    img = synthetic_image([(0x0000, 1876)])
    with pytest.raises(ImageError, match="active-game area") as e:
        check_image(img, ATMEGA168PB, BLINKS)
    assert "--raw" in e.value.fix
    assert check_image(img, ATMEGA168PB, None) == []


def test_image_without_bios_is_refused():
    img = synthetic_image([(0x1700, 1876)])
    with pytest.raises(ImageError, match="no BIOS") as e:
        check_image(img, ATMEGA168PB, BLINKS)
    assert "erases the whole chip" in e.value.cause


def test_bios_only_image_warns():
    img = Image.from_map(synthetic_bios(3))
    assert check_image(img, ATMEGA168PB, BLINKS) == [
        "the image has no game at 0x1700: the tile will have the BIOS only"]


def test_pages_are_aligned_and_padded_with_erased_bytes():
    img = Image(((0x17FE, b"\x01\x02\x03"),))
    pages = img.pages(128)
    assert [a for a, _ in pages] == [0x1780, 0x1800]
    assert pages[0][1][-2:] == b"\x01\x02" and pages[0][1][:-2] == b"\xff" * 126
    assert pages[1][1][0] == 3 and pages[1][1][1:] == b"\xff" * 127


# -- properties and fuzzing ------------------------------------------------------------

sparse_images = st.dictionaries(st.integers(0, 0x1FFFF), st.integers(0, 255), max_size=300)


@settings(max_examples=150, deadline=None)
@given(sparse_images)
def test_any_image_survives_a_hex_round_trip(cells):
    img = Image.from_map(cells, "x")
    if not cells:
        return
    assert parse_hex(img.to_hex()).to_map() == cells


@settings(max_examples=150, deadline=None)
@given(sparse_images.filter(bool), st.sampled_from([64, 128, 256]))
def test_pages_cover_exactly_the_defined_bytes(cells, page_size):
    img = Image.from_map(cells)
    pages = img.pages(page_size)
    assert all(a % page_size == 0 and len(d) == page_size for a, d in pages)
    flat = {a + i: b for a, d in pages for i, b in enumerate(d)}
    assert all(flat[a] == v for a, v in cells.items())
    assert {a // page_size for a in cells} == {a // page_size for a, _ in pages}


def _mutate(text: str, data: st.DataObject) -> str:
    ops = data.draw(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 10_000),
                                       st.characters(codec="ascii")), min_size=1, max_size=4))
    chars = list(text)
    for op, pos, ch in ops:
        i = pos % (len(chars) + 1)
        if op == 0:
            chars.insert(i, ch)
        elif op == 1 and chars:
            del chars[i % len(chars)]
        elif op == 2 and chars:
            chars[i % len(chars)] = ch
        else:
            chars = chars[:i]                      # truncation
    return "".join(chars)


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_mutated_hex_files_never_crash(data):
    text = synthetic_image([(0x1700, 40), (0x2E00, 24)], seed=9).to_hex()
    try:
        img = parse_hex(_mutate(text, data), source="fuzz.hex")
    except HexFileError as e:
        assert e.what.startswith("fuzz.hex")
    else:
        assert isinstance(img, Image) and img.size > 0


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_arbitrary_bytes_never_crash(raw):
    try:
        parse_hex(raw)
    except HexFileError:
        pass


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=":0123456789ABCDEFabcdef \t\r", max_size=60), max_size=8))
def test_hex_looking_garbage_never_crashes(lines):
    try:
        parse_hex("\n".join(lines))
    except HexFileError:
        pass


# -- the whole file is checked before anything is written (issue 11) -----------------

def _blinks_hex() -> str:
    return synthetic_image([(0x1700, 100), (0x2E00, 0x1200)], seed=3).to_hex()


def test_a_truncated_file_without_its_end_of_file_record_is_refused():
    lines = _blinks_hex().splitlines()
    half = "\n".join(lines[:len(lines) // 2]) + "\n"        # half a BIOS, no EOF record
    with pytest.raises(HexFileError, match="no end-of-file record") as e:
        parse_hex(half, source="half.hex")
    assert "truncated" in e.value.cause and e.value.fix


def test_a_file_cut_in_the_middle_of_a_record_is_refused():
    text = _blinks_hex()
    with pytest.raises(HexFileError, match=r"half\.hex"):
        parse_hex(text[:len(text) // 2], source="half.hex")


def test_an_end_of_file_record_in_the_middle_is_refused():
    a = _blinks_hex()
    b = synthetic_image([(0x1800, 10)], seed=4).to_hex()
    with pytest.raises(HexFileError, match="end-of-file record on line") as e:
        parse_hex(a + b, source="joined.hex")          # `cat a.hex b.hex`
    assert "joined" in e.value.cause


def test_two_end_of_file_records_are_refused():
    with pytest.raises(HexFileError, match="end-of-file record on line 2"):
        parse_hex("\n".join([record(0x1700, 0, b"\x01"), EOF_RECORD, EOF_RECORD, ""]))


@pytest.mark.parametrize("text, words", [
    (":FF17000000AA\n" + EOF_RECORD, "says 255 data bytes"),
    (record(0, 0x02, b"\x01\x02\x03\x04") + "\n" + EOF_RECORD, "needs 2 data bytes"),
    (record(0x1700, 0, b"\x06") + "\n" + record(0, 0x01, b"\xaa"), "end-of-file record"),
    (record(0xFFF8, 0, bytes(16)) + "\n" + EOF_RECORD, "crosses a 64 KB boundary"),
    (record(0x1700, 0, b"\x06") + "\n" + record(0x1700, 0x07, b"") + "\n" + EOF_RECORD,
     "record type 0x07"),
])
def test_malformed_records_are_refused(text, words):
    with pytest.raises(HexFileError, match=words):
        parse_hex(text, source="bad.hex")


def test_dev_zero_is_refused_without_reading_it():
    with pytest.raises(HexFileError, match="not a regular file"):
        load_image("/dev/zero")


def test_a_fifo_is_refused_without_hanging(tmp_path):
    import os

    fifo = tmp_path / "game.hex"
    os.mkfifo(fifo)
    with pytest.raises(HexFileError, match="not a regular file"):
        load_image(fifo)


def test_a_file_too_big_for_a_tile_image_is_refused_unread(tmp_path):
    big = tmp_path / "big.hex"
    with big.open("wb") as f:
        f.truncate(50 * 1024 * 1024)                  # sparse: 50 MB, nothing on disk
    with pytest.raises(HexFileError, match="too big to be an image") as e:
        load_image(big)
    assert e.value.fix


# -- a BIOS must really be a BIOS (issue 11) -------------------------------------------

def with_cells(image: Image, cells: dict[int, int]) -> Image:
    both = image.to_map()
    both.update(cells)
    return Image.from_map(both, image.source)


def rjmp(slot: int, target: int) -> dict[int, int]:
    w = 0xC000 | ((target - slot - 2) // 2 & 0x0FFF)
    return {slot: w & 0xFF, slot + 1: w >> 8}


def jmp(slot: int, target: int) -> dict[int, int]:
    k = target // 2
    w = 0x940C | (k >> 16 & 0x3E) << 3 | k >> 16 & 1
    return {slot: w & 0xFF, slot + 1: w >> 8, slot + 2: k & 0xFF, slot + 3: k >> 8 & 0xFF}


def test_a_6144_byte_game_without_a_bios_is_refused():
    img = synthetic_image([(0x1700, 6144)], source="big.hex")    # reaches 0x2EFF
    with pytest.raises(ImageError, match="runs past the end of its area") as e:
        check_image(img, ATMEGA168PB, BLINKS)
    assert "0x1700 to 0x2EFF (6,144 bytes, 256 over the 5,888-byte limit" in e.value.what
    assert "blinkc size" in e.value.fix


def test_any_bytes_in_the_bios_area_are_not_a_bios():
    img = synthetic_image([(0x1700, 3000), (0x2E00, 0x1200)], seed=5, source="junk.hex")
    with pytest.raises(ImageError, match=r"has no BIOS: .* but not a BIOS") as e:
        check_image(img, ATMEGA168PB, BLINKS)
    assert "reset vector at 0x3800" in e.value.what and "0xF8" in e.value.cause


@pytest.mark.parametrize("cells, words", [
    ({0x3800: 0xFF, 0x3801: 0xFF}, "reset vector at 0x3800 is 0xFFFF, not a jump"),
    (rjmp(0x3810, 0x2C00), "entry vector 4 at 0x3810 jumps to 0x2C00, outside the BIOS"),
    (jmp(0x3838, 0x0100), "entry vector 14 at 0x3838 jumps to 0x0100, outside"),
    (rjmp(0x3800, 0x3C00), "jumps to 0x3C00, where the image has no code"),
])
def test_a_bios_vector_table_that_does_not_jump_into_the_bios_is_refused(cells, words):
    img = with_cells(synthetic_blinks_image(100, small_bios=True), cells)
    with pytest.raises(ImageError) as e:
        check_image(img, ATMEGA168PB, BLINKS)
    assert words in e.value.what


def test_a_missing_entry_vector_is_refused():
    cells = synthetic_blinks_image(100, small_bios=True).to_map()
    for a in range(0x3834, 0x3838):                 # vector 13: write a flash page
        del cells[a]
    with pytest.raises(ImageError, match="entry vector 13 at 0x3834 is missing"):
        check_image(Image.from_map(cells), ATMEGA168PB, BLINKS)


def test_jmp_and_rjmp_vectors_both_make_a_bios():
    img = with_cells(synthetic_blinks_image(100, small_bios=True),
                     {**jmp(0x3800, 0x3850), **rjmp(0x3810, 0x3860)})
    assert check_image(img, ATMEGA168PB, BLINKS) == []


def test_a_full_5888_byte_game_against_the_bios_is_fine():
    img = synthetic_blinks_image(5888, seed=3)       # one run from 0x1700 to 0x3FFF
    assert len(img.segments) == 1
    assert check_image(img, ATMEGA168PB, BLINKS) == []


def test_raw_and_other_parts_skip_the_bios_check():
    img = synthetic_image([(0x1700, 6144)])
    assert check_image(img, ATMEGA168PB, None) == []
    assert check_image(img, ATMEGA328PB, None) == []


def test_the_real_sdk_bios_passes_the_check():
    """Against the SDK's own BlinkBIOS.hex when BLINKS_SDK is set (read, never copied)."""
    import os
    from pathlib import Path

    sdk = os.environ.get("BLINKS_SDK")
    bios = Path(sdk or ".") / "cores" / "blinklib" / "shared" / "BlinkBIOS.hex"
    if not sdk or not bios.is_file():
        pytest.skip("set BLINKS_SDK to a Blinks SDK checkout to check its BIOS")
    image = load_image(bios)
    assert check_image(image, ATMEGA168PB, BLINKS) == [
        "the image has no game at 0x1700: the tile will have the BIOS only"]
    game = synthetic_image([(0x1700, 5000)], seed=8).to_map()
    assert check_image(with_cells(image, game), ATMEGA168PB, BLINKS) == []
