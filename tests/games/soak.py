"""Pirates & Lasers played by the rules on random ships, checked against the referee after
every action: the soak of the neighbour protocol (bench/protocol_soak.py runs it at scale,
tests/games/test_protocol_soak.py a CI-sized sample).

A turn follows the rules: press one Hull (Repair), press a Redirector if there is one
(Redirect), then press every Hazard once in some order (Lasers) -- now and then two of
them at the same moment, as two players' hands would. A sunk ship is reset (multi-click)
before the next turn. After every action the cluster must settle, and what every tile
holds must be one of the referee's outcomes.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from blinkc.world import Faults
from blinkc.world.geometry import DIRECTIONS
from blinkc.world.infrared import LINKING_SKEW

from .pirates import Game
from .ships import random_ship

#: The conditions of the issue: clocks from identical to the RC's worst case, and packet loss.
CONDITIONS: dict[str, Faults] = {
    "identical clocks": Faults(skew=0.0),
    "clocks ±0.1 %": Faults(skew=0.001),
    "default clocks (±1 %)": Faults(),
    "10 % drop, 2 ms jitter, ±3 %": Faults(drop=0.1, jitter_ms=2, skew=LINKING_SKEW),
    "30 % drop": Faults(drop=0.3),
    "50 % drop": Faults(drop=0.5),
}
#: Clocks so far apart that some touching tiles cannot decode each other, one way or both
#: (blinkc/world/infrared.py): nothing can be promised to arrive there, but nothing may
#: happen twice.
BEYOND_THE_DECODER = {"10 % drop, 2 ms jitter, ±10 %": Faults(drop=0.1, jitter_ms=2, skew=0.1)}


@dataclass
class Outcome:
    """What happened to one ship."""

    tiles: int = 0
    actions: int = 0
    lost: int = 0  #: actions after which some HP, sinking or turn went missing
    duplicated: int = 0  #: actions after which something happened twice
    other: int = 0  #: disagreements that are neither (a wrong order)
    stalled: int = 0  #: actions after which the cluster never settled
    latencies_ms: list[float] = field(default_factory=list)  #: press until every tile is idle
    failures: list[str] = field(default_factory=list)
    sim_ms: float = 0.0
    wall_s: float = 0.0


def turns_by_the_rules(rng: random.Random, tiles: list[tuple], n_turns: int,
                       moves: bool = False) -> list[tuple]:
    """Actions ("click", name) / ("together", [a, b]) / ("multi_click", name), turn after turn;
    with `moves`, a turn may start with ("rearrange", seed): split the ship in two and
    put the chunks back together elsewhere (worked out on the ship as it stands then)."""
    by_kind: dict[str, list[str]] = {}
    for name, _pos, _rot, settings in tiles:
        by_kind.setdefault(settings.get("kind", "HULL"), []).append(name)
    hulls, hazards = by_kind.get("HULL", []), by_kind.get("HAZARD", [])
    redirectors = by_kind.get("REDIRECTOR", [])
    actions: list[tuple] = []
    for _ in range(n_turns):
        if moves and rng.random() < 0.6:
            actions.append(("rearrange", rng.randrange(2**16)))
        if hulls:
            actions.append(("click", rng.choice(hulls)))
        if redirectors:
            actions.append(("click", rng.choice(redirectors)))
        order = rng.sample(hazards, len(hazards))
        while order:
            if len(order) >= 2 and rng.random() < 0.3:
                actions.append(("together", [order.pop(), order.pop()]))
            else:
                actions.append(("click", order.pop()))
    return actions


def play(tiles: list[tuple], actions: list[tuple], *, seed: int, faults: Faults | None,
         backend: str = "native", count_resets: bool = False) -> Outcome:
    """Play `actions` on the ship; a sunk ship is reset before the next turn's first action."""
    out = Outcome(tiles=len(tiles))
    t0 = time.perf_counter()
    try:
        g = Game(tiles, seed=seed, faults=faults, backend=backend)
    except AssertionError as e:  # the cluster never settled at power-up
        out.stalled += 1
        out.failures.append(f"boot: {e}")
        return out
    resets = reset_counter(g) if count_resets else None
    asked = 0
    hulls = [t[0] for t in tiles if t[3].get("kind", "HULL") == "HULL"]
    for action in actions:
        if action[0] == "click" and action[1] in hulls and g.expected[0].pieces[g.pos[action[1]]].sunk:
            # The ship sank: a player resets it (multi-click) and plays on.
            _do(g, ("multi_click", action[1]), out)
            asked += 1
        _do(g, action, out)
        if out.stalled:
            break
        if resets is not None and set(resets.values()) != {asked}:
            out.lost += any(v < asked for v in resets.values())
            out.duplicated += any(v > asked for v in resets.values())
            out.failures.append(f"reset reached tiles {resets} times, not {asked}")
            break
    out.sim_ms = g.cluster.world.now_ms
    out.wall_s = time.perf_counter() - t0
    return out


