"""Which ports and USB programmers are plugged in, with a hint for each.

Serial ports come from pyserial's list; USB-only programmers (USBtiny,
USBasp) have no serial port, so on Linux we also look at /sys/bus/usb.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from serial.tools import list_ports


@dataclass(frozen=True)
class Known:
    name: str
    programmer: str          # what to pass to --programmer
    hint: str


# (VID, PID) -> what it is. PID None matches any product of the vendor.
KNOWN_USB: dict[tuple[int, int | None], Known] = {
    (0x1FFB, 0x00B0): Known("Pololu USB AVR Programmer v2", "stk500v2",
                            "use its programming port (usually the first of its two)"),
    (0x1FFB, 0x00BB): Known("Pololu USB AVR Programmer v2.1", "stk500v2",
                            "use its programming port (usually the first of its two)"),
    (0x1FFB, 0x0081): Known("Pololu USB AVR Programmer", "stk500v2",
                            "use its programming port (usually the first of its two)"),
    (0x2341, None): Known("Arduino", "arduinoisp",
                          "with the ArduinoISP sketch uploaded (File > Examples > ArduinoISP)"),
    (0x2A03, None): Known("Arduino", "arduinoisp",
                          "with the ArduinoISP sketch uploaded (File > Examples > ArduinoISP)"),
    (0x1A86, 0x7523): Known("CH340 USB-serial (Arduino clone?)", "arduinoisp",
                            "an Arduino clone running ArduinoISP"),
    (0x0403, 0x6001): Known("FTDI USB-serial (Arduino/AVR ISP?)", "arduinoisp",
                            "an Arduino with FTDI running ArduinoISP, or an STK500v1 AVR ISP"),
    (0x10C4, 0xEA60): Known("CP210x USB-serial", "arduinoisp",
                            "an Arduino clone running ArduinoISP, or a serial STK500 programmer"),
    (0x03EB, 0x2104): Known("Atmel AVRISP mkII", "avrdude:avrispmkii", "USB, driven by avrdude"),
    (0x1781, 0x0C9F): Known("USBtiny (Sparkfun Pocket AVR Programmer, Blinks dev kit)",
                            "avrdude:usbtiny", "USB, driven by avrdude"),
    (0x16C0, 0x05DC): Known("USBasp", "avrdude:usbasp", "USB, driven by avrdude"),
}


def identify(vid: int | None, pid: int | None) -> Known | None:
    if vid is None:
        return None
    return KNOWN_USB.get((vid, pid)) or KNOWN_USB.get((vid, None))


@dataclass(frozen=True)
class PortInfo:
    device: str              # the --port value; "usb" for USB-only programmers
    description: str
    vid: int | None
    pid: int | None
    known: Known | None

    @property
    def usb_id(self) -> str:
        return f"{self.vid:04X}:{self.pid:04X}" if self.vid is not None else ""


def serial_ports() -> list[PortInfo]:
    out = []
    for p in sorted(list_ports.comports(), key=lambda p: p.device):
        desc = p.description if p.description and p.description != "n/a" else ""
        if p.interface:
            desc = f"{desc} ({p.interface})" if desc else p.interface
        out.append(PortInfo(p.device, desc, p.vid, p.pid, identify(p.vid, p.pid)))
    return out


def usb_programmers(sysfs: Path = Path("/sys/bus/usb/devices")) -> list[PortInfo]:
    """USB-only programmers (no serial port) found in Linux sysfs; [] elsewhere."""
    found = []
    try:
        devices = sorted(sysfs.iterdir())
    except OSError:
        return []
    for dev in devices:
        try:
            vid = int((dev / "idVendor").read_text().strip(), 16)
            pid = int((dev / "idProduct").read_text().strip(), 16)
        except (OSError, ValueError):
            continue
        known = identify(vid, pid)
        if known and known.programmer.startswith("avrdude:"):
            found.append(PortInfo("usb", known.name, vid, pid, known))
    return found


def all_ports() -> list[PortInfo]:
    return serial_ports() + usb_programmers()


def guess_programmer(port: str) -> str | None:
    """The --programmer a known serial port most likely wants."""
    for p in serial_ports():
        if p.device == port and p.known:
            return p.known.programmer
    return None
