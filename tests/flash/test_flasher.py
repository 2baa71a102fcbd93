"""Flashing through the simulator: what ends up in the chip, and how failures read."""

import pytest

from blinkc.flash import errors
from blinkc.flash.flasher import flash_image, read_flash_all
from blinkc.flash.hexfile import synthetic_image
from blinkc.flash.targets import ATMEGA168PB
from blinkc.progsim import ProgrammerSim

from .conftest import PROTOCOLS, connected

EFUSE = 0xF8


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_full_16k_image_lands_byte_for_byte(protocol, full_image):
    sim = ProgrammerSim(protocol)
    sim.chip.flash[:] = b"\x5a" * 16384           # an old game, to be erased
    result = flash_image(connected(sim), full_image, ATMEGA168PB, efuse=EFUSE)
    assert bytes(sim.chip.flash) == full_image.flat(16384)
    assert result.pages_written == 128 and result.bytes_verified == 16384
    assert sim.chip.erases == 1


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_game_and_bios_image_lands_byte_for_byte(protocol, game_image):
    sim = ProgrammerSim(protocol)
    sim.chip.flash[:] = b"\x00" * 16384
    result = flash_image(connected(sim), game_image, ATMEGA168PB, efuse=EFUSE)
    assert bytes(sim.chip.flash) == game_image.flat(16384)   # holes erased to 0xFF
    assert result.pages_written == 40 + 36                  # ceil(5000/128) + 4608/128
    assert sim.chip.read_fuse("ext") == 0xF8


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_blank_pages_are_not_written_but_are_verified(protocol):
    img = synthetic_image([(0x2E00, 256)]).flat()[0x2E00:]
    from blinkc.flash.hexfile import Image

    image = Image(((0x2D00, b"\xff" * 256), (0x2E00, img)))
    sim = ProgrammerSim(protocol)
    result = flash_image(connected(sim), image, ATMEGA168PB, efuse=None)
    assert result.pages_written == 2 and sim.chip.page_writes == 2
    assert result.bytes_verified == 512


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_only_erase_and_the_extended_fuse_are_ever_written(protocol, game_image):
    sim = ProgrammerSim(protocol)
    flash_image(connected(sim), game_image, ATMEGA168PB, efuse=EFUSE)
    flash_image(connected(sim), game_image, ATMEGA168PB, efuse=EFUSE)
    writes = [i for i in sim.chip.log if i[1] != 0x53]        # AC 53: programming enable
    # erase, efuse F8 (it was F9), erase again; the second time the fuse is left alone.
    assert writes == [(0xAC, 0x80, 0, 0), (0xAC, 0xA4, 0, 0xF8), (0xAC, 0x80, 0, 0)]
    assert sim.chip.fuses == {"low": 0x62, "high": 0xDF, "ext": 0xF8, "lock": 0xFF}


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_extended_fuse_already_right_is_not_rewritten(protocol, game_image):
    sim = ProgrammerSim(protocol)
    sim.chip.fuses["ext"] = 0xF8
    result = flash_image(connected(sim), game_image, ATMEGA168PB, efuse=EFUSE)
    assert not result.efuse_written and result.efuse_before == 0xF8
    assert not [i for i in sim.chip.log if i[1] == 0xA4]


def test_no_efuse_means_no_fuse_traffic_at_all(full_image):
    sim = ProgrammerSim("stk500v2")
    flash_image(connected(sim), full_image, ATMEGA168PB, efuse=None)
    assert [i for i in sim.chip.log if i[1] not in (0x53, 0x80)] == []


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_verify_only_passes_on_the_same_program_and_fails_on_another(protocol, game_image):
    sim = ProgrammerSim(protocol)
    flash_image(connected(sim), game_image, ATMEGA168PB, efuse=EFUSE)
    erases = sim.chip.erases
    result = flash_image(connected(sim), game_image, ATMEGA168PB, efuse=EFUSE, verify_only=True)
    assert result.pages_written == 0 and sim.chip.erases == erases
    other = synthetic_image([(0x1700, 5000), (0x2E00, 0x1200)], seed=99, source="OTHER.hex")
    with pytest.raises(errors.VerifyError) as e:
        flash_image(connected(sim), other, ATMEGA168PB, efuse=EFUSE, verify_only=True)
    assert "OTHER.hex" in e.value.cause and "without --verify-only" in e.value.fix
    assert sim.chip.erases == erases


def test_verify_only_reports_a_wrong_extended_fuse(game_image):
    sim = ProgrammerSim("stk500v1")
    flash_image(connected(sim), game_image, ATMEGA168PB, efuse=None)
    with pytest.raises(errors.VerifyError, match="extended fuse is 0xF9"):
        flash_image(connected(sim), game_image, ATMEGA168PB, efuse=EFUSE, verify_only=True)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_read_back_the_whole_flash(protocol, full_image):
    sim = ProgrammerSim(protocol)
    sim.chip.flash[:] = full_image.flat(16384)
    data, fuses = read_flash_all(connected(sim), ATMEGA168PB)
    assert data == full_image.flat(16384)
    assert fuses == {"low": 0x62, "high": 0xDF, "ext": 0xF9, "lock": 0xFF}


# -- every fault: one clear error, bounded time, never success ---------------------

