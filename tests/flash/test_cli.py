"""`blinkc flash`, `read`, `ports`, `programmer-sim` as a person uses them."""

import re
import signal
import subprocess
import sys
import types
from pathlib import Path

import pytest
from click.testing import CliRunner

from blinkc.cli import main
from blinkc.flash.hexfile import synthetic_image
from blinkc.flash.ports import KNOWN_USB, PortInfo
from blinkc.progsim import ProgrammerSim

from .conftest import PROTOCOLS

PROGRAMMER = {"stk500v1": "arduinoisp", "stk500v2": "stk500v2"}


def blinkc(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args])


def assert_clean_failure(result, *words):
    """Exit 1, one message with a likely cause and a fix, and no traceback."""
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert "Error:" in result.output and "Fix:" in result.output
    for w in words:
        assert w in result.output


@pytest.fixture
def game_hex(tmp_path, game_image):
    path = tmp_path / "GAME.with_bootloader.hex"
    game_image.write_hex(path)
    return path


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_flash_a_game_through_the_simulator(protocol, game_hex, game_image):
    sim = ProgrammerSim(protocol)
    with sim.serve_pty() as pty:
        r = blinkc("flash", game_hex, "--port", pty.port, "--programmer", PROGRAMMER[protocol])
    assert r.exit_code == 0, r.output
    assert re.search(r"OK Flashed and verified 9,608 bytes \(76 pages\) on the ATmega168PB; "
                     r"extended fuse set to 0xF8 \(was 0xF9\)", r.output)
    assert bytes(sim.chip.flash) == game_image.flat(16384)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_flash_a_full_raw_image(protocol, tmp_path, full_image):
    path = tmp_path / "full.hex"
    full_image.write_hex(path)
    sim = ProgrammerSim(protocol)
    with sim.serve_tcp() as tcp:
        r = blinkc("flash", path, "--port", tcp.address, "-c", PROGRAMMER[protocol], "--raw")
    assert r.exit_code == 0, r.output
    assert bytes(sim.chip.flash) == full_image.flat(16384)
    assert sim.chip.read_fuse("ext") == 0xF9          # --raw: fuses untouched


def test_full_image_is_refused_for_a_blink_without_raw(tmp_path, full_image):
    path = tmp_path / "full.hex"
    full_image.write_hex(path)
    assert_clean_failure(blinkc("flash", path, "--port", "/dev/null"),
                         "active-game area", "--raw")


def test_verify_only_and_read(game_hex, game_image, tmp_path):
    sim = ProgrammerSim("stk500v2")
    with sim.serve_pty() as pty:
        r = blinkc("flash", game_hex, "--port", pty.port, "-c", "stk500v2", "--verify-only")
        assert_clean_failure(r, "Verify failed", "without --verify-only")
        assert blinkc("flash", game_hex, "--port", pty.port, "-c", "stk500v2").exit_code == 0
        r = blinkc("flash", game_hex, "--port", pty.port, "-c", "stk500v2", "--verify-only")
        assert r.exit_code == 0 and "they match; extended fuse already 0xF8" in r.output
        r = blinkc("read", "--port", pty.port, "-c", "stk500v2", "-o", tmp_path / "dump.hex")
    assert r.exit_code == 0, r.output
    assert "Fuses: low 0x62, high 0xDF, ext 0xF8, lock 0xFF" in r.output
    from blinkc.flash.hexfile import load_image

    assert load_image(tmp_path / "dump.hex").flat() == game_image.flat(16384)


def test_dry_run_touches_nothing(game_hex):
    r = blinkc("flash", game_hex, "--dry-run")
    assert r.exit_code == 0
    assert (f"Would run: avrdude -B 5 -v -p atmega168pb -c usbtiny -U flash:w:{game_hex}:i "
            "-U efuse:w:0xf8:m") in r.output
    r = blinkc("flash", game_hex, "--dry-run", "--port", "/dev/ttyACM0", "-c", "arduinoisp")
    assert "write 76 pages" in r.output and "19200 baud" in r.output
    assert "nothing was sent" in r.output


