"""Arduino preprocessing of .ino sketches (blinkc.sketch_source), and the tile's sketch folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from blinkc.build import BuildError
from blinkc.build.sketch import copy_sketch, find_sketch, preprocess
from blinkc.sketch_source import arduino_unit, find_functions


def names(code: str) -> list[str]:
    """The functions that get a prototype."""
    return [f.name for f in find_functions(code) if f.prototype]


def unit_lines(*files: tuple[str, str]) -> list[str]:
    return arduino_unit(files).splitlines()


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
    # Extra.ino follows Game.ino (its `#line 1` is also above the prototype of helper).
    assert out.index(f'#line 1 "{(tmp_path / "Game/Extra.ino").as_posix()}"', setup) > setup


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


# --- the tricky cases of the one preprocessor (both the tile and the emulator use it) ---


def test_default_arguments_get_no_prototype_but_mark_the_first_function():
    code = ("byte level = 2;\n"
            "void fade(byte amount = 3) { later(); }\n"    # first definition: no prototype
            "void later() {}\n")
    lines = unit_lines(("F.ino", code))
    assert "void fade(byte amount);" not in lines and "void fade(byte amount = 3);" not in lines
    # The prototypes go before fade, so fade may call later(), defined below it.
    assert lines.index("void later();") < lines.index("void fade(byte amount = 3) { later(); }")
    assert lines.index("byte level = 2;") < lines.index("void later();")


def test_a_function_after_a_struct_is_declared_after_the_struct():
    code = ("struct Pair {\n  byte a;\n  void m() { }\n};\n\n"
            "Pair make(byte a) { Pair p; p.a = a; return p; }\n")
    (fn,) = find_functions(code)
    assert (fn.name, fn.line, fn.prototype) == ("make", 6, "Pair make(byte a);")
    lines = unit_lines(("S.ino", code))
    assert lines.index("};") < lines.index("Pair make(byte a);")


def test_a_comment_with_braces_hides_nothing_and_declares_nothing():
    code = ("/* a block { comment\n   void fake() { } */\n"
            "// another } one: void fake2() {\n"
            "void real(const char *s) { }\n")
    assert names(code) == ["real"]
    (fn,) = find_functions(code)
    assert fn.line == 4


def test_a_multi_line_signature_is_declared_on_one_line_at_its_own_line():
    code = ("\nstatic Color\nmix(Color a,\n    byte weight,   // how much of a\n"
            "    Color b)\n{\n  return a;\n}\n")
    (fn,) = find_functions(code)
    assert (fn.prototype, fn.line) == ("static Color mix(Color a, byte weight, Color b);", 2)
    lines = unit_lines(("/x/M.ino", code))
    at = lines.index("static Color mix(Color a, byte weight, Color b);")
    assert lines[at - 1] == '#line 2 "/x/M.ino"'    # its errors point at the definition
    assert lines[at + 1] == '#line 2 "/x/M.ino"' and lines[at + 2] == "static Color"


def test_templates_get_no_prototype_however_spaced():
    code = ("template <typename T> T twice(T v) { return v + v; }\n"
            "template<typename T>\nT thrice(T v) { return v + v + v; }\n"
            "byte once(byte v) { return v; }\n")
    assert names(code) == ["once"]
    lines = unit_lines(("T.ino", code))
    assert lines.index("byte once(byte v);") < lines.index(
        "template <typename T> T twice(T v) { return v + v; }")


def test_members_namespaces_and_function_pointers():
    code = ("namespace n { int g() { return 1; } }\n"
            "int S::method() { return 0; }\n"
            "void each(void (*visit)(byte), byte n) { }\n"
            "byte (*pick)(byte) = 0;\n")
    assert [f.prototype for f in find_functions(code) if f.prototype] == [
        "void each(void (*visit)(byte), byte n);"]


def test_a_second_ino_file_is_joined_after_the_main_one_and_declared_up_front(tmp_path):
    folder = tmp_path / "Game"
    folder.mkdir()
    (folder / "Game.ino").write_text("#include \"t.h\"\nvoid setup() { helper(); }\nvoid loop() {}\n")
    (folder / "b.ino").write_text("// helpers\n\nbyte helper() { return 1; }\n")
    (folder / "a.ino").write_text("byte first() { return 0; }\n")
    lines = preprocess(find_sketch(folder), tmp_path / "out.cpp").read_text().splitlines()
    game, a, b = (f'"{(folder / n).as_posix()}"' for n in ("Game.ino", "a.ino", "b.ino"))
    assert lines[:4] == ["#include <Arduino.h>", f"#line 1 {game}", '#include "t.h"',
                         f"#line 2 {game}"]
    assert lines[4:12] == ["void setup();", f"#line 3 {game}", "void loop();",
                           f"#line 1 {a}", "byte first();", f"#line 3 {b}", "byte helper();",
                           f"#line 2 {game}"]
    assert lines.index(f"#line 1 {a}", 12) < lines.index(f"#line 1 {b}", 12)
    assert lines[-1] == "byte helper() { return 1; }"


def test_a_prototype_met_twice_is_given_once_and_overloads_each_once():
    code = ("void f(byte a) { }\nvoid f(Color c) { }\n"
            "#if defined(BIG)\nvoid g() { }\n#else\nvoid g() { }\n#endif\n")
    protos = [line for line in unit_lines(("O.ino", code)) if line.endswith(");")]
    assert protos == ["void f(byte a);", "void f(Color c);", "void g();"]
