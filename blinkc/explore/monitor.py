"""The explorer's monitor: it watches every tile's protocol engine during a run and collects
what went wrong (docs/protocol.md, "How it is checked")."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from math import inf
from typing import Any

from ..games import initial_state
from ..ir.nodes import Program, WideValue
from ..ir.probes import ProbeKind
from ..world.engine import Arrival, Probe
from ..world.layout import TileSpec
from .clusters import Run
from .links import Links

#: A tile put down this shortly before a flood starts may not be linked yet: the flood may
#: miss it (it is not in the cluster yet as far as its neighbours know).
JOIN_MS = 3000


# ------------------------------------------------------------------ monitor
@dataclass
class Message:
    code: int
    sent_ms: float
    #: A wide message's value (from its payload's lo), else None.
    value: int | None = None
    #: Sent out of a face its group's predicate refused (it should have bounced at once).
    outside: bool = False


@dataclass
class Wave:
    k: int
    starter: str
    start_ms: float
    done_ms: float | None = None
    entered: dict[str, int] = field(default_factory=dict)
    #: For a flood confined to a group: the (tile, face) its predicate let through when the
    #: flood started (None: no group, every link).
    within: frozenset[tuple[str, int]] | None = None
    #: A valued flood's value (from its payload's lo), and the value each tile ran it with.
    value: int | None = None
    values: dict[str, int] = field(default_factory=dict)
    #: A gather: each tile's own value, and the total its starter got (None: not yet).
    mine: dict[str, int] = field(default_factory=dict)
    total: int | None = None


@dataclass
class _Call:
    """A send under way on a tile (between its probe in and its probe out)."""

    code: int
    face: int
    #: The queue's length when it was called.
    before: int
    #: Out of a face outside the message's group (its sender's predicate, read then).
    outside: bool
    #: A wide message's value.
    value: int | None = None
    #: A send of a group: the messages counted when it was called (one inside its group
    #: must be sent: counted again).
    sent: int = 0


@dataclass
class _TileWatch:
    """What the monitor follows of one tile's engine between its probes."""

    #: What the engine told the game bounced, lately (since the last send or link's end).
    reported: list[tuple[int, int]] = field(default_factory=list)
    #: The sends under way, innermost last (a send of a group sends; a handler may send).
    calls: list[_Call] = field(default_factory=list)
    #: The floods whose handler runs, innermost last (a handler may start another).
    floods: list[Wave | None] = field(default_factory=list)


def _mask(wide: WideValue) -> int:
    """The bits of a wide value (from its lo) as the data codes bring them."""
    return (1 << (wide.hi - wide.lo).bit_length()) - 1


