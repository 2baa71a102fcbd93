"""How the emulator drives a game's messages and floods from outside (a scenario's `send` and
`flood` steps, `blinkc explore`): the labels it knows them by and the engine functions that
send and start them, one table for both backends (the Python tile's `send`/`start_flood`,
the native tile's, which calls the explorer's exports of the sketch)."""

from __future__ import annotations

from dataclasses import dataclass

from ..ir.nodes import Program


@dataclass(frozen=True)
class Drive:
    """A game's messages and floods by label, and the functions that send or start them."""

    #: The code of each message, as `check --verbose` names them ("Repair"); a wide message
    #: is driven with a few sample values, each its own label: "Cargo(165)".
    messages: dict[str, int]
    #: Each flood's index k; a valued flood with sample values too: "Hoist(3)".
    floods: dict[str, int]
    #: A wide message's label: (its code, its value from its lo, its data codes).
    wide_messages: dict[str, tuple[int, int, int]]
    #: A valued flood's label: (the flood, its value from its lo).
    flood_values: dict[str, tuple[int, int]]
    #: The engine function that sends a message, a wide one, starts a flood, a valued one
    #: (a message of a group goes through its group's check: send_grouped).
    send: str
    send_wide: str
    flood_start: str
    flood_start_with: str


def drive(program: Program) -> Drive:
    first_flood = dict((n, v) for n, v, _ in program.constants).get("FLOOD_CODE", 1 << 8)
    messages = {label: code for code, label in program.codes if code < first_flood}
    floods = {s.key[len("flood:"):]: s.value for s in program.symbols
              if s.key.startswith("flood:")}
    wide_messages: dict[str, tuple[int, int, int]] = {}
    flood_values: dict[str, tuple[int, int]] = {}
    data = dict((n, v) for n, v, _ in program.constants).get("DATA_CODE", 0)
    for w in program.wide_values:
        if w.kind == "message":
            messages = {label: code for label, code in messages.items() if code != w.code}
            for v in w.samples():
                wide_messages[f"{w.name}({v})"] = (w.code, v - w.lo, w.chunks)
        elif w.kind == "flood":
            del floods[w.name]
            for v in w.samples():
                flood_values[f"{w.name}({v})"] = (w.code, v - w.lo)
    if data:
        messages = {label: code for label, code in messages.items()
                    if not label.startswith("data ")}
    messages.update({label: code for label, (code, _, _) in wide_messages.items()})
    floods.update({label: k for label, (k, _) in flood_values.items()})
    names = {f.name for f in program.functions}
    return Drive(messages, floods, wide_messages, flood_values,
                 send="send_grouped" if "send_grouped" in names else "send_code",
                 send_wide="send_wide_grouped" if "send_wide_grouped" in names else "send_wide",
                 flood_start="flood_start", flood_start_with="flood_start_with")
