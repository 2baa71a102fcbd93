"""Reading layout files (the format is described in docs/layouts.md).

`parse_layout` / `load_layout` check everything that can be checked from the text alone
and give a `Layout` (blinkc/world/layout.py, the model); the tile clauses (`at Q,R`, `SE of
a`, `rot N`) are read here for scenarios too (`place`, `add`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .geometry import DIRECTION_NAMES, Pos
from .layout import (
    MAX_COORD,
    TILE_FORM,
    Beside,
    Layout,
    LayoutError,
    Place,
    Resolver,
    TileDraft,
    finish_tiles,
    game_path,
)
from .syntax import (
    SourceError,
    Where,
    Word,
    check_name,
    did_you_mean,
    parse_int,
    parse_key_value,
    parse_value,
    split_line,
    strip_comment,
)


def parse_tile_words(words: Sequence[Word], where: Where,
                     error: type[SourceError] = LayoutError) -> TileDraft:
    """`NAME [at PLACE | held] [rot N] [PROGRAM] [key=value ...]` (after the keyword)."""
    if not words:
        raise error("a tile needs a name", where, f"write {TILE_FORM}")
    draft = TileDraft(check_name(words[0].text, where, error), where)
    i = 1
    while i < len(words):
        text = words[i].text
        if text in ("at", "held"):
            if draft.has_place:
                raise error(f"tile {draft.name!r} is given two places", where,
                            "give one of: at Q,R / at DIR of TILE / held")
            draft.has_place = True
            if text == "held":
                i += 1
            else:
                draft.place, i = parse_place(words, i + 1, where, error)
        elif text == "rot" or text.startswith("rot="):
            if draft.rot is not None:
                raise error(f"tile {draft.name!r} is given two rotations", where)
            if text == "rot":
                if i + 1 >= len(words):
                    raise error("`rot` needs a rotation 0..5", where, "e.g. rot 2")
                draft.rot = parse_rotation(words[i + 1].text, where, error)
                i += 2
            else:
                draft.rot = parse_rotation(text[4:], where, error)
                i += 1
        elif "=" in text:
            key, value = parse_key_value(words[i], where, error)
            if key in draft.params:
                raise error(f"setting {key!r} is given twice", where)
            draft.params[key] = value
            i += 1
        elif draft.program is None:
            draft.program = check_name(text, where, error, "program name")
            i += 1
        else:
            raise error(f"unexpected word {text!r}", where,
                        f"a tile has one program; the form is: {TILE_FORM}")
    return draft


def parse_rotation(text: str, where: Where, error: type[SourceError]) -> int:
    rot = parse_int(text)
    if rot is None or not 0 <= rot <= 5:
        raise error(f"bad rotation {text!r}", where,
                    "a rotation is 0..5, in 60° steps clockwise (face 0 then points that way)")
    return rot


def parse_place(words: Sequence[Word], i: int, where: Where,
                error: type[SourceError]) -> tuple[Place, int]:
    """A place starting at words[i]: `Q,R` or `DIR of TILE`; returns it and the next index."""
    hint = "write a place as Q,R (e.g. 1,0) or DIR of TILE (e.g. SE of a)"
    if i >= len(words):
        raise error("a place is missing", where, hint)
    text = words[i].text
    direction = text.upper()
    if direction in DIRECTION_NAMES:
        if i + 2 >= len(words) or words[i + 1].text != "of":
            raise error(f"incomplete place {text!r}", where, f"write {direction} of TILE")
        other = check_name(words[i + 2].text, where, error)
        return Beside(DIRECTION_NAMES.index(direction), other), i + 3
    # `1,0`, `(1,0)` or, written with a space, `1, 0`.
    used = 1
    if text.endswith(",") and i + 1 < len(words):
        text += words[i + 1].text
        used = 2
    q_text, comma, r_text = text.strip("()").partition(",")
    q, r = parse_int(q_text.strip()), parse_int(r_text.strip())
    if not comma or q is None or r is None:
        raise error(f"bad place {text!r}", where, hint)
    if abs(q) > MAX_COORD or abs(r) > MAX_COORD:
        raise error(f"place {q},{r} is too far out", where,
                    f"coordinates are -{MAX_COORD}..{MAX_COORD}")
    return (q, r), i + used


_KEYWORDS = ("game", "program", "tile", "map")


def load_layout(path: str | Path, resolver: Resolver | None = None) -> Layout:
    """Read and check a layout file (and its programs, if a resolver is given)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise LayoutError(f"cannot read layout: {_reason(e)}", Where(str(path))) from None
    layout = parse_layout(text, str(path))
    if resolver is not None:
        layout.check(resolver)
    return layout


def _reason(e: Exception) -> str:
    if isinstance(e, OSError) and e.strerror:
        return e.strerror.lower()
    return str(e)


