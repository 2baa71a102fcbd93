"""The face-value wire: which bits of the 6-bit face value carry what, and the message codes.

Every tile shows one value on each face, all the time. blinkc packs into it, from bit 0 up:
the game's broadcast values (each in as few bits as its range needs), then the message code
(0 idle, one code per message, or per payload value, then per flood a wave and an echo code
for each of its two slots,
and the all-ones code HELLO, shown while a face has no session), then the handshake's ack bit.
`allocate` decides it for a game; `describe` says it in words, for `blinkc check --verbose`,
the sketch's header and the docs (docs/protocol.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..ir.nodes import SrcLoc
from .game import Enum, FaceType, Game, Handler

FACE_VALUE_BITS = 6
#: The engine's link clock ticks every 256 ms (a byte of millis() >> 8).
GRACE_TICK_MS = 256
#: A wave over a link that was down when a tile entered its flood's slot, this soon after,
#: is that same flood come round again (protocol.py, flood_receive). Below the 3 s a link must
#: stand before a flood for the flood to be owed over it (explore/monitor.py, JOIN_MS).
FLOOD_SAME_MS = 8 * GRACE_TICK_MS


def back_same_units(grace_units: int) -> int:
    """How soon (in 256 ms ticks, less than) after a face came back from gone, or its session
    ended, a wave over it is the flood a tile entered while it was away (protocol.py,
    flood_receive). A link counts for a newer flood only if it heard its neighbour all
    through the grace before that flood began, so the window stays below the grace: with
    the ticks' rounding it is under the grace less 500 ms (3,328 ms for 4 s), and it holds
    every wave that comes sooner than a tick less (3,072 ms)."""
    return max(0, (grace_units * GRACE_TICK_MS - 500) // GRACE_TICK_MS)


def flood_back_units(grace_units: int) -> int:
    """For how long (in 256 ms ticks) after entering a slot a tile remembers the faces that
    were away, and the faces it answered as that flood: the grace and a second more. A wave
    held by a one-way cut shorter than the grace comes within it; longer, and the memory
    would take a newer flood, started by a tile put down much later, for this one. (At most
    255: a byte of ticks.)"""
    return min(255, grace_units + 1000 // GRACE_TICK_MS + 1)


#: The longest grace: the engine times a face waiting for a session against twice the grace
#: on its byte clock (millis() >> 8, 256 ms units), and 2 x 32,000 ms is what that byte holds.
MAX_GRACE_MS = 32_000

Report = Callable[[SrcLoc, str, str], None]


@dataclass
class Wire:
    #: (name, shift, bits, what it is), from bit 0 up.
    layout: list[tuple[str, int, int, str]] = field(default_factory=list)
    #: (code, label) of every message code on the wire (HELLO not included).
    codes: list[tuple[int, str]] = field(default_factory=list)
    #: id(message declaration) -> (first code, payload range or None, name).
    messages: dict[int, tuple[int, Any, str]] = field(default_factory=dict)
    #: id(flood declaration) -> the flood's index k. Slot s = 2k + parity has its wave at
    #: FLOOD_CODE + 2s and its echo at the next code.
    floods: dict[int, int] = field(default_factory=dict)
    #: (name, (lo, hi), where, "field" or "value") of each broadcast value, in bit order.
    broadcast: list[tuple[str, tuple[int, int], SrcLoc, str]] = field(default_factory=list)
    #: id(message declaration) of each message sent in the wide form -> its data codes.
    wide: dict[int, int] = field(default_factory=dict)
    #: Flood index k of each flood with a value (a valued flood or a gather) -> its data
    #: codes (before each wave of a valued flood, before each echo of a gather).
    flood_chunks: dict[int, int] = field(default_factory=dict)
    #: The first data code (0: no wide values), and the bits each data code carries.
    data_code: int = 0
    data_bits: int = 0
    flood_code: int = 1
    n_codes: int = 1          # codes 1..n_codes-1 are messages and floods
    code_shift: int = 0
    code_mask: int = 0
    ack_shift: int = 8        # no protocol: the ack bit never reaches the 6-bit value
    hello: int = 0
    grace_units: int = 4000 // GRACE_TICK_MS


def value_range(decl_type: Any) -> tuple[int, int] | None:
    """The values a declared type (bool, Face, a kinds Enum, range(a, b)) can take."""
    if decl_type is bool:
        return (0, 1)
    if isinstance(decl_type, FaceType):
        return (0, 5)
    if isinstance(decl_type, Enum):
        return (0, max(0, len(decl_type) - 1))
    if isinstance(decl_type, range) and decl_type.step == 1 and len(decl_type) > 0:
        return (decl_type.start, decl_type.stop - 1)
    return None


def bits_for(lo: int, hi: int) -> int:
    return max(1, (hi - lo).bit_length())


def allocate(game: Game, broadcast_handlers: list[Handler], err: Report) -> Wire:
    """The wire of `game`; problems (a value that does not fit in 6 bits, ...) go to `err`."""
    wire = Wire()
    items = _broadcast_items(game, broadcast_handlers, lambda *_: None)
    broadcast_bits = sum(bits_for(*rng) for _, rng, _, _ in items)
    _allocate_codes(game, wire, err, max(1, FACE_VALUE_BITS - 1 - broadcast_bits))
    _allocate_bits(game, broadcast_handlers, wire, err)
    return wire


#: The widest value a wide message, flood or gather carries.
WIDE_BITS = 16
#: At most this many bits per data code (a code is 5 bits at most: the queue's entries).
MAX_DATA_BITS = 4


def _payload_ok(decl: Any, what: str, err: Report) -> bool:
    p = decl.payload
    if not isinstance(p, range) or p.step != 1 or not p:
        err(decl.loc, "payload must be a range like range(3)", "")
        return False
    if len(p) > 1 << WIDE_BITS:
        err(decl.loc, f"the payload of {what} {decl.name!r} needs more than {WIDE_BITS} bits: "
                      f"{p.start:,}..{p.stop - 1:,}",
            "a payload spans at most 65,536 values: range(0, 65536) or range(-32768, 32768)")
        return False
    return True


def _allocate_codes(game: Game, wire: Wire, err: Report,
                    room_bits: int = FACE_VALUE_BITS - 1) -> None:
    """Codes: the messages (a plain message one per payload value, a wide one one code), the
    data codes (if any value is wide), then four per flood; the all-ones code is HELLO.
    A message is plain while all of them plain fit in `room_bits`; else the widest payloads
    go wide first, until the codes fit."""
    names: set[str] = set()
    ok: list[Any] = []
    for m in game.messages:
        if m.name in names:
            err(m.loc, f"two messages or floods are named {m.name!r}", "give each its own name")
        names.add(m.name)
        if m.payload is not None and not _payload_ok(m, "message", err):
            continue
        ok.append(m)
    for fl in game.floods:
        if fl.name in names:
            err(fl.loc, f"two messages or floods are named {fl.name!r}", "give each its own name")
        names.add(fl.name)
        if fl.payload is not None:
            what = "gather" if fl.combine else "flood"
            if _payload_ok(fl, what, err) and fl.combine and fl.payload.start != 0:
                err(fl.loc, f"the payload of gather {fl.name!r} starts at 0, not "
                            f"{fl.payload.start}",
                    "its values combine as they are (a sum, the smallest, ...): "
                    f"payload=range(0, {max(fl.payload.stop, 1)})")
    valued = [fl for fl in game.floods if fl.payload is not None]
    flood_codes = 4 * len(game.floods)
    # Try every message plain, then the widest payloads wide one by one.
    by_size = sorted((m for m in ok if m.payload is not None), key=lambda m: -len(m.payload))
    wide: list[Any] = []
    while True:
        plain = sum(1 if m.payload is None or m in wide else len(m.payload) for m in ok)
        data_bits = 0
        if wide or valued:
            data_bits = _data_bits(plain + flood_codes, room_bits)
        codes = plain + flood_codes + (1 << data_bits if data_bits else 0)
        fits = codes + 2 <= 1 << room_bits and (data_bits or not (wide or valued))
        if fits or len(wide) == len(by_size):
            break
        wide.append(by_size[len(wide)])
    code = 1
    for m in ok:
        wire.messages[id(m)] = (code, m.payload, m.name)
        if m in wide:
            wire.wide[id(m)] = _chunks(m.payload, data_bits)
            wire.codes.append((code, f"{m.name} ({m.payload.start}..{m.payload.stop - 1}, after "
                                     f"{wire.wide[id(m)]} data codes)"))
            code += 1
            continue
        n = 1 if m.payload is None else len(m.payload)
        for i in range(n):
            label = m.name if m.payload is None else f"{m.name}({m.payload.start + i})"
            wire.codes.append((code + i, label))
        code += n
    if data_bits:
        wire.data_code, wire.data_bits = code, data_bits
        for i in range(1 << data_bits):
            wire.codes.append((code + i, f"data {i:0{data_bits}b} (bits of a wide value)"))
        code += 1 << data_bits
    wire.flood_code = code
    for k, fl in enumerate(game.floods):
        wire.floods[id(fl)] = k
        extra = ["", ""]
        if fl.payload is not None and data_bits:
            wire.flood_chunks[k] = _chunks(fl.payload, data_bits)
            extra[1 if fl.combine else 0] = f", after {wire.flood_chunks[k]} data codes"
        for parity in (0, 1):
            wire.codes.append((code, f"{fl.name} (wave, slot {parity}{extra[0]})"))
            wire.codes.append((code + 1, f"{fl.name} (echo, slot {parity}{extra[1]})"))
            code += 2
    wire.n_codes = code


def _data_bits(codes: int, room_bits: int) -> int:
    """The bits a data code carries: as many as the code space left beside `codes` codes
    (and 0 idle, and HELLO) holds a power of two of, at least 1 (the caller sees whether
    that fits)."""
    free = (1 << room_bits) - 2 - codes
    return max(1, min(MAX_DATA_BITS, free.bit_length() - 1 if free > 0 else 1))


def _chunks(payload: range, data_bits: int) -> int:
    """Data codes of a value of `payload`, offset to 0."""
    return -(-bits_for(payload.start, payload.stop - 1) // data_bits)


def _broadcast_items(game: Game, handlers: list[Handler], err: Report
                     ) -> list[tuple[str, tuple[int, int], SrcLoc, str]]:
    items = [(f.name, value_range(f.type), f.loc, "field") for f in game.fields
             if f.broadcast and f.name and value_range(f.type)]
    for h in handlers:
        rng = value_range(h.value_type)
        if rng is None:
            err(h.loc, f"@game.broadcast({h.value_type!r}) needs a type like bool or "
                       "range(0, 4)", "")
            continue
        items.append((h.fn.__name__, rng, h.loc, "value"))
    return items  # type: ignore[return-value]


def _allocate_bits(game: Game, handlers: list[Handler], wire: Wire, err: Report) -> None:
    grace = game.grace_ms
    if not isinstance(grace, int) or isinstance(grace, bool) or not 1000 <= grace <= MAX_GRACE_MS:
        err(game.loc, f"grace_ms must be a whole number of milliseconds in 1000..{MAX_GRACE_MS}, "
                      f"not {grace!r}",
            "Game(\"name\", grace_ms=4000) is the default; the engine counts twice the grace "
            "in a byte of 256 ms units (docs/protocol.md)")
        grace = 4000
    wire.grace_units = grace // GRACE_TICK_MS
    shift = 0
    costs: list[str] = []
    wire.broadcast = _broadcast_items(game, handlers, err)
    for name, (lo, hi), _loc, what in wire.broadcast:
        bits = bits_for(lo, hi)
        wire.layout.append((name, shift, bits, f"broadcast {what} {lo}..{hi}"))
        costs.append(f"{name}: {bits} bit{'s' if bits > 1 else ''}")
        shift += bits
    wire.code_shift = shift
    # Codes 1..n_codes-1 are messages and floods; the all-ones code is HELLO (no session).
    code_bits = wire.n_codes.bit_length() if wire.n_codes > 1 else 0
    wire.hello = (1 << code_bits) - 1
    if code_bits:
        wire.layout.append(("message code", shift, code_bits,
                            f"0 idle, 1..{wire.n_codes - 1} messages and floods, "
                            f"{wire.hello} HELLO"))
        costs.append(f"message code: {code_bits} bits for {wire.n_codes - 1} codes and HELLO")
        shift += code_bits
        wire.ack_shift = shift
        wire.layout.append(("ack", shift, 1, "handshake acknowledgement / HELLO seen"))
        costs.append("ack: 1 bit")
        shift += 1
    wire.code_mask = (1 << code_bits) - 1
    if shift > FACE_VALUE_BITS:
        err(game.loc, f"the face value needs {shift} bits but a Blinks face value has 6: "
                      + "; ".join(costs),
            "broadcast less (e.g. a bool instead of the whole kind), or use fewer "
            "message types (each payload value takes a code, each flood four: a wave and an "
            "echo in each of its two slots)")


def span(shift: int, bits: int) -> str:
    """"bit 0" or "bits 1-4"."""
    return f"bit {shift}" if bits == 1 else f"bits {shift}-{shift + bits - 1}"


def describe(layout: tuple[tuple[str, int, int, str], ...] | list,
             codes: tuple[tuple[int, str], ...] | list) -> list[str]:
    """The wire in words, one line per part (for check --verbose and the docs)."""
    lines = [f"Face value ({FACE_VALUE_BITS} bits, sent continuously on every face):"]
    lines += [f"  {span(shift, bits):<10} {name:<14} {what}" for name, shift, bits, what in layout]
    used = sum(bits for _, _, bits, _ in layout)
    lines.append(f"  {used} of {FACE_VALUE_BITS} bits used")
    if codes:
        lines.append("Message codes:")
        lines += [f"  {code:>2}  {name}" for code, name in codes]
    return lines
