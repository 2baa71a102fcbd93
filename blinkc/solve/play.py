"""A ship played by the stated play in the emulator, the game itself on the native backend:
each round the Repair press the policy picks, then every Hazard pressed once; no
rearranging. The clicks fall at times the play writes down, so `blinkc emulate` replays the
same game from the layout and scenario it writes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..games import game_resolver
from ..world import Faults, make_world
from ..world.layout_file import parse_layout
from ..world.scenario import Scenario
from .rules import State, choose
from .ships import HAZARD, HULL, REDIRECTOR, Ship

#: From a click to the next: the click is recognised 330 ms after its press, then the beams
#: or the repair cross the ship; the play waits longer if the ship is not idle by then.
GAP_MS = 1200
BOOT_MS = 1500
#: A ship still afloat after this many rounds is reported as lasting them (none came close).
MAX_ROUNDS = 100


@dataclass(frozen=True)
class Policy:
    lookahead: int = 1                  #: 1: greedy

    def __str__(self) -> str:
        return "greedy" if self.lookahead == 1 else f"lookahead {self.lookahead}"


@dataclass
class Played:
    rounds: int                          #: rounds the ship lasted (completed afloat)
    presses: list[list[tuple[float, str]]]  #: each round's clicks (ms, tile)
    sank_ms: float | None                #: when the sinking round's last click fell

    def scenario_text(self, ship: Ship, policy: Policy) -> str:
        lines = [f"# the ship {ship.describe()}, played {policy}, no rearranging:",
                 f"# it lasts {self.rounds} rounds and sinks in round {self.rounds + 1}"
                 if self.sank_ms is not None else f"# afloat after {self.rounds} rounds"]
        for k, clicks in enumerate(self.presses, 1):
            lines.append(f"# round {k}")
            lines += [f"at {at:g}ms click {name}" for at, name in clicks]
        return "\n".join(lines) + "\n"

    @property
    def end_ms(self) -> float:
        last = self.presses[-1][-1][0] if self.presses else BOOT_MS
        return last + 3 * GAP_MS


def _idle(world) -> bool:
    for t in world.tiles:
        if not t.button.idle() or t.button.flags or not t.program.idle(t.api):
            return False
    return True


def _wait_idle(world, until: float) -> float:
    world.run_until(until)
    while not _idle(world):
        until += 100
        world.run_until(until)
    return until


def play(game: Path, ship: Ship, policy: Policy = Policy(), seed: int = 0,
         max_rounds: int = MAX_ROUNDS) -> Played:
    """Play `ship` in the emulator (the same world `blinkc emulate --seed` builds)."""
    layout = parse_layout(ship.layout_text(str(game)), "<solve>")
    resolver = game_resolver(game, "native")
    world = make_world(seed=seed, faults=Faults(), engine="auto")
    layout.build(world, resolver)
    names = ship.names()
    by_name = {names[p]: (p, k, ship.rotation((p, k, d))) for p, k, d in ship.pieces}
    hazards = tuple(p for p, k, _ in ship.pieces if k == HAZARD)
    now = _wait_idle(world, BOOT_MS)
    presses: list[list[tuple[float, str]]] = []
    for _ in range(max_rounds):
        state = _read(world, ship, by_name, hazards)
        if state.sunk:
            break
        pressed = choose(state, policy.lookahead)
        clicks = []
        for p in (pressed, *hazards):
            clicks.append((now, names[p]))
            Scenario().at(now).click(names[p]).apply(world, resolver, layout, start_ms=0.0)
            now = _wait_idle(world, now + GAP_MS)
        presses.append(clicks)
        if any(world.tile(n).program.state()["sunk"] for n in names.values()):
            return Played(len(presses) - 1, presses, clicks[-1][0])
    return Played(len(presses), presses, None)


def _read(world, ship: Ship, by_name: dict, hazards: tuple) -> State:
    """The ship as the tiles have it now, in world directions."""
    kinds = ship.kinds
    hp, orient, repair = {}, {}, {}
    for name, (p, k, rot) in by_name.items():
        s = world.tile(name).program.state()
        if k == HULL:
            hp[p] = int(s["hp"])
            repair[p] = (5 + rot) % 6
        elif k in (HAZARD, REDIRECTOR):
            orient[p] = (int(s["orient"]) + rot) % 6
    return State(kinds, hp, orient, repair, hazards)
