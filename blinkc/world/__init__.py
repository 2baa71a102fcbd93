"""The emulator: Blinks on a hex lattice, pass by pass, packet by packet."""

from .factory import ENGINES, make_world
from .tile import Tile, TileProgram
from .trace import Trace
from .world import Faults, World, WorldError

__all__ = ["ENGINES", "Faults", "Tile", "TileProgram", "Trace", "World", "WorldError",
           "make_world"]
