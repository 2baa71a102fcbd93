"""Layouts: which tiles a cluster has, where they sit and what they run.

A layout file is written by hand (the format is described in
docs/layouts.md):

    game firmware/pirates_lasers.py      # optional: the game every tile runs
    program hops                         # optional: the default program
    tile a at 0,0 source=true            # name, place, rotation, program, settings
    tile b at SE of a rot 3
    map                                  # optional: places drawn as a hex map
      c
          d
    end

`parse_layout` / `load_layout` (layout_file.py) read the text into this model;
`Layout.build(world, resolver)` turns each tile's spec into a
program through a replaceable resolver (built-in programs by default; the
DSL plugs its games in here) and powers the tiles up in a `World`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..blinklib.api import START_KEY
from ..programs import PROGRAMS
from .clock import FRAME_US
from .geometry import DIRECTION_NAMES, Pos, neighbour_pos
from .syntax import (
    SourceError,
    Value,
    Where,
    caller_where,
    check_name,
    did_you_mean,
    format_value,
    parse_duration,
)
from .tile import Tile
from .world import World, WorldError

#: Coordinates beyond this are surely a typo (and would make huge pictures).
MAX_COORD = 99

TILE_FORM = "tile NAME at Q,R [rot N] [PROGRAM] [key=value ...]"


class LayoutError(SourceError):
    """A mistake in a layout, with its file and line."""


class ProgramError(Exception):
    """A resolver cannot make a program for a tile (the caller adds file and line)."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


@dataclass(frozen=True)
class Beside:
    """A place next to another tile: `SE of a` is the spot south-east of tile a."""

    direction: int
    tile: str

    def __str__(self) -> str:
        return f"{DIRECTION_NAMES[self.direction]} of {self.tile}"


#: Where a tile goes: a lattice position, next to another tile, or nowhere (held).
Place = Pos | Beside | None


@dataclass(frozen=True)
class TileSpec:
    """Everything a layout says about one tile."""

    name: str
    pos: Pos | None = None
    rot: int = 0
    #: The program's name, or None (then the game, if any, decides).
    program: str | None = None
    #: Settings given as key=value: the program's initial state (`source=true`, `kind=HAZARD`).
    params: dict[str, Value] = field(default_factory=dict)
    #: The game file the layout names, resolved against the layout's folder.
    game: str | None = None
    where: Where | None = field(default=None, compare=False)


@dataclass
class TileDraft:
    """A tile as written, before its place is worked out (also used by scenarios)."""

    name: str
    where: Where
    place: Place = None
    has_place: bool = False
    rot: int | None = None
    program: str | None = None
    params: dict[str, Value] = field(default_factory=dict)


# --------------------------------------------------------------- resolvers
Resolver = Callable[[TileSpec], Any]


def builtin_programs() -> dict[str, type]:
    return dict(PROGRAMS)