@pytest.mark.parametrize("fault, words", [
    ("no-target", "No chip answers on the ISP lines"),
    ("wrong-signature", "Found ATmega328P (1E 95 0F)"),
    ("bad-page=0x2F00", "Verify failed at 0x2F00"),
    ("corrupt", "Garbled reply"),
    ("disconnect", "connection to the programmer on"),
])
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_faults_end_in_one_clear_message(protocol, fault, words, game_hex):
    sim = ProgrammerSim(protocol, faults=[fault])
    with sim.serve_pty() as pty:
        r = blinkc("flash", game_hex, "--port", pty.port, "-c", PROGRAMMER[protocol])
    assert_clean_failure(r, words, "Likely cause:")
    assert "OK" not in r.output


def test_silent_programmer_gives_up_within_the_default_budget(game_hex):
    # Default --sync-timeout (4 s): fails in at most 5 s, with what to check.
    with ProgrammerSim("stk500v1", faults=["silent"]).serve_pty() as pty:
        r = blinkc("flash", game_hex, "--port", pty.port)
    assert_clean_failure(r, "No answer from the programmer", "waited 4.0 s", "ArduinoISP")


@pytest.mark.parametrize("args, words", [
    (["flash", "nope.hex", "--port", "x"], ["no such file"]),
    (["flash", "{bad}", "--port", "x"], ["invalid checksum", "line 2"]),
    (["flash", "{elf}", "--port", "x"], ["ELF file"]),
    (["flash", "{big}", "--port", "x", "-p", "atmega168pb"], ["does not fit the ATmega168PB"]),
    (["flash", "{nobios}", "--port", "x"], ["no BIOS"]),
    (["flash", "{game}", "-c", "arduinoisp"], ["--port is needed"]),
    (["flash", "{game}", "--port", "/dev/does-not-exist"], ["does not exist", "blinkc ports"]),
    (["flash", "{game}", "-c", "jtag9000"], ["Unknown programmer"]),
    (["flash", "{game}", "--port", "net:127.0.0.1:1"], ["Cannot connect"]),
    (["flash", "{game}", "--port", "net:localhost:http"], ["not a network address"]),
    (["flash", "{game}", "--port", "/dev/null"], ["is not a serial port"]),
    (["read", "--port", "/dev/null", "-o", "/nonexistent/dump.hex"], ["does not exist"]),
    (["flash", "{txt}", "--port", "x"], ["Don't know how to flash"]),
])
def test_bad_input_never_shows_a_traceback(args, words, tmp_path, game_hex):
    files = {
        "{bad}": ":02170000AABB82\n:02170200AABB00\n",
        "{elf}": None,
        "{big}": synthetic_image([(0x2E00, 0x1200), (0x4000, 64)]).to_hex(),
        "{nobios}": synthetic_image([(0x1700, 100)]).to_hex(),
        "{txt}": "hello",
    }
    for key, text in files.items():
        path = tmp_path / (key.strip("{}") + (".txt" if key == "{txt}" else ".hex"))
        if text is None:
            path.write_bytes(b"\x7fELF" + bytes(60))
        else:
            path.write_text(text)
        args = [str(path) if a == key else a for a in args]
    args = [str(game_hex) if a == "{game}" else a for a in args]
    assert_clean_failure(blinkc(*args), *words)


def test_a_game_source_without_the_build_layer(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "blinkc.build", None)
    game = tmp_path / "GAME.py"
    game.write_text("game = None\n")
    assert_clean_failure(blinkc("flash", game, "--port", "x"),
                         "building games is not available in this version")


def test_a_game_source_is_built_first(tmp_path, monkeypatch, game_image):
    built = tmp_path / "GAME.with_bootloader.hex"
    game_image.write_hex(built)
    calls = []

    def build_for_flash(path, sdk=None, force=False):
        calls.append((path.name, sdk, force))
        return built

    monkeypatch.setitem(sys.modules, "blinkc.build",
                        types.SimpleNamespace(build_for_flash=build_for_flash))
    game = tmp_path / "GAME.py"
    game.write_text("game = None\n")
    r = blinkc("flash", game, "--dry-run", "--sdk", tmp_path)
    assert r.exit_code == 0, r.output
    assert calls == [("GAME.py", str(tmp_path), False)] and str(built) in r.output
    r = blinkc("flash", game, "--dry-run", "--force")
    assert r.exit_code == 0, r.output
    assert calls[-1] == ("GAME.py", None, True)


