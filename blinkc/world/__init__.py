"""The emulator: Blinks on a hex lattice, pass by pass, packet by packet."""

from .tile import Tile, TileProgram
from .trace import Trace
from .world import Faults, World, WorldError

__all__ = ["Faults", "Tile", "TileProgram", "Trace", "World", "WorldError"]
