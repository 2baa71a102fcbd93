"""The explorer's clusters and runs: shapes of n tiles, tiles with their clocks, and a run
(a cluster, timed steps and a seed) as the layout and scenario text `blinkc emulate` reads."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..world.geometry import DIRECTIONS, Pos
from ..world.layout import clock_settings
from ..world.layout_file import load_layout
from ..world.scenario_file import load_scenario

#: Quiet time after the adversary's last step: long enough for the grace and a flood.
QUIET_MS = 12_000


# ----------------------------------------------------------------- clusters
def shapes(n: int) -> list[tuple[Pos, ...]]:
    """Every connected shape of n tiles, up to moving and turning the whole cluster."""
    frontier = {((0, 0),)}
    for _ in range(n - 1):
        nxt = set()
        for shape in frontier:
            cells = set(shape)
            for c in shape:
                for dq, dr in DIRECTIONS:
                    p = (c[0] + dq, c[1] + dr)
                    if p not in cells:
                        nxt.add(_canonical((*shape, p)))
        frontier = nxt
    return sorted(frontier)


def _canonical(cells: tuple[Pos, ...]) -> tuple[Pos, ...]:
    """The smallest of the shape's six turns, moved to start at the origin."""
    best = None
    for turn in range(6):
        turned = sorted(_turn(c, turn) for c in cells)
        q0, r0 = turned[0]
        moved = tuple((q - q0, r - r0) for q, r in turned)
        if best is None or moved < best:
            best = moved
    assert best is not None
    return best


def _turn(c: Pos, times: int) -> Pos:
    q, r = c
    for _ in range(times):  # 60° clockwise in axial coordinates
        q, r = -r, q + r
    return q, r


@dataclass(frozen=True)
class Tile:
    name: str
    pos: Pos
    rot: int
    ppm: int = 0
    phase_us: int = 0


@dataclass(frozen=True)
class Run:
    """One exploration run: a cluster, what happens to it, and the world's seed."""

    tiles: tuple[Tile, ...]
    steps: tuple[tuple[float, str], ...]  #: (at ms, scenario action text without the time)
    seed: int = 0
    drop: float = 0.0

    def layout_text(self, game: Path) -> str:
        lines = [f"game {game}"]
        for t in self.tiles:
            clock = f"{t.ppm:+d}ppm"
            lines.append(f"tile {t.name} at {t.pos[0]},{t.pos[1]} rot {t.rot} clock={clock} "
                         f"phase={t.phase_us / 1000:g}ms")
        return "\n".join(lines) + "\n"

    def scenario_text(self) -> str:
        return "".join(f"at {at:g}ms {what}\n" for at, what in sorted(self.steps))

    @classmethod
    def from_files(cls, layout: Path, scenario: Path, seed: int = 0, drop: float = 0.0) -> Run:
        """A run read back from the files `write_counterexample` wrote (or written by hand)."""
        parsed = load_layout(layout)
        tiles = []
        for spec in parsed.tiles:
            if spec.pos is None:
                raise ValueError(f"{layout}: tile {spec.name} is held; the explorer's tiles are placed")
            _, (ppm, phase) = clock_settings(spec)
            tiles.append(Tile(spec.name, spec.pos, spec.rot, ppm or 0, phase or 0))
        steps = [(s.at_ms, s.describe()) for s in load_scenario(scenario).steps]
        return cls(tuple(tiles), tuple(steps), seed, drop)

    @property
    def last_step_ms(self) -> float:
        """When the adversary's last step comes (0 without steps)."""
        return max([0.0, *(at for at, _ in self.steps)])

    @property
    def end_ms(self) -> float:
        return self.last_step_ms + QUIET_MS

    def command(self, game: Path, layout: Path, scenario: Path) -> str:
        faults = f" --faults drop={self.drop:g}" if self.drop else ""
        return (f"blinkc emulate {game} -l {layout} -s {scenario} --seed {self.seed}"
                f" --world python --time {self.end_ms:g}ms{faults}")