def test_workshop_mode_counts_tiles(game_hex, game_image):
    sim = ProgrammerSim("stk500v1", tiles=2)
    with sim.serve_pty() as pty:
        r = blinkc("flash", game_hex, "--port", pty.port, "--count", "2")
    assert r.exit_code == 0, r.output
    assert "Tile 1: done - 1 tile flashed, 0 failed" in r.output
    assert "Workshop: 2 tiles flashed, 0 failed." in r.output
    assert all(bytes(c.flash) == game_image.flat(16384) for c in sim.workbench.tiles)


def test_ports_lists_known_programmers(monkeypatch):
    pololu = KNOWN_USB[(0x1FFB, 0x00BB)]
    tiny = KNOWN_USB[(0x1781, 0x0C9F)]
    monkeypatch.setattr("blinkc.cli.flash.all_ports", lambda: [
        PortInfo("/dev/ttyACM0", "Pololu", 0x1FFB, 0x00BB, pololu),
        PortInfo("/dev/ttyS0", "ttyS0", None, None, None),
        PortInfo("usb", tiny.name, 0x1781, 0x0C9F, tiny)])
    r = blinkc("ports")
    assert r.exit_code == 0
    assert "--port /dev/ttyACM0 --programmer stk500v2" in r.output
    assert "--programmer avrdude:usbtiny" in r.output and "1781:0C9F" in r.output
    monkeypatch.setattr("blinkc.cli.flash.all_ports", lambda: [])
    assert "No serial ports" in blinkc("ports").output


