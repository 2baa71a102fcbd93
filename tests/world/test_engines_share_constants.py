"""The two world engines share their physical constants and their enums: every constant the
C++ core declares at file scope has the Python world's value (a hand copy that drifted would
make the engines disagree only in rare runs), and every enum of world_core.cpp and button.h
has its Python declaration (bindings.CORE_ENUMS, python_engine.KINDS, blinklib.api's button
flags), member by member in the same order."""

import re
from pathlib import Path

from blinkc.blinklib import api
from blinkc.blinklib.timer import NEVER
from blinkc.native import guard
from blinkc.world import clock, geometry, infrared, world

CORE = Path(world.__file__).resolve().parents[1] / "native_world" / "core" / "world_core.cpp"

# The Python value of each constant the C++ core declares (by the C++ name).
PYTHON = {
    "FACES": api.FACE_COUNT,
    "MILLION": clock.MILLION,
    "FRAME_US": clock.FRAME_US,
    "ISR_BEFORE_TICK_US": clock.ISR_BEFORE_TICK_US,
    "ISR_US": clock.ISR_US,
    "TX_CHECK_US": clock.TX_CHECK_US,
    "TX_CALL_US": clock.TX_CALL_US,
    "TX_AFTER_SEND_US": clock.TX_AFTER_SEND_US,
    "PASS_START_US": clock.PASS_START_US,
    "TICK_US": clock.TICK_US,
    "RX_EXPIRE_TIME_MS": api.RX_EXPIRE_TIME_MS,
    "TX_PROBE_TIME_MS": api.TX_PROBE_TIME_MS,
    "VIRAL_LOCKOUT_MS": world.VIRAL_LOCKOUT_MS,
    "TIMER_NEVER": NEVER,
    "USER_DATA_HEADER": infrared.USER_DATA_HEADER,
    "DATAGRAM_MARKER": infrared.DATAGRAM_MARKER,
    "ONE_US": infrared.ONE_US,
    "ZERO_US": infrared.ZERO_US,
    "SYNC_US": infrared.SYNC_US,
    "OVERHEAD_US": infrared.OVERHEAD_US,
    "TX_LEAD_US": infrared.TX_LEAD_US,
    "TX_GAP_US": infrared.TX_GAP_US,
    "TX_RETURN_US": infrared.TX_RETURN_US,
    "GUARD_TIMEOUT": guard.GUARD_TIMEOUT,  # guard.cpp's code for a call out of budget
}


def core_constants() -> dict[str, int]:
    """`const <type> NAME = VALUE[, NAME = VALUE];` at the start of a line (file scope)."""
    found = {}
    for line in CORE.read_text().splitlines():
        m = re.match(r"const (?:u?int\d*_t|int|double) (.*);", line)
        if not m:
            continue
        for part in m.group(1).split(","):
            name, _, value = part.partition("=")
            value = value.strip().rstrip("LlUu")
            if re.fullmatch(r"0[xX][0-9a-fA-F]+|\d+", value):
                found[name.strip()] = int(value, 0)
    return found


def test_every_constant_of_the_core_has_the_python_worlds_value():
    core = core_constants()
    missing = set(PYTHON) - set(core)
    assert not missing, f"the core no longer declares {sorted(missing)}: update PYTHON"
    unknown = set(core) - set(PYTHON)
    assert not unknown, f"add these to PYTHON with their Python twins: {sorted(unknown)}"
    assert core == {k: PYTHON[k] for k in core}


def test_the_lattice_directions_agree():
    text = CORE.read_text()
    m = re.search(r"const int DIRECTIONS\[6\]\[2\] = \{(.*?)\};", text)
    pairs = [tuple(int(x) for x in p.split(",")) for p in re.findall(r"\{(-?\d+, -?\d+)\}", m.group(1))]
    assert pairs == [tuple(d) for d in geometry.DIRECTIONS]


BUTTON_H = CORE.with_name("button.h")


def enums(text: str) -> dict[str, list[tuple[str, int]]]:
    """Every `enum [Name] [: type] { A, B = 2, ... };` of a C++ source, by name ("" for an
    anonymous one), as (member, value) in order (an implicit value is the previous one + 1)."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)
    found: dict[str, list[tuple[str, int]]] = {}
    for name, body in re.findall(r"\benum\s+(\w*)\s*(?::\s*\w+\s*)?\{([^}]*)\}", text):
        members, value = [], -1
        for part in body.split(","):
            if not part.strip():
                continue
            member, _, given = part.partition("=")
            value = int(given.strip(), 0) if given.strip() else value + 1
            members.append((member.strip(), value))
        assert name not in found, f"two enums named {name!r}: name them"
        found[name] = members
    return found


def enum_mismatches(core_text: str) -> list[str]:
    """What differs between world_core.cpp's enums and bindings.CORE_ENUMS (members, order)."""
    from blinkc.native_world.core import bindings

    core = {name: [m for m, _ in members] for name, members in enums(core_text).items()}
    out = [f"enum {n}: only in world_core.cpp, add it to bindings.CORE_ENUMS"
           for n in core if n not in bindings.CORE_ENUMS]
    out += [f"enum {n}: only in bindings.CORE_ENUMS" for n in bindings.CORE_ENUMS if n not in core]
    out += [f"enum {n}: world_core.cpp {core[n]}, bindings {list(members)}"
            for n, members in bindings.CORE_ENUMS.items() if n in core and core[n] != list(members)]
    for name, members in enums(core_text).items():
        if [v for _, v in members] != list(range(len(members))):
            out.append(f"enum {name}: its members are not numbered 0, 1, 2, ...")
    return out


