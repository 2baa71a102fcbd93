"""Names for the numbers blinkc derives from the game's declarations.

The dispatch blinkc writes (and a wide send) uses numbers that neither the game's code nor
the protocol engine writes: the mask of a wide payload's bits, the last value of a payload,
the data codes a wide value takes, the end of a message's codes, where a broadcast value
sits in the face value. Each such constant carries a name (`Const.name`)
`ROLE:OWNER[,OWNER...]`, its owners the game's declarations whose number it is at that
place (`message.Cargo`, `flood.Survey`, `value.level`); several owners when one expression
serves several floods (a read shared by two gathers of one payload). symbols.py lists the
names the program's code uses (`Program.symbols`), and a backend may say them: the C++
sketch declares SURVEY_PAYLOAD_MASK, SURVEY_MAX, SURVEY_CHUNKS, MSG_PULSE_END, LEVEL_MASK.
"""

from __future__ import annotations

#: The roles, in the order a sketch declares the numbers of one owner.
ROLES = (
    "codes_end",  # the code after a message's codes: its first + its payload's count of values
    "payload_mask",  # the bits of a wide payload (offset to 0)
    "payload_max",  # the last value of a payload (a gather's clamp and top, a min's identity)
    "chunks",  # the data codes a wide value takes
    "value_shift",  # a broadcast value's first bit in the face value
    "value_mask",  # a broadcast value's bits in the face value (shifted down)
)


def derived_key(role: str, *owners: tuple[str, str]) -> str:
    """The name of a number of `role` that belongs to `owners` ((kind, name) each: kind is
    message, flood or value)."""
    assert role in ROLES and owners, (role, owners)
    return f"{role}:" + ",".join(f"{kind}.{name}" for kind, name in owners)


def parse_key(key: str) -> tuple[str, list[tuple[str, str]]] | None:
    """(role, owners) of a derived number's name; None for any other name."""
    role, sep, rest = key.partition(":")
    if not sep or role not in ROLES:
        return None
    owners = []
    for owner in rest.split(","):
        kind, _, name = owner.partition(".")
        owners.append((kind, name))
    return role, owners