def rearrangement(g: Game, seed: int) -> tuple[list[str], tuple[int, int]] | None:
    """A chunk of the ship and a shift that puts it back against the rest: the ship split in
    two (the rest stays connected) and joined again, nothing overlapping. None if the seed
    finds none."""
    rng = random.Random(seed)
    where = {n: p for n, p in g.pos.items()}
    names = sorted(where)
    for _ in range(40):
        start = rng.choice(names)
        size = rng.randint(1, max(1, len(names) // 2))
        chunk, todo = {start}, [start]
        while todo and len(chunk) < size:
            n = todo.pop(rng.randrange(len(todo)))
            for m in names:
                if m not in chunk and _touch(where[n], where[m]):
                    chunk.add(m)
                    todo.append(m)
        rest = [n for n in names if n not in chunk]
        if not rest or not _connected([where[n] for n in rest]):
            continue
        dq, dr = rng.choice(DIRECTIONS)
        k = rng.randint(1, 2)
        moved = {n: (where[n][0] + k * dq, where[n][1] + k * dr) for n in chunk}
        taken = {where[n] for n in rest}
        if taken & set(moved.values()):
            continue
        if not _connected(list(taken | set(moved.values()))):
            continue
        return sorted(chunk), (k * dq, k * dr)
    return None


def _touch(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return (b[0] - a[0], b[1] - a[1]) in DIRECTIONS


def _connected(cells: list[tuple[int, int]]) -> bool:
    seen, todo = {cells[0]}, [cells[0]]
    while todo:
        c = todo.pop()
        for d in DIRECTIONS:
            n = (c[0] + d[0], c[1] + d[1])
            if n in cells and n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen) == len(cells)


def _rearrange(g: Game, seed: int) -> None:
    move = rearrangement(g, seed)
    if move is None:
        return
    chunk, (dq, dr) = move
    for n in chunk:
        g.lift(n)
    g.cluster.wait(300)  # the player's hand moves the chunk
    for n in chunk:
        q, r = g.pos[n]
        g.cluster.place(n, (q + dq, r + dr))
        for s in g.expected:
            s.place(n, (q + dq, r + dr))
        g.pos[n] = (q + dq, r + dr)
    g.cluster.settle()


def _do(g: Game, action: tuple, out: Outcome) -> None:
    kind, who = action
    world = g.cluster.world
    start = world.now_ms
    prior = g.view()  # the tiles before the action (they agreed with the referee)
    try:
        if kind == "rearrange":
            _rearrange(g, who)
        elif kind == "together":
            g.act_together(who)
        else:
            g.act(who, kind)
    except AssertionError as e:
        out.stalled += 1
        out.failures.append(f"{action} at {start:.0f} ms: {e}")
        return
    out.actions += 1
    out.latencies_ms.append(world.now_ms - start)
    if g.agrees():
        return
    fw = g.view()
    totals = [sum(p["hp"] for p in s.view().values() if p["kind"] == "HULL") for s in g.expected]
    mine = sum(p["hp"] for p in fw.values() if p["kind"] == "HULL")
    wrong = [c for c, st in fw.items() if all(s.view().get(c) != st for s in g.expected)]
    if mine > max(totals):
        out.lost += 1  # some damage, repair or reset did not happen
    elif mine < min(totals):
        out.duplicated += 1  # something happened twice
    elif kind != "rearrange" and all(fw[c] == prior.get(c) for c in wrong):
        out.lost += 1  # the action did not happen on some tile (a phase that never reached it)
    else:
        out.other += 1
    out.failures.append(f"{action} at {start:.0f} ms: firmware {fw} referee {[s.view() for s in g.expected]}")
    g.expected = [_as_ship(g)]  # go on from what the tiles hold, so one fault counts once


def _as_ship(g: Game):
    """The referee's ship set to what the firmware holds (to keep playing after a fault)."""
    ship = g.expected[0]
    for name, st in g.cluster.states().items():
        piece = ship.pieces[g.pos[name]]
        piece.hp, piece.orient, piece.sunk = st["hp"], st["orient"], st["sunk"]
    return ship


def reset_counter(g: Game) -> dict[str, int]:
    """Per tile, how often the Reset flood's handler ran (Python backend: a duplicate changes
    no state, so it is counted where it runs)."""
    counts = dict.fromkeys(g.pos, 0)
    for name in g.pos:
        program = g.cluster.program(name)
        real = program.f_reset

        def counted(real=real, name=name):
            counts[name] += 1
            real()

        program.f_reset = counted
    return counts


def soak_ship(index: int, condition: str, *, base_seed: int = 0, backend: str = "native",
              min_tiles: int = 3, max_tiles: int = 30, count_resets: bool = False,
              moves: bool = False) -> Outcome:
    """Ship number `index` of a soak run: its layout, turns and world seed follow from it."""
    rng = random.Random(f"{base_seed}:{index}")
    tiles = random_ship(rng, min_tiles, max_tiles)
    actions = turns_by_the_rules(rng, tiles, rng.randint(1, 3), moves=moves)
    faults = {**CONDITIONS, **BEYOND_THE_DECODER}[condition]
    return play(tiles, actions, seed=rng.randrange(2**16), faults=faults, backend=backend,
                count_resets=count_resets)
