"""What the game names, for generated code to say: its kinds, messages, floods and timers,
and the module constants its code uses (`Program.symbols`, which `Const.name` refers to).

The compiler names each constant it makes from a name ("kind:Piece.HULL", "const:FULL_HP",
"message:Repair", "flood:Sunk", "timer:pulse"); this module lists what those names are, with
the game lines that declare them, so that a backend can declare them (the C++ backend's
`enum Piece : uint8_t { HULL, ... }`, `static const uint8_t FULL_HP = 5;`).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from ..ir.nodes import BOOL, U8, Const, Function, SrcLoc, Symbol
from ..ir.types import COLOR
from ..ir.walk import walk_stmts
from .compiler import ColorConst
from .game import Game
from .types import literal_type
from .wire import Wire


def game_symbols(game: Game, wire: Wire, module_globals: dict[str, Any], source: str,
                 functions: tuple[Function, ...]) -> tuple[Symbol, ...]:
    """The game's kinds (every member), messages, floods and timers, and the module
    constants that `functions` use, each with the line that declares it."""
    out = [Symbol(f"kind:{e.name}.{m}", i, U8, e.loc)
           for e in game.enums if e.name for i, m in enumerate(e.members)]
    for m in game.messages:
        if id(m) in wire.messages:
            code, payload, _ = wire.messages[id(m)]
            doc = "" if payload is None else (
                f"codes {code}..{code + len(payload) - 1} carry the payload "
                f"{payload.start}..{payload.stop - 1}")
            out.append(Symbol(f"message:{m.name}", code, U8, m.loc, doc))
    out += [Symbol(f"flood:{fl.name}", k, U8, fl.loc) for k, fl in enumerate(game.floods)]
    out += [Symbol(f"timer:{t.name}", k, U8, t.loc) for k, t in enumerate(game.timers) if t.name]
    # (a name with an offset, "const:PICK_SLOTS+1", names the constant it is offset from)
    used = {re.sub(r"[+-]\d+$", "", n.name) for f in functions for n in walk_stmts(f.body)
            if isinstance(n, Const) and n.name and n.name.startswith("const:")}
    lines = module_constant_lines(source)
    for key in sorted(used, key=lambda k: lines.get(k[len("const:"):], (0, ""))[0]):
        ident = key[len("const:"):]
        v = module_globals.get(ident)
        if isinstance(v, bool | int) and ident in lines:  # the game's own, not imported
            t = COLOR if isinstance(v, ColorConst) else BOOL if isinstance(v, bool) else (
                literal_type(v))
            line, comment = lines[ident]
            out.append(Symbol(key, int(v), t, SrcLoc(source, line), comment))
    return tuple(out)


def module_constant_lines(path: str) -> dict[str, tuple[int, str]]:
    """Where the game file assigns each module-level name (`FULL_HP = 5  # why`): its line
    and the comment at its end."""
    try:
        source = Path(path).read_text()
        tree = ast.parse(source)
    except (OSError, SyntaxError, ValueError):
        return {}
    lines = source.splitlines()
    out: dict[str, tuple[int, str]] = {}
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) else [])
        for target in targets:
            if isinstance(target, ast.Name) and target.id not in out:
                text = lines[node.lineno - 1] if node.lineno <= len(lines) else ""
                comment = ""
                if node.end_lineno == node.lineno and "#" in text[node.end_col_offset or 0:]:
                    comment = text[node.end_col_offset or 0:].split("#", 1)[1].strip()
                out[target.id] = (node.lineno, comment)
    return out