def test_every_enum_of_the_core_is_mirrored_member_by_member_in_the_bindings():
    assert enum_mismatches(CORE.read_text()) == []


def test_the_enum_check_fires_on_a_reordered_renamed_or_new_member():
    text = CORE.read_text()
    swapped = text.replace("enum Status { REACHED, CALL_DUE,", "enum Status { CALL_DUE, REACHED,")
    assert swapped != text
    assert enum_mismatches(swapped) == [
        "enum Status: world_core.cpp ['CALL_DUE', 'REACHED', 'TILE_STOPPED', 'INTERRUPTED', "
        "'TILE_FROZE'], bindings ['REACHED', 'CALL_DUE', 'TILE_STOPPED', 'INTERRUPTED', 'TILE_FROZE']"]
    renamed = text.replace("REC_SPECIAL, REC_SERIAL, REC_CUT }", "REC_SPECIAL, REC_PRINT, REC_CUT }")
    assert renamed != text and len(enum_mismatches(renamed)) == 1
    added = text.replace("E_FLASH, E_COUNT", "E_FLASH, E_SLEEP, E_COUNT")
    assert added != text and len(enum_mismatches(added)) == 1
    new = text.replace("enum Phase {", "enum Mood { CALM };\nenum Phase {")
    assert enum_mismatches(new) == ["enum Mood: only in world_core.cpp, add it to bindings.CORE_ENUMS"]


def test_the_core_numbers_event_kinds_as_the_python_engine_does():
    from blinkc.native_world.core import bindings
    from blinkc.world import python_engine
    from blinkc.world.python_engine import KINDS

    # C++ Kind member ↔ the Python engine's name, in the core's order.
    pairs = {"PASS": "pass", "TX": "transmit", "ARRIVE": "arrive", "CALL": "call",
             "FLASH": "flash"}
    assert [pairs[m] for m in bindings.CORE_ENUMS["Kind"]] == list(KINDS)
    assert [bindings.PASS, bindings.TX, bindings.ARRIVE, bindings.CALL, bindings.FLASH] == [
        KINDS.index(k) for k in pairs.values()]
    assert [python_engine._PASS, python_engine._TX, python_engine._ARRIVE, python_engine._CALL,
            python_engine._FLASH] == [KINDS.index(k) for k in pairs.values()]


def test_the_other_enums_agree_with_their_python_names():
    from blinkc.native_world.core import bindings
    from blinkc.world.world import World

    e = bindings.CORE_ENUMS
    assert [bindings.REC_PASS, bindings.REC_DROP, bindings.REC_BUTTON, bindings.REC_SPECIAL,
            bindings.REC_SERIAL, bindings.REC_CUT] == list(range(6)) and len(e["Record"]) == 6
    assert [e["Status"][k] for k in (bindings.REACHED, bindings.CALL_DUE, bindings.TILE_STOPPED,
            bindings.INTERRUPTED, bindings.TILE_FROZE)] == [
        "REACHED", "CALL_DUE", "TILE_STOPPED", "INTERRUPTED", "TILE_FROZE"]
    assert dict(zip(e["Phase"], bindings.PHASES, strict=True)) == {
        "PHASE_SETUP": "setup", "PHASE_LOOP": "loop", "PHASE_QUIET": "quiet_until"}
    # Stat: one Python name per member before S_COUNT, the keys of the Python world's stats.
    assert e["Stat"][-1] == "S_COUNT" and e["EventCount"][-1] == "E_COUNT"
    assert list(bindings.STAT_NAMES) == list(World().stats)
    assert len(bindings.STAT_NAMES) == len(e["Stat"]) - 1
    assert len(bindings.EVENT_COUNT_NAMES) == len(e["EventCount"]) - 1
    assert dict(zip(e["EventCount"][:-1], bindings.EVENT_COUNT_NAMES, strict=True)) == {
        "E_PASS_LOOP": "pass, loop() run", "E_PASS_SKIPPED": "pass, loop() skipped",
        "E_TX_SENT": "transmit, sent", "E_TX_NONE": "transmit, no face due",
        "E_ARRIVE": "arrive", "E_CALL": "call", "E_STALE": "stale", "E_FLASH": "flash"}


def test_the_button_models_flags_specials_and_times_agree():
    from blinkc.native_world.core import bindings
    from blinkc.world import button

    found = enums(BUTTON_H.read_text())
    assert set(found) == {"", "Special"}, "a new enum in button.h: check it here"
    assert dict(found[""]) == {name: getattr(api, f"BUTTON_{name}") for name, _ in found[""]}
    assert sorted(dict(found[""]).values()) == sorted(api.BUTTON_EVENT_NAMES)
    assert dict(found["Special"]) == bindings.BUTTON_SPECIALS
    # button.py: the long-press bits, the special each reports, and the button's times.
    text = BUTTON_H.read_text()
    bits = [int(x) for x in re.search(r"LONG_BITS\[3\] = \{([^}]*)\}", text).group(1).split(",")]
    marks = [int(x) for x in re.search(r"LONG_MARKS\[3\] = \{([^}]*)\}", text).group(1).split(",")]
    assert list(zip(bits, marks, strict=True)) == [tuple(m) for m in button._LONG_MARKS]
    assert bindings.BUTTON_SPECIALS == {"SPECIAL_LONGLONG": bits[1], "SPECIAL_SLEEP": bits[2]}
    for name in ("DEBOUNCE_MS", "CLICK_WINDOW_MS"):
        assert int(re.search(rf"\b{name} = (\d+)", text).group(1)) == getattr(button, name)
    assert "NEVER = int64_t(1) << 62" in text and button.NEVER == 1 << 62
