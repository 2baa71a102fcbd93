"""Each protocol class alone, against the in-memory simulator (virtual clock)."""

import pytest

from blinkc.flash.stk500v1 import Stk500v1
from blinkc.flash.stk500v2 import Stk500v2
from blinkc.flash.targets import ATMEGA168PB
from blinkc.progsim import ProgrammerSim

from .conftest import PROTOCOLS, connected


def test_stk500v1_identifies_arduinoisp():
    assert connected(ProgrammerSim("stk500v1")).connect() == (
        "STK500v1 programmer (hardware 2, firmware 1.18)")


def test_stk500v2_identifies_an_avrisp_compatible_programmer():
    assert connected(ProgrammerSim("stk500v2")).connect() == (
        "AVRISP_2 programmer (STK500v2, hardware 2, firmware 2.10)")


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_signature_fuses_and_a_page_round_trip(protocol):
    sim = ProgrammerSim(protocol)
    prog = connected(sim)
    prog.enter_progmode()
    assert prog.read_signature() == bytes([0x1E, 0x94, 0x15])
    assert {f: prog.read_fuse(f) for f in ("low", "high", "ext", "lock")} == {
        "low": 0x62, "high": 0xDF, "ext": 0xF9, "lock": 0xFF}
    page = bytes(range(128))
    prog.write_page(0x1780, page)
    assert prog.read_flash(0x1780, 128) == page
    assert bytes(sim.chip.flash[0x1780:0x1800]) == page
    prog.write_fuse("ext", 0xF8)
    assert prog.read_fuse("ext") == 0xF8
    prog.chip_erase()
    assert prog.read_flash(0x1780, 128) == b"\xff" * 128
    prog.leave_progmode()
    assert not sim.chip.progmode


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_reads_longer_than_one_block(protocol):
    sim = ProgrammerSim(protocol)
    sim.chip.flash[:] = bytes(i * 7 & 0xFF for i in range(16384))
    prog = connected(sim)
    prog.enter_progmode()
    assert prog.read_flash(0x100, 1000) == bytes(sim.chip.flash[0x100:0x100 + 1000])


def test_stk500v1_tells_arduinoisp_the_page_size():
    # ArduinoISP commits pages by the SET_DEVICE page size; a wrong one would
    # commit a page per word. One 128-byte write must be one page write.
    sim = ProgrammerSim("stk500v1")
    prog = connected(sim)
    prog.enter_progmode()
    prog.write_page(0x2E00, b"\x55" * 128)
    assert sim.chip.page_writes == 1
    assert sim.target is sim.chip and sim.links[0].server.pagesize == 128


def test_stk500v1_never_sends_set_parameter():
    # ArduinoISP has no SET_PARAMETER; it answers NOSYNC and loses sync.
    sim = ProgrammerSim("stk500v1")
    sent = bytearray()
    transport = sim.transport()
    real_write = transport.write
    transport.write = lambda data: (sent.extend(data), real_write(data))[1]
    prog = Stk500v1(transport, ATMEGA168PB)
    prog.connect()
    prog.enter_progmode()
    prog.read_signature()
    assert 0x40 not in _command_bytes(sent)


def _command_bytes(stream: bytes) -> list[int]:
    """First byte of each STK500v1 request (requests end with 0x20 and carry known lengths)."""
    lengths = {0x30: 2, 0x41: 3, 0x42: 22, 0x45: 7, 0x50: 2, 0x51: 2, 0x56: 6, 0x55: 4}
    out, i = [], 0
    while i < len(stream):
        out.append(stream[i])
        i += lengths.get(stream[i], 1)
    return out


def test_stk500v2_slows_a_fast_isp_clock_for_a_1mhz_tile():
    sim = ProgrammerSim("stk500v2")
    prog = connected(sim)
    assert sim.links[0].server.params[0x98] == 1
    prog.enter_progmode()
    assert sim.links[0].server.params[0x98] == 2


def test_stk500v2_sets_the_address_once_for_contiguous_pages():
    sim = ProgrammerSim("stk500v2")
    prog = connected(sim)
    prog.enter_progmode()
    server = sim.links[0].server
    before = server.commands
    for addr in range(0x2E00, 0x3000, 128):
        prog.write_page(addr, bytes([addr >> 7 & 0xFF]) * 128)
    assert server.commands - before == 4 + 1          # 4 pages + one LOAD_ADDRESS
    assert prog.read_flash(0x2E00, 512) == bytes(sim.chip.flash[0x2E00:0x3000])


def test_stk500v2_reports_no_chip_when_programming_enable_fails():
    from blinkc.flash.errors import NoTargetError

    prog = connected(ProgrammerSim("stk500v2", faults=["no-target"]))
    with pytest.raises(NoTargetError, match="could not enter programming mode"):
        prog.enter_progmode()


