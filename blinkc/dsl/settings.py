"""The engine settings a game chooses (`Game("name", queue_len=12)`), checked at compile time.

The link grace (`grace_ms`) is checked with the wire it is counted in (wire.py); this module
checks the settings that size the engine's RAM.
"""

from __future__ import annotations

from collections.abc import Callable

from ..ir.nodes import SrcLoc
from .game import Game

#: The queue's allowed lengths. Each waiting message is a byte of RAM, and blinklib and the
#: game share the tile's 1,024 bytes; 64 waiting messages is more than any burst of sends
#: needs (a face takes one message per handshake, a few passes).
QUEUE_LEN_RANGE = range(1, 65)
DEFAULT_QUEUE_LEN = 12

Report = Callable[[SrcLoc, str, str], None]


def queue_len(game: Game, err: Report) -> int:
    """The game's message queue length (the default after an error, reported to `err`)."""
    n = game.queue_len
    lo, hi = QUEUE_LEN_RANGE.start, QUEUE_LEN_RANGE.stop - 1
    if not isinstance(n, int) or isinstance(n, bool) or n not in QUEUE_LEN_RANGE:
        err(game.loc, f"queue_len must be a whole number of messages in {lo}..{hi}, not {n!r}",
            f'Game("name", queue_len={DEFAULT_QUEUE_LEN}) is the default: each waiting message '
            "is a byte of RAM, and a send that finds the queue full bounces")
        return DEFAULT_QUEUE_LEN
    return n


def random_source(game: Game, err: Report) -> bool | str | None:
    """The game's `randomize` setting (None, "when it draws", after an error, reported to `err`)."""
    r = game.randomize
    if not (r is None or isinstance(r, bool) or r == "clock"):
        err(game.loc, f'randomize must be True, False, None or "clock", not {r!r}',
            "None (the default) calls the SDK's randomize() when the game draws random numbers; "
            'False and "clock" draw from the tile\'s own sequence (docs/dsl.md, "Random numbers")')
        return None
    return r