def test_programmer_sim_command(game_hex, game_image, tmp_path):
    saved = tmp_path / "after.hex"
    proc = subprocess.Popen([sys.executable, "-m", "blinkc", "programmer-sim", "--protocol",
                             "stk500v2", "--save", str(saved)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        port = next(line.split()[1] for line in proc.stdout if line.startswith("port:"))
        r = blinkc("flash", game_hex, "--port", port, "-c", "stk500v2")
        assert r.exit_code == 0, r.output
    finally:
        proc.send_signal(signal.SIGTERM)
        out = proc.communicate(timeout=10)[0]
    assert "Chip: 1 erase(s), 76 page write(s), extended fuse 0xF8." in out
    from blinkc.flash.hexfile import load_image

    assert load_image(saved).flat() == game_image.flat(16384)


def test_programmer_sim_rejects_an_unknown_fault():
    r = blinkc("programmer-sim", "--fault", "explode")
    assert r.exit_code == 2 and "unknown fault" in r.output


def test_workshop_with_avrdude_asks_for_each_tile(avrdude, game_hex, game_image):
    sim = ProgrammerSim("stk500v1", tiles=2)     # between tiles the clip is empty twice
    with sim.serve_pty() as pty:
        r = CliRunner().invoke(main, ["flash", str(game_hex), "--port", pty.port,
                                      "-c", "avrdude:stk500v1", "--count", "2"],
                               input="\n" * 4)
    assert r.exit_code == 0, r.output
    assert r.output.count("No chip answers on the ISP lines") == 2   # not counted as failures
    assert "Workshop: 2 tiles flashed, 0 failed." in r.output
    assert all(bytes(c.flash) == game_image.flat(16384) for c in sim.workbench.tiles)


def test_flash_refuses_devices_and_pipes_without_reading_them(tmp_path):
    import os

    assert_clean_failure(blinkc("flash", "/dev/zero", "--dry-run"), "not a regular file")
    fifo = tmp_path / "game.hex"
    os.mkfifo(fifo)
    assert_clean_failure(blinkc("flash", fifo, "--dry-run"), "not a regular file", "a pipe")


@pytest.mark.parametrize("cut", ["truncated", "joined"])
def test_flash_refuses_a_truncated_or_joined_hex_and_sends_nothing(cut, game_hex, tmp_path):
    text = game_hex.read_text()
    lines = text.splitlines(keepends=True)
    path = tmp_path / f"{cut}.hex"
    path.write_text("".join(lines[:len(lines) // 2]) if cut == "truncated" else text + text)
    sim = ProgrammerSim("stk500v1")
    with sim.serve_pty() as pty:
        r = blinkc("flash", path, "--port", pty.port)
    assert_clean_failure(r, "end-of-file record")
    assert sim.links == [] or all(link.bytes_in == 0 for link in sim.links)
    assert sim.chip.erases == 0 and sim.chip.page_writes == 0


def test_flash_refuses_a_game_that_spills_into_the_bios_area(tmp_path):
    path = tmp_path / "big.hex"
    synthetic_image([(0x1700, 6144)]).write_hex(path)            # no BIOS, reaches 0x2EFF
    sim = ProgrammerSim("stk500v2")
    with sim.serve_pty() as pty:
        r = blinkc("flash", path, "--port", pty.port, "-c", "stk500v2")
    assert_clean_failure(r, "runs past the end of its area", "256 over")
    assert sim.chip.erases == 0


def test_sync_timeout_lets_a_slow_programmer_connect(monkeypatch, game_hex, game_image):
    # Every answer takes 1.5 s (virtual clock): a slow bridge. --sync-timeout 30 must be enough.
    from blinkc.flash import flasher

    sim = ProgrammerSim("stk500v1")
    real = flasher.open_programmer

    def slow(spec, part, *, port=None, baud=None, timeouts=None):
        return real(spec, part, transport=sim.transport(latency=1.5), timeouts=timeouts)

    monkeypatch.setattr("blinkc.cli.flash.open_programmer", slow)
    r = blinkc("flash", game_hex, "--port", "sim", "-c", "arduinoisp", "--sync-timeout", "30")
    assert r.exit_code == 0, r.output
    assert bytes(sim.chip.flash) == game_image.flat(16384)
    r = blinkc("flash", game_hex, "--port", "sim", "-c", "arduinoisp", "--sync-timeout", "1")
    assert_clean_failure(r, "waited 1.0 s")


def test_read_over_stk500v1_reports_a_line_error_and_writes_no_dump(tmp_path, full_image):
    sim = ProgrammerSim("stk500v1", faults=["glitch=7"])
    sim.chip.flash[:] = full_image.flat(16384)
    dump = tmp_path / "dump.hex"
    with sim.serve_pty() as pty:
        r = blinkc("read", "--port", pty.port, "-o", dump)
    assert_clean_failure(r, "twice gave different data", "unreliable link")
    assert "OK" not in r.output and not dump.exists()


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_workshop_counts_a_tile_lost_to_a_link_drop(protocol, game_hex):
    sim = ProgrammerSim(protocol, tiles=2, faults=["disconnect=60"])
    with sim.serve_pty() as pty:
        r = blinkc("flash", game_hex, "--port", pty.port, "-c", PROGRAMMER[protocol],
                   "--count", "2")
    assert_clean_failure(r, "Workshop: 0 tiles flashed, 1 failed.", "tile 1: ")
    assert "0 tiles flashed, 0 failed" not in r.output


def test_avrdude_workshop_counts_a_tile_lost_to_a_link_drop(avrdude, game_hex, monkeypatch):
    monkeypatch.setattr("blinkc.flash.avrdude.STALL_SECONDS", 2.0)   # avrdude hangs on it
    sim = ProgrammerSim("stk500v1", tiles=2, faults=["disconnect=60"])
    with sim.serve_pty() as pty:
        r = CliRunner().invoke(main, ["flash", str(game_hex), "--port", pty.port,
                                      "-c", "avrdude:stk500v1", "--count", "2"],
                               input="\n" * 4)
    assert_clean_failure(r, "Workshop: 0 tiles flashed, 1 failed.", "tile 1: ")


def test_a_build_error_reads_as_one_message(tmp_path, monkeypatch):
    from blinkc.build.errors import BuildError

    def build_for_flash(path, sdk=None, force=False):
        raise BuildError("The game is 6,000 bytes, 112 over.", "make it smaller")

    monkeypatch.setitem(sys.modules, "blinkc.build",
                        types.SimpleNamespace(build_for_flash=build_for_flash))
    game = tmp_path / "GAME.py"
    game.write_text("game = None\n")
    assert_clean_failure(blinkc("flash", game, "--dry-run"),
                         "Building GAME.py failed: The game is 6,000 bytes", "Fix: make it smaller")


# -- output files: only new ones, blinkc's own dumps, or --force ---------------------------

def test_read_does_not_overwrite_a_file_blinkc_did_not_write(tmp_path, game_hex):
    mine = game_hex.read_text()
    sim = ProgrammerSim("stk500v2")
    with sim.serve_pty() as pty:
        r = blinkc("read", "--port", pty.port, "-c", "stk500v2", "-o", game_hex)
    assert_clean_failure(r, "already exists and blinkc did not write it", "--force")
    assert game_hex.read_text() == mine
    assert all(link.bytes_in == 0 for link in sim.links)     # refused before reading the tile


def test_read_replaces_its_own_dump_and_anything_with_force(tmp_path, game_hex, game_image):
    from blinkc.flash.hexfile import load_image

    dump = tmp_path / "dump.hex"
    sim = ProgrammerSim("stk500v2")
    sim.chip.flash[:] = game_image.flat(16384)
    with sim.serve_pty() as pty:
        for target, extra in ((dump, []), (dump, []), (game_hex, ["--force"])):
            r = blinkc("read", "--port", pty.port, "-c", "stk500v2", "-o", target, *extra)
            assert r.exit_code == 0, r.output
            assert load_image(target).flat() == game_image.flat(16384)
    assert not list(tmp_path.glob(".*.tmp"))


@pytest.mark.skipif(not Path("/sys/kernel").is_dir(), reason="needs Linux sysfs")
def test_read_into_a_folder_nobody_may_write_is_refused_before_reading(tmp_path):
    sim = ProgrammerSim("stk500v1")
    with sim.serve_pty() as pty:
        r = blinkc("read", "--port", pty.port, "-o", "/sys/dump.hex")
    assert_clean_failure(r, "Cannot write the flash dump to /sys/dump.hex")
    assert "OK" not in r.output and all(link.bytes_in == 0 for link in sim.links)


@pytest.mark.parametrize("target, words", [
    ("{missing}/dump.hex", "does not exist"),
    ("/dev/null", "not a regular file"),
])
def test_read_refuses_outputs_it_cannot_write(target, words, tmp_path):
    target = target.format(missing=tmp_path / "nope")
    assert_clean_failure(blinkc("read", "--port", "/dev/null", "-o", target), words)


def _run_sim(*args: str, timeout: float = 15.0):
    """programmer-sim in a subprocess; stopped with SIGTERM once it serves."""
    proc = subprocess.Popen([sys.executable, "-m", "blinkc", "programmer-sim", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if line.startswith("port:"):
            proc.send_signal(signal.SIGTERM)
            break
    out = "".join(lines) + proc.communicate(timeout=timeout)[0]
    return proc.returncode, out


@pytest.mark.parametrize("target, words", [
    ("{missing}/after.hex", "does not exist"),
    ("/sys/after.hex", "Cannot write the simulated flash to /sys/after.hex"),
    ("{foreign}", "already exists and blinkc did not write it"),
])
def test_programmer_sim_save_is_checked_before_it_serves(target, words, tmp_path):
    if target.startswith("/sys") and not Path("/sys/kernel").is_dir():
        pytest.skip("needs Linux sysfs")
    foreign = tmp_path / "GAME.hex"
    foreign.write_text("my game\n")
    code, out = _run_sim("--save", target.format(missing=tmp_path / "nope", foreign=foreign))
    assert code == 1, out
    assert "Traceback" not in out and "Error:" in out and words in out
    assert "port:" not in out
    assert foreign.read_text() == "my game\n"


def test_read_with_avrdude_writes_a_checked_blinkc_dump(avrdude, tmp_path, game_image):
    from blinkc.flash.hexfile import load_image
    from blinkc.flash.outputs import is_blinkc_dump

    dump = tmp_path / "dump.hex"
    sim = ProgrammerSim("stk500v1")
    sim.chip.flash[:] = game_image.flat(16384)
    with sim.serve_pty() as pty:
        for _ in range(2):                       # the second read replaces the first
            r = blinkc("read", "--port", pty.port, "-c", "avrdude:stk500v1", "-o", dump)
            assert r.exit_code == 0, r.output
    assert is_blinkc_dump(dump) and load_image(dump).flat() == game_image.flat(16384)
