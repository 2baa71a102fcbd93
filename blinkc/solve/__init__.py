"""`blinkc solve`: the Pirates & Lasers ship that lasts the most rounds under a stated play
(docs/solve.md). ships.py: the ships the rules allow, once up to symmetry; rules.py: the
policy's look-ahead; play.py: a ship played in the emulator, the game itself; search.py:
exhaustive or beam search on the runner."""

from .play import Played, Policy, play
from .search import Scored, Search, beam, exhaustive, replay_files
from .ships import Ship, canonical, ships

__all__ = ["Played", "Policy", "Scored", "Search", "Ship", "beam", "canonical", "exhaustive",
           "play", "replay_files", "ships"]
