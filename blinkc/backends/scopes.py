"""Where the C++ sketch declares a function's locals.

Python's locals live for the whole function; C++ may declare one where it is first given a
value when nothing outside that statement's block (before it, or around it) ever uses it.
Then the declaration dominates every use, and the value a C++ reader sees is the one Python
computes. A face loop's variable that nothing outside its loops uses is the loop's own
(`FOREACH_FACE(f)`). Everything else is declared at the top, as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ir.nodes import U8, Assign, Const, For, If, Local, Name, Stmt
from ..ir.types import ColorType
from ..ir.visitor import STMT_CLASSES, iter_children
from ..ir.walk import walk_exprs

#: A statement's place: the indices of the blocks it is nested in, each with its block.
Path = tuple[tuple[int, int], ...]


@dataclass
class Scopes:
    #: The Local statements (by id) that declare their variable in place.
    in_place: set[int] = field(default_factory=set)
    #: The face loops (by id) whose variable is their own.
    face_loops: set[int] = field(default_factory=set)
    #: Other loops (by id) that declare their variable (and its bit) in the `for`.
    own_loops: set[int] = field(default_factory=set)
    #: Loops (by id) whose stop is computed once into `<var>_end`, declared just before.
    ends_in_place: set[int] = field(default_factory=set)
    #: The names declared in place or by their loops (not at the top).
    not_at_top: set[str] = field(default_factory=set)


def scopes(body: tuple[Stmt, ...]) -> Scopes:
    uses: dict[str, list[tuple[Path, Stmt]]] = {}
    _collect(body, (), uses)
    out = Scopes()
    for name, found in uses.items():
        loops = [s for _, s in found if isinstance(s, For) and s.var == name]
        if loops and all(is_face_loop(s) for s in loops) and all(
                _inside_a_loop(path, name, found) for path, s in found):
            out.face_loops |= {id(s) for s in loops}
            out.not_at_top.add(name)
            continue
        if loops:
            _own_loops(name, loops, found, uses, out)
            continue
        first_path, first = found[0]
        if not isinstance(first, Local) or first.name != name or isinstance(first.type, ColorType):
            # (A colour declared where it is given its value is built differently by
            # avr-gcc: Broadside's code changed by 2 bytes. Colours stay at the top.)
            continue
        parent, (block, index) = first_path[:-1], first_path[-1]
        if all(p[:len(parent)] == parent and len(p) > len(parent) and p[len(parent)][0] == block
               and p[len(parent)][1] > index for p, _ in found[1:]):
            out.in_place.add(id(first))
            out.not_at_top.add(name)
    return out


def _own_loops(name: str, loops: list[For], found: list[tuple[Path, Stmt]],
               uses: dict[str, list[tuple[Path, Stmt]]], out: Scopes) -> None:
    """`for (uint8_t i = 0; ...)`: when nothing outside its loops names the variable (or the
    bit that moves along with it), and no loop of it is nested in another, each loop
    declares its own. A computed stop is declared just before a loop that is its name's
    only one (two would declare `i_end` twice in one block)."""
    if not all(_inside_a_loop(path, name, found) for path, _ in found):
        return
    loop_paths = [p for p, s in found if isinstance(s, For) and s.var == name]
    if any(a != b and a[:len(b)] == b for a in loop_paths for b in loop_paths):
        return  # a loop of `name` inside another: one variable, as Python has it
    bits = {s.bit for s in loops} - {None}
    for bit in bits:
        if any(s.start.type != U8 for s in loops) or any(
                not _inside_a_loop(path, name, found) for path, _ in uses.get(bit, [])):
            return
        if any(isinstance(s, For) and s.var == bit for _, s in uses.get(bit, [])):
            return
    out.own_loops |= {id(s) for s in loops}
    out.not_at_top |= {name, *bits}  # type: ignore[arg-type]
    if len(loops) == 1 and not isinstance(loops[0].stop, Const):
        out.ends_in_place.add(id(loops[0]))
        out.not_at_top.add(f"{name}_end")


def is_face_loop(s: For) -> bool:
    """for f in range(6) (six unnamed: not a constant of six flood slots) with no loop bit:
    FOREACH_FACE(f)."""
    return s.bit is None and isinstance(s.start, Const) and s.start.value == 0 and over_faces(s)


def over_faces(s: For) -> bool:
    """The loop counts to six, and six is not a constant of another name (N_FLOOD_SLOTS)."""
    return isinstance(s.stop, Const) and s.stop.value == 6 and s.stop.name is None


def _inside_a_loop(path: Path, name: str, found: list[tuple[Path, Stmt]]) -> bool:
    """The use at `path` is the loop of `name` itself or inside one of its loops' bodies."""
    loop_paths = [p for p, s in found if isinstance(s, For) and s.var == name]
    return any(path[:len(p)] == p for p in loop_paths)


def _collect(body: tuple[Stmt, ...], path: Path, uses: dict[str, list]) -> None:
    """Each statement that names a local (declares, assigns, reads it, or loops over it),
    with its path, in the order of the code."""
    block = id(body)
    for i, s in enumerate(body):
        here = (*path, (block, i))
        for name in _names(s):
            uses.setdefault(name, []).append((here, s))
        if isinstance(s, If):
            _collect(s.body, here, uses)
            _collect(s.orelse, here, uses)
        elif isinstance(s, For):
            _collect(s.body, here, uses)


def _names(s: Stmt) -> list[str]:
    """The locals a statement itself names (not those of the statements nested in it)."""
    names: list[str] = []
    if isinstance(s, Local):
        names.append(s.name)
    elif isinstance(s, For):
        names.append(s.var)
        if s.bit is not None:
            names.append(s.bit)
    elif isinstance(s, Assign) and isinstance(s.target, Name) and s.target.scope == "local":
        names.append(s.target.name)
    for child in iter_children(s):
        if not isinstance(child, STMT_CLASSES):
            names += [e.name for e in walk_exprs(child) if isinstance(e, Name) and e.scope == "local"]
    return names