def parse_layout(text: str, path: str | None = None) -> Layout:
    """Parse layout text; every mistake raises LayoutError with the file and line."""
    game: str | None = None
    program: str | None = None
    drafts: list[TileDraft] = []  # from tile lines
    mapped: list[tuple[str, Pos, Where]] = []  # from maps
    lines = text.split("\n")
    n = 0
    while n < len(lines):
        where = Where(path, n + 1)
        words = split_line(lines[n], where, LayoutError)
        n += 1
        if not words:
            continue
        key, rest = words[0].text, words[1:]
        if key == "game":
            if game is not None:
                raise LayoutError("the layout names a game twice", where)
            game = _one_value(rest, where, "game", "game firmware/my_game.py")
        elif key == "program":
            if program is not None:
                raise LayoutError("the layout gives the default program twice", where)
            program = check_name(_one_value(rest, where, "program", "program hops"),
                                 where, LayoutError, "program name")
        elif key == "tile":
            drafts.append(parse_tile_words(rest, where))
        elif key == "map":
            if rest:
                raise LayoutError("`map` stands alone on its line", where,
                                  "put the map's rows on the lines below, then `end`")
            end = _find_end(lines, n, where)
            mapped += parse_map(lines[n:end], path, n + 1)
            n = end + 1
        else:
            hint = did_you_mean(key, _KEYWORDS)
            if hint is None:
                hint = f"lines start with game, program, tile or map; a tile is: {TILE_FORM}"
            raise LayoutError(f"unknown line {key!r}", where, hint)
    drafts = _merge_map(drafts, mapped)
    if not drafts:
        raise LayoutError("the layout has no tiles", Where(path, None),
                          f"add a line like: {TILE_FORM}")
    return Layout(finish_tiles(drafts, program, game_path(game, path)), game, program, path)


def _one_value(rest: Sequence[Word], where: Where, what: str, example: str) -> str:
    if len(rest) != 1:
        raise LayoutError(f"`{what}` takes one value", where, f"e.g. {example}")
    value = parse_value(rest[0].text, where, LayoutError)
    return value if isinstance(value, str) else rest[0].text


def _merge_map(drafts: list[TileDraft], mapped: list[tuple[str, Pos, Where]]) -> list[TileDraft]:
    """Give tile lines their places from the map; tiles only in the map get a draft."""
    by_name: dict[str, TileDraft] = {}
    for d in drafts:
        if d.name in by_name:
            raise LayoutError(f"tile {d.name!r} is already defined on line "
                              f"{by_name[d.name].where.line}", d.where,
                              "give each tile its own name")
        by_name[d.name] = d
    seen: dict[str, Where] = {}
    first_line = {d.name: d.where.line or 0 for d in drafts}
    out = list(drafts)
    for name, pos, at in mapped:
        if name in seen:
            raise LayoutError(f"tile {name!r} is in the map twice (also on line "
                              f"{seen[name].line})", at)
        seen[name] = at
        d = by_name.get(name)
        if d is None:
            out.append(TileDraft(name, at, pos, True))
            first_line[name] = at.line or 0
            continue
        if d.has_place:
            raise LayoutError(f"tile {name!r} is placed twice: on line {d.where.line} and in "
                              f"the map (line {at.line})", d.where,
                              "drop `at ...` from the tile line; the map gives its place")
        d.place, d.has_place = pos, True
        first_line[name] = min(first_line[name], at.line or 0)
    # Tiles power up in the order they first appear in the file.
    return sorted(out, key=lambda d: first_line[d.name])


def _find_end(lines: list[str], start: int, where: Where) -> int:
    for k in range(start, len(lines)):
        if strip_comment(lines[k]).strip() == "end":
            return k
    raise LayoutError("the map has no `end`", where, "close the map with a line `end`")


def parse_map(rows: Sequence[str], path: str | None,
              first_line: int) -> list[tuple[str, Pos, Where]]:
    """Tile places from a hex map drawn in text (see docs/layouts.md).

    Each column of the lattice is a text column (told apart by where names
    start); neighbouring columns are half a row apart, so a tile's south-east
    neighbour is one column right and one line down.
    """
    cells: list[tuple[str, int, int, Where]] = []  # name, x, line index, where
    for k, row in enumerate(rows):
        at = Where(path, first_line + k)
        for word in split_line(strip_comment(row).expandtabs(8), at, LayoutError):
            if word.text != ".":
                check_name(word.text, at, LayoutError)
            cells.append((word.text, word.col, k, at))
    xs = sorted({x for _, x, _, _ in cells})
    placed = [(name, xs.index(x), k, at) for name, x, k, at in cells]
    out: list[tuple[str, Pos, Where]] = []
    parity: int | None = None
    for name, col, k, at in placed:
        if parity is None:
            parity = (k - col) % 2
        if (k - col) % 2 != parity:
            raise LayoutError(f"{name!r} is off the hex grid of the map", at,
                              "tiles in neighbouring columns sit half a row apart: move it "
                              "one line up or down (and start names of one column at the "
                              "same character)")
        if name != ".":
            out.append((name, (col, (k - col - parity) // 2), at))
    return out
