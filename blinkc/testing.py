"""Test Blinks games in the emulator with pytest.

    from blinkc.testing import Cluster

    def test_a_click_repairs_the_neighbour():
        ship = Cluster("firmware/pirates_lasers.py", '''
            tile a at 0,0
            tile b at 0,1 hp=3
        ''')
        ship.click("a")
        ship.settle()
        assert ship.state("b")["hp"] == 4

A `Cluster` builds a world from a layout (text or file) whose tiles run the
game (a game file, or an unmodified sketch `Name/Name.ino` compiled for the
host), presses buttons like a person does, runs until nothing changes any
more, and reads each tile's state (and what a sketch printed: `serial()`).
The `cluster` pytest fixture (enabled by `pytest_plugins = ["blinkc.testing"]` in a
conftest.py) makes one per test with `cluster(game, layout)`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .games import game_resolver
from .world import Faults, Trace, make_world
from .world.layout import Layout
from .world.layout_file import load_layout, parse_layout

#: A person's click: the button is down this long.
CLICK_MS = 80
#: Between the clicks of a double or multi click.
CLICK_GAP_MS = 150


class Cluster:
    """A cluster of tiles running one game, driven like a player would."""

    def __init__(self, game: str | Path, layout: str | Path, *, seed: int = 0,
                 faults: Faults | None = None, backend: str = "python", trace: bool = False,
                 boot_ms: float = 1000, world: str = "auto",
                 boot_timeout_ms: float = 30_000) -> None:
        """`game`: a game file, or a sketch (`.ino`; then `backend` does not matter, and
        settle() can only wait for buttons and a quiet moment, since a sketch cannot say
        it is idle). `world`: "auto" runs native tiles in the C++ world core (when g++ is here),
        "python" forces the reference world, "native" insists on the core.

        The tiles power up, run at least `boot_ms`, and then until every tile has a
        working link with each neighbour that touches it and knows its open faces
        are open (so the first action is never lost to a link still coming up)."""
        self.game = Path(game)
        python_game = backend == "python" and self.game.suffix != ".ino"
        engine = "python" if python_game and world == "auto" else world
        self.world = make_world(seed=seed, faults=faults, trace=Trace() if trace else None,
                                engine=engine)
        self.layout = self._layout(layout)
        if self.game.suffix == ".ino":  # an unmodified Blinks sketch, compiled for the host
            from .sketches import sketch_resolver

            resolver = sketch_resolver(self.game)
        else:
            resolver = game_resolver(self.game, backend)
        self.layout.build(self.world, resolver)
        self.world.run_for(boot_ms)
        self.settle(timeout_ms=boot_timeout_ms, what="boot")

    @staticmethod
    def _layout(layout: str | Path) -> Layout:
        if isinstance(layout, Path) or (isinstance(layout, str) and "\n" not in layout
                                        and layout.endswith(".layout")):
            return load_layout(layout)
        text = "\n".join(line.strip() for line in str(layout).strip().splitlines())
        return parse_layout(text, "<test layout>")

    # ----------------------------------------------------------------- actions
    def press(self, name: str, hold_ms: float = CLICK_MS) -> None:
        """Hold the button for hold_ms, then let go."""
        self.world.button(name, True)
        self.world.run_for(hold_ms)
        self.world.button(name, False)

    def click_together(self, *names: str) -> None:
        """Click several tiles at the same moment (two players' hands, or one quick player)."""
        for name in names:
            self.world.button(name, True)
        self.world.run_for(CLICK_MS)
        for name in names:
            self.world.button(name, False)

    def clicks(self, name: str, n: int) -> None:
        for i in range(n):
            if i:
                self.world.run_for(CLICK_GAP_MS)
            self.press(name)

    def click(self, name: str) -> None:
        self.clicks(name, 1)

    def double_click(self, name: str) -> None:
        self.clicks(name, 2)

    def multi_click(self, name: str, n: int = 3) -> None:
        self.clicks(name, n)

    def long_press(self, name: str, hold_ms: float = 1500) -> None:
        self.press(name, hold_ms)

    def lift(self, name: str) -> None:
        self.world.lift(name)

    def place(self, name: str, pos: tuple[int, int], rot: int | None = None) -> None:
        self.world.place(name, pos, rot)

    def wait(self, ms: float) -> None:
        self.world.run_for(ms)

    def settle(self, timeout_ms: float = 30_000, what: str = "the cluster") -> float:
        """Run until the game is idle everywhere; returns the ms it took.

        Idle: no button gesture pending; no tile has a message queued, on the
        wire or in its handshake, or a flood under way; every face of every
        tile is settled (a working link, or known to be open); and every pair
        of touching tiles has a working link — for 200 ms in a row; or every tile
        skipped its last loop() (its program declared itself quiet, its inputs unchanged)
        at each look for 200 ms; or every tile is in its warm sleep or frozen. (A sleeping
        or frozen tile counts as idle whatever it was doing: nothing happens on it until a
        press wakes it, or ever.)
        """
        world = self.world
        start = world.now_ms
        world.run_for(400)  # let a click's 330 ms window close
        calm_since = None
        with world.lazy_mirrors():  # (the loop reads only world.calm() and the programs)
            while world.now_ms - start < timeout_ms:
                if world.is_quiet() and not self.unlinked():
                    return world.now_ms - start
                if (self._idle() or self._resting()) and not self.unlinked():
                    calm_since = world.now_ms if calm_since is None else calm_since
                    if world.now_ms - calm_since >= 200:
                        return world.now_ms - start
                else:
                    calm_since = None
                world.run_for(20)
        down = ", ".join(f"{a}:{fa}-{b}:{fb}" for a, fa, b, fb in self.unlinked())
        raise AssertionError(f"{what} did not settle within {timeout_ms} ms"
                             + (f"; links still down between touching faces: {down}" if down else ""))

    def unlinked(self) -> list[tuple[str, int, str, int]]:
        """Touching faces (tile, face, neighbour, its face) whose game has no working link
        between them yet."""
        out = []
        for t in self.world.tiles:
            links = getattr(t.program, "links", None)
            if links is None:
                continue
            up = links(t.api)
            for f, n, nf in self.world.neighbours_of(t):
                if not (up >> f) & 1:
                    out.append((t.name, f, n.name, nf))
        return out

    def _resting(self) -> bool:
        """Every tile skipped its last loop(): its program declared nothing changes while its
        inputs stay as they are, and they have (or it is in its warm sleep, or frozen). A
        tile with a working session must also be idle: one waiting for an ack skips its loop
        too, with the message still on its way (a game without messages has no sessions)."""
        for t in self.world.tiles:
            if t.asleep or t.stuck is not None:
                continue
            calm = self.world.calm(t)
            if not calm.skipped or not calm.button_idle or calm.button_flags:
                return False
            links, idle = getattr(t.program, "links", None), getattr(t.program, "idle", None)
            if links is not None and idle is not None and links(t.api) and not idle(t.api):
                return False
        return True

    def _idle(self) -> bool:
        for t in self.world.tiles:
            if t.asleep or t.stuck is not None:
                continue  # nothing happens on it until a press wakes it (or ever, frozen)
            # (The program first: the cheaper question. A sketch cannot say: it is idle once
            # its button is.)
            idle = getattr(t.program, "idle", None)
            if idle is None:
                if not getattr(t.program, "is_native_program", False):
                    return False
            elif not idle(t.api):
                return False
            calm = self.world.calm(t)
            if not calm.button_idle or calm.button_flags:
                return False
        return True

    # ------------------------------------------------------------------- reads
    def state(self, name: str) -> dict[str, Any]:
        return self.world.tile(name).program.state()

    def states(self) -> dict[str, dict[str, Any]]:
        return {t.name: t.program.state() for t in self.world.tiles}

    def colors(self, name: str) -> list[int]:
        return self.world.colors(self.world.tile(name))

    def value(self, name: str, derived: str) -> Any:
        """A derived value of the game (`@game.derived`) on a tile, as it is now."""
        tile = self.world.tile(name)
        return self.world.evaluate(tile, lambda api: tile.program.value(api, derived))

    def serial(self, name: str) -> str:
        """Everything the tile wrote to its service port (`Serial.print...`) since power-up."""
        return self.world.tile(name).serial_text

    def serial_lines(self, name: str) -> list[str]:
        """The same, as lines (println ends a line with "\r\n")."""
        return self.serial(name).replace("\r\n", "\n").splitlines()

    def names(self) -> list[str]:
        return [t.name for t in self.world.tiles]

    def program(self, name: str) -> Any:
        return self.world.tile(name).program


def pytest_configure(config: Any) -> None:  # pragma: no cover - pytest hook
    config.addinivalue_line("markers", "blinks: a test that runs a Blinks game in the emulator")


try:
    import pytest

    @pytest.fixture
    def cluster() -> Iterator[Any]:
        """`cluster(game, layout, **options)` builds a Cluster for this test."""
        made: list[Cluster] = []

        def make(game: str | Path, layout: str | Path, **options: Any) -> Cluster:
            c = Cluster(game, layout, **options)
            made.append(c)
            return c

        yield make
except ImportError:  # pragma: no cover - pytest is only needed for the fixture
    pass
