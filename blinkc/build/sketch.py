"""Arduino sketches for the tile build: finding them, copying them, and turning `.ino` into C++.

The `.ino` files (the main one first, the rest by name) become one C++ unit
through `blinkc.sketch_source`, the Arduino preprocessing the emulator's
sketches (`native/sketch.py`) go through too.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from ..sketch_source import arduino_unit
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


def preprocess(sketch: Sketch, out_cpp: Path) -> Path:
    """Write the sketch as one C++ file (`<name>.ino.cpp`) ready for the compiler."""
    files = [(ino, ino.read_text(encoding="utf-8", errors="replace"))
             for ino in sketch.ino_files()]
    out_cpp.parent.mkdir(parents=True, exist_ok=True)
    out_cpp.write_text(arduino_unit(files), encoding="utf-8")
    return out_cpp
