"""The avrdude backend: the command it builds, how it reads avrdude, and real runs."""

import pytest

from blinkc.flash import errors
from blinkc.flash.avrdude import AvrdudeBackend, AvrdudeRun, _ProgressParser, translate
from blinkc.flash.targets import ATMEGA168PB
from blinkc.progsim import ProgrammerSim


def test_usbtiny_command_is_the_blinks_reference_command():
    # avrdude -B 5 -v -patmega168pb -cusbtiny -Uflash:w:GAME.with_bootloader.hex:i
    #         -Uefuse:w:0xf8:m   (-u only for avrdude 6: 7.x removed safemode)
    cmd = AvrdudeBackend("usbtiny").command("GAME.with_bootloader.hex", ATMEGA168PB, 0xF8,
                                            version=(7, 1))
    assert cmd == ["avrdude", "-B", "5", "-v", "-p", "atmega168pb", "-c", "usbtiny",
                   "-U", "flash:w:GAME.with_bootloader.hex:i", "-U", "efuse:w:0xf8:m"]
    old = AvrdudeBackend("usbtiny").command("G.hex", ATMEGA168PB, 0xF8, version=(6, 3))
    assert old[-1] == "-u"


def test_usbasp_verify_only_and_serial_variants():
    cmd = AvrdudeBackend("usbasp").command("G.hex", ATMEGA168PB, 0xF8, verify_only=True)
    assert cmd[-4:] == ["-U", "flash:v:G.hex:i", "-U", "efuse:v:0xf8:m"]
    # ArduinoISP has no SET_PARAMETER, so no -B for STK500v1 flavours; port and baud pass on.
    serial = AvrdudeBackend("stk500v1", port="/dev/ttyACM0", baud=19200).command(
        "G.hex", ATMEGA168PB, None)
    assert "-B" not in serial
    assert serial[serial.index("-P") + 1] == "/dev/ttyACM0" and "19200" in serial
    assert not any(a.startswith("efuse") for a in serial)


def run(output: str, code: int = 1) -> AvrdudeRun:
    return AvrdudeRun(["avrdude"], code, output)


@pytest.mark.parametrize("output, error, words", [
    ("avrdude error: cannot find USBtiny device (0x1781/0xc9f)\n"
     "avrdude error: unable to open programmer usbtiny on port usb\n",
     errors.AvrdudeError, "not connected"),
    ("avrdude: device signature = 0x000000 (retrying)\navrdude: device signature = 0x000000\n"
     "avrdude main() error: Yikes!  Invalid device signature.\n"
     "avrdude main() error: expected signature for ATmega168PB is 1E 94 15\n",
     errors.NoTargetError, "No chip answers"),
    ("avrdude stk500v2_command() error: command failed\n"
     "avrdude main() error: initialization failed, rc=-1\n", errors.NoTargetError, "No chip"),
    ("avrdude: device signature = 0x1e950f (probably m328p)\n"
     "avrdude main() error: expected signature for ATmega168PB is 1E 94 15\n",
     errors.WrongChipError, "Found ATmega328P (1E 95 0F)"),
    ("avrdude avr_verify() warning: verification mismatch\n"
     "        device 0xff != input 0xb9 at addr 0x1780 (error)\n"
     "avrdude do_op() error: verification mismatch\n", errors.VerifyError, "at 0x1780"),
    ("avrdude warning: attempt 1 of 10: not in sync: resp=0x00\n", errors.NoResponseError,
     "does not answer"),
    ("avrdude error: cannot find programmer id nosuch\n", errors.AvrdudeError,
     "does not know the programmer"),
    ("avrdude OS error: cannot open port /dev/ttyUSB9: No such file or directory\n",
     errors.AvrdudeError, "cannot open"),
    ("usbdev_open(): cannot open device: Permission denied\n", errors.AvrdudeError,
     "Not allowed"),
])
def test_avrdude_failures_become_our_messages(output, error, words):
    e = translate(run(output), AvrdudeBackend("usbtiny"), ATMEGA168PB)
    assert isinstance(e, error) and words in e.what and e.fix


def test_progress_bars_are_followed():
    class Rec:
        def __init__(self):
            self.phases, self.total = [], 0

        def phase(self, name, total_bytes=0, total_pages=0):
            self.phases.append((name, total_bytes))

        def advance(self, nbytes, pages=0):
            self.total += nbytes

        def info(self, message):
            pass

    rec = Rec()
    p = _ProgressParser(rec, verify_only=False)
    p.feed("avrdude: erasing chip\navrdude: writing 7680 bytes flash ...\n\nWriting | ")
    p.feed("#" * 50 + " | 100% 0.10s\n\navrdude: 7680 bytes of flash written\n")
    p.feed("avrdude: verifying flash memory against G.hex\n\nReading | " + "#" * 50 + " | 100%\n")
    assert rec.phases == [("Erasing", 0), ("Writing", 7680), ("Verifying", 7680)]
    assert rec.total == 2 * 50 * (7680 // 50)


def test_missing_avrdude_is_explained():
    with pytest.raises(errors.AvrdudeError, match="avrdude is not installed") as e:
        AvrdudeBackend("usbtiny", executable="avrdude-does-not-exist").find()
    assert "apt install avrdude" in e.value.fix


# -- real avrdude through the simulator --------------------------------------------

@pytest.mark.parametrize("protocol", ["stk500v1", "stk500v2"])
def test_backend_flashes_through_the_simulator(avrdude, protocol, game_image, tmp_path):
    hexfile = tmp_path / "GAME.with_bootloader.hex"
    game_image.write_hex(hexfile)
    sim = ProgrammerSim(protocol)
    with sim.serve_pty() as pty:
        AvrdudeBackend(protocol, port=pty.port).flash(hexfile, ATMEGA168PB, 0xF8)
    assert bytes(sim.chip.flash) == game_image.flat(16384)
    assert sim.chip.read_fuse("ext") == 0xF8


@pytest.mark.parametrize("fault, error", [
    ("no-target", errors.NoTargetError),
    ("wrong-signature", errors.WrongChipError),
    ("bad-page=0x2E80", errors.VerifyError),
])
def test_backend_translates_real_avrdude_failures(avrdude, fault, error, game_image, tmp_path):
    hexfile = tmp_path / "G.hex"
    game_image.write_hex(hexfile)
    sim = ProgrammerSim("stk500v2", faults=[fault])
    with sim.serve_pty() as pty, pytest.raises(error) as e:
        AvrdudeBackend("stk500v2", port=pty.port).flash(hexfile, ATMEGA168PB, 0xF8)
    assert e.value.fix


def test_backend_stops_avrdude_retrying_a_garbled_link(avrdude, game_image, tmp_path):
    # avrdude alone would retry this for minutes; we stop it and say why.
    hexfile = tmp_path / "G.hex"
    game_image.write_hex(hexfile)
    sim = ProgrammerSim("stk500v1", faults=["corrupt=30"])
    with sim.serve_pty() as pty, pytest.raises(errors.NoResponseError, match="stopped"):
        AvrdudeBackend("stk500v1", port=pty.port).flash(hexfile, ATMEGA168PB, 0xF8)


def test_backend_reads_a_tile(avrdude, game_image, tmp_path):
    from blinkc.flash.hexfile import load_image

    sim = ProgrammerSim("stk500v1")
    sim.chip.flash[:] = game_image.flat(16384)
    with sim.serve_pty() as pty:
        AvrdudeBackend("stk500v1", port=pty.port).read(tmp_path / "dump.hex", ATMEGA168PB)
    assert load_image(tmp_path / "dump.hex").flat(16384) == game_image.flat(16384)
