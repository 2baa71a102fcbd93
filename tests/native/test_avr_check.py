"""The sketches compile for the ATmega168PB without warnings (blinkc's headers, no SDK)."""

from __future__ import annotations

import pytest

from blinkc.native import (
    AvrBuildError,
    HostIntWarning,
    avr_compile_check,
    int16_warnings,
    load_sketch,
)

from .conftest import SKETCHES

SLOPPY = """
void setup() {}
void loop() {
  int unused;
  byte b = 3;
  if (b < -1) setColor(RED);
}
"""

INT16 = """
long minute = 60 * 1000;             // 16-bit int overflow on the tile
unsigned long start;
byte big = 300;                      // a byte: truncated on both, not a 16-bit-int matter
void setup() { start = millis(); }
void loop() {
  int elapsed = millis() - start;    // a 32-bit value squeezed into a 16-bit int
  word w = millis();                 // word is 16-bit on both: not reported
  int16_t s = millis();              // int16_t is 16-bit on both: not reported
  setValueSentOnFace(elapsed + w + s + (1 << 20) + minute, 0);
}
"""


@pytest.mark.parametrize("name", ["Spinner", "Relay", "Globals"])
def test_test_sketches_compile_for_the_tile_without_warnings(avr, name):
    assert [str(w) for w in avr_compile_check(SKETCHES / name)] == []


def test_warnings_are_reported_with_file_and_line(avr, tmp_path):
    path = tmp_path / "Sloppy.ino"
    path.write_text(SLOPPY)
    warnings = avr_compile_check(path)
    assert any(w.line == 4 and "unused" in w.message for w in warnings)
    assert any(w.line == 6 and "comparison" in w.message for w in warnings)
    assert all(w.file == str(path.resolve()) for w in warnings)


def test_an_avr_compile_error_carries_the_compiler_message(avr, tmp_path):
    path = tmp_path / "Bad.ino"
    path.write_text("void setup() {}\nvoid loop() { Color c = RED; if (c == BLUE) {} }\n")
    with pytest.raises(AvrBuildError, match=r"Bad\.ino:2:"):
        avr_compile_check(path)


def test_16_bit_int_hazards_are_found(avr, tmp_path):
    path = tmp_path / "Hazards.ino"
    path.write_text(INT16)
    found = {w.line: w.message for w in int16_warnings(path)}
    assert set(found) == {2, 7, 10}, found
    assert "overflow" in found[2]
    assert "conversion to 'int'" in found[7]
    assert "shift" in found[10]


def test_loading_a_sketch_warns_about_16_bit_int(avr, gxx, tmp_path, monkeypatch):
    monkeypatch.setenv("BLINKC_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "Hazards.ino"
    path.write_text(INT16)
    with pytest.warns(HostIntWarning, match="16-bit int on the tile"):
        sketch = load_sketch(path)
    assert len(sketch.int16_warnings) == 3
    with pytest.warns(HostIntWarning):
        again = load_sketch(path)  # the answer is cached with the library
    assert again.int16_warnings == sketch.int16_warnings


def test_test_sketches_have_no_16_bit_int_hazards(avr):
    for name in ("Spinner", "Relay", "Globals"):
        assert int16_warnings(SKETCHES / name) == []


def test_a_third_party_style_sketch_compiles_for_the_tile_too(avr, tmp_path):
    from .test_sketches import CALLS_BEFORE_DEFINING

    path = tmp_path / "Early.ino"
    path.write_text(CALLS_BEFORE_DEFINING)
    assert [str(w) for w in avr_compile_check(path)] == []


STRUCTS = """
struct Wide { byte face; unsigned seq; unsigned inverted; };    // 5 bytes on the tile, 12 here
struct Fixed { uint32_t seq; uint16_t a, b; };                  // 8 on both
struct Padded { byte face; uint16_t seq; };                      // 3 on the tile, 4 here
Wide wide;
void setup() {}
void loop() {
  Fixed fixed;
  byte raw[3] = {1, 2, 3};
  sendDatagramOnFace(&wide, sizeof(wide), 0);
  sendDatagramOnFace(&fixed, sizeof(fixed), 1);
  sendDatagramOnFace(raw, sizeof(raw), 2);
  Wide local;
  sendDatagramOnFace(&local, sizeof(local), 3);
  sendDatagramOnFace(&local, sizeof(Wide), 4);
  Padded padded;
  sendDatagramOnFace(&padded, sizeof padded, 5);
}
"""


def test_datagram_sizes_that_differ_on_the_tile_are_found(avr, gxx, tmp_path):
    from blinkc.native.avr_check import datagram_size_warnings

    path = tmp_path / "Structs.ino"
    path.write_text(STRUCTS)
    found = {w.line: w.message for w in datagram_size_warnings(path)}
    assert set(found) == {10, 14, 15, 17}, found
    assert found[10].startswith("datagram of sizeof(wide): 5 bytes on the tile, 12 on the host")
    assert "sizeof(local): 5 bytes on the tile, 12" in found[14]
    assert "sizeof(Wide)" in found[15]
    assert "sizeof(padded): 3 bytes on the tile, 4" in found[17]
    assert all(w.file == str(path.resolve()) for w in datagram_size_warnings(path))
    # ... and loading the sketch warns about them with the other 16-bit int hazards.
    assert {w.line for w in int16_warnings(path)} >= {10, 14, 15, 17}
