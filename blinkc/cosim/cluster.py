"""Tiles stepped together in lock-step slices of world time, with IR between facing faces.

The stepping is the harness's (C, on `threads` threads with a barrier per slice): here
only what is set up between slices (links, button contacts, faults) and read from them.
World time is counted in cycles of the nominal 8 MHz clock; a tile with a clock error of
`ppm` runs (1e6 + ppm) / 1e6 of its own cycles per world cycle.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..world.splitmix import SplitMix64
from .library import harness
from .tile import BOOT_LIMIT_CYCLES, F_CPU, CosimTile

#: World cycles per slice. The probe of issue 25 linked two tiles with slices of 512
#: cycles and not with 4,096; a flash reaches the facing tile one slice after it left, so
#: a shorter slice is a shorter light delay (256 cycles = 32 µs, shorter than the BIOS's
#: IR pulse spacing) at the price of more barriers.
SLICE_CYCLES = 256
CYCLES_PER_MS = F_CPU // 1000


class Cluster:
    """Co-simulated tiles; each tile's faces are linked to whatever faces them."""

    def __init__(self, seed: int = 0, threads: int = 1, slice_cycles: int = SLICE_CYCLES) -> None:
        self.lib = harness()
        rng = SplitMix64.from_text(f"{seed}:cosim-faults")
        self.handle = self.lib.cs_cluster_new(threads, slice_cycles, rng.state)
        if not self.handle:
            raise MemoryError("cannot make a co-simulated cluster")
        self.tiles: list[CosimTile] = []
        self.index: dict[str, int] = {}
        #: The world cycle that is time 0: past BOOT_LIMIT_CYCLES once a booted tile joins,
        #: so that every booted tile's game starts at 0, as in the emulator.
        self.origin = 0

    def add(self, tile: CosimTile) -> None:
        """Add `tile`: one that ran its boot alone (CosimTile.boot) starts its game at time
        0 if the cluster has not run yet, as the emulator's tiles do, and now if it has (a
        tile a scenario adds, whose game the emulator starts when it is added); any other
        powers up now."""
        if tile.booted_at is not None:
            now = self.lib.cs_cluster_now(self.handle)
            if not self.origin and not now:
                # Time 0 lies past any boot, so that a booted tile's power-up is after cycle 0.
                self.origin = BOOT_LIMIT_CYCLES
            boot_world = tile.booted_at * 1_000_000 // (1_000_000 + tile.ppm)
            joins = max(self.origin, now)
            if joins < boot_world:
                raise ValueError("a booted tile joins a cluster that started with none "
                                 "only once it has run as long as the tile's boot")
            powered_at = joins - boot_world
        else:
            powered_at = max(self.origin, self.lib.cs_cluster_now(self.handle))
        i = self.lib.cs_cluster_add(self.handle, tile.handle, powered_at)
        if i < 0:
            raise ValueError("a co-simulated cluster has at most 64 tiles")
        self.tiles.append(tile)
        self.index[tile.name] = i

    def link(self, links: Iterable[tuple[str, int, str, int]]) -> None:
        """Set who faces whom: (tile, face, other tile, its face), both ways given."""
        self.lib.cs_cluster_unlink_all(self.handle)
        for a, fa, b, fb in links:
            self.lib.cs_cluster_link(self.handle, self.index[a], fa, self.index[b], fb)

    def faults(self, drop: float, jitter_ms: float) -> None:
        """Each burst of flashes (a packet) out of a face is lost with probability `drop`
        and delayed by up to `jitter_ms`, drawn from the seeded stream."""
        self.lib.cs_cluster_faults(self.handle, drop, round(jitter_ms * CYCLES_PER_MS))

    def run_until(self, ms: float) -> None:
        self.lib.cs_cluster_run(self.handle, self.origin + round(ms * CYCLES_PER_MS))

    @property
    def now_ms(self) -> float:
        return (self.lib.cs_cluster_now(self.handle) - self.origin) / CYCLES_PER_MS

    def color_changes(self) -> list[tuple[float, str, list[int]]]:
        """(ms, tile, colours) of each change of a watched tile's colours since the last
        call (CosimTile.watch_colors), in time order."""
        out = [((at - self.origin) / CYCLES_PER_MS, tile.name, colors)
               for tile in self.tiles for at, colors in tile.take_color_changes()]
        return sorted(out, key=lambda change: change[0])

    @property
    def flashes(self) -> int:
        return self.lib.cs_cluster_flashes(self.handle)

    def packets_sent(self, tile: str, face: int) -> int:
        """How many packets (bursts of flashes) `tile` has sent out of `face`, linked or not."""
        return self.lib.cs_cluster_packets(self.handle, self.index[tile], face)

    def close(self) -> None:
        if self.handle:
            self.lib.cs_cluster_free(self.handle)
            self.handle = None
        for t in self.tiles:
            t.close()

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
