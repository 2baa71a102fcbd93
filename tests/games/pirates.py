"""Build the same ship for the emulated firmware and for the referee, and compare them."""

from __future__ import annotations

from pathlib import Path

from blinkc.testing import Cluster
from blinkc.world import Faults

from .referee import Piece, Ship

GAME = Path(__file__).resolve().parents[2] / "firmware" / "pirates_lasers.py"
DEEP_ORANGE_TAN_FACE = 0  # a Hull's face 0 shows tan (legal) or deep orange (illegal) when undamaged


class Game:
    """One ship, played on the emulator and on the referee side by side."""

    def __init__(self, tiles: list[tuple], *, seed: int = 0, faults: Faults | None = None,
                 backend: str = "python") -> None:
        # tiles: (name, (q, r), rot, {settings})
        lines = []
        self.ship = Ship()
        self.pos = {}
        for name, pos, rot, settings in tiles:
            if "hp" in settings and "water" not in settings:
                settings = {**settings, "water": (1 << (5 - int(settings["hp"]))) - 1}
            words = " ".join(f"{k}={v}" for k, v in settings.items())
            lines.append(f"tile {name} at {pos[0]},{pos[1]} rot {rot} {words}")
            self.ship.pieces[pos] = Piece(kind=settings.get("kind", "HULL"),
                                          hp=int(settings.get("hp", 5)),
                                          orient=int(settings.get("orient", 0)), rot=rot)
            self.pos[name] = pos
        self.cluster = Cluster(GAME, "\n".join(lines), seed=seed, faults=faults, backend=backend)
        self.expected = [self.ship]

    def act(self, name: str, action: str = "click") -> None:
        getattr(self.cluster, action)(name)
        self.cluster.settle()
        pos = self.pos[name]
        if action == "click":
            self.expected = [s2 for s in self.expected for s2 in s.click(pos)]
        else:
            for s in self.expected:
                getattr(s, action)(pos)

    def act_together(self, names: list[str]) -> None:
        """Hazards pressed at the same moment: each shot deals its full damage."""
        self.cluster.click_together(*names)
        self.cluster.settle()
        positions = [self.pos[n] for n in names]
        self.expected = [s2 for s in self.expected for s2 in s.fire_together(positions)]

    def lift(self, name: str) -> None:
        self.cluster.lift(name)
        for s in self.expected:
            s.lift(name, self.pos[name])

    def place(self, name: str, pos: tuple[int, int], rot: int | None = None) -> None:
        """Put a lifted tile down; a sunk tile sinks what it is put against."""
        self.cluster.place(name, pos, rot)
        self.cluster.settle()
        for s in self.expected:
            s.place(name, pos, rot)
        self.pos[name] = pos

    def view(self) -> dict:
        """Every tile on the table, by place (a tile in the hand is not part of the ship)."""
        world = self.cluster.world
        return {self.pos[n]: {k: st[k] for k in ("kind", "hp", "orient", "sunk")}
                for n, st in self.cluster.states().items() if world.tile(n).pos is not None}

    def agrees(self) -> bool:
        return self.view() in [s.view() for s in self.expected]

    def state(self, name: str) -> dict:
        return self.cluster.state(name)

    def check(self) -> None:
        assert self.agrees(), f"firmware {self.view()}\nreferee {[s.view() for s in self.expected]}"
        for name in self.pos:
            st = self.state(name)
            assert bin(st["water"]).count("1") == 5 - st["hp"] or st["kind"] != "HULL", st
