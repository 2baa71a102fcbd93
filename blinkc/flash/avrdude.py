"""The avrdude backend, for USB programmers we do not speak ourselves.

USBtiny (the programmer in the Blinks dev kit) and USBasp are USB devices
driven through libusb; avrdude knows them. We build the command the Blinks
docs give (-B 5, -p atmega168pb, flash then efuse 0xF8), show avrdude's
progress as ours, stop it when it is stuck retrying a dead link, and turn
its messages into ours.
"""

from __future__ import annotations

import os
import re
import selectors
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from .errors import AvrdudeError, NoResponseError, NoTargetError, VerifyError, WrongChipError
from .flasher import NullProgress, Progress
from .targets import Part, chip_name

# avrdude programmers that are serial STK500v1 flavours: -B makes ArduinoISP
# lose sync (it has no SET_PARAMETER), so they get no bit clock.
NO_BITCLOCK = {"stk500v1", "avrisp", "arduino_as_isp", "arduino", "stk500", "buspirate"}
BITCLOCK_US = 5           # the SPI clock must be slow: a tile's CPU starts at 1 MHz
STALL_SECONDS = 20.0      # no output at all for this long: avrdude is stuck
FAILURE_GRACE = 3.0       # after a link failure line, give avrdude this long to recover
HARD_TIMEOUT = 600.0

# Lines that mean avrdude is retrying a link that is not there.
_LINK_FAILURE = re.compile(
    r"not in sync|timeout communicating|programmer is not responding|"
    r"stk500v2_recv\(\) error: timeout|wrong checksum|unable to communicate|"
    r"cannot communicate with device|protocol expects")


@dataclass
class AvrdudeRun:
    command: list[str]
    returncode: int | None
    output: str
    killed_reason: str | None = None


@dataclass
class AvrdudeBackend:
    programmer: str                      # avrdude's -c
    port: str | None = None
    baud: int | None = None
    executable: str = "avrdude"
    extra_args: list[str] = field(default_factory=list)

    def find(self) -> str:
        path = shutil.which(self.executable)
        if path is None:
            raise AvrdudeError(
                f"avrdude is not installed (needed for the {self.programmer} programmer).",
                fix="install it (Debian/Ubuntu: sudo apt install avrdude; macOS: brew install "
                    "avrdude), or use a serial programmer: --programmer arduinoisp / stk500v2")
        return path

    def version(self) -> tuple[int, int]:
        try:
            out = subprocess.run([self.find(), "-?"], capture_output=True, text=True,
                                 timeout=10).stderr
        except (OSError, subprocess.SubprocessError):
            return (0, 0)
        m = re.search(r"version (\d+)\.(\d+)", out)
        return (int(m.group(1)), int(m.group(2))) if m else (0, 0)

    def _base(self, part: Part) -> list[str]:
        cmd = [self.executable]
        if self.programmer not in NO_BITCLOCK:
            cmd += ["-B", str(BITCLOCK_US)]
        cmd += ["-v", "-p", part.avrdude_id, "-c", self.programmer]
        if self.port:
            cmd += ["-P", self.port]
        if self.baud:
            cmd += ["-b", str(self.baud)]
        return cmd

    def command(self, hexfile: Path | str, part: Part, efuse: int | None,
                verify_only: bool = False, version: tuple[int, int] | None = None) -> list[str]:
        """The avrdude command line (the docs' reference command, with our options)."""
        cmd = self._base(part)
        op = "v" if verify_only else "w"
        cmd += ["-U", f"flash:{op}:{hexfile}:i"]
        if efuse is not None:
            cmd += ["-U", f"efuse:{op}:0x{efuse:02x}:m"]
        if version is not None and version < (7, 0):
            cmd += ["-u"]       # avrdude 6 "safemode" would object to the efuse write
        return cmd + self.extra_args

    def flash(self, hexfile: Path | str, part: Part, efuse: int | None,
              verify_only: bool = False, progress: Progress | None = None) -> AvrdudeRun:
        """Run avrdude; return its run on success, raise a FlashError otherwise."""
        self.find()
        cmd = self.command(hexfile, part, efuse, verify_only, self.version())
        run = run_avrdude(cmd, progress or NullProgress(), verify_only)
        if run.returncode != 0:
            raise translate(run, self, part)
        return run


    def read_command(self, out: Path | str, part: Part) -> list[str]:
        return [*self._base(part), "-U", f"flash:r:{out}:i", *self.extra_args]

    def read(self, out: Path | str, part: Part, progress: Progress | None = None) -> AvrdudeRun:
        """Dump the tile's flash to an Intel HEX file."""
        self.find()
        run = run_avrdude(self.read_command(out, part), progress or NullProgress())
        if run.returncode != 0:
            raise translate(run, self, part)
        return run


