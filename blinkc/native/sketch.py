"""Arduino-style sketch preprocessing: an .ino (or a sketch folder) to one C++ unit.

What the Arduino build does, and so what a Blinks sketch may rely on:

- `#include <Arduino.h>` goes on top (it brings in blinklib);
- all .ino files of the sketch folder are joined, the main one first, the
  others in name order;
- a prototype is generated for each function defined at file scope, and
  inserted before the first function definition, so a function may be
  called above its definition.

`#line` directives keep compiler messages pointing at the user's own files
and lines. Like Arduino, functions with default arguments get no prototype,
and a prototype mentioning a type declared after the first function fails.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_NOT_FUNCTIONS = frozenset({
    "if", "for", "while", "switch", "return", "sizeof", "catch", "do", "else",
    "operator", "defined", "decltype", "static_assert", "alignof",
})
_NOT_FUNCTION_HEADS = frozenset({
    "struct", "class", "union", "enum", "namespace", "template", "typedef", "using",
})
_HEAD_RE = re.compile(
    r"^(?P<ret>[\w\s\*&:<>,]*?[\w\*&>])\s*(?<![:\w])(?P<name>[A-Za-z_]\w*)\s*"
    r"\((?P<params>[^()]*)\)\s*$",
    re.DOTALL,
)


class SketchError(Exception):
    """The sketch cannot be read (missing file, no .ino in a folder, ...)."""


@dataclass(frozen=True)
class Sketch:
    """A sketch ready to compile: one C++ translation unit plus its surroundings."""

    name: str
    #: The main file (for messages); may not exist for a sketch given as text.
    path: Path
    #: The translation unit, starting with `#include <Arduino.h>`.
    unit: str
    #: Folders searched for the sketch's own `#include "..."` headers.
    include_dirs: tuple[Path, ...] = ()
    #: Other C/C++ files of the sketch folder, compiled alongside.
    extra_sources: tuple[Path, ...] = field(default=())


@dataclass(frozen=True)
class FunctionDef:
    """A function defined at file scope: where its head starts, and its prototype."""

    name: str
    start: int
    prototype: str


def looks_like_sketch(path: str | Path) -> bool:
    """True for an .ino file, or a folder holding one (what `read_sketch` accepts)."""
    p = Path(path).expanduser()
    if p.is_dir():
        return any(p.glob("*.ino"))
    return p.suffix == ".ino"


def read_sketch(path: str | Path) -> Sketch:
    """Read an .ino/.cpp file or a sketch folder (`Name/Name.ino` and siblings)."""
    p = Path(path).expanduser()
    if p.is_dir():
        main = p / f"{p.name}.ino"
        inos = sorted(q for q in p.glob("*.ino") if q != main)
        if not main.exists():
            if not inos:
                raise SketchError(f"{p}: no .ino file in this folder")
            main, inos = inos[0], inos[1:]
        folder = p
    elif p.is_file():
        main, inos, folder = p, [], p.parent
    else:
        raise SketchError(f"{p}: no such sketch file or folder")
    files = [main, *inos]
    parts = [(f.resolve(), f.read_text(encoding="utf-8", errors="replace")) for f in files]
    extra: tuple[Path, ...] = ()
    if p.is_dir():
        extra = tuple(sorted(q.resolve() for q in folder.iterdir()
                             if q.suffix in (".cpp", ".c", ".cc")))
    name = main.stem
    return Sketch(name, main.resolve(), make_unit(parts), (folder.resolve(),), extra)


def sketch_from_text(text: str, name: str = "sketch", path: str | Path | None = None) -> Sketch:
    """A sketch given as source text (e.g. generated code); `path` names it in messages."""
    where = Path(path) if path is not None else Path(f"{name}.ino")
    dirs = (where.parent.resolve(),) if path is not None else ()
    return Sketch(name, where, make_unit([(where, text)]), dirs)


def make_unit(parts: list[tuple[Path, str]]) -> str:
    """Join .ino files into one unit with Arduino's include and generated prototypes."""
    chunks: list[str] = []
    origins: list[tuple[int, str, int]] = []  # (offset in body, file, its first line)
    offset = 0
    for file, text in parts:
        header = f'#line 1 "{_c_string(str(file))}"\n'
        chunks.append(header)
        offset += len(header)
        origins.append((offset, str(file), 1))
        if not text.endswith("\n"):
            text += "\n"
        chunks.append(text)
        offset += len(text)
    body = "".join(chunks)
    defs = find_function_definitions(body)
    protos = [d.prototype for d in defs if d.name not in ("setup", "loop")]
    if protos:
        at = body.rfind("\n", 0, defs[0].start) + 1
        file, line = _origin_of(body, origins, at)
        block = "".join(f"{p}\n" for p in protos)
        body = f'{body[:at]}{block}#line {line} "{_c_string(file)}"\n{body[at:]}'
    return f"#include <Arduino.h>\n{body}"


def _origin_of(body: str, origins: list[tuple[int, str, int]], at: int) -> tuple[str, int]:
    start, file, first = max((o for o in origins if o[0] <= at), key=lambda o: o[0])
    return file, first + body.count("\n", start, at)


def _c_string(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def find_function_definitions(text: str) -> list[FunctionDef]:
    """Function definitions at file scope, with a prototype for each, in order."""
    masked, decommented = mask(text)
    out: list[FunctionDef] = []
    depth = paren = 0
    start = 0
    for i, ch in enumerate(masked):
        if ch == "(":
            paren += 1
        elif ch == ")":
            paren -= 1
        elif ch == ";" and depth == 0 and paren == 0:
            start = i + 1
        elif ch == "{":
            if depth == 0 and paren == 0:
                d = _function_head(masked, decommented, start, i)
                if d is not None:
                    out.append(d)
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth <= 0:
                depth = 0
                start = i + 1
    return out


def _function_head(masked: str, plain: str, start: int, brace: int) -> FunctionDef | None:
    head = masked[start:brace]
    m = _HEAD_RE.match(head.strip())
    if m is None:
        return None
    name, params, ret = m["name"], m["params"], m["ret"].split()
    if name in _NOT_FUNCTIONS or not ret or ret[0] in _NOT_FUNCTION_HEADS:
        return None
    if "=" in params or any(w in _NOT_FUNCTIONS for w in ret):
        return None  # default arguments: Arduino makes no prototype either
    lead = len(head) - len(head.lstrip())
    prototype = " ".join(plain[start:brace].split()) + ";"
    return FunctionDef(name, start + lead, prototype)


def mask(text: str) -> tuple[str, str]:
    """Two copies of `text` with the same length and line breaks.

    The first has comments, string and character literals and preprocessor
    lines blanked (for finding structure); the second keeps the literals
    (for copying prototypes, which may contain `extern "C"`).
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
        if ch == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j, both=True)
            i = j
            continue
        if ch == "/" and i + 1 < n and text[i + 1] == "*":
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