FAULTS = [
    ("silent", errors.NoResponseError, "No answer from the programmer"),
    ("no-target", errors.NoTargetError, "No chip answers on the ISP lines"),
    ("wrong-signature", errors.WrongChipError, "Found ATmega328P (1E 95 0F)"),
    ("corrupt", errors.ProtocolError, "Garbled reply"),
    ("disconnect", errors.DisconnectedError, "lost"),
    ("bad-page=0x3000", errors.VerifyError, "Verify failed at 0x3000"),
]


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("fault, error, words", FAULTS, ids=[f[0] for f in FAULTS])
def test_each_fault_ends_in_one_clear_error(protocol, fault, error, words, game_image):
    sim = ProgrammerSim(protocol, faults=[fault])
    transport = sim.transport(baud=115200)
    from blinkc.flash.flasher import SERIAL_PROGRAMMERS, open_programmer

    prog = open_programmer(SERIAL_PROGRAMMERS[protocol], ATMEGA168PB, transport=transport)
    with pytest.raises(error) as e:
        prog.connect()
        flash_image(prog, game_image, ATMEGA168PB, efuse=EFUSE)
    assert words in e.value.what
    assert e.value.cause and e.value.fix                 # a likely cause and what to do
    assert "\n  Likely cause: " in e.value.render()
    assert transport.now() <= 5.0 + 2.5                  # virtual seconds: sync + a transfer


def test_a_noisy_read_is_blamed_on_the_link_not_the_flash(game_image):
    # Corrupt only data bytes of one read: the re-read differs, so it is the link.
    sim = ProgrammerSim("stk500v1")
    prog = connected(sim)
    real = prog.read_flash
    calls = []

    def flaky(addr, n):
        data = bytearray(real(addr, n))
        calls.append(addr)
        if len(calls) == 1:
            data[5] ^= 0xFF
        return bytes(data)

    prog.read_flash = flaky
    with pytest.raises(errors.ProtocolError, match="twice gave different data") as e:
        flash_image(prog, game_image, ATMEGA168PB, efuse=EFUSE)
    assert "unreliable link" in e.value.cause


# -- the extended fuse is judged from consistent reads, and only 0xF8 is written ----------

def _first_ext_read_garbled(prog, value):
    """The first extended-fuse read comes back as `value` (one line error), later reads true."""
    real, calls = prog.read_fuse, []

    def read_fuse(which):
        got = real(which)
        if which == "ext":
            calls.append(got)
            if len(calls) == 1:
                return value
        return got

    prog.read_fuse = read_fuse
    return calls


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_garbled_fuse_read_never_passes_for_already_right(protocol, game_image):
    # The tile has the factory 0xF9; one read says 0xF8. One read was enough to skip the write.
    sim = ProgrammerSim(protocol)
    prog = connected(sim)
    _first_ext_read_garbled(prog, 0xF8)
    with pytest.raises(errors.ProtocolError, match="extended fuse") as e:
        flash_image(prog, game_image, ATMEGA168PB, efuse=EFUSE)
    assert "unreliable link" in e.value.cause
    assert not [i for i in sim.chip.log if i[1] == 0xA4]     # no fuse written on a guess


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_garbled_fuse_read_does_not_cause_a_needless_fuse_write(protocol, game_image):
    sim = ProgrammerSim(protocol)
    sim.chip.fuses["ext"] = 0xF8
    prog = connected(sim)
    _first_ext_read_garbled(prog, 0xF9)
    with pytest.raises(errors.ProtocolError, match="extended fuse"):
        flash_image(prog, game_image, ATMEGA168PB, efuse=EFUSE)
    assert not [i for i in sim.chip.log if i[1] == 0xA4]


def test_the_fuse_is_read_twice_before_and_after_the_write(game_image):
    sim = ProgrammerSim("stk500v1")
    prog = connected(sim)
    calls = _first_ext_read_garbled(prog, 0xF9)   # "garbled" to the true value: reads agree
    result = flash_image(prog, game_image, ATMEGA168PB, efuse=EFUSE)
    assert result.efuse_written and result.efuse_before == 0xF9
    assert len(calls) == 4                        # two reads to decide, two to check the write


@pytest.mark.parametrize("value", [0x00, 0xF9, 0xFF])
def test_no_extended_fuse_but_0xf8_is_ever_written(value, game_image):
    sim = ProgrammerSim("stk500v2")
    with pytest.raises(errors.FlashError, match="only the extended fuse 0xF8"):
        flash_image(connected(sim), game_image, ATMEGA168PB, efuse=value)
    assert sim.chip.erases == 0 and sim.chip.log == []


# -- reads are checked: a line error is reported, never written out as the tile's flash ---

@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_read_reports_a_single_line_error(protocol, full_image):
    sim = ProgrammerSim(protocol, faults=["glitch=5"])      # one flipped byte in one block
    sim.chip.flash[:] = full_image.flat(16384)
    with pytest.raises(errors.ProtocolError) as e:
        read_flash_all(connected(sim), ATMEGA168PB)
    assert e.value.cause and e.value.fix


def test_read_reads_every_block_and_fuse_twice(full_image):
    sim = ProgrammerSim("stk500v1")
    sim.chip.flash[:] = full_image.flat(16384)
    prog = connected(sim)
    blocks, fuses = [], []
    real_read, real_fuse = prog.read_flash, prog.read_fuse
    prog.read_flash = lambda a, n: (blocks.append(a), real_read(a, n))[1]
    prog.read_fuse = lambda w: (fuses.append(w), real_fuse(w))[1]
    data, _ = read_flash_all(prog, ATMEGA168PB)
    assert data == full_image.flat(16384)
    assert sorted(blocks) == sorted(list(range(0, 16384, 256)) * 2)
    assert sorted(fuses) == sorted(["low", "high", "ext", "lock"] * 2)
