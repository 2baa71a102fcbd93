"""API parity: blinkc's host headers declare exactly the names Blinks SDK v1.1.0 declares.

`sdk_api_v1_1_0.txt` is the SDK's public API, names only, written by reading its
headers. Here the names blinkc's SDK-facing headers (Arduino.h, ArduinoTypes.h,
blinklib.h, Serial.h, Print.h) declare are read off the source: macros, typedefs,
classes/structs/unions and their public members, functions. blinkc's own additions
live in blinkc_extras.h (and blinkc_hooks.h), which the SDK-style AVR check refuses.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from blinkc.native import AvrBuildError, avr_compile_check, int16_warnings, load_sketch_text
from blinkc.native.toolchain import NATIVE_DIR

HERE = Path(__file__).resolve().parent
SDK_FACING = ("Arduino.h", "ArduinoTypes.h", "blinklib.h", "Serial.h", "Print.h")


def sdk_names() -> tuple[set[str], set[str]]:
    """(names blinkc must declare, names of the SDK it leaves out on purpose)."""
    provided, left_out = set(), set()
    for line in (HERE / "sdk_api_v1_1_0.txt").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("not provided:"):
            left_out.add(line.split(":", 1)[1].strip())
        else:
            provided.add(line)
    return provided, left_out


def _strip(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return re.sub(r"\\\n", " ", text)


_KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "defined", "operator"}


def declared_names(path: Path) -> set[str]:
    """The names a header declares at file scope and as public class members.

    A small reader for blinkc's own headers (one declaration per statement, braces
    balanced): it tracks braces to skip function bodies, and access labels."""
    text = _strip(path.read_text())
    names: set[str] = set()
    guards = set(re.findall(r"^\s*#\s*ifndef\s+(\w+)\s*\n\s*#\s*define\s+\1\s*$", text, re.M))
    for m in re.finditer(r"^\s*#\s*define\s+(\w+)", text, re.M):
        if m.group(1) not in guards:
            names.add(m.group(1))
    code = re.sub(r"^\s*#[^\n]*", " ", text, flags=re.M)
    # A stack of scopes: ("file"/"extern"), ("class", name, public?), ("body",)
    stack: list[list] = [["file"]]
    statement = ""
    for tok in re.finditer(r"[{};]|[^{};]+", code):
        t = tok.group(0)
        scope = stack[-1]
        if t == "{":
            head = statement.strip()
            m = re.match(r"(?:typedef\s+)?(class|struct|union)\s*(\w*)", head)
            if scope[0] in ("file", "extern", "class") and m and "(" not in head:
                name = m.group(2)
                if scope[0] == "class":
                    name = f"{scope[1]}::{name}" if name else scope[1]
                if name and (scope[0] != "class" or scope[2]):
                    names.add(name)
                stack.append(["class", name or scope[1] if scope[0] == "class" else name,
                              m.group(1) != "class"])
            elif head.startswith('extern "C"'):
                stack.append(["extern"])
            else:
                if scope[0] != "body":
                    _declaration(head, scope, names)
                stack.append(["body"])
            statement = ""
        elif t == "}":
            stack.pop()
            statement = ""
        elif t == ";":
            if scope[0] != "body":
                _declaration(statement.strip(), scope, names)
            statement = ""
        else:
            if scope[0] == "class":
                for label in re.findall(r"\b(public|private|protected)\s*:(?!:)", t):
                    scope[2] = label == "public"
                t = re.sub(r"\b(public|private|protected)\s*:(?!:)", " ", t)
            statement += t
    return names


def _declaration(stmt: str, scope: list, names: set[str]) -> None:
    if not stmt or stmt.startswith(("using ", "template")) or stmt == "}":
        return
    if scope[0] == "class" and not scope[2]:
        return
    found = None
    m = re.match(r"typedef\s+.*?(\w+)\s*$", stmt, re.S)
    if m:
        found = m.group(1)
    elif m := re.match(r"(?:class|struct|union)\s+(\w+)\s*$", stmt):
        found = m.group(1)
    else:
        # A function (its name before the first parenthesis) or a variable.
        m = re.search(r"([~\w]+)\s*\(", stmt)
        if m and m.group(1) not in _KEYWORDS:
            found = m.group(1)
        else:
            m = re.match(r"[\w\s:*&<>,]*?(\w+)\s*(?:\[[^\]]*\])?\s*(?:[:=].*)?$", stmt, re.S)
            if m:
                found = m.group(1)
    if found is None or found in ("void",):
        return
    names.add(f"{scope[1]}::{found}" if scope[0] == "class" else found)


def host_api() -> set[str]:
    out: set[str] = set()
    for name in SDK_FACING:
        out |= declared_names(NATIVE_DIR / name)
    return out


def test_the_reader_sees_what_a_header_declares(tmp_path):
    header = tmp_path / "x.h"
    header.write_text("""
        #ifndef X_H
        #define X_H
        #define ANSWER 42
        typedef unsigned int word;  // a type
        class Thing {
          private:
            int hidden;
            void secret() { if (x) { y(); } }
          public:
            Thing() : hidden(0) {}
            bool ok(void) { return hidden == 0; }
            size_t print(int, int = 10);
        };
        union U { struct { uint8_t a : 1; uint8_t b : 7; }; uint8_t all; U() {} };
        byte value(byte face);
        const int TABLE[3] = {1, 2, 3};
        #endif
    """)
    assert declared_names(header) == {
        "ANSWER", "word", "Thing", "Thing::Thing", "Thing::ok", "Thing::print", "U", "U::a",
        "U::b", "U::all", "U::U", "value", "TABLE"}


def test_the_host_blinklib_declares_exactly_the_sdks_names():
    provided, left_out = sdk_names()
    ours = host_api()
    missing = sorted(provided - ours)
    extra = sorted(ours - provided - left_out)
    assert not missing, f"the SDK declares these, blinkc's headers do not: {missing}"
    assert not extra, (f"blinkc's SDK-facing headers declare these, SDK v1.1.0 does not "
                       f"(move them to blinkc_extras.h): {extra}")
    assert not (ours & left_out)


def test_blinkc_extras_live_in_their_own_header():
    extras = declared_names(NATIVE_DIR / "blinkc_extras.h")
    assert {"lighten", "blinkc_host_spend_ms", "BLINKC_HOST"} <= extras
    provided, _ = sdk_names()
    assert not extras & provided


USES_LIGHTEN = """
void setup() {}
void loop() { setColor(lighten(BLUE, 128)); }
"""


def test_the_avr_check_refuses_blinkc_only_functions(avr, tmp_path):
    path = tmp_path / "Light.ino"
    path.write_text(USES_LIGHTEN)
    with pytest.raises(AvrBuildError, match=r"lighten\(\), blinkc's own and not in Blinks SDK "
                                            r"v1\.1\.0") as e:
        avr_compile_check(path)
    assert e.value.not_in_sdk == ["lighten"]
    assert int16_warnings(path) == []  # blinkc's own checks let it through


def test_a_sketch_using_lighten_still_runs_in_the_emulator(gxx):
    sketch = load_sketch_text(USES_LIGHTEN, "light", check_int16=False)
    tile = sketch()
    from blinkc.blinklib import Blinklib

    api = Blinklib()
    tile.setup(api)
    tile.loop(api)
    assert api.pixels[0] == (15 | 15 << 5 | 31 << 10)
