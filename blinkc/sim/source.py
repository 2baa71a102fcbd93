"""What a simulator session runs: a game file, a sketch or a layout, read and checked once."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..world import Faults
from ..world.layout import Layout, Resolver
from ..world.layout_file import load_layout, parse_layout
from ..world.syntax import SourceError

#: The cluster a game or sketch runs on when no layout is given: three tiles that touch.
DEFAULT_LAYOUT = """\
tile a at 0,0
tile b at SE of a
tile c at S of a
"""


class SimError(Exception):
    """A mistake in what the simulator was given or asked to do (shown as one message)."""


@dataclass
class SimSource:
    """Everything a session needs to build its world again from nothing."""

    #: SOURCE as given on the command line (a game, a sketch or a layout).
    source: str
    layout: Layout
    resolver: Resolver
    #: The game or sketch file, when SOURCE is one (the export's command line names it).
    program_file: str | None
    seed: int = 0
    faults: Faults = field(default_factory=Faults)
    #: The layout file, or None for the built-in default cluster.
    layout_file: str | None = None
    #: `--faults` as written (the export hands `blinkc emulate` the very same text).
    faults_text: str | None = None

    @property
    def title(self) -> str:
        parts = [Path(self.source).name]
        if self.layout_file is not None and self.layout_file != self.source:
            parts.append(Path(self.layout_file).name)
        return " on ".join(parts)

    def programs(self) -> list[str]:
        """The programs a new tile can run: the layout's own first, then the built-in ones."""
        from ..world.layout import builtin_programs

        names = [t.program for t in self.layout.tiles if t.program is not None]
        return list(dict.fromkeys([*names, *sorted(builtin_programs())]))

    @property
    def default_program(self) -> str | None:
        """What a tile added without a program runs: the game, sketch or layout default."""
        if self.program_file is not None or self.layout.game_path is not None:
            return None
        return self.layout.program or (self.programs() or [None])[0]


def load_source(source: str, layout_file: str | None = None, seed: int = 0,
                faults_text: str | None = None) -> SimSource:
    """Read SOURCE (GAME.py, SKETCH.ino or LAYOUT) and the layout; SimError on any mistake."""
    from ..games import game_resolver
    from ..world.emulation import FaultsError, parse_faults

    try:
        faults = parse_faults(faults_text) if faults_text is not None else Faults()
    except FaultsError as e:
        raise SimError(f"--faults: {e.message}" + (f" ({e.hint})" if e.hint else "")) from None
    program_file: str | None = None
    if source.endswith((".py", ".ino")):
        program_file = source
        if source.endswith(".ino"):
            from ..sketches import sketch_resolver

            resolver = sketch_resolver(source)
        else:
            resolver = game_resolver(source)
    else:
        if layout_file is not None:
            raise SimError("give the layout once: either as SOURCE or with --layout")
        layout_file = source
        resolver = game_resolver(None)
    try:
        if layout_file is None:
            layout = parse_layout(DEFAULT_LAYOUT)
            layout.check(resolver)
        else:
            layout = load_layout(layout_file, resolver)
    except SourceError as e:
        raise SimError(str(e)) from None
    return SimSource(source, layout, resolver, program_file, seed, faults, layout_file,
                     faults_text)
