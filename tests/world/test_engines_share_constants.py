"""The two world engines share their physical constants: every constant the C++ core
declares at file scope has the Python world's value (a hand copy that drifted would make the
engines disagree only in rare runs)."""

import re
from pathlib import Path

from blinkc.native import guard
from blinkc.runtime import api
from blinkc.runtime.timer import NEVER
from blinkc.world import clock, geometry, infrared, world

CORE = Path(world.__file__).resolve().parents[1] / "native" / "core" / "world_core.cpp"

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


def test_the_core_numbers_event_kinds_as_the_python_engine_does():
    from blinkc.native.core import bindings
    from blinkc.world.python_engine import KINDS

    names = ("pass", "transmit", "arrive", "call", "flash")
    assert [bindings.PASS, bindings.TX, bindings.ARRIVE, bindings.CALL, bindings.FLASH] == [
        KINDS.index(k) for k in names]
    m = re.search(r"enum Kind \{([^}]*)\};", CORE.read_text())
    assert [n.strip() for n in m.group(1).split(",")] == ["PASS", "TX", "ARRIVE", "CALL", "FLASH"]