def run_avrdude(cmd: list[str], progress: Progress, verify_only: bool = False) -> AvrdudeRun:
    """Run avrdude, feeding its progress bars to `progress`; stop it if it is stuck."""
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
    except OSError as e:
        raise AvrdudeError(f"Cannot run {cmd[0]}: {e.strerror or e}.",
                           fix="check that avrdude is installed and on your PATH") from None
    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    parser = _ProgressParser(progress, verify_only)
    started = last_output = time.monotonic()
    first_failure: float | None = None
    failures = 0
    killed: str | None = None
    out = bytearray()
    while True:
        events = sel.select(timeout=0.2)
        now = time.monotonic()
        if events:
            chunk = os.read(proc.stdout.fileno(), 4096)
            if not chunk:
                break
            out += chunk
            last_output = now
            for line in parser.feed(chunk.decode("utf-8", "replace")):
                if _LINK_FAILURE.search(line):
                    failures += 1
                    first_failure = first_failure or now
        if first_failure is not None and (failures >= 3 or now - first_failure > FAILURE_GRACE):
            killed = "link"
        elif now - last_output > STALL_SECONDS:
            killed = "stall"
        elif now - started > HARD_TIMEOUT:
            killed = "timeout"
        if killed:
            proc.kill()
            break
    sel.close()
    proc.stdout.close()
    code = proc.wait()
    return AvrdudeRun(cmd, code, out.decode("utf-8", "replace"), killed)


