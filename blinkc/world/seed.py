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
from typing import TYPE_CHECKING, Any

from ..blinklib.api import (
    START_STATE_DOWNLOAD_SUCCESS,
    START_STATE_WE_ARE_ROOT,
    Blinklib,
)
from .button import LONG_LONG_PRESS_MS, SLEEP_PRESS_MS, ButtonModel
from .tile import Tile

if TYPE_CHECKING:
    from .world import World

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
    """A world's seed mode (see the module's docstring): the world owns one and calls it when
    a button is pressed or let go and when tiles move; it schedules its own steps on the
    world's clock and records into the world's trace."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.sessions: list[Session] = []

    # ------------------------------------------------------------ the 3 s hold
    def schedule_check(self, tile: Tile, seq: int, due_ms: int) -> None:
        # One µs before the mark's millisecond begins: before any pass can take the flag.
        at = tile.clock.world_at_millis(due_ms) - 1
        self.world._call_internal(at, lambda: self._check(tile, seq))

    def _check(self, tile: Tile, seq: int) -> None:
        """The button went down (contact `seq`): at its 3 s mark, a lone tile enters the hold."""
        world = self.world
        if seq != tile.contact_seq or tile.asleep or tile.seed_role is not None or tile.stuck:
            return
        world._engine.refresh()
        b = tile.button
        if not b.down:
            if b.raw and b.raw[-1][1]:  # not accepted yet: look again once it is
                self.schedule_check(tile, seq, b.raw[-1][0] + LONG_LONG_PRESS_MS)
            return
        mark = b.down_since + LONG_LONG_PRESS_MS
        if b.marks_fired & 2 or any(t <= mark for t, _ in b.raw):
            return  # the mark was seen already, or the button goes up before it
        if tile.clock.millis(world.now + 1) < mark:
            self.schedule_check(tile, seq, mark)
            return
        api = tile.api
        if any(e >= api.now for e in api.expire_time):
            return  # not alone: the flag reaches the sketch, buttonLongLongPressed()
        world._engine.wake(tile)
        world._engine.refresh()
        tile.seed_role = HOLD
        world._engine.dormant(tile, True)
        world.record(tile, "seed-hold", {})
        world._call_internal(tile.clock.world_at_millis(b.down_since + SLEEP_PRESS_MS),
                             lambda: self._hold_timeout(tile, seq))

    def _hold_timeout(self, tile: Tile, seq: int) -> None:
        """Still held at 6 s: blinklib gives up the seed and warm-sleeps."""
        world = self.world
        if tile.seed_role != HOLD or seq != tile.contact_seq:
            return
        tile.seed_role = None
        world._warm_sleep_group(tile, "hold")

    def release(self, tile: Tile) -> None:
        """Let go during the hold: the tile becomes the root of a seed session."""
        world = self.world
        world._engine.refresh()
        tile.seed_role = ROOT
        session = Session(tile, tile.program)
        fresh_program(tile.program)  # fail now, with the tile named, not at the restart
        self.sessions.append(session)
        world.record(tile, "seed-root", {})
        self.spread()
        self._rearm(session)

    # ---------------------------------------------------------------- spreading
    def spread(self) -> None:
        """Every awake tile touching a root or a downloader takes the game (and so on)."""
        world = self.world
        for session in self.sessions:
            todo = [session.root, *session.members]
            joined = False
            while todo:
                t = todo.pop()
                for _, n, _ in world.neighbours_of(t):
                    if n.seed_role is None and not n.asleep and n.stuck is None:
                        self._join(session, n)
                        todo.append(n)
                        joined = True
            if joined:
                self._rearm(session)

    def _join(self, session: Session, tile: Tile) -> None:
        world = self.world
        world._engine.wake(tile)
        world._engine.refresh()
        tile.seed_role = DOWNLOAD
        session.members.append(tile)
        world._engine.dormant(tile, True)
        world.record(tile, "seed-download", {"from": session.root.name})

    def _rearm(self, session: Session) -> None:
        world = self.world
        session.gen += 1
        gen = session.gen
        root = session.root
        due = root.clock.millis(world.now) + SEED_IDLE_MS
        world._call_internal(root.clock.world_at_millis(due),
                             lambda: self._done(session, gen))

    def _done(self, session: Session, gen: int) -> None:
        """Nobody joined for SEED_IDLE_MS: every tile of the session starts the game."""
        world = self.world
        if gen != session.gen:
            return
        self.sessions.remove(session)
        world._engine.refresh()
        self._restart(session.root, fresh_program(session.program), START_STATE_WE_ARE_ROOT)
        for t in session.members:
            self._restart(t, fresh_program(session.program), START_STATE_DOWNLOAD_SUCCESS)

    def _restart(self, tile: Tile, program: Any, start_state: int) -> None:
        """The tile jumps into `program` from its start: setup() again, all state fresh."""
        world = self.world
        api = tile.api
        Blinklib.__init__(api, entropy=api.entropy, serial=api.serial)
        api.start_state = start_state
        tile.set_program(program)
        tile.seed_role = None
        tile.started = False
        click_count = tile.button.click_count
        tile.button = ButtonModel()
        tile.button.click_count = click_count  # the BIOS's count, not the game's
        tile.viral_faces = 0
        tile.viral_lockout_until = -1
        tile.sleep_base_ms = tile.clock.millis(world.now)
        world._engine.reprogrammed(tile)
        world._engine.dormant(tile, False)
        world.record(tile, "seed-start", {"start_state": start_state})
        world._schedule_sleep_check(tile)