class Monitor:
    """Watches every tile's protocol engine during one run, through the probes of the
    explorer's build of the game (ir/probes.py) and the arrivals, as any world engine reports
    them, and collects what went wrong."""

    def __init__(self, program: Program, run: Run) -> None:
        self.run = run
        consts = {k: v for k, v, _ in program.constants}
        self.flood_code = consts["FLOOD_CODE"]
        #: Values wider than a code: the data codes, and each wide message (by code) and
        #: valued flood or gather (by index).
        self.data = range(consts.get("DATA_CODE", 0),
                          consts.get("DATA_CODE", 0) + consts.get("DATA_MASK", -1) + 1)
        self.wide_messages = {w.code: w for w in program.wide_values if w.kind == "message"}
        self.wide_floods = {w.code: w for w in program.wide_values if w.kind != "message"}
        #: Wide values checked on arrival (messages and floods), and gathers' totals checked.
        self.values_checked = 0
        self.totals_checked = 0
        self.queue_len = consts["QUEUE_LEN"]
        self.grace_ms = (consts["GRACE_UNITS"] + 1) * 256
        #: A face may be taken for gone after hearing nothing for this long: the SDK's 200 ms
        #: expiry, then more than GRACE_UNITS whole ticks of 256 ms.
        self.silence_ok = 200 + consts["GRACE_UNITS"] * 256 - 256
        #: A bounce is judged against lifts and silences this long before it (an immediate
        #: one) or its message was sent (on a face that met another face then).
        self.recent_ms = self.grace_ms + JOIN_MS
        #: (tile, face) -> the times (ms) a packet from the neighbour arrived whole.
        self.heard: dict[tuple[str, int], list[float]] = {}
        #: Who touches whom over the run (a tile may be put down elsewhere or turned).
        self.links = Links(run.tiles, run.steps)
        #: (tile, face) -> the face whose packet it heard last (the one its pass reads).
        self.source: dict[tuple[str, int], tuple[str, int]] = {}
        keys = self.links.keys
        self.pending: dict[tuple[str, int], deque[Message]] = {k: deque() for k in keys}
        self.delivered: dict[tuple[str, int], list[Message]] = {k: [] for k in keys}
        #: Messages reported bounced, oldest first (one may still arrive: its ack was lost).
        self.bounced: dict[tuple[str, int], deque[Message]] = {k: deque() for k in keys}
        self.bounces = 0
        self.waves: list[Wave] = []
        self.groups = bool(consts.get("GROUPS", 0))
        #: Each tile's program (a flood's group is its tiles' predicates).
        self.programs: dict[str, Any] = {}
        self.problems: list[str] = []
        self.world: Any = None
        self.messages = 0
        #: Messages confined to a group (within=): the game's program has message_within().
        self.message_groups = any(f.name == "message_within" for f in program.functions)
        #: Sends out of a face outside the message's group (each must bounce at once).
        self.outside = 0
        #: Per tile, the [from, to] ms intervals it was off the table (or moved at once).
        self.away = self.links.away
        self._tiles: dict[str, _TileWatch] = {}
        #: What each kind of probe does (their values as ir/probes.py's POINTS name them).
        self._on: dict[int, Callable[..., None]] = {
            ProbeKind.SEND: self._send, ProbeKind.SEND_WIDE: self._send_wide,
            ProbeKind.SENT: self._sent, ProbeKind.GROUPED: self._grouped,
            ProbeKind.GROUPED_DONE: self._grouped_done, ProbeKind.BOUNCE: self._bounce,
            ProbeKind.DELIVER: self._deliver, ProbeKind.LINK_END: self._link_end,
            ProbeKind.LINK_ENDED: self._link_ended, ProbeKind.FLOOD_START: self._flood_start,
            ProbeKind.FLOOD_ENTER: self._flood_enter, ProbeKind.FLOOD_ENTERED: self._flood_entered,
            ProbeKind.FLOOD_DONE: self._flood_done}

    # --------------------------------------------------------------- tiles
    def resolver(self, cls: type, program: Program,
                 spare: list[Any] | None = None) -> Callable[[TileSpec], Any]:
        """The tiles of the run: new ones, or `spare` ones (of runs done with) restarted."""
        def resolve(spec: TileSpec) -> Any:
            initial = initial_state(program, spec.params, spec.name)
            if spare:
                tile = spare.pop()
                tile.restart(**initial)
            else:
                tile = cls(**initial)
            self.programs[spec.name] = tile
            self._tiles[spec.name] = _TileWatch()
            return tile

        return resolve

    def _now(self) -> float:
        return self.world.now_ms

    # --------------------------------------------------------------- probes
    def _probed(self, probe: Probe) -> None:
        """One event of a tile's engine (ir/probes.py; messages only here: a flood's waves
        and echoes are the flood checks' business)."""
        name = probe.tile.name
        self._on[probe.kind](name, self._tiles[name], *probe.values)

    def _send(self, name: str, tile: _TileWatch, code: int, face: int, queue_len: int,
              within: int, _: int) -> None:
        """send_code() called (its SENT follows)."""
        self._sending(tile, code, face, queue_len, within, None)

    def _send_wide(self, name: str, tile: _TileWatch, code: int, face: int, queue_len: int,
                   within: int, value: int) -> None:
        """send_wide() called (its SENT follows)."""
        self._sending(tile, code, face, queue_len, within, value)

    def _sending(self, tile: _TileWatch, code: int, face: int, queue_len: int, within: int,
                 value: int | None) -> None:
        self.messages += 1
        outside = self.message_groups and not within
        tile.reported.clear()
        tile.calls.append(_Call(code, face, queue_len, outside, value))

    def _returned(self, name: str, tile: _TileWatch, code: int, face: int) -> _Call:
        """The call a send's exit probe returns from (a problem if it is not this send's)."""
        call = tile.calls.pop()
        if (call.code, call.face) != (code, face):
            self.problem(f"{name}'s probes are out of step: code {code} face {face} sent, "
                         f"code {call.code} face {call.face} called")
        return call

    def _sent(self, name: str, tile: _TileWatch, code: int, face: int, queue_len: int,
              chunks: int, _: int) -> None:
        call = self._returned(name, tile, code, face)
        if queue_len > call.before:
            self.pending[(name, face)].append(Message(code, self._now(), call.value,
                                                      call.outside))
            if call.outside:
                self.problem(f"{name} queued code {code} for face {face}, outside its group: "
                             "it was not bounced")
            return
        if (code, face) not in tile.reported:
            self.problem(f"{name} dropped code {code} for face {face} without a word")
        if call.before + chunks < self.queue_len:  # bounced at once: nobody is there (a full
            # queue is fine)
            self._bounced(name, face, Message(code, self._now(), call.value), immediate=True)

    def _grouped(self, name: str, tile: _TileWatch, code: int, face: int, queue_len: int,
                 within: int, _: int) -> None:
        """A send of a message of a group (send_grouped, send_wide_grouped): inside the group
        it is sent as any other (SEND or SEND_WIDE follows); outside, it must bounce at once,
        on this tile, and never go out."""
        outside = self.message_groups and not within
        tile.calls.append(_Call(code, face, queue_len, outside, None, self.messages))
        if outside:
            self.messages += 1
            self.outside += 1
            tile.reported.clear()

    def _grouped_done(self, name: str, tile: _TileWatch, code: int, face: int, queue_len: int,
                      _: int, __: int) -> None:
        call = self._returned(name, tile, code, face)
        if not call.outside:
            if self.messages == call.sent:
                self.problem(f"{name} did not send code {code} out of face {face}, inside its "
                             "group")
        elif queue_len == call.before and (code, face) not in tile.reported:
            self.problem(f"{name} dropped code {code} for face {face} (outside its group) "
                         "without a word")

    def _bounce(self, name: str, tile: _TileWatch, code: int, face: int, *_: int) -> None:
        tile.reported.append((code, face))

    def _deliver(self, name: str, tile: _TileWatch, code: int, face: int, wide_rx: int,
                 *_: int) -> None:
        if code < self.flood_code and code not in self.data:
            wide = self.wide_messages.get(code)
            # (a wide message's value: what the data codes before it brought)
            self._delivered(name, face, code, wide_rx & _mask(wide) if wide else None)

    def _link_end(self, name: str, tile: _TileWatch, face: int, *_: int) -> None:
        tile.reported.clear()

    def _link_ended(self, name: str, tile: _TileWatch, face: int, *_: int) -> None:
        queue = self.pending[(name, face)]
        told = [c for c, f in tile.reported if f == face]
        while queue:  # whatever was still on its way there has bounced
            msg = queue.popleft()
            if msg.code in told:
                told.remove(msg.code)
            else:
                self.problem(f"{name} dropped code {msg.code} for face {face} without a word "
                             "when its link ended")
            self._bounced(name, face, msg, immediate=False)

    def _flood_start(self, name: str, tile: _TileWatch, k: int, fresh: int, value: int,
                     *_: int) -> None:
        """flood_start(): the explorer's floods and the game's own (not fresh: it merges)."""
        if fresh:
            wave = Wave(k, name, self._now(), within=self._within(k))
            if self._kind(k) == "flood":
                wave.value = value
            self.waves.append(wave)

    def _flood_enter(self, name: str, tile: _TileWatch, k: int, value: int, *_: int) -> None:
        wave = self._entered(name, k)
        if wave is not None and self._kind(k) == "flood":
            wave.values[name] = value
        tile.floods.append(wave)

    def _flood_entered(self, name: str, tile: _TileWatch, k: int, acc: int, *_: int) -> None:
        wave = tile.floods.pop()
        if wave is not None and self._kind(k) == "gather":
            wave.mine[name] = acc

    def _flood_done(self, name: str, tile: _TileWatch, k: int, total: int, *_: int) -> None:
        wave = self._done(name, k)
        if wave is not None and self._kind(k) == "gather":
            wave.total = total

    def _kind(self, k: int) -> str | None:
        """Flood k's kind of value: "flood" (a valued flood), "gather", or None."""
        wide = self.wide_floods.get(k)
        return wide.kind if wide is not None else None

    # ------------------------------------------------------------- checks
    def problem(self, text: str) -> None:
        self.problems.append(f"at {self._now():.0f} ms: {text}")

    def _flapped(self, name: str, face: int, since: float, until: float, margin: float = 0) -> bool:
        """Whether the link of (name, face) could rightly be taken for gone at some time in
        [since - margin, until]: a tile of it was away, or one of its directions heard
        nothing for about the grace (a cut, the lock-step of probes, or both). Any face that
        touched it meanwhile is a direction of it (one that changed was moved: away)."""
        # A face that met another face lately may still be in the session it had with the
        # face before (a session carries no name): it ends at once when the protocol learns.
        if self.links.met_another((name, face), since - self.recent_ms, until):
            return True
        others = self.links.during((name, face), since - margin, until)
        for t in {name} | {o[0] for o in others}:
            for a, b in self.away[t]:
                if a <= until and b >= since - margin:
                    return True
        for key in [(name, face), *others]:
            if self._longest_silence(key, since - margin - self.grace_ms, until) >= self.silence_ok:
                return True
        return False

    def _longest_silence(self, key: tuple[str, int], since: float, until: float) -> float:
        """The longest time within [since, until] that the face heard nothing (ms)."""
        longest, last = 0.0, max(0.0, since)
        for t in self.heard.get(key, ()):
            if t < since:
                last = t
                continue
            if t > until:
                break
            longest, last = max(longest, t - last), t
        return max(longest, until - last)

    def watch_world(self, world: Any) -> None:
        """Hear every tile's probes, and note when each face hears its neighbour (packets
        that arrive whole and are buffered for the tile's next pass), through the engine's
        probe and arrival observers (any engine, any tiles of the explorer's build)."""
        self.world = world
        world.event_engine.add_probe_observer(self._probed)
        world.event_engine.add_arrival_observer(self._arrived)

    def _arrived(self, arrival: Arrival) -> None:
        if arrival.latched:
            key = (arrival.tile.name, arrival.face)
            self.heard.setdefault(key, []).append(arrival.t / 1000)
            self.source[key] = (arrival.sender.name, arrival.sender_face)

    def _sender(self, name: str, face: int) -> tuple[str, int] | None:
        """The face whose value (name, face) reads: the sender of the last packet it heard
        (a tile just moved may still read its old neighbour's), else whoever touches it."""
        return self.source.get((name, face)) or self.links.at((name, face), self._now())

    def _delivered(self, name: str, face: int, code: int, value: int | None = None) -> None:
        other = self._sender(name, face)
        if other is None:
            self.problem(f"{name} got code {code} on face {face}, where no tile is")
            return
        queue = self.pending[other]
        if queue and queue[0].code == code:
            msg = queue.popleft()
            self.delivered[other].append(msg)
            if msg.outside:
                self.problem(f"{name} face {face} got code {code} that {other[0]} face {other[1]} "
                             "sent outside its group: it must bounce, never be delivered")
            self.values_checked += value is not None
            if msg.value != value:
                self.problem(f"{name} face {face} got code {code} with the value {value}, but "
                             f"{other[0]} face {other[1]} sent {msg.value}")
            return
        late = self.bounced[other]
        if late and late[0].code == code:
            msg = late.popleft()  # delivered after its sender reported it bounced
            if msg.value != value:
                self.problem(f"{name} face {face} got code {code} with the value {value}, but "
                             f"{other[0]} face {other[1]} sent {msg.value}")
            if not self._flapped(other[0], other[1], msg.sent_ms, self._now()):
                self.problem(f"{name} face {face} got code {code} that {other[0]} had reported "
                             "bounced, though the link never broke")
            return
        again = any(m.code == code for m in self.delivered[other])
        what = "again (a duplicate)" if again else "out of order or from nowhere"
        self.problem(f"{name} face {face} got code {code} {what}: {other[0]} face {other[1]} "
                     f"has {[m.code for m in queue]} waiting")

    def _bounced(self, name: str, face: int, msg: Message, immediate: bool) -> None:
        key = (name, face)
        self.bounced[key].append(msg)
        self.bounces += 1
        now = self._now()
        if self.links.at(key, now) is None:
            return  # nobody is there: a bounce is the right answer
        if immediate:
            ok = self._flapped(name, face, now, now, margin=self.recent_ms)
        else:
            ok = self._flapped(name, face, msg.sent_ms, now)
        if not ok:
            self.problem(f"{name} face {face} bounced code {msg.code} (sent at {msg.sent_ms:.0f} ms) "
                         "though its neighbour was there all along")

    def _entered(self, name: str, k: int) -> Wave | None:
        for wave in reversed(self.waves):
            if wave.k == k:
                wave.entered[name] = wave.entered.get(name, 0) + 1
                return wave
        self.problem(f"{name} entered flood {k}, which nobody started")
        return None

    def _done(self, name: str, k: int) -> Wave | None:
        for wave in self.waves:
            if wave.k == k and wave.starter == name and wave.done_ms is None:
                wave.done_ms = self._now()
                return wave
        self.problem(f"{name} heard flood {k} done, which it did not start")
        return None

    def unfinished_since(self, ms: float) -> bool:
        """Whether a flood started after `ms` (by the game, once the adversary is done) is
        still running."""
        return any(w.done_ms is None and w.start_ms > ms for w in self.waves)

    def finish(self) -> None:
        """The end-of-run checks (after the quiet period)."""
        world = self.world
        for (name, face), queue in self.pending.items():
            if queue:
                self.problem(f"{name} face {face}: codes {[m.code for m in queue]} were never "
                             "delivered nor bounced")
        for t in world.tiles:
            if not t.program.idle(t.api):
                self.problem(f"{t.name} is not idle: its protocol never settled")
            up = t.program.links(t.api)
            for f, n, nf in world.neighbours_of(t):
                if not (up >> f) & 1:
                    self.problem(f"the link {t.name}:{f}-{n.name}:{nf} is not up")
        for wave in self.waves:
            if wave.done_ms is None:
                self.problem(f"flood {wave.k} started by {wave.starter} at {wave.start_ms:.0f} ms "
                             "never finished")
        for group in self._overlapping():
            # Floods of one kind that overlap in time merge where they meet: each tile runs the
            # handler at most once per flood, and at least once if it stayed in the cluster.
            first = group[0]
            stayed = set.union(*(self._stayed(w) for w in group))
            # A flood confined to a group runs only on tiles its predicates join to a starter.
            grouped = (None if first.within is None
                       else set.union(*(self._reach(w, w.within) for w in group)))
            for t in self.run.tiles:
                n = sum(w.entered.get(t.name, 0) for w in group)
                if n and grouped is not None and t.name not in grouped:
                    self.problem(f"flood {first.k} (started {len(group)} time(s) from "
                                 f"{first.start_ms:.0f} ms) ran on {t.name}, outside its group")
                if n > len(group):
                    self.problem(f"flood {first.k} (started {len(group)} time(s) from "
                                 f"{first.start_ms:.0f} ms) ran {n} times on {t.name}")
                if n == 0 and t.name in stayed:
                    self.problem(f"flood {first.k} started by {first.starter} at "
                                 f"{first.start_ms:.0f} ms never reached {t.name}")
            self._check_values(group, stayed)

    def _check_values(self, group: list[Wave], stayed: set[str]) -> None:
        """A valued flood runs on every tile with a value it was started with; a gather
        that ran alone (no other of its kind meanwhile) on every tile, once each, with no
        tile away, brings back the combination of the values of the tiles it ran on."""
        first = group[0]
        wide = self.wide_floods.get(first.k)
        if wide is None:
            return
        if wide.kind == "flood":
            started = {w.value for w in group}
            for w in group:
                for name, v in w.values.items():
                    self.values_checked += 1
                    if v not in started:
                        self.problem(f"flood {first.k} ran on {name} with the value {v}, but "
                                     f"it was started with {sorted(started)}")  # type: ignore[type-var]
            return
        everyone = {t.name for t in self.run.tiles}
        if len(group) != 1 or stayed != everyone or first.entered != dict.fromkeys(everyone, 1):
            return
        want = combined(wide.combine, list(first.mine.values()), wide.hi)
        self.totals_checked += 1
        if first.total != want:
            self.problem(f"gather {first.k} started by {first.starter} at {first.start_ms:.0f} ms "
                         f"brought back {first.total}, but its tiles' values {first.mine} "
                         f"combine ({wide.combine}) to {want}")

    def _overlapping(self) -> list[list[Wave]]:
        """The finished waves in groups of one flood kind whose lives overlap."""
        groups: list[list[Wave]] = []
        for wave in sorted((w for w in self.waves if w.done_ms is not None), key=lambda w: (w.k, w.start_ms)):
            last = groups[-1] if groups else None
            if last and last[0].k == wave.k and wave.start_ms <= max(w.done_ms or 0 for w in last):
                last.append(wave)
            else:
                groups.append([wave])
        return groups

    def _reach(self, wave: Wave, within: frozenset[tuple[str, int]]) -> set[str]:
        """The tiles joined to the wave's starter by links whose two ends are in `within`
        (any link of the wave's life: a tile put back meanwhile may rightly run it)."""
        seen, todo = {wave.starter}, [wave.starter]
        while todo:
            name = todo.pop()
            for f in range(6):
                for other in self.links.during((name, f), wave.start_ms, wave.done_ms or inf):
                    if other[0] not in seen and (name, f) in within and other in within:
                        seen.add(other[0])
                        todo.append(other[0])
        return seen

    def _within(self, k: int) -> frozenset[tuple[str, int]] | None:
        """The faces flood k's group predicate lets a wave cross, now (None: no group)."""
        if not self.groups:
            return None
        faces = {n: q.flood_within_faces(k) for n, q in self.programs.items()}
        return frozenset((n, f) for n, bits in faces.items() for f in range(6) if bits >> f & 1)

    def _stayed(self, wave: Wave) -> set[str]:
        """Tiles connected to the starter, through tiles never away, during the whole wave
        (and for JOIN_MS before it), and through links that never heard nothing for about
        the grace meanwhile: a tile nobody hears for that long has left the cluster as far
        as the protocol can know (as for a bounced message); for a flood confined to a group,
        only through links whose two ends' predicates held when it started."""
        a, b = wave.start_ms - JOIN_MS, wave.done_ms or float("inf")
        steady = {t.name for t in self.run.tiles
                  if not any(x <= b and y >= a for x, y in self.away[t.name])}
        if wave.starter not in steady:
            return set()
        seen = {wave.starter}
        todo = [wave.starter]
        while todo:
            name = todo.pop()
            for f in range(6):
                # (steady tiles never moved meanwhile: their links are those of the start)
                other = self.links.at((name, f), wave.start_ms)
                if (other and other[0] in steady and other[0] not in seen
                        and (wave.within is None or ((name, f) in wave.within
                                                     and other in wave.within))
                        and not self._flapped(name, f, wave.start_ms, b)):
                    seen.add(other[0])
                    todo.append(other[0])
        return seen


def combined(how: str, values: list[int], hi: int) -> int:
    """The values combined as a gather combines them (a sum stops at the payload's top)."""
    if how in ("sum", "count"):
        return min(sum(values), hi)
    if how == "min":
        return min(values, default=hi)
    if how == "max":
        return max(values, default=0)
    out = 0
    for v in values:
        out |= v
    return out