@pytest.mark.parametrize("cls", [Stk500v1, Stk500v2])
def test_a_silent_programmer_fails_within_the_sync_budget(cls):
    from blinkc.flash.errors import NoResponseError

    sim = ProgrammerSim(cls.name.lower(), faults=["silent"])
    t = sim.transport()
    with pytest.raises(NoResponseError, match=r"No answer .* \(waited 4.0 s\)") as e:
        cls(t, ATMEGA168PB).connect()
    assert e.value.cause and e.value.fix
    assert t.now() <= 5.0          # virtual clock: deterministic, not a timing test


def test_the_wrong_protocol_is_recognised():
    from blinkc.flash.errors import NoResponseError, ProtocolError

    # An STK500v2 programmer ignores STK500v1 bytes: silence, with a hint to try v2.
    with pytest.raises(NoResponseError, match="No answer") as e:
        Stk500v1(ProgrammerSim("stk500v2").transport(), ATMEGA168PB).connect()
    assert "stk500v2" in e.value.fix
    # ArduinoISP answers STK500v2 frames with NOSYNC bytes: "answers, but not as v2".
    with pytest.raises(ProtocolError, match="not as an STK500v2") as e2:
        Stk500v2(ProgrammerSim("stk500v1").transport(), ATMEGA168PB).connect()
    assert "arduinoisp" in e2.value.fix


# -- a damaged STK500v2 length byte costs a moment, not seconds -------------------------

def _damage_reply(sim, transport, number, damage):
    """Apply `damage` to the `number`-th reply the simulated programmer sends."""
    link, seen = transport.link, [0]
    real = link.process

    def process(data):
        out = []
        for reply in real(data):
            seen[0] += 1
            out.append(damage(bytearray(reply)) if seen[0] == number else reply)
        return out

    link.process = process


def _length(value):
    def damage(frame):
        frame[2], frame[3] = value >> 8, value & 0xFF
        return bytes(frame)
    return damage


@pytest.mark.parametrize("baud", [19200, 115200])
@pytest.mark.parametrize("length", [0xFF00, 0x5500, 0x0116, 0x0000])
def test_stk500v2_a_corrupted_length_is_refused_at_once(baud, length):
    from blinkc.flash.errors import ProtocolError

    sim = ProgrammerSim("stk500v2")
    t = sim.transport(baud)
    prog = Stk500v2(t, ATMEGA168PB)
    prog.connect()
    prog.enter_progmode()
    _damage_reply(sim, t, 1, _length(length))          # the answer to the next command
    start = t.now()
    with pytest.raises(ProtocolError, match="Garbled reply") as e:
        prog.read_signature()
    assert t.now() - start < 1.5, f"waited {t.now() - start:.1f} s"
    assert "bytes long" in e.value.what


@pytest.mark.parametrize("baud", [19200, 115200])
def test_stk500v2_resynchronises_after_a_corrupted_sign_on(baud):
    sim = ProgrammerSim("stk500v2")
    t = sim.transport(baud)
    _damage_reply(sim, t, 1, _length(0xFF00))          # the first SIGN_ON answer
    prog = Stk500v2(t, ATMEGA168PB)
    assert "AVRISP_2" in prog.connect()
    assert t.now() < 1.5
    prog.enter_progmode()
    assert prog.read_signature() == ATMEGA168PB.signature


# -- a programmer that answers slowly can connect within --sync-timeout --------------------

@pytest.mark.parametrize("cls", [Stk500v1, Stk500v2])
@pytest.mark.parametrize("latency, sync", [(0.3, 4.0), (0.9, 4.0), (1.5, 30.0), (8.0, 30.0)])
def test_a_slow_programmer_connects_within_the_sync_timeout(cls, latency, sync, game_image):
    from blinkc.flash.flasher import flash_image
    from blinkc.flash.isp import Timeouts

    sim = ProgrammerSim(cls.name.lower())
    t = sim.transport(latency=latency)
    prog = cls(t, ATMEGA168PB, Timeouts(sync=sync))
    assert prog.connect()
    assert t.now() <= sync + 3 * (latency + 0.1)    # the handshake, then 3 parameter reads
    flash_image(prog, game_image, ATMEGA168PB, efuse=0xF8)     # every answer is that late
    assert bytes(sim.chip.flash) == game_image.flat(16384)


@pytest.mark.parametrize("cls", [Stk500v1, Stk500v2])
def test_a_silent_programmer_is_given_the_whole_sync_timeout_and_no_more(cls):
    from blinkc.flash.errors import NoResponseError
    from blinkc.flash.isp import Timeouts

    t = ProgrammerSim(cls.name.lower(), faults=["silent"]).transport()
    with pytest.raises(NoResponseError, match=r"waited 30.0 s"):
        cls(t, ATMEGA168PB, Timeouts(sync=30.0)).connect()
    assert 30.0 <= t.now() <= 30.5
