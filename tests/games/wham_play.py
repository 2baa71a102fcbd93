"""Play WHAM! the way a person does, on the port or on Move38's original sketch, and
write down what the player saw.

Neither game is asked for its state: the `Watcher` reads only the LEDs (what a player
sees), so the same code watches firmware/wham.py and the unmodified WHAM.ino of the
Blinks SDK. The `Player` presses tiles the way a plan says: each round it whacks every
mole it sees (after a human reaction time), or also presses a tile without a mole (a
strike), or lets the moles be (the game is lost). Both games then ought to tell the same
story: the same rounds, the same strikes, the same end, at about the same times.

Colours are the emulator's 5-bit channels (r, g, b each 0..31).
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from pathlib import Path

from blinkc.blinklib.color import channels
from blinkc.testing import Cluster

ROOT = Path(__file__).resolve().parents[2]
PORT = ROOT / "firmware" / "wham.py"
ORIGINAL_IN_SDK = Path("libraries/Examples03/examples/WHAM/WHAM.ino")

SAMPLE_MS = 20  # the player looks this often
PRESS_MS = 80  # a press: the button is down this long
LONG_PRESS_MS = 1500
DEATH_HOLD_MS = 600  # every tile in the death colours this long: the game is lost
ROUND_GAP_MS = 1000  # a stir this long after the last one starts a new round
ROUNDS = 30


def original_sketch() -> Path | None:
    """WHAM.ino in the SDK that BLINKS_SDK names, or None."""
    sdk = os.environ.get("BLINKS_SDK")
    if not sdk:
        return None
    path = Path(sdk) / ORIGINAL_IN_SDK
    return path if path.exists() else None


# --- what a face, and a tile, looks like ----------------------------------------------
def face_look(colour: int) -> str:
    """One face: 'off', 'red' (any red, dim or full), 'pink' (red mixed with white),
    'white', 'yellow', 'orange', 'grass' (the full green of the field), 'stir' (the grass
    dimmed), 'flash' (the grass mixed with white), or 'other'."""
    r, g, b = channels(colour)
    if (r, g, b) == (0, 0, 0):
        return "off"
    if g == 0 and b == 0:
        return "red"
    if r == 31 and g == 31 and b == 31:
        return "white"
    if r == 31 and g == b:
        return "pink"
    if (r, g, b) == (31, 31, 0):
        return "yellow"
    if (r, g, b) == (31, 15, 0):
        return "orange"
    if g > r or (g == 31 and b > 0):
        if b > 0:
            return "flash"
        return "grass" if g == 31 else "stir"
    return "other"


def tile_look(colours: list[int]) -> str:
    """A tile: 'grass', 'stir' (a round starts), 'flash' (white fading into the grass),
    'peek' (one face red or fading, on the field), 'mole' (red pips burning down),
    'red' (every face the same red: a mole just up, or the death pulse), 'death' (every
    face the same pink, white or off: the death pulse), 'strike1', 'strike2', or 'other'."""
    faces = [face_look(c) for c in colours]
    same = len(set(colours)) == 1
    kinds = set(faces)
    if same:
        one = faces[0]
        return {"red": "red", "pink": "death", "off": "death", "white": "white",
                "yellow": "strike1", "orange": "strike2", "flash": "flash",
                "grass": "grass", "stir": "stir"}.get(one, "other")
    if kinds <= {"red", "off"}:
        return "mole"
    if kinds <= {"grass", "stir"}:
        return "stir"  # the original's stir: each face its own brightness
    if kinds <= {"grass", "red", "flash", "white"} and faces.count("grass") == 5:
        return "peek"
    return "other"


def deathly(colours: list[int]) -> bool:
    """Every face the same, and red, dark or off, or red mixed with white (the original's
    makeColorHSB(0, s, 255) can give green and blue a step apart): the death pulse."""
    if len(set(colours)) != 1:
        return False
    r, g, b = channels(colours[0])
    return (g == 0 and b == 0) or (r == 31 and abs(g - b) <= 2)


# --- what the player saw ----------------------------------------------------------------
@dataclass
class Story:
    """What happened, as the player saw it."""

    started_at: float | None = None
    rounds: list[float] = field(default_factory=list)  # when each round started
    moles: list[tuple[int, str, float]] = field(default_factory=list)  # (round, tile, when)
    strikes: list[tuple[int, int, float]] = field(default_factory=list)  # (n, round, when)
    end: str | None = None  # "death" or "victory"
    end_round: int = 0
    end_at: float | None = None
    death_sources: set[str] = field(default_factory=set)  # the tiles pulsing red and white
    presses: list[tuple[str, float, str]] = field(default_factory=list)  # (tile, when, why)
    back_to_field_at: float | None = None

    def summary(self) -> tuple:
        """What must agree between two games played to the same plan."""
        return (self.end, self.end_round, [n for n, _, _ in self.strikes],
                [r for _, r, _ in self.strikes])

    def round_lengths(self) -> list[float]:
        return [b - a for a, b in zip(self.rounds, self.rounds[1:])]


class Watcher:
    """Reads every tile's LEDs each sample and keeps the Story."""

    def __init__(self, cluster: Cluster) -> None:
        self.c = cluster
        self.names = cluster.names()
        self.story = Story()
        self.look = dict.fromkeys(self.names, "grass")
        self.since = dict.fromkeys(self.names, 0.0)
        self.death_since: float | None = None
        self.unpressed_flashes: list[float] = []
        self.last_press = dict.fromkeys(self.names, -1e9)
        self.mole_up = dict.fromkeys(self.names, False)
        self.new_moles: list[str] = []
        self.new_round = False

    @property
    def now(self) -> float:
        return self.c.world.now_ms

    def pressed(self, name: str) -> None:
        self.last_press[name] = self.now

    def sample(self) -> None:
        now = self.now
        s = self.story
        self.new_moles = []
        self.new_round = False
        colours = {n: self.c.colors(n) for n in self.names}
        if s.end != "death":
            if all(deathly(colours[n]) for n in self.names):
                self.death_since = now if self.death_since is None else self.death_since
                if now - self.death_since >= DEATH_HOLD_MS and s.started_at is not None:
                    s.end, s.end_at, s.end_round = "death", self.death_since, len(s.rounds)
            else:
                self.death_since = None
        if s.end == "death":
            for n in self.names:
                r, g, _ = channels(colours[n][0])
                if deathly(colours[n]) and r == 31 and g > 0:
                    s.death_sources.add(n)
        for n in self.names:
            look = tile_look(colours[n])
            was = self.look[n]
            if look != was:
                self.look[n], self.since[n] = look, now
                self.changed(n, was, look, now)
        if s.end == "death" and s.back_to_field_at is None and all(
                self.look[n] in ("grass", "peek") for n in self.names):
            s.back_to_field_at = now

    def changed(self, n: str, was: str, look: str, now: float) -> None:
        s = self.story
        if s.end is not None:
            return
        if look in ("flash", "white") and was not in ("flash", "white"):
            if s.started_at is None:
                s.started_at = now  # the game starts: every tile flashes
            elif now - self.last_press[n] > 100 and s.rounds:
                self.unpressed_flashes.append(now)
                recent = [t for t in self.unpressed_flashes if now - t < 3000]
                if len(recent) >= 3 and len(s.rounds) >= ROUNDS:
                    s.end, s.end_at, s.end_round = "victory", recent[0], len(s.rounds)
            return
        if s.started_at is None:
            return
        if look == "stir" and (not s.rounds or now - s.rounds[-1] > ROUND_GAP_MS):
            s.rounds.append(now)
            self.new_round = True
            self.mole_up = dict.fromkeys(self.names, False)
        elif look == "mole" and not self.mole_up[n] and s.rounds:
            # (pips burning down: a sixth of its time after the mole came up, when every
            # pip was lit; a tile all red may also be the death pulse starting)
            self.mole_up[n] = True
            s.moles.append((len(s.rounds), n, now))
            self.new_moles.append(n)
        elif look in ("strike1", "strike2"):
            k = 1 if look == "strike1" else 2
            if not s.strikes or s.strikes[-1][0] < k:
                s.strikes.append((k, len(s.rounds), now))


