"""The Arduino preprocessing of a sketch's `.ino` files into one C++ translation unit.

One implementation for both places a sketch is compiled: the tile build
(`build/compile.py`, avr-gcc and the SDK) and the host emulator
(`native/sketch.py`, g++), so a sketch gets the same prototypes on both.
It does what the Arduino IDE's preprocessor (arduino-builder with ctags) does:

- `#include <Arduino.h>` goes on top (in a Blinks sketch it brings in blinklib);
- the .ino files are joined in the order given (the caller passes the main
  file first, the others by name), each after `#line 1 "<file>"`;
- each top-level function definition gets a prototype, and the prototypes go
  right before the first function definition (after the sketch's own
  includes and type definitions, which the prototypes may need), each after
  a `#line` naming its definition, so a prototype's error points there; a
  `#line` after them puts the rest back at the user's lines;
- comments, string and character literals and preprocessor lines are ignored
  when looking for functions, and functions inside braces (struct and class
  methods, namespaces, `extern "C" { }` blocks) are not top-level;
- no prototype for a function with default arguments, a template, or a
  `Class::member` defined outside its class; `static` and `extern "C"` stay
  in the prototype; a prototype met twice (overloads aside) is given once.

Arduino finds functions with ctags after running the C preprocessor with the
board's macros; this scanner reads the text as written, so it finds functions
in `#if` branches that are off as well (in both builds alike). Like Arduino, a
prototype naming a type declared after the first function does not compile.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Function", "arduino_unit", "find_functions", "mask"]

#: Words that a `name(...) {` at file scope can start with without being a function.
_NOT_NAMES = frozenset({
    "if", "for", "while", "switch", "return", "sizeof", "catch", "do", "else",
    "operator", "defined", "decltype", "static_assert", "alignof", "alignas",
})
#: First words of a head that declare no function (or none to prototype).
_NOT_HEADS = frozenset({"typedef", "using", "namespace", "friend"})
#: `ret name(params)`, params with one level of nested parentheses (a function
#: pointer parameter). `name` is not preceded by `::` (a member defined outside).
#: Used with match(text, start, brace): anchored at the head's start and the brace.
_HEAD_RE = re.compile(
    r"\s*(?P<ret>[\w\s\*&:<>,]*?[\w\*&>])\s*(?<![:\w])(?P<name>[A-Za-z_]\w*)\s*"
    r"\((?P<params>(?:[^()]|\([^()]*\))*)\)\s*$",
    re.DOTALL,
)


@dataclass(frozen=True)
class Function:
    """A function defined at file scope."""

    name: str
    #: Offset in the text where its definition starts (the return type).
    start: int
    #: 1-based line of `start`.
    line: int
    #: e.g. "static byte pick(byte i);", or None when Arduino would make none
    #: (default arguments, a template).
    prototype: str | None


def find_functions(code: str) -> list[Function]:
    """The top-level function definitions in `code`, in order."""
    masked, plain = mask(code)
    found: list[Function] = []
    depth = paren = 0
    start = 0  # where the current top-level declaration begins
    for i, ch in enumerate(masked):
        if ch == "(":
            paren += 1
        elif ch == ")":
            paren = max(0, paren - 1)
        elif ch == ";" and depth == 0 and paren == 0:
            start = i + 1
        elif ch == "{":
            if depth == 0 and paren == 0:
                fn = _function(masked, plain, start, i)
                if fn is not None:
                    found.append(fn)
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
            if depth == 0:
                start = i + 1
    return found


def _function(masked: str, plain: str, start: int, brace: int) -> Function | None:
    m = _HEAD_RE.match(masked, start, brace)
    if m is None:
        return None
    ret_words = m["ret"].replace("<", " < ").split()
    if m["name"] in _NOT_NAMES or ret_words[0] in _NOT_HEADS:
        return None
    if any(w in _NOT_NAMES for w in ret_words):
        return None
    at = m.start("ret")
    line = masked.count("\n", 0, at) + 1
    if ret_words[0] == "template" or "=" in m["params"]:
        return Function(m["name"], at, line, None)  # Arduino makes no prototype either
    head = " ".join(plain[at:m.end("name")].split())  # from the plain text: `extern "C"`
    params = " ".join(m["params"].split())
    return Function(m["name"], at, line, f"{head}({params});")


def mask(text: str) -> tuple[str, str]:
    """Two copies of `text` with the same length and line breaks.

    The first has comments, string and character literals and preprocessor
    lines blanked (for finding structure); the second keeps the literals
    (for copying prototypes, which may say `extern "C"`).
    """
    masked = list(text)
    plain = list(text)
    n = len(text)
    i = 0
    line_start = True

    def blank(a: int, b: int, both: bool) -> None:
        for k in range(a, b):
            if text[k] != "\n":
                masked[k] = " "
                if both:
                    plain[k] = " "

    while i < n:
        ch = text[i]
        if line_start and ch == "#":
            j = i
            while j < n and text[j] != "\n":  # a directive runs on past backslash-newlines
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "\n":
                    j += 2
                    continue
                if text.startswith("/*", j):
                    end = text.find("*/", j + 2)
                    j = n if end < 0 else end + 2
                    continue
                j += 1
            blank(i, j, both=True)
            i = j
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j, both=True)
            i = j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(i, j, both=True)
            i = j
            continue
        if ch in "\"'":
            j = i + 1
            while j < n and text[j] != ch and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            blank(i, j, both=False)
            i = j
            line_start = False
            continue
        if ch == "\n":
            line_start = True
        elif not ch.isspace():
            line_start = False
        i += 1
    return "".join(masked), "".join(plain)


def arduino_unit(files: Iterable[tuple[str | Path, str]]) -> str:
    """The translation unit of a sketch's .ino files, given as (file, text), main first."""
    parts = [(_c_string(str(file)), text if text.endswith("\n") else text + "\n")
             for file, text in files]
    found = [(index, fn) for index, (_, text) in enumerate(parts)
             for fn in find_functions(text)]
    block: list[str] = []
    seen: set[str] = set()
    for index, fn in found:
        if fn.prototype is not None and fn.prototype not in seen:
            seen.add(fn.prototype)
            block += [f'#line {fn.line} "{parts[index][0]}"\n', fn.prototype + "\n"]
    out = ["#include <Arduino.h>\n"]
    for index, (label, text) in enumerate(parts):
        out.append(f'#line 1 "{label}"\n')
        if block and found[0][0] == index:
            first = found[0][1]
            at = text.rfind("\n", 0, first.start) + 1  # the start of its line
            out += [text[:at], *block, f'#line {first.line} "{label}"\n', text[at:]]
        else:
            out.append(text)
    return "".join(out)


def _c_string(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')
