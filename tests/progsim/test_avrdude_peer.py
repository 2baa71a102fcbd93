"""avrdude 7.1 as a peer: it programs and verifies through our simulated programmers.

This is what shows the simulator speaks STK500v1 and STK500v2 as real
programmers do (avrdude reads parameters, uses UNIVERSAL for the signature,
fuses and chip erase with -c stk500v1, the *_ISP commands with -c stk500v2).
"""

import subprocess

import pytest

from blinkc.flash.hexfile import synthetic_blinks_image, synthetic_image
from blinkc.progsim import ProgrammerSim

FULL = synthetic_image([(0x0000, 16 * 1024)], seed=21)
GAME = synthetic_blinks_image(4321, seed=22)


def avrdude_flash(avrdude, protocol, port, hexfile, *extra):
    cmd = [avrdude, "-v", "-p", "atmega168pb", "-c", protocol, "-P", port, *extra,
           "-U", f"flash:w:{hexfile}:i", "-U", "efuse:w:0xf8:m"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stderr


@pytest.mark.parametrize("protocol", ["stk500v1", "stk500v2"])
@pytest.mark.parametrize("image", [FULL, GAME], ids=["full16k", "game+bios"])
def test_avrdude_writes_and_verifies_through_the_pty(avrdude, protocol, image, tmp_path):
    hexfile = tmp_path / "image.hex"
    image.write_hex(hexfile)
    sim = ProgrammerSim(protocol)
    sim.chip.flash[:] = b"\x42" * 16384                       # an old program
    with sim.serve_pty() as pty:
        log = avrdude_flash(avrdude, protocol, pty.port, hexfile)
    assert "device signature = 0x1e9415" in log
    assert f"{image.size} bytes of flash verified" in log
    assert bytes(sim.chip.flash) == image.flat(16384)
    assert sim.chip.read_fuse("ext") == 0xF8
    assert sim.chip.erases >= 1


def test_avrdude_stk500v2_with_the_blinks_bit_clock(avrdude, tmp_path):
    # -B 5 makes avrdude set the STK500v2 SCK duration (to 2, ~115 kHz).
    hexfile = tmp_path / "image.hex"
    GAME.write_hex(hexfile)
    sim = ProgrammerSim("stk500v2")
    with sim.serve_pty() as pty:
        avrdude_flash(avrdude, "stk500v2", pty.port, hexfile, "-B", "5")
    assert sim.links[0].server.params[0x98] == 2
    assert bytes(sim.chip.flash) == GAME.flat(16384)


@pytest.mark.parametrize("protocol", ["stk500v1", "stk500v2"])
def test_avrdude_over_tcp(avrdude, protocol, tmp_path):
    hexfile = tmp_path / "image.hex"
    GAME.write_hex(hexfile)
    sim = ProgrammerSim(protocol)
    with sim.serve_tcp() as tcp:
        avrdude_flash(avrdude, protocol, tcp.address, hexfile)
    assert bytes(sim.chip.flash) == GAME.flat(16384)
