"""Reading a player's layout as a ship, and writing the best one out (only over files
blinkc solve wrote: user_files' rules)."""

from __future__ import annotations

from pathlib import Path

from ..user_files import check_writable, write_whole
from ..world.layout_file import load_layout
from .ships import HAZARD, HULL, REDIRECTOR, REPAIR_FACE, Ship, connected, legal

MARK = "# written by blinkc solve"


def is_ours(path: Path) -> bool:
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.readline(200).startswith(MARK)


def ship_of(layout: Path) -> Ship:
    """The ship a layout file describes (ValueError, saying why, if the rules refuse it)."""
    pieces = []
    for spec in load_layout(layout).tiles:
        if spec.pos is None:
            raise ValueError(f"{layout}: tile {spec.name} is held; every piece of a ship is placed")
        kind = str(spec.params.get("kind", HULL))
        if kind not in (HULL, HAZARD, REDIRECTOR):
            raise ValueError(f"{layout}: tile {spec.name} has kind={kind}; a piece is HULL, "
                             "HAZARD or REDIRECTOR")
        orient = int(spec.params.get("orient", 0))
        d = (REPAIR_FACE + spec.rot) % 6 if kind == HULL else (orient + spec.rot) % 6
        pieces.append((spec.pos, kind, d))
    ship = Ship(tuple(sorted(pieces)))
    if not pieces or not connected(set(ship.kinds)):
        raise ValueError(f"{layout}: a ship is one connected group of pieces; this one is not")
    if not legal(ship.kinds):
        raise ValueError(f"{layout}: the rules do not allow this ship (a weak link, or a Hazard "
                         "or Redirector touching no Hull); `blinkc emulate` shows the pieces "
                         "in an illegal position in deep orange")
    return ship


def write(folder: Path, layout_text: str, scenario_text: str, headline: str,
          force: bool = False) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    layout, scenario = folder / "best.layout", folder / "best.scenario"
    for path in (layout, scenario):  # both, before either is written
        check_writable(path, is_ours, "the solver's best ship", force)
    write_whole(layout, f"{MARK}: {headline}\n{layout_text}".encode())
    write_whole(scenario, f"{MARK}: {headline}\n{scenario_text}".encode())
    return layout, scenario
