"""A determinism fingerprint of the Python world and the C++ world core: hashes that must not
change when a world is only made faster.

Runs a few seeded scenarios in the Python world (Pirates & Lasers' 24-tile ship from
bench/game_speed.py with and without faults, a Broadside fleet under faults (clocks within
±3 %) with a lift and a place, a Fleet Combos hand dragged together; the Python backend's
tiles and the native backend's) and prints, for each, a hash of

- its event log: every pass, packet launch and arrival the engine ran, in order, with the
  world time and what it carried (the engine's `_pass`, `_launch` and `_arrive` are wrapped
  on the instance, as tests do), and every arrival an observer was told of;
- its trace (every record, in order; one scenario runs without a trace, as the benches do);
- its end: every tile's snapshot, blinklib state and BIOS-side bookkeeping, the world's
  statistics, the engine's queue, sequence number and fault stream.

The C++ core's runs (`pirates-core-*`: the same ship in the core) hash their trace and their
end (the mirrored tiles, the statistics and the core's counts of each kind of event); the core's
events cannot be watched one by one, so their event log is empty. Their traces must also be the
Python world's (the same hash as `pirates-*-nofaults` and `pirates-*-faults`).

Run it before and after a change to the world: the hashes must be the same.

Usage: python bench/world_fingerprint.py [--only NAME] [--no-native]
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from blinkc.testing import Cluster
from blinkc.world import Faults

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from game_speed import play_turns, ship_layout

from tests.games.test_broadside_rules import FLEET

ROOT = Path(__file__).resolve().parents[1]
FIRMWARE = ROOT / "firmware"
FAULTS = Faults(drop=0.1, jitter_ms=2, skew=0.1)


class Log:
    """An incremental hash of the lines it is given (and how many)."""

    def __init__(self) -> None:
        self.h = hashlib.sha256()
        self.n = 0

    def add(self, *items: Any) -> None:
        self.h.update(repr(items).encode())
        self.h.update(b"\n")
        self.n += 1

    def digest(self) -> str:
        return self.h.hexdigest()[:16]


def watch(cluster: Cluster, log: Log) -> None:
    """Log every pass, launch and arrival of the cluster's engine from now on."""
    engine = cluster.world.event_engine
    w = cluster.world
    real_pass, real_launch, real_arrive = engine._pass, engine._launch, engine._arrive

    def spy_pass(tile: Any) -> None:
        real_pass(tile)
        log.add("pass", w.now, tile.index, tile.skipped, tile.passes)

    def spy_launch(sender: Any, face: int, start: int, pkt: Any) -> None:
        log.add("launch", w.now, sender.index, face, start, pkt.byte0, pkt.datagram, pkt.air_us)
        real_launch(sender, face, start, pkt)

    def spy_arrive(tile: Any, data: Any) -> None:
        face, inc = data
        log.add("arrive", w.now, tile.index, face, inc.start, inc.end, inc.sender,
                inc.sender_face)
        real_arrive(tile, data)

    engine._pass, engine._launch, engine._arrive = spy_pass, spy_launch, spy_arrive
    engine.add_arrival_observer(
        lambda a: log.add("observed", a.t, a.tile.index, a.face, a.byte0, a.datagram,
                          a.sender.index, a.sender_face, a.latched))


def end_state(cluster: Cluster) -> str:
    """A hash of everything the world and its engine hold at the end."""
    w = cluster.world
    engine = w.event_engine
    log = Log()
    log.add("now", w.now, w.stats)
    for s in w.snapshot():
        log.add("snapshot", sorted(s.items()))
    for t in w.tiles:
        api = t.api
        log.add("api", t.name, api.now, api.in_value, api.out_value, api.expire_time,
                api.send_time, api.in_datagram, api.out_datagram, api.pixels, api.button_down,
                api.button_flags, api.click_count, api.rng.state, api.entropy, api.woken)
        log.add("tile", t.name, t.rx_buf, [None if i is None else (i.start, i.end, i.packet,
                                                                   i.sender, i.sender_face)
                                           for i in t.incoming],
                t.tx_start, t.tx_end, t.viral_faces, t.viral_lockout_until, t.epoch,
                t.quiet_until, t.loop_inputs, t.skipped, t.passes, t.asleep,
                t.clock.offset, t.clock.ppm, bytes(t.serial_out), t.program_state())
    if not hasattr(engine, "queued"):  # the C++ core: what it counted instead of its queue
        log.add("core", engine.events, sorted((engine.event_counts or {}).items()))
        return log.digest()
    log.add("engine", engine.seq, engine.fault_state, sorted(engine.cuts.items()))
    for e in engine.queued():
        data = "call" if e.kind == "call" else e.data
        if isinstance(data, tuple):  # an arrival: (face, Incoming)
            inc = data[1]
            data = (data[0], inc.start, inc.end, inc.packet, inc.sender, inc.sender_face)
        log.add("queued", e.t, e.seq, e.kind, e.tile.index if e.tile else None, data, e.live)
    return log.digest()


