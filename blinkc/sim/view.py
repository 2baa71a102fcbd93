"""What the page shows: a frame of the whole cluster, and the inspector's view of one tile."""

from __future__ import annotations

from typing import Any

from ..blinklib import color
from ..blinklib.api import FACE_COUNT
from ..world import Tile, World
from .session import Session

#: Attributes of a blinkc game's engine that the inspector shows when a program has them:
#: its message queue, what each face is sending, its timers.
ENGINE_FIELDS = ("queue", "queue_len", "queued_for", "tx_code", "timer_on", "timer_end",
                 "flood_waiting", "link_state", "gone_mask")


#: How long the page labels a tile with the gesture its button just made (ms of world time).
GESTURE_MS = 700.0
_GESTURE_LABELS = {"single": "click", "double": "double", "long": "long",
                   "longlong": "long-long"}


def gesture(session: Session, tile: Tile) -> str | None:
    """What the BIOS made of the tile's presses, if it did so in the last GESTURE_MS."""
    last = session.trace.gestures.get(tile.name)
    if last is None or session.world.now - last[0] > GESTURE_MS * 1000:
        return None
    if last[1] == "multi":
        return f"×{tile.button.click_count}"
    return _GESTURE_LABELS[last[1]]


def frame(session: Session) -> dict[str, Any]:
    """Every tile's place, rotation and six LED colours (5-bit `r | g << 5 | b << 10`), now,
    and the gesture its button just made (a click, a double, ×3, a long press)."""
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
                   "rot": t.rot, "colors": world.colors(t), "gesture": gesture(session, t)}
                  for t in world.tiles],
    }


def inspect(session: Session, name: str) -> dict[str, Any] | None:
    """One tile in detail: its game's state, faces in and out, packets and messages on their
    way, its timers (its part of the trace is `trace(session, name)`)."""
    world = session.world
    tile = world.by_name.get(name)
    if tile is None:
        return None
    api = tile.api
    now = tile.clock.millis(world.now)
    # As the tile's program would see it now (a sleeping tile's links are alive by definition):
    # whether each face's value has expired, and how long it stays valid without a new packet.
    left = world.evaluate(tile, lambda a: [e - a.now for e in a.expire_time])
    expired = [ms < 0 for ms in left]
    faces = []
    for f in range(FACE_COUNT):
        link = world.neighbour(tile, f)
        inc = tile.incoming[f]
        faces.append({
            "face": f,
            "out": api.out_value[f],
            "in": api.in_value[f],
            "expired": expired[f],
            "expires_in_ms": None if expired[f] else left[f],
            "neighbour": None if link is None else [link[0].name, link[1]],
            "in_flight": None if inc is None else _packet(inc.packet.byte0, inc.packet.datagram,
                                                          world, inc),
        })
    engine = _engine(tile)
    return {
        "type": "inspect",
        "name": tile.name,
        "program": program_name(tile.program),
        "millis": now,
        "clock_ppm": tile.clock.ppm,
        "asleep": tile.asleep,
        "passes": tile.passes,
        "button": {"down": tile.button.down, "held": tile.name in session.held,
                   "clicks": tile.button.click_count},
        "state": _jsonable(tile.program_state()),
        "faces": faces,
        "messages": _messages(tile, engine),
        "timers": _timers(engine, now),
        "engine": engine,
    }


def trace(session: Session, tile: str | None = None, limit: int = 200) -> dict[str, Any]:
    """The trace of the last seconds: of one tile (and the world's own events), or of all;
    colours as a game maker names them (`RED`, `#ff8c00`), not as 5-bit integers."""
    records = [({**r, "colors": [color_name(c) for c in r["colors"]]}
                if r.get("ev") == "colors" and isinstance(r.get("colors"), list) else r)
               for r in session.trace.recent(tile, limit=limit)]
    return {"type": "trace", "tile": tile, "seconds": session.trace_seconds,
            "records": records}


#: The SDK's named colours by value (OFF for an LED that is off).
_COLOR_NAMES = {value: name for name, value in color.NAMED.items()}


