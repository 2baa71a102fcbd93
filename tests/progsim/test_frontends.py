"""The pty and TCP front ends, with our own serial transport on the other side."""

import pytest

from blinkc.flash.errors import DisconnectedError
from blinkc.flash.flasher import SERIAL_PROGRAMMERS, flash_image, open_programmer
from blinkc.flash.hexfile import synthetic_blinks_image
from blinkc.flash.targets import ATMEGA168PB
from blinkc.flash.transport import SerialTransport
from blinkc.progsim import ProgrammerSim

GAME = synthetic_blinks_image(3000, seed=31)


@pytest.mark.parametrize("protocol", ["stk500v1", "stk500v2"])
def test_flash_through_a_pty(protocol):
    sim = ProgrammerSim(protocol)
    with sim.serve_pty() as pty:
        prog = open_programmer(SERIAL_PROGRAMMERS[protocol], ATMEGA168PB, port=pty.port)
        try:
            prog.connect()
            flash_image(prog, GAME, ATMEGA168PB, efuse=0xF8)
        finally:
            prog.close()
    assert bytes(sim.chip.flash) == GAME.flat(16384)


def test_a_pty_has_no_modem_lines_and_that_is_fine():
    with ProgrammerSim("stk500v1").serve_pty() as pty:
        t = SerialTransport(pty.port, 19200)
        try:
            assert t.set_modem_lines(False) is False     # OSError from pyserial, tolerated
        finally:
            t.close()


@pytest.mark.parametrize("protocol", ["stk500v1", "stk500v2"])
def test_flash_over_tcp(protocol):
    sim = ProgrammerSim(protocol)
    with sim.serve_tcp() as tcp:
        prog = open_programmer(SERIAL_PROGRAMMERS[protocol], ATMEGA168PB, port=tcp.address)
        try:
            prog.connect()
            flash_image(prog, GAME, ATMEGA168PB, efuse=0xF8)
        finally:
            prog.close()
    assert bytes(sim.chip.flash) == GAME.flat(16384)


@pytest.mark.parametrize("serve", ["serve_pty", "serve_tcp"])
def test_a_disconnect_mid_transfer_is_reported_as_such(serve):
    sim = ProgrammerSim("stk500v1", faults=["disconnect=30"])
    server = getattr(sim, serve)()
    port = server.port if serve == "serve_pty" else server.address
    prog = open_programmer(SERIAL_PROGRAMMERS["stk500v1"], ATMEGA168PB, port=port)
    try:
        prog.connect()
        with pytest.raises(DisconnectedError) as e:
            flash_image(prog, GAME, ATMEGA168PB, efuse=0xF8)
        assert "unplugged" in e.value.cause
    finally:
        prog.close()
        server.stop()


def test_paced_link_still_works():
    sim = ProgrammerSim("stk500v2")
    with sim.serve_pty(baud=115200) as pty:
        prog = open_programmer(SERIAL_PROGRAMMERS["stk500v2"], ATMEGA168PB, port=pty.port)
        try:
            prog.connect()
            prog.enter_progmode()
            assert prog.read_signature() == ATMEGA168PB.signature
        finally:
            prog.close()
