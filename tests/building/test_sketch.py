"""Arduino preprocessing of .ino sketches."""

from __future__ import annotations

from pathlib import Path

import pytest

from blinkc.build import BuildError
from blinkc.build.sketch import copy_sketch, find_functions, find_sketch, preprocess


def names(code: str) -> list[str]:
    return [f.name for f in find_functions(code)]


def test_functions_get_prototypes_with_their_signature_and_line():
    code = "byte x;\n\nstatic unsigned long\n  total(byte a,\n        Color c) {\n  return a;\n}\n"
    (fn,) = find_functions(code)
    assert (fn.prototype, fn.line) == ("static unsigned long total(byte a, Color c);", 3)


def test_things_that_are_not_plain_functions_are_left_alone():
    code = """
    struct Pair { byte a; byte b; };
    enum Mode { A, B };
    byte table[] = { 1, 2, 3 };
    template <typename T> T twice(T v) { return v + v; }
    void Pair2::reset() { }
    void fade(byte amount = 3) { }
    extern "C" { void c_func(void) { } }
    // void commented() { }
    const char *s = "void quoted() {";
    Color * pick(byte i) { return 0; }
    """
    assert names(code) == ["pick"]


def test_nested_braces_and_preprocessor_lines_do_not_confuse_the_scanner():
    code = (
        "#define BLOCK { }\nvoid a() { if (1) { for (;;) { } } }\n"
        "#if 0\n#endif\nint b(void) { return '{'; }\n"
    )
    assert names(code) == ["a", "b"]


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    return folder / name


def test_preprocess_declares_before_first_function_and_keeps_line_numbers(tmp_path: Path):
    ino = write(
        tmp_path / "Game",
        "Game.ino",
        "#define N 3\nbyte v = N;\n\nvoid setup() { later(); }\nvoid loop() {}\nvoid later() {}\n",
    )
    write(tmp_path / "Game", "Extra.ino", "byte helper() { return 1; }\n")
    out = preprocess(find_sketch(ino), tmp_path / "out/Game.ino.cpp").read_text().splitlines()
    assert out[0] == "#include <Arduino.h>"
    decl = out.index("void later();")
    assert out.index("byte v = N;") < decl < out.index("void setup() { later(); }")
    assert "byte helper();" in out  # functions of every .ino are declared up front
    # The #line right before `void setup` says it is line 4 of Game.ino.
    setup = out.index("void setup() { later(); }")
    assert out[setup - 1] == f'#line 4 "{ino.as_posix()}"'
    assert out.index(f'#line 1 "{(tmp_path / "Game/Extra.ino").as_posix()}"') > setup


def test_find_sketch_accepts_a_file_or_a_folder_and_explains_bad_input(tmp_path: Path):
    write(tmp_path / "Spin", "Spin.ino", "void setup(){}\n")
    assert find_sketch(tmp_path / "Spin").name == "Spin"
    assert find_sketch(tmp_path / "Spin/Spin.ino").folder == (tmp_path / "Spin").resolve()
    write(tmp_path / "Two", "a.ino", "")
    write(tmp_path / "Two", "b.ino", "")
    with pytest.raises(BuildError, match=r"2 \.ino files and none named Two\.ino"):
        find_sketch(tmp_path / "Two")
    with pytest.raises(BuildError, match="does not exist"):
        find_sketch(tmp_path / "nope")
    with pytest.raises(BuildError, match=r"not an Arduino sketch \(.ino\)"):
        find_sketch(write(tmp_path, "notes.txt", ""))


def test_copying_a_sketch_into_an_output_folder_inside_it(tmp_path: Path):
    ino = write(tmp_path / "Game", "Game.ino", "void setup() {}\n")
    write(tmp_path / "Game" / "out" / "old", "stale.ino", "")
    copy = copy_sketch(find_sketch(ino), tmp_path / "Game" / "out")
    assert sorted(p.name for p in copy.folder.rglob("*")) == ["Game.ino"]
