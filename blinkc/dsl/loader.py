"""Load a game file and lower it to IR, turning every problem into a DslError."""

from __future__ import annotations

import builtins
import linecache
import re
import sys
import traceback
import types
import warnings
from collections.abc import Iterable
from pathlib import Path

from ..ir.nodes import SrcLoc
from .errors import DslError, GameErrors, MisspeltName, did_you_mean
from .game import Game
from .lowering import GameLowering, Lowered


def _error_from_exception(path: Path, exc: BaseException, names: Iterable[str] | None = None) -> DslError:
    """Point at the game file's line where a Python error happened."""
    if isinstance(exc, DslError):
        return exc
    if isinstance(exc, SyntaxError):
        return DslError(SrcLoc(str(path), exc.lineno or 0), f"syntax error: {exc.msg}",
                        "fix the Python syntax at this line")
    line = 0
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve() == path.resolve():
            line = frame.lineno or 0
    if isinstance(exc, MisspeltName):
        return DslError(SrcLoc(str(path), line), str(exc), exc.hint)
    misplaced = _misplaced_within(exc)
    if misplaced is not None:
        return DslError(SrcLoc(str(path), line), *misplaced)
    hint = "the game file must run as plain Python before blinkc can read it"
    if isinstance(exc, NameError) and getattr(exc, "name", None) and names is not None:
        hint = did_you_mean(exc.name, [n for n in names if not n.startswith("__")]) or hint
    return DslError(SrcLoc(str(path), line), f"{type(exc).__name__}: {exc}", hint)


_WITHIN_ELSEWHERE = re.compile(r"^(?:Game\.)?(\w+)\(\) got an unexpected keyword argument 'within'$")


def _misplaced_within(exc: BaseException) -> tuple[str, str] | None:
    """`within=` given to what has no group (a handler's decorator, a field, a timer...):
    the message and hint that say where a group goes, or None for any other error."""
    m = _WITHIN_ELSEWHERE.match(str(exc)) if isinstance(exc, TypeError) else None
    if m is None:
        return None
    where = m.group(1)
    example = "def same_ship(t, face):\n    return t.ship and t.neighbor(face).ship\n"
    if where in ("on_message", "on_bounce"):
        return (f"@game.{where}() takes no within=: a message's group is part of the "
                "message's declaration",
                example + 'Hail = game.message("Hail", within=same_ship)')
    if where in ("on_flood", "on_flood_done"):
        return (f"@game.{where}() takes no within=: a flood's group is part of the "
                "flood's declaration",
                example + 'Capture = game.flood("Capture", within=same_ship)')
    return (f"{where}() takes no within=: only a message, a flood or a gather can be "
            "confined to a group",
            example + 'Hail = game.message("Hail", within=same_ship)')


def load_module(path: str | Path) -> tuple[types.ModuleType | None, list[DslError]]:
    path = Path(path)
    try:
        source = path.read_text()
    except OSError as exc:
        return None, [DslError(SrcLoc(str(path), 0), f"cannot read the game file: {exc.strerror}",
                               "check the path")]
    name = f"blinkc_game_{path.stem}"
    module = types.ModuleType(name)
    module.__file__ = str(path)
    linecache.checkcache(str(path))
    sys.modules[name] = module  # so inspect can find the source of its functions
    try:
        with warnings.catch_warnings():
            # Python's own hints (e.g. "is" with a literal) are repeated better by blinkc's checks.
            warnings.simplefilter("ignore", SyntaxWarning)
            code = compile(source, str(path), "exec")
        exec(code, module.__dict__)
    except Exception as exc:  # the game file is user code: report, never crash
        names = [*module.__dict__, *vars(builtins)]
        return None, [_error_from_exception(path, exc, names)]
    except SystemExit as exc:  # sys.exit() in the game file: not a success
        line = max((f.lineno or 0 for f in traceback.extract_tb(exc.__traceback__)
                    if Path(f.filename).resolve() == path.resolve()), default=0)
        return None, [DslError(SrcLoc(str(path), line),
                               f"the game file called sys.exit({exc.code!r}) while blinkc read it",
                               "a game file only declares the game: take the exit out")]
    return module, []


def lower_game(path: str | Path, observable: bool = False) -> Lowered:
    """Load and lower a game file; errors and warnings are collected, not raised.

    `observable` keeps the engine's hooks (floods reaching and finishing, bounces,
    neighbours) even where the game has no handler for them, for the protocol explorer
    to watch; it changes nothing a tile does."""
    path = Path(path)
    module, errors = load_module(path)
    if module is None:
        return Lowered(None, errors, [])
    games = [v for v in vars(module).values() if isinstance(v, Game)]
    if len(games) != 1:
        msg = "the file defines no game" if not games else "the file defines more than one game"
        return Lowered(None, [DslError(SrcLoc(str(path), 1), msg,
                                       'create exactly one: game = Game("my_game")')], [])
    try:
        return GameLowering(games[0], vars(module), str(path), observable=observable).lower()
    except DslError as exc:
        return Lowered(None, [exc], [])


def compile_game(path: str | Path, observable: bool = False):
    """Load and lower a game file; raise GameErrors when it has errors. Returns the Program."""
    lowered = lower_game(path, observable)
    if lowered.errors or lowered.program is None:
        raise GameErrors(lowered.errors)
    return lowered.program
