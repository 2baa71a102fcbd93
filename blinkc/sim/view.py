"""What the page shows: a frame of the whole cluster, and the inspector's view of one tile."""

from __future__ import annotations

from typing import Any

from ..runtime.api import FACE_COUNT
from ..world import Tile, World
from .session import Session

#: Attributes of a blinkc game's engine that the inspector shows when a program has them:
#: its message queue, what each face is sending, its timers.
ENGINE_FIELDS = ("queue", "queue_len", "tx_code", "tx_wait", "timer_on", "timer_end",
                 "flood_waiting", "up_mask", "gone_mask")


def frame(session: Session) -> dict[str, Any]:
    """Every tile's place, rotation and six LED colours (5-bit `r | g << 5 | b << 10`), now."""
    world = session.world
    faults = world.faults
    return {
        "type": "frame",
        "t": world.now_ms,
        "horizon": session.horizon_ms,
        "running": session.running,
        "speed": session.speed,
        "version": session.version,
        "inputs": len(session.log),
        "held": sorted(session.held),
        "faults": {"drop": faults.drop, "jitter_ms": faults.jitter_ms, "skew": faults.skew},
        "tiles": [{"name": t.name, "pos": list(t.pos) if t.pos is not None else None,
                   "rot": t.rot, "colors": world.colors(t)} for t in world.tiles],
    }


def inspect(session: Session, name: str) -> dict[str, Any] | None:
    """One tile in detail: its game's state, faces in and out, packets and messages, timers."""
    world = session.world
    tile = world.by_name.get(name)
    if tile is None:
        return None
    api = tile.api
    now = tile.clock.millis(world.now)
    # As the tile's program would see it now (a sleeping tile's links are alive by definition).
    expired = world.evaluate(tile, lambda a: [e < a.now for e in a.expire_time])
    faces = []
    for f in range(FACE_COUNT):
        link = world.neighbour(tile, f)
        inc = tile.incoming[f]
        faces.append({
            "face": f,
            "out": api.out_value[f],
            "in": api.in_value[f],
            "expired": expired[f],
            "neighbour": None if link is None else [link[0].name, link[1]],
            "in_flight": None if inc is None else _packet(inc.packet.byte0, inc.packet.datagram,
                                                          world, inc),
        })
    return {
        "type": "inspect",
        "name": tile.name,
        "program": type(tile.program).__name__,
        "millis": now,
        "clock_ppm": tile.clock.ppm,
        "asleep": tile.frozen,
        "passes": tile.passes,
        "button": {"down": tile.button.down, "held": tile.name in session.held},
        "state": _jsonable(tile.program_state()),
        "faces": faces,
        "engine": _engine(tile),
        "trace": session.trace.recent(tile.name, limit=60),
    }


def _packet(byte0: int, datagram: bytes | None, world: World, inc: Any) -> dict[str, Any]:
    return {"from": world.tiles[inc.sender].name, "value": byte0 & 0x3F if datagram is None else None,
            "datagram": list(datagram) if datagram is not None else None,
            "arrives_ms": inc.end / 1000}


def _engine(tile: Tile) -> dict[str, Any]:
    program = tile.program
    out: dict[str, Any] = {}
    for key in ENGINE_FIELDS:
        value = getattr(program, key, None)
        if isinstance(value, bool | int) or (isinstance(value, list)
                                             and all(isinstance(v, int) for v in value)):
            out[key] = value
    codes = getattr(program, "MESSAGES", None)
    if isinstance(codes, dict) and isinstance(out.get("tx_code"), list):
        names = {code: label for label, code in codes.items()}
        out["sending"] = [names.get(c) if c else None for c in out["tx_code"]]
    return out


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    return str(value)
