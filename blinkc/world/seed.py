"""Seed mode: a lone tile held 3 s sends its game to the cluster (docs/emulator.md#seed-mode).

What blinklib and the BIOS do (platform.md, "Game sharing"; blinklib's run()):

- at the top of a pass, before the button snapshot, blinklib looks at the BIOS's 3-second
  flag; if it is set and the tile is alone, it stops running the game and spins blue
  while the button stays down. Let go before 6 s: the BIOS enters seed mode and never
  returns to the game; still held at 6 s: the tile warm-sleeps. With a neighbour, the
  flag goes on to the sketch as buttonLongLongPressed();
- in seed mode the BIOS offers the game on its faces; a tile running a game that hears
  it stops its game and downloads, then offers the game on its own faces, so the game
  spreads through everything the tiles touch. Once nobody has asked for pages for a
  while (5 s in Move38's bootloader source) everyone restarts: the downloaders run the
  received game with startState() == START_STATE_DOWNLOAD_SUCCESS, the root its own
  game with START_STATE_WE_ARE_ROOT.

Modelled: the 3 s decision (at the mark, with isAlone() as of the tile's last pass),
the hold and its end (release: seed; 6 s: warm sleep), the spreading through touching
tiles (also tiles put beside the root or a downloader later), and the restart of all of
them together 5 s (root's local time) after the last tile joined: setup() again, the
game's globals and blinklib's state fresh, millis() going on. Not modelled: the pages
on the air (a touching tile has the whole game at once, whatever its size; packet loss
does not fail a download), the BIOS's LEDs (seeding tiles show plain blue, downloaders
green), and tiles asleep or frozen (freeze.py), which are not reached (a frozen tile's BIOS
might still take a seed on a face whose receive buffer its blinklib left free).

Everything here runs in Python as internal scheduled calls and actions, so every world
engine does it at the same moments (an engine learns of a tile's new program through
`Engine.reprogrammed`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..runtime.api import (
    START_STATE_DOWNLOAD_SUCCESS,
    START_STATE_WE_ARE_ROOT,
    Blinklib,
)
from .button import LONG_LONG_PRESS_MS, SLEEP_PRESS_MS, ButtonModel
from .tile import Tile

#: The root restarts when no tile has joined for this long (its local ms): Move38's
#: bootloader waits COUNTDOWN_UNTIL_NEXT_DONE_MS = 5000 for pulls before it starts the game.
SEED_IDLE_MS = 5000

HOLD, ROOT, DOWNLOAD = "hold", "root", "download"


class SeedError(Exception):
    """A tile's program cannot be given to other tiles (no way to start a fresh copy)."""


@dataclass
class Session:
    """One game being shared: the root and every tile that has taken it."""

    root: Tile
    program: Any  #: the root's program, from which every member gets a fresh copy
    members: list[Tile] = field(default_factory=list)
    gen: int = 0


def fresh_program(program: Any) -> Any:
    """A new copy of `program`'s game at its power-up state (globals as compiled)."""
    fresh = getattr(program, "fresh", None)
    if fresh is not None:
        return fresh()
    try:
        return type(program)()
    except TypeError as e:
        raise SeedError(f"{type(program).__name__} cannot be copied to other tiles (give it a "
                        f"fresh() method that returns a new instance): {e}") from None