# --- the player -------------------------------------------------------------------------
WHACK, MISS, LET_GO, LONG = "whack", "miss", "let go", "long"


@dataclass
class Plan:
    """What the player does in each round (1-based; rounds past the list: WHACK)."""

    rounds: dict[int, str] = field(default_factory=dict)
    seed: int = 0

    def of(self, r: int) -> str:
        return self.rounds.get(r, WHACK)

    def expected(self) -> tuple[str, int, list[int]]:
        """(end, round it ends in, strikes seen) if the game keeps its rules."""
        strikes = []
        for r in range(1, ROUNDS + 1):
            what = self.of(r)
            if what == MISS:
                strikes.append(len(strikes) + 1)
                if len(strikes) == 3:
                    return "death", r, strikes[:2]
            if what == LET_GO:
                return "death", r, strikes
        return "victory", ROUNDS, strikes


class Player:
    def __init__(self, cluster: Cluster, plan: Plan) -> None:
        self.c = cluster
        self.plan = plan
        self.rng = random.Random(plan.seed)
        self.watch = Watcher(cluster)
        self.due: list[tuple[float, str, float, str]] = []  # (when, tile, hold, why)
        self.up_until: dict[str, float] = {}

    def press_later(self, tile: str, after: float, hold: float, why: str) -> None:
        last = max([w for w, t, _, _ in self.due if t == tile]
                   + [self.watch.last_press[tile]], default=-1e9)
        when = max(self.c.world.now_ms + after, last + 700)  # never a double click
        self.due.append((when, tile, hold, why))

    def step(self) -> None:
        world = self.c.world
        now = world.now_ms
        for name, until in list(self.up_until.items()):
            if now >= until:
                world.button(name, False)
                del self.up_until[name]
        for item in sorted(self.due):
            when, tile, hold, why = item
            if when <= now and tile not in self.up_until:
                self.due.remove(item)
                world.button(tile, True)
                self.up_until[tile] = now + hold
                self.watch.pressed(tile)
                self.watch.story.presses.append((tile, now, why))
        world.run_for(SAMPLE_MS)
        self.watch.sample()
        w = self.watch
        s = w.story
        if s.end is not None:
            return
        r = len(s.rounds)
        what = self.plan.of(r)
        if w.new_round and what == MISS:
            # The moles come up 500 ms or more after a round starts: a press before that
            # finds no mole anywhere.
            self.press_later(self.rng.choice(w.names), self.rng.uniform(80, 300), PRESS_MS,
                             "miss")
        for tile in w.new_moles:
            if what in (WHACK, MISS, LONG):
                hold = LONG_PRESS_MS if what == LONG else PRESS_MS
                self.press_later(tile, self.rng.uniform(150, 650), hold, "whack")

    def start(self, tile: str) -> None:
        """A double click on `tile`; then the game runs until it ends."""
        self.c.double_click(tile)

    def play(self, start_tile: str, limit_ms: float = 200_000) -> Story:
        self.start(start_tile)
        end = self.c.world.now_ms + limit_ms
        while self.watch.story.end is None and self.c.world.now_ms < end:
            self.step()
        for name in list(self.up_until):
            self.c.world.button(name, False)
        return self.watch.story

    def back_to_field(self, tile: str, within_ms: float = 3000) -> Story:
        """A double click after the end: every tile should show the field again."""
        self.c.world.run_for(500)
        self.c.double_click(tile)
        end = self.c.world.now_ms + within_ms
        while self.c.world.now_ms < end and self.watch.story.back_to_field_at is None:
            self.c.world.run_for(SAMPLE_MS)
            self.watch.sample()
        return self.watch.story


def play(game: Path, layout: str, plan: Plan, *, seed: int = 0, backend: str = "native",
         start: str | None = None) -> Story:
    cluster = Cluster(game, layout, seed=seed, backend=backend)
    player = Player(cluster, plan)
    return player.play(start or cluster.names()[0])
