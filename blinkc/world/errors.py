"""The world's errors, in a module of their own so that the world's helpers (watchdog.py)
can raise them without importing the world."""

from __future__ import annotations


class WorldError(Exception):
    """A request the world cannot carry out (unknown tile, occupied place, ...)."""


class TileHangError(WorldError):
    """A tile's setup() or an emulator hook did not return within its budget (or a call was
    stopped by Ctrl-C while stuck): the run stopped, and the world cannot continue. (A loop()
    that does not return freezes its tile instead: World.freezes.)"""