def resolve_program(spec: TileSpec) -> Any:
    """The default resolver: a built-in program (blinkc.programs) made with the tile's settings."""
    programs = builtin_programs()
    known = ", ".join(sorted(programs))
    if spec.program is None:
        if spec.game is not None:
            raise ProgramError(f"tile {spec.name!r} would run the game {spec.game}, "
                               "but this blinkc cannot load games yet",
                               f"name a built-in program for the tile: {known}")
        raise ProgramError(f"tile {spec.name!r} has no program",
                           f"name one on the tile line ({known}) or add a line `program NAME`")
    cls = programs.get(spec.program)
    if cls is None:
        hint = did_you_mean(spec.program, programs) or f"the programs are: {known}"
        raise ProgramError(f"unknown program {spec.program!r}", hint)
    accepted = [p.name for p in inspect.signature(cls).parameters.values()
                if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    for key in spec.params:
        if key not in accepted:
            takes = ", ".join(accepted) if accepted else "no settings"
            raise ProgramError(f"program {spec.program!r} has no setting {key!r}",
                               f"it takes: {takes}")
    return cls(**spec.params)


def make_program(spec: TileSpec, resolver: Resolver) -> Any:
    """Resolve a spec's program (its clock and start settings are the world's, not the program's),
    turning the resolver's complaint into a LayoutError."""
    try:
        return resolver(tile_settings(spec)[0])
    except ProgramError as e:
        raise LayoutError(e.message, spec.where, e.hint) from None


# ------------------------------------------------------------------ layout
@dataclass
class Layout:
    """A cluster as a layout describes it."""

    tiles: list[TileSpec] = field(default_factory=list)
    #: The `game` header as written (a path, relative to the layout's folder).
    game: str | None = None
    #: The `program` header: the program of tiles that name none.
    program: str | None = None
    path: str | None = None

    def tile(self, name: str) -> TileSpec:
        for spec in self.tiles:
            if spec.name == name:
                return spec
        raise KeyError(name)

    @property
    def names(self) -> list[str]:
        return [t.name for t in self.tiles]

    @property
    def game_path(self) -> str | None:
        return game_path(self.game, self.path)

    def add(self, name: str, pos: Pos | None, rot: int = 0, program: str | None = None,
            **params: Value) -> Layout:
        """Add a tile from Python (checked like a layout line; errors name the calling line)."""
        where = caller_where()
        draft = TileDraft(name, where, pos, True, rot, program, dict(params))
        self.tiles = finish_tiles([*(_as_draft(t) for t in self.tiles), draft],
                             self.program, self.game_path)
        return self

    def check(self, resolver: Resolver = resolve_program) -> None:
        """Resolve every tile's program once, so bad names fail before anything runs."""
        for spec in self.tiles:
            make_program(spec, resolver)

    def build(self, world: World, resolver: Resolver = resolve_program) -> list[Tile]:
        """Power up every tile of the layout in `world`; returns the world's Tiles."""
        settings = [tile_settings(spec) for spec in self.tiles]
        programs = [make_program(spec, resolver) for spec in self.tiles]
        out = []
        for (spec, options), program in zip(settings, programs, strict=True):
            try:
                out.append(world.add_tile(spec.name, program, spec.pos, spec.rot, **options))
            except WorldError as e:
                raise LayoutError(str(e), spec.where) from None
        return out

    def to_text(self) -> str:
        """The layout in line-per-tile form; `parse_layout` reads it back unchanged."""
        lines = []
        if self.game is not None:
            lines.append(f"game {format_value(self.game)}")
        if self.program is not None:
            lines.append(f"program {self.program}")
        for t in self.tiles:
            parts = ["tile", t.name]
            parts += ["held"] if t.pos is None else ["at", f"{t.pos[0]},{t.pos[1]}"]
            if t.rot:
                parts += ["rot", str(t.rot)]
            if t.program is not None:
                parts.append(t.program)
            parts += [f"{k}={format_value(v)}" for k, v in t.params.items()]
            lines.append(" ".join(parts))
        return "\n".join(lines) + "\n"


#: `start=` values: the SDK's START_STATE_* (blinkc.blinklib.api), by name or number.
START_STATES = {"power-up": 0, "powerup": 0, "root": 1, "we-are-root": 1,
                "download": 2, "download-success": 2, "0": 0, "1": 1, "2": 2}


def tile_settings(spec: TileSpec) -> tuple[TileSpec, dict[str, int]]:
    """The spec without the world's settings of the tile (clock=, phase=, start=), and them as
    keyword arguments of `World.add_tile` (only those given)."""
    spec, (ppm, phase) = clock_settings(spec)
    options = {k: v for k, v in (("ppm", ppm), ("phase_us", phase)) if v is not None}
    if START_KEY in spec.params:
        params = dict(spec.params)
        text = str(params.pop(START_KEY)).strip().lower().replace("_", "-")
        if text not in START_STATES:
            raise LayoutError(f"tile {spec.name!r}: bad start state {text!r}",
                              spec.where or Where(),
                              "start=power-up (0), start=root (1) or start=download (2)")
        options["start_state"] = START_STATES[text]
        spec = replace(spec, params=params)
    return spec, options


def clock_settings(spec: TileSpec) -> tuple[TileSpec, tuple[int | None, int | None]]:
    """The spec without its clock settings, and them: `clock=+0.1%` (or `clock=-1000ppm`), the
    tile's clock error; `phase=1.2ms`, where in the 7.7 ms display frame its passes fall."""
    params = dict(spec.params)
    ppm = phase = None
    where = spec.where or Where()
    if "clock" in params:
        text = str(params.pop("clock")).strip()
        try:
            if text.endswith("ppm"):
                ppm = int(text[:-3])
            elif text.endswith("%"):
                ppm = round(float(text[:-1]) * 10_000)
            else:
                raise ValueError(text)
        except ValueError:
            raise LayoutError(f"tile {spec.name!r}: bad clock {text!r}", where,
                              "a clock error is clock=+0.1% or clock=-1000ppm") from None
        if not -500_000 <= ppm <= 500_000:
            raise LayoutError(f"tile {spec.name!r}: clock {text} is beyond ±50 %", where)
    if "phase" in params:
        text = str(params.pop("phase"))
        phase = round(parse_duration(text, where, LayoutError, "phase") * 1000)
        if not 0 <= phase < FRAME_US:
            raise LayoutError(f"tile {spec.name!r}: phase {text} is not inside a frame", where,
                              f"a phase is 0..{FRAME_US / 1000:g} ms")
    if ppm is None and phase is None:
        return spec, (None, None)
    return replace(spec, params=params), (ppm, phase)


def game_path(game: str | None, layout_path: str | None) -> str | None:
    if game is None:
        return None
    if layout_path is None or Path(game).is_absolute():
        return game
    return str(Path(layout_path).parent / game)


def _as_draft(spec: TileSpec) -> TileDraft:
    return TileDraft(spec.name, spec.where or Where(), spec.pos, True, spec.rot,
                     spec.program, dict(spec.params))


def finish_tiles(drafts: list[TileDraft], default_program: str | None,
            game: str | None) -> list[TileSpec]:
    """Work out every place, check names and overlaps, and make the specs."""
    names: dict[str, TileDraft] = {}
    for d in drafts:
        check_name(d.name, d.where, LayoutError)
        if d.name in names:
            raise LayoutError(f"tile {d.name!r} is already defined on line "
                              f"{names[d.name].where.line}", d.where,
                              "give each tile its own name")
        if d.rot is not None and not (isinstance(d.rot, int) and 0 <= d.rot <= 5):
            raise LayoutError(f"bad rotation {d.rot!r}", d.where, "a rotation is 0..5")
        names[d.name] = d
    places: dict[str, Pos | None] = {}
    pending = list(drafts)
    while pending:
        left = []
        for d in pending:
            if not d.has_place:
                raise LayoutError(f"tile {d.name!r} has no place", d.where,
                                  "add `at Q,R` or `at DIR of TILE`, draw it in a map, "
                                  "or write `held` for a tile in the hand")
            if isinstance(d.place, Beside):
                other = d.place.tile
                if other not in names:
                    raise LayoutError(f"no tile named {other!r} to place {d.name!r} next to",
                                      d.where, did_you_mean(other, names))
                if other in places:
                    base = places[other]
                    if base is None:
                        raise LayoutError(f"tile {other!r} is held, so {d.name!r} cannot be "
                                          "placed next to it", d.where)
                    places[d.name] = neighbour_pos(base, d.place.direction)
                else:
                    left.append(d)
            else:
                places[d.name] = _check_pos(d.place, d.where)
        if len(left) == len(pending):
            d = left[0]
            raise LayoutError(f"the place of tile {d.name!r} depends on itself", d.where,
                              "give one tile of the chain a place Q,R")
        pending = left
    taken: dict[Pos, TileDraft] = {}
    for d in sorted(drafts, key=lambda d: d.where.line or 0):
        pos = places[d.name]
        if pos is None:
            continue
        if pos in taken:
            first = taken[pos]
            raise LayoutError(f"tile {d.name!r} at {pos[0]},{pos[1]} overlaps tile "
                              f"{first.name!r} (line {first.where.line})", d.where,
                              "each place holds one tile")
        taken[pos] = d
    return [
        TileSpec(d.name, places[d.name], d.rot or 0, d.program or default_program,
                 dict(d.params), game, d.where)
        for d in drafts
    ]


def _check_pos(pos: Any, where: Where) -> Pos | None:
    if pos is None:
        return None
    if (not isinstance(pos, tuple) or len(pos) != 2
            or not all(isinstance(c, int) and not isinstance(c, bool) for c in pos)):
        raise LayoutError(f"bad place {pos!r}", where, "a place is a pair of integers (q, r)")
    if abs(pos[0]) > MAX_COORD or abs(pos[1]) > MAX_COORD:
        raise LayoutError(f"place {pos[0]},{pos[1]} is too far out", where,
                          f"coordinates are -{MAX_COORD}..{MAX_COORD}")
    return pos


def with_defaults(spec: TileSpec, layout: Layout | None) -> TileSpec:
    """A spec with the layout's default program and game filled in."""
    if layout is None:
        return spec
    return replace(spec, program=spec.program or layout.program,
                   game=spec.game or layout.game_path)
