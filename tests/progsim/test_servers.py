"""The simulated programmers speak their protocols like the real ones."""

import pytest

from blinkc.progsim import Chip, Faults, FaultSpecError, Link, LinkDropped
from blinkc.progsim.stk500v1 import Stk500v1Server
from blinkc.progsim.stk500v2 import Stk500v2Server, frame


def test_arduinoisp_basics():
    s = Stk500v1Server(Chip())
    assert s.feed(b"\x30\x20") == [b"\x14\x10"]
    assert s.feed(b"\x31\x20") == [b"\x14AVR ISP\x10"]
    assert s.feed(b"\x41\x80\x20\x41\x81\x20\x41\x82\x20") == [
        b"\x14\x02\x10", b"\x14\x01\x10", b"\x14\x12\x10"]       # HW 2, SW 1.18


def test_arduinoisp_quirks_are_kept():
    s = Stk500v1Server(Chip(present=False))
    assert s.feed(b"\x50\x20") == [b"\x14\x10"]          # ENTER is OK even with no chip
    assert s.feed(b"\x20") == [b"\x15"]                  # EOP where a command belongs
    assert s.feed(b"\x99\x20") == [b"\x12"]              # unknown command
    assert s.feed(b"\x40\x89\x05\x20")[0] == b"\x15"     # SET_PARAMETER: NOSYNC


def test_arduinoisp_waits_for_a_whole_command():
    s = Stk500v1Server(Chip())
    assert s.feed(b"\x56\xac") == []
    assert s.feed(b"\x53\x00\x00") == []
    assert s.feed(b"\x20") == [b"\x14\x00\x10"]


def test_stk500v2_sign_on_and_sequence_echo():
    s = Stk500v2Server(Chip())
    assert s.feed(frame(0x42, b"\x01")) == [frame(0x42, b"\x01\x00\x08AVRISP_2")]


def test_stk500v2_answers_a_bad_checksum_and_unknown_commands():
    s = Stk500v2Server(Chip())
    bad = bytearray(frame(7, b"\x01"))
    bad[-1] ^= 1
    assert s.feed(bytes(bad)) == [frame(7, b"\xb0\xc1")]
    assert s.feed(frame(8, b"\x7e")) == [frame(8, b"\x7e\xc9")]


def test_stk500v2_enter_progmode_fails_without_a_chip():
    body = bytes([0x10, 200, 100, 25, 32, 0, 0x53, 3, 0xAC, 0x53, 0, 0])
    assert Stk500v2Server(Chip()).feed(frame(1, body)) == [frame(1, b"\x10\x00")]
    assert Stk500v2Server(Chip(present=False)).feed(frame(1, body)) == [frame(1, b"\x10\xc0")]


def test_link_faults():
    link = Link(Stk500v1Server(Chip()), Faults.parse(["corrupt=2", "disconnect=3"]))
    assert link.process(b"\x30\x20") == [b"\x14\x10"]
    assert link.process(b"\x30\x20") == [b"\x14\x45"]          # 0x10 ^ 0x55
    assert link.process(b"\x30\x20") == [b"\x14\x45"]
    with pytest.raises(LinkDropped):
        link.process(b"\x30\x20")
    assert Link(Stk500v1Server(Chip()), Faults(silent=True)).process(b"\x30\x20") == []


def test_fault_specs():
    f = Faults.parse(["no-target", "wrong-signature=1E9406", "bad-page=0x2E10", "corrupt"])
    assert f.no_target and f.wrong_signature == bytes([0x1E, 0x94, 0x06])
    assert f.corrupt_from == 16
    chip = f.apply_to_chip(Chip())
    assert chip.bad_pages == {0x2E00} and not chip.present
    for bad in ["explode", "wrong-signature=1E", "corrupt=x"]:
        with pytest.raises(FaultSpecError):
            Faults.parse([bad])


def test_a_glitch_flips_one_byte_of_one_data_reply_once():
    chip = Chip()
    chip.flash[:] = bytes(range(256)) * 64
    link = Link(Stk500v1Server(chip), Faults.parse(["glitch=2"]))
    read = b"\x55\x00\x00\x20" + b"\x74\x00\x40\x46\x20"         # LOAD_ADDRESS 0, READ_PAGE 64
    clean = b"\x14" + bytes(range(64)) + b"\x10"
    assert link.process(b"\x50\x20") == [b"\x14\x10"]            # ENTER_PROGMODE
    assert link.process(read) == [b"\x14\x10", clean]
    second = link.process(read)[1]
    assert second != clean and sum(a != b for a, b in zip(second, clean, strict=True)) == 1
    assert link.process(read)[1] == clean