def pirates(backend: str, faults: Faults | None, turns: int = 5,
            trace: bool = True, world: str = "python") -> Callable[[Log], Cluster]:
    def run(log: Log) -> Cluster:
        layout, hulls, hazards = ship_layout()
        ship = Cluster(FIRMWARE / "pirates_lasers.py", layout, seed=3, faults=faults,
                       backend=backend, world=world, trace=trace)
        if world == "python":  # the C++ core's events cannot be watched one by one
            watch(ship, log)
        play_turns(ship, hulls, hazards, turns)
        return ship
    return run


BROADSIDE = FLEET  # (tests/games/test_broadside_rules.py's fleet: ships A and B, a sea)


def broadside(backend: str) -> Callable[[Log], Cluster]:
    def run(log: Log) -> Cluster:
        c = Cluster(FIRMWARE / "broadside.py", BROADSIDE, seed=7,
                    faults=Faults(drop=0.1, jitter_ms=2, skew=0.03),
                    backend=backend, world="python", trace=True)
        watch(c, log)
        for name in ("s1", "s2", "s3", "a2", "s4"):
            c.click(name)
            c.wait(1500)
        c.double_click("b1")
        c.wait(1000)
        c.lift("c2")
        c.wait(700)
        c.place("c2", (4, 1))
        c.wait(3000)
        c.long_press("a1")
        c.wait(3000)
        return c
    return run


def fleet(backend: str) -> Callable[[Log], Cluster]:
    def run(log: Log) -> Cluster:
        c = Cluster(ROOT / "firmware" / "fleet_combos.py", ROOT / "examples" / "fleet.layout",
                    seed=11, faults=Faults(drop=0.05, jitter_ms=1, skew=0.03),
                    backend=backend, world="python", trace=True)
        watch(c, log)
        c.long_press("a")
        c.wait(2000)
        c.place("b", (1, 0))
        c.wait(2000)
        c.place("c", (0, 1))
        c.wait(3000)
        c.click("b")
        c.wait(3000)
        return c
    return run


def scenarios(native: bool) -> dict[str, Callable[[Log], Cluster]]:
    out: dict[str, Callable[[Log], Cluster]] = {}
    if native:  # the C++ world core: its trace, and the end state it mirrors
        out["pirates-core-nofaults"] = pirates("native", None, world="native")
        out["pirates-core-faults"] = pirates("native", FAULTS, world="native")
    for backend in ("python", "native") if native else ("python",):
        out[f"pirates-{backend}-nofaults"] = pirates(backend, None)
        out[f"pirates-{backend}-faults"] = pirates(backend, FAULTS)
        out[f"pirates-{backend}-untraced"] = pirates(backend, FAULTS, trace=False)
        out[f"broadside-{backend}"] = broadside(backend)
        out[f"fleet-{backend}"] = fleet(backend)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="run only the scenarios whose name contains this")
    ap.add_argument("--no-native", action="store_true", help="the Python backend only")
    args = ap.parse_args()
    for name, run in scenarios(not args.no_native).items():
        if args.only and args.only not in name:
            continue
        log = Log()
        c0 = time.process_time()
        cluster = run(log)
        trace = cluster.world.trace
        lines = len(trace.lines) if trace is not None else 0
        th = hashlib.sha256(trace.text().encode()).hexdigest()[:16] if trace is not None else "-"
        print(f"{name:<26} events {log.n:>8} {log.digest()}  trace {lines:>6} {th:<16}"
              f"  end {end_state(cluster)}  ({time.process_time() - c0:.1f} s CPU)", flush=True)


if __name__ == "__main__":
    main()