class _ProgressParser:
    """avrdude draws `Writing | ####... | 100%` with 50 '#' per bar."""

    def __init__(self, progress: Progress, verify_only: bool) -> None:
        self.progress = progress
        self.verify_only = verify_only
        self.buf = ""
        self.in_bar = False
        self.total = 0
        self.wrote = False

    def feed(self, text: str) -> list[str]:
        lines = []
        for ch in text:
            if self.in_bar and ch == "#":
                self.progress.advance(max(1, self.total // 50))
                continue
            if ch == "\n":
                lines.append(self.buf)
                self._line(self.buf)
                self.buf = ""
                self.in_bar = False
                continue
            self.buf += ch
            if self.buf.endswith("Writing | "):
                self.in_bar, self.wrote = True, True
                self.progress.phase("Writing", self.total)
            elif self.buf.endswith("Reading | "):
                self.in_bar = True
                self.progress.phase("Verifying" if self.wrote or self.verify_only
                                    else "Reading", self.total)
            elif self.buf.endswith("| ") and self.in_bar:
                self.in_bar = False
        return lines

    def _line(self, line: str) -> None:
        m = re.search(r"(?:writing|verifying|reading) (\d+) bytes? flash|"
                      r"with (\d+) bytes in \d+ sections?", line)
        if m:
            self.total = int(m.group(1) or m.group(2))
        elif "erasing chip" in line:
            self.progress.phase("Erasing")
        elif "device signature" in line:
            self.progress.info(line.strip().removeprefix("avrdude: "))


def translate(run: AvrdudeRun, backend: AvrdudeBackend, part: Part) -> Exception:
    """avrdude's failure, as one of our errors with a cause and a fix."""
    text = run.output
    name, port = backend.programmer, backend.port or "usb"
    low = text.lower()
    if "cannot find programmer id" in low:
        return AvrdudeError(f"avrdude does not know the programmer '{name}'.",
                            fix="`avrdude -c ?` lists the names; the Blinks dev kit's is "
                                "usbtiny (use --programmer avrdude:usbtiny)")
    m = re.search(r"cannot find (USBtiny device \(\S+\)|USB device with vid=\S+ pid=\S+)",
                  text, re.I)
    if m or "could not find usb device" in low:
        said = m.group(0) if m else "no device"
        return AvrdudeError(
            f"The {name} programmer is not connected (avrdude: {said}).",
            cause="it is unplugged, or the operating system has no driver for it",
            fix="plug it in (check with `blinkc ports`); on Windows install the libusb "
                "driver with Zadig; on Linux see the udev rule in docs/flashing.md")
    if re.search(r"permission denied|insufficient permissions|access denied|"
                 r"cannot open usb device|usb_open\(\)", low):
        return AvrdudeError(
            f"Not allowed to open the {name} programmer.",
            cause="your user may not access this USB device",
            fix="on Linux add the udev rule from docs/flashing.md (or run once with sudo "
                "to confirm), then replug the programmer")
    m = re.search(r"cannot (?:open port|connect)[^\n]*", text)
    if m:
        return AvrdudeError(f"avrdude cannot open {port}: {m.group(0)}.",
                            fix="check the port with `blinkc ports`")
    sig = re.search(r"device signature = 0x([0-9a-f]{6})", text, re.I)
    if "initialization failed" in low or "target doesn't answer" in low or (
            sig and sig.group(1).lower() in ("000000", "ffffff")):
        return NoTargetError(
            "No chip answers on the ISP lines (avrdude: "
            + ("device signature = 0x" + sig.group(1) if sig else "initialization failed")
            + ").",
            cause="the ISP cable is not seated on the tile, pin 1 is on the wrong side, or "
                  "the tile has no power (flat or missing coin cell)",
            fix="seat the 6-pin connector with pin 1 at the arrow, check the battery, and "
                "try again")
    if sig and "expected signature" in low:
        found = bytes.fromhex(sig.group(1))
        return WrongChipError(
            f"Found {chip_name(found)}, expected the {part.desc} "
            f"({part.signature.hex(' ').upper()}).",
            cause="this is not a Blink, or the connector sits on another board",
            fix="connect a Blink, or pass --part if you really mean to flash this chip")
    m = re.search(r"device 0x([0-9a-f]{2}) != input 0x([0-9a-f]{2}) at addr 0x([0-9a-f]+)",
                  text, re.I) or re.search(r"first mismatch at byte 0x([0-9a-f]+)", text, re.I)
    if m or "verification mismatch" in low or "verification error" in low:
        where = f" at 0x{int(m.group(m.lastindex or 1), 16):04X}" if m else ""
        return VerifyError(
            f"Verify failed{where} (avrdude: verification mismatch).",
            cause="the flash did not keep what was written: the tile's power dipped, the ISP "
                  "contact is poor, or this page of flash is worn out",
            fix="check the battery and the connector and flash again; if it fails at the "
                "same address again, set this tile aside")
    if run.killed_reason == "link" or _LINK_FAILURE.search(text):
        return NoResponseError(
            f"The {name} programmer on {port} does not answer properly "
            "(avrdude kept retrying; stopped).",
            cause="wrong port or baud rate, the programmer is not running its firmware, "
                  "or a noisy link",
            fix="check the port with `blinkc ports` and the --programmer type")
    if run.killed_reason:
        return NoResponseError(
            f"avrdude stopped making progress with the {name} programmer (stopped it).",
            cause="the programmer or its USB connection hung",
            fix="unplug and replug the programmer and try again")
    errors = [ln.strip() for ln in text.splitlines() if "error" in ln.lower()][-3:]
    return AvrdudeError(
        f"avrdude failed (exit {run.returncode})" + (": " + " / ".join(errors) if errors else "."),
        fix="run the command shown with --dry-run yourself to see avrdude's full output")