class SeedMode:
    """World's seed mode (a mixin: World inherits it; see the module's docstring)."""

    def _seed_init(self) -> None:
        self._sessions: list[Session] = []

    # ------------------------------------------------------------ the 3 s hold
    def _schedule_seed_check(self: Any, tile: Tile, seq: int, due_ms: int) -> None:
        # One µs before the mark's millisecond begins: before any pass can take the flag.
        at = tile.clock.world_at_millis(due_ms) - 1
        self._call_internal(at, lambda: self._seed_check(tile, seq))

    def _seed_check(self: Any, tile: Tile, seq: int) -> None:
        """The button went down (contact `seq`): at its 3 s mark, a lone tile enters the hold."""
        if seq != tile.contact_seq or tile.asleep or tile.seed_role is not None or tile.stuck:
            return
        self._engine.refresh()
        b = tile.button
        if not b.down:
            if b.raw and b.raw[-1][1]:  # not accepted yet: look again once it is
                self._schedule_seed_check(tile, seq, b.raw[-1][0] + LONG_LONG_PRESS_MS)
            return
        mark = b._down_since + LONG_LONG_PRESS_MS
        if b._long_fired & 2 or any(t <= mark for t, _ in b.raw):
            return  # the mark was seen already, or the button goes up before it
        if tile.clock.millis(self.now + 1) < mark:
            self._schedule_seed_check(tile, seq, mark)
            return
        api = tile.api
        if any(e >= api.now for e in api.expire_time):
            return  # not alone: the flag reaches the sketch, buttonLongLongPressed()
        self._engine.wake(tile)
        self._engine.refresh()
        tile.seed_role = HOLD
        self._engine.dormant(tile, True)
        self.record(tile, "seed-hold", {})
        self._call_internal(tile.clock.world_at_millis(b._down_since + SLEEP_PRESS_MS),
                            lambda: self._seed_hold_timeout(tile, seq))

    def _seed_hold_timeout(self: Any, tile: Tile, seq: int) -> None:
        """Still held at 6 s: blinklib gives up the seed and warm-sleeps."""
        if tile.seed_role != HOLD or seq != tile.contact_seq:
            return
        tile.seed_role = None
        self._warm_sleep_group(tile, "hold")

    def _seed_release(self: Any, tile: Tile) -> None:
        """Let go during the hold: the tile becomes the root of a seed session."""
        self._engine.refresh()
        tile.seed_role = ROOT
        session = Session(tile, tile.program)
        fresh_program(tile.program)  # fail now, with the tile named, not at the restart
        self._sessions.append(session)
        self.record(tile, "seed-root", {})
        self._seed_spread()
        self._seed_rearm(session)

    # ---------------------------------------------------------------- spreading
    def _seed_spread(self: Any) -> None:
        """Every awake tile touching a root or a downloader takes the game (and so on)."""
        for session in self._sessions:
            todo = [session.root, *session.members]
            joined = False
            while todo:
                t = todo.pop()
                for _, n, _ in self.neighbours_of(t):
                    if n.seed_role is None and not n.asleep and n.stuck is None:
                        self._seed_join(session, n)
                        todo.append(n)
                        joined = True
            if joined:
                self._seed_rearm(session)

    def _seed_join(self: Any, session: Session, tile: Tile) -> None:
        self._engine.wake(tile)
        self._engine.refresh()
        tile.seed_role = DOWNLOAD
        session.members.append(tile)
        self._engine.dormant(tile, True)
        self.record(tile, "seed-download", {"from": session.root.name})

    def _seed_rearm(self: Any, session: Session) -> None:
        session.gen += 1
        gen = session.gen
        root = session.root
        due = root.clock.millis(self.now) + SEED_IDLE_MS
        self._call_internal(root.clock.world_at_millis(due),
                            lambda: self._seed_done(session, gen))

    def _seed_done(self: Any, session: Session, gen: int) -> None:
        """Nobody joined for SEED_IDLE_MS: every tile of the session starts the game."""
        if gen != session.gen:
            return
        self._sessions.remove(session)
        self._engine.refresh()
        self._restart(session.root, fresh_program(session.program), START_STATE_WE_ARE_ROOT)
        for t in session.members:
            self._restart(t, fresh_program(session.program), START_STATE_DOWNLOAD_SUCCESS)

    def _restart(self: Any, tile: Tile, program: Any, start_state: int) -> None:
        """The tile jumps into `program` from its start: setup() again, all state fresh."""
        api = tile.api
        Blinklib.__init__(api, entropy=api._entropy, serial=api.serial)
        api.start_state = start_state
        tile.set_program(program)
        tile.seed_role = None
        tile.started = False
        click_count = tile.button.click_count
        tile.button = ButtonModel()
        tile.button.click_count = click_count  # the BIOS's count, not the game's
        tile.viral_faces = 0
        tile.viral_lockout_until = -1
        tile.sleep_base_ms = tile.clock.millis(self.now)
        self._engine.reprogrammed(tile)
        self._engine.dormant(tile, False)
        self.record(tile, "seed-start", {"start_state": start_state})
        self._schedule_sleep_check(tile)
