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

from ..ir.nodes import BOOL, I16, U8, U16, Const, Function, IntType, SrcLoc, Symbol
from ..ir.types import COLOR
from ..ir.walk import walk_stmts
from .compiler import ColorConst
from .derived import ROLES, parse_key
from .game import FloodDecl, Game, MessageDecl
from .types import literal_type
from .wire import Wire, bits_for


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
                f"its payload {payload.start}..{payload.stop - 1} goes in data codes before it"
                if id(m) in wire.wide else
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
    # The numbers blinkc derived from the game's declarations that `functions` use (derived.py).
    derived: dict[str, int] = {}
    for f in functions:
        for n in walk_stmts(f.body):
            if isinstance(n, Const) and n.name and parse_key(n.name) is not None:
                assert derived.setdefault(n.name, n.value) == n.value, (n.name, n.value)
    # (By their owner's line, each owner's in the order of the roles: CARGO_PAYLOAD_MASK,
    # CARGO_CHUNKS, then the next declaration's.)
    made = [_derived_symbol(game, wire, key, v) for key, v in derived.items()]
    out += sorted(made, key=lambda s: (s.loc.line if s.loc else 0,
                                       ROLES.index(s.key.partition(":")[0]), s.key))
    return tuple(out)


def _derived_symbol(game: Game, wire: Wire, key: str, value: int) -> Symbol:
    """A number blinkc derived from the game's declarations, with the line of its (first)
    owner and what it is."""
    parsed = parse_key(key)
    assert parsed is not None
    role, owners = parsed
    decls: dict[tuple[str, str], MessageDecl | FloodDecl] = {("message", m.name): m for m in game.messages}
    decls |= {("flood", fl.name): fl for fl in game.floods}
    first = decls.get(owners[0])
    loc = first.loc if first is not None else next(
        (at for name, _, at, _ in wire.broadcast if ("value", name) == owners[0]), None)
    names = [name for _, name in owners]
    # "Survey's payload (0..4095)", "the payloads of Points and Ships (0..65535)"
    payloads = {p for p in (getattr(decls.get(o), "payload", None) for o in owners) if p is not None}
    payload = payloads.pop() if len(payloads) == 1 else None
    span = f" ({payload.start}..{payload.stop - 1})" if payload is not None else ""
    whose = (f"{names[0]}'s payload" if len(names) == 1
             else f"the payloads of {', '.join(names[:-1])} and {names[-1]}")
    bits = bits_for(payload.start, payload.stop - 1) if payload is not None else 0
    doc = {
        "payload_mask": f"the {bits} bits of {whose}{span}",
        "payload_max": f"the last value of {whose}{span}",
        "chunks": f"the data codes a {names[0]} value takes ({bits} bits)",
        "codes_end": f"the code after {names[0]}'s (one code per payload value)",
        "value_mask": f"{names[0]}'s bits in a face value (shifted down)",
        "value_shift": f"{names[0]}'s first bit in a face value",
    }[role]
    # (A payload's last value is compared with a signed value: an int-sized name, as its
    # literal is; the others are passed, returned and compared as unsigned values.)
    t: IntType = U8 if value <= 255 else I16 if role == "payload_max" and value <= 32767 else U16
    return Symbol(key, value, t, loc, doc)


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
