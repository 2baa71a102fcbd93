"""Third-party sketches compile unmodified: Arduino preprocessing, headers, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from blinkc.blinklib import Blinklib
from blinkc.native import NativeBuildError, SketchError, load_sketch, read_sketch
from blinkc.sketch_source import find_functions

CALLS_BEFORE_DEFINING = """\
#include <blinklib.h>
#include "Serial.h"
#include <avr/pgmspace.h>

ServicePortSerial sp;
const byte steps[] PROGMEM = {5, 9, 13};
struct Pair { byte a, b; };

void setup() {
  sp.begin();
  sp.println("hello");
}

void loop() {
  setValueSentOnFace(pick(2), 0);          // defined below: needs a prototype
  setValueSentOnFace(sum(makePair()), 1);
}

// A comment with braces { } and a fake def: void fake() {
byte pick(byte i) { return pgm_read_byte(&steps[i]); }
Pair makePair() { Pair p = {3, 4}; return p; }
byte sum(Pair p) { return p.a + p.b; }
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    path = folder / f"{name}.ino"
    path.write_text(text)
    return path


def run_once(path: Path) -> list[int]:
    program = load_sketch(path, check_int16=False)()
    api = Blinklib()
    api.now = 50
    program.setup(api)
    program.loop(api)
    return api.out_value


def test_functions_may_be_called_before_they_are_defined(gxx, tmp_path):
    path = write(tmp_path, "Early", CALLS_BEFORE_DEFINING)
    assert run_once(path)[:2] == [13, 7]


def test_a_sketch_folder_joins_its_ino_files_and_finds_its_headers(gxx, tmp_path):
    folder = tmp_path / "Multi"
    folder.mkdir()
    (folder / "Multi.ino").write_text(
        '#include "table.h"\nvoid setup() {}\nvoid loop() { setValueSentOnAllFaces(helper()); }\n')
    (folder / "b_helpers.ino").write_text("byte helper() { return TABLE_VALUE; }\n")
    (folder / "table.h").write_text("#define TABLE_VALUE 42\n")
    assert run_once(folder) == [42] * 6


def test_a_compile_error_names_the_sketch_file_and_line(gxx, tmp_path):
    path = write(tmp_path, "Broken", "void setup() {}\n\nvoid loop() {\n  undefinedThing(3);\n}\n")
    with pytest.raises(NativeBuildError) as err:
        load_sketch(path, check_int16=False)
    message = str(err.value)
    assert f"{path.resolve()}:4:" in message
    assert "undefinedThing" in message


def test_missing_sketch_is_a_clear_error(tmp_path):
    with pytest.raises(SketchError, match="no such sketch"):
        read_sketch(tmp_path / "Nope.ino")
    (tmp_path / "Empty").mkdir()
    with pytest.raises(SketchError, match=r"no \.ino file"):
        read_sketch(tmp_path / "Empty")


def test_prototype_scanner_skips_what_is_not_a_free_function():
    text = """
    struct S { void m() {} };
    enum E { A, B };
    Color palette[] = { RED, BLUE };
    namespace n { int g() { return 1; } }
    template <typename T> T twice(T x) { return x + x; }
    int S2::method() { return 0; }
    void withDefault(int a = 3) {}
    static inline byte *ptr(byte *p, const char *s) { return p; }
    unsigned long later(void) { if (1) { } return 0; }
    """
    protos = [d.prototype for d in find_functions(text) if d.prototype]
    assert protos == ["static inline byte *ptr(byte *p, const char *s);",
                      "unsigned long later(void);"]


def test_the_cache_builds_once(gxx, tmp_path, monkeypatch):
    monkeypatch.setenv("BLINKC_CACHE_DIR", str(tmp_path / "cache"))
    path = write(tmp_path, "Cached", "void setup() {}\nvoid loop() {}\n")
    first = load_sketch(path, check_int16=False)
    stamp = first.library_path.stat().st_mtime_ns
    second = load_sketch(path, check_int16=False)
    assert second.library_path == first.library_path
    assert second.library_path.stat().st_mtime_ns == stamp
    assert first.library_path.is_relative_to(tmp_path / "cache")


def test_looks_like_sketch(tmp_path):
    from blinkc.native import looks_like_sketch

    path = write(tmp_path, "Some", "void setup() {}\nvoid loop() {}\n")
    assert looks_like_sketch(path) and looks_like_sketch(path.parent)
    assert not looks_like_sketch(tmp_path / "game.py")