def color_name(c: int) -> str:
    """A colour as the DSL and the SDK name it (`RED`, `OFF`), else as `#rrggbb` (each 5-bit
    channel shown as c * 255 / 31, as the page draws it)."""
    if c in _COLOR_NAMES:
        return _COLOR_NAMES[c]
    return "#{:02x}{:02x}{:02x}".format(*color.to_rgb888(c))


def program_name(program: object) -> str:
    """What a tile runs, as the page names it: the game, the sketch or the built-in program."""
    game = getattr(program, "GAME", None)
    if isinstance(game, str):
        return game
    name = getattr(program, "name", None)  # a sketch (NativeProgram)
    if isinstance(name, str) and name:
        return name
    return type(program).__name__


def _code_names(program: object) -> dict[int, str]:
    """A blinkc game's wire codes by name: its messages from 1 on, then per flood a wave and an
    echo for each of its two slots (blinkc/dsl/wire.py numbers them so)."""
    messages = getattr(program, "MESSAGES", None) or {}
    names = {code: label for label, code in messages.items()}
    first_flood = max(messages.values(), default=0) + 1
    for flood, k in (getattr(program, "FLOODS", None) or {}).items():
        for parity in (0, 1):
            names[first_flood + 4 * k + 2 * parity] = f"{flood} (wave)"
            names[first_flood + 4 * k + 2 * parity + 1] = f"{flood} (echo)"
    return names


def _messages(tile: Tile, engine: dict[str, Any]) -> list[dict[str, Any]]:
    """A blinkc game's messages on their way: the one on the wire on each face in session
    (until the neighbour's ack), then those queued for a busy face, oldest first (face by
    face in a game that counts its queue per face: the counts keep no order across faces)."""
    names = _code_names(tile.program)
    out: list[dict[str, Any]] = []
    tx, up = engine.get("tx_code"), engine.get("up_mask", 0)
    shift, mask, wait = getattr(tile.program, "TX_CODE", (0, 31, 128))
    if isinstance(tx, list):
        for face, held in enumerate(tx):
            # Outside a session tx_code holds a time, not a code (protocol.py).
            code = (held >> shift) & mask
            if code and (up >> face) & 1 and held & wait:
                out.append({"face": face, "message": names.get(code, f"code {code}"),
                            "where": "on the wire, awaiting ack"})
    queue, length = engine.get("queue"), engine.get("queue_len", 0)
    if isinstance(queue, list):
        for entry in queue[:length]:
            code = entry & 31
            out.append({"face": entry >> 5, "message": names.get(code, f"code {code}"),
                        "where": "queued"})
    counts = engine.get("queued_for")  # a game with one message code counts them per face
    if isinstance(counts, list):
        code = next(iter(getattr(tile.program, "MESSAGES", {}).values()), 1)
        for face, n in enumerate(counts):
            out += [{"face": face, "message": names.get(code, f"code {code}"),
                     "where": "queued"}] * n
    return out


def _timers(engine: dict[str, Any], now: int) -> list[dict[str, Any]]:
    """A blinkc game's timers (protocol.py keeps the low 16 bits of millis() at their end)."""
    on, ends = engine.get("timer_on"), engine.get("timer_end")
    if not isinstance(on, int) or not isinstance(ends, list):
        return []
    out = []
    for k, end in enumerate(ends):
        running = bool((on >> k) & 1)
        left = ((end - now + 0x8000) & 0xFFFF) - 0x8000 if running else None
        out.append({"timer": k, "running": running,
                    "left_ms": None if left is None else max(0, left)})
    return out


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
    if isinstance(out.get("link_state"), list):  # (LINK_UP is bit 0 of a face's link_state)
        out["up_mask"] = sum(1 << f for f, state in enumerate(out["link_state"]) if state & 1)
    if isinstance(out.get("tx_code"), list) and isinstance(out.get("up_mask"), int):
        names = _code_names(program)
        shift, mask, _ = getattr(program, "TX_CODE", (0, 31, 128))
        codes = [(held >> shift) & mask for held in out["tx_code"]]
        out["sending"] = [names.get(c, f"code {c}") if c and (out["up_mask"] >> f) & 1 else None
                          for f, c in enumerate(codes)]
    return out


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    return str(value)
