"""Arduino sketches: finding them, copying them, and turning `.ino` into C++.

The Arduino preprocessing of a sketch is: concatenate its `.ino` files (the
main one first, the rest alphabetically), put `#include <Arduino.h>` on top,
and declare every top-level function before the first function definition,
so that a function may be called above the place it is defined. `#line`
directives keep compiler messages pointing at the user's files and lines.
Arduino finds functions with ctags; here a small scanner does it, which is
enough for ordinary sketches (templates, default arguments and `Class::`
members are left alone, as ctags-based Arduino also does for most of them).
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from .errors import BuildError

SOURCE_EXTS = (".c", ".cpp", ".S")
COPY_EXTS = (".ino", ".h", ".hpp", *SOURCE_EXTS)


@dataclass(frozen=True)
class Sketch:
    folder: Path
    name: str  # the main .ino without extension; the folder has the same name

    @property
    def main(self) -> Path:
        return self.folder / f"{self.name}.ino"

    def ino_files(self) -> list[Path]:
        others = sorted(p for p in self.folder.glob("*.ino") if p != self.main)
        return [self.main, *others]

    def extra_sources(self) -> list[Path]:
        """.c/.cpp/.S files in the sketch folder and its src/ tree (compiled too)."""
        found = [p for p in self.folder.iterdir() if p.suffix in SOURCE_EXTS]
        src = self.folder / "src"
        if src.is_dir():
            found += [p for p in src.rglob("*") if p.suffix in SOURCE_EXTS]
        return sorted(found)


def find_sketch(path: Path) -> Sketch:
    """A sketch from a `.ino` file or a sketch folder."""
    path = Path(path)
    if path.is_file():
        if path.suffix != ".ino":
            raise BuildError(f"{path} is not an Arduino sketch (.ino).")
        return Sketch(path.parent.resolve(), path.stem)
    if path.is_dir():
        if (path / f"{path.name}.ino").is_file():
            return Sketch(path.resolve(), path.name)
        inos = sorted(path.glob("*.ino"))
        if len(inos) == 1:
            return Sketch(path.resolve(), inos[0].stem)
        what = (
            "no .ino file" if not inos else f"{len(inos)} .ino files and none named {path.name}.ino"
        )
        raise BuildError(f"{path} is not a sketch folder: it has {what}.")
    raise BuildError(f"{path} does not exist.")


def copy_sketch(sketch: Sketch, dest_parent: Path, folder_name: str | None = None) -> Sketch:
    """Copy the sketch's source files into `dest_parent/<name>/` (or `<folder_name>/`)."""
    dest = dest_parent / (folder_name or sketch.name)
    if dest.resolve() == sketch.folder:
        return sketch
    out = dest_parent.resolve()
    # Listed before copying; when the output folder lies inside the sketch (`-o`
    # may well be one), nothing is copied from it.
    nested = out == sketch.folder or sketch.folder in out.parents
    files = [
        p
        for p in sketch.folder.rglob("*")
        if p.is_file() and not (nested and out in p.resolve().parents)
    ]
    dest.mkdir(parents=True, exist_ok=True)
    for src in files:
        rel = src.relative_to(sketch.folder)
        if src.suffix in COPY_EXTS and "build" not in rel.parts[:-1]:
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target)
    return Sketch(dest.resolve(), sketch.name)


# --- function prototypes -------------------------------------------------------

_TOKEN = re.compile(
    r"""//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'""",
    re.S,
)
_NOT_FUNCTION = re.compile(
    r"\b(struct|class|union|enum|namespace|typedef|template|operator|extern)\b|=|::"
)
_FUNC = re.compile(
    r"^(?P<head>[\w\s\*&<>,]*?[\w\*&>]\s*[\*&]*\s*(?P<name>\w+))\s*\((?P<args>[^()]*)\)\s*$", re.S
)


def _blank(match: re.Match[str]) -> str:
    """Replace a comment/string by spaces, keeping newlines (so line numbers hold)."""
    return re.sub(r"[^\n]", " ", match.group(0))


def _strip(code: str) -> str:
    code = _TOKEN.sub(_blank, code)
    # Preprocessor lines (with their continuations) are not C++ statements.
    return re.sub(r"(?m)^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", _blank, code)


@dataclass(frozen=True)
class Function:
    prototype: str  # e.g. "void blink(byte face);"
    name: str
    line: int  # 1-based line where the definition starts


def find_functions(code: str) -> list[Function]:
    """Top-level function definitions in `code`, in order."""
    clean = _strip(code)
    found: list[Function] = []
    depth = 0
    start = 0  # where the current top-level statement begins
    for i, ch in enumerate(clean):
        if ch == "{":
            if depth == 0:
                head = clean[start:i]
                fn = _as_function(head)
                if fn:
                    offset = start + (len(head) - len(head.lstrip()))
                    line = clean.count("\n", 0, offset) + 1
                    found.append(Function(fn[0], fn[1], line))
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
            if depth == 0:
                start = i + 1
        elif ch == ";" and depth == 0:
            start = i + 1
    return found


def _as_function(head: str) -> tuple[str, str] | None:
    text = " ".join(head.split())
    if not text or _NOT_FUNCTION.search(text):
        return None
    m = _FUNC.match(text)
    if not m or m.group("name") in {"if", "while", "for", "switch", "return"}:
        return None
    head_words = m.group("head").split()
    if len(head_words) < 2 and not m.group("head").strip().endswith(("*", "&")):
        return None  # no return type: a macro call or a constructor-like thing
    return f"{m.group('head')}({m.group('args').strip()});", m.group("name")


def preprocess(sketch: Sketch, out_cpp: Path) -> Path:
    """Write the sketch as one C++ file (`<name>.ino.cpp`) ready for the compiler."""
    parts: list[tuple[Path, str]] = []
    for ino in sketch.ino_files():
        code = ino.read_text(encoding="utf-8", errors="replace")
        parts.append((ino, code if code.endswith("\n") else code + "\n"))
    found = [(i, fn) for i, (_, code) in enumerate(parts) for fn in find_functions(code)]
    prototypes = list(dict.fromkeys(fn.prototype for _, fn in found))
    out: list[str] = ["#include <Arduino.h>\n"]
    for index, (ino, code) in enumerate(parts):
        label = ino.as_posix()
        out.append(f'#line 1 "{label}"\n')
        if found and found[0][0] == index:
            # Declarations go right before the first function definition, after the
            # sketch's own #includes and type definitions that they may need.
            first = found[0][1].line
            lines = code.splitlines(keepends=True)
            out += lines[: first - 1]
            out += [p + "\n" for p in prototypes]
            out.append(f'#line {first} "{label}"\n')
            out += lines[first - 1 :]
        else:
            out.append(code)
    out_cpp.parent.mkdir(parents=True, exist_ok=True)
    out_cpp.write_text("".join(out), encoding="utf-8")
    return out_cpp
