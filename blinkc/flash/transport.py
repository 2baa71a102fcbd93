"""Byte transports under the programmer protocols.

A protocol only needs `write`, `read(n, timeout)`, `discard_input`, a clock
and a sleep. `SerialTransport` is pyserial (a serial port, or a TCP address
`net:HOST:PORT` / `socket://HOST:PORT`); the simulator offers an in-memory
transport with a virtual clock for fast tests.
"""

from __future__ import annotations

import errno
import time
from typing import Protocol

import serial

from .errors import DisconnectedError, PortError


class Transport(Protocol):
    description: str
    bytes_out: int
    bytes_in: int

    def write(self, data: bytes) -> None: ...

    def read(self, n: int, timeout: float) -> bytes:
        """Up to `n` bytes; fewer only if `timeout` seconds pass first."""
        ...

    def discard_input(self) -> None: ...

    def now(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...

    def close(self) -> None: ...


def port_url(port: str) -> str:
    """avrdude's `net:HOST:PORT` and `tcp:` spellings become pyserial's socket:// URL."""
    for prefix in ("net:", "tcp://", "tcp:", "socket://"):
        if port.startswith(prefix):
            host, _, number = port[len(prefix):].rpartition(":")
            if not host or not number.isdigit() or not 0 < int(number) < 65536:
                raise PortError(f"'{port}' is not a network address.",
                                fix="write it as net:HOST:PORT, e.g. net:127.0.0.1:4000")
            return f"socket://{host}:{number}"
    return port


class SerialTransport:
    """pyserial underneath; every failure becomes a PortError or DisconnectedError."""

    def __init__(self, port: str, baud: int) -> None:
        self.port = port
        self.baud = baud
        self.description = f"{port} at {baud} baud"
        self.bytes_out = 0
        self.bytes_in = 0
        self._timeout: float | None = None
        url = port_url(port)
        try:
            self._ser = serial.serial_for_url(url, baudrate=baud, timeout=0.5,
                                              write_timeout=5.0, do_not_open=True)
            if url == port:            # a real device: keep other programs off it
                self._ser.exclusive = True
            self._ser.open()
        except (serial.SerialException, OSError, ValueError) as e:
            raise _port_error(port, e) from None
        self._timeout = 0.5
        self.set_modem_lines(True)

    def set_modem_lines(self, on: bool) -> bool:
        """Assert or release DTR and RTS; False if the port has no modem lines.

        Pseudo-terminals (the simulator) and some adapters raise OSError here;
        a programmer never needs these lines to work, so that is not an error.
        """
        try:
            self._ser.dtr = on
            self._ser.rts = on
            return True
        except (OSError, serial.SerialException, ValueError):
            return False

    def write(self, data: bytes) -> None:
        try:
            self._ser.write(data)
        except serial.SerialTimeoutException:
            raise DisconnectedError(
                f"The programmer on {self.port} stopped accepting data.",
                cause="the USB-serial adapter hung or the programmer reset",
                fix="unplug and replug the programmer, then try again") from None
        except (serial.SerialException, OSError) as e:
            raise _disconnected(self.port, e) from None
        self.bytes_out += len(data)

    def read(self, n: int, timeout: float) -> bytes:
        try:
            if timeout != self._timeout:
                self._ser.timeout = timeout
                self._timeout = timeout
            data = self._ser.read(n)
        except (serial.SerialException, OSError) as e:
            raise _disconnected(self.port, e) from None
        self.bytes_in += len(data)
        return bytes(data)

    def discard_input(self) -> None:
        try:
            self._ser.reset_input_buffer()
        except (serial.SerialException, OSError, AttributeError):
            pass

    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)

    def close(self) -> None:
        try:
            self._ser.close()
        except (serial.SerialException, OSError):
            pass


def _port_error(port: str, e: BaseException) -> PortError:
    code = getattr(e, "errno", None)
    text = str(e)
    if port_url(port).startswith("socket://"):
        return PortError(
            f"Cannot connect to {port} ({text.split(': ', 1)[-1]}).",
            cause="nothing is listening at that address",
            fix="start the simulator first (blinkc programmer-sim --tcp PORT) or check the address")
    if code == errno.ENOENT or "No such file" in text or "could not find" in text.lower():
        return PortError(
            f"Serial port {port} does not exist.",
            cause="the programmer is unplugged, or it appeared under another name",
            fix="plug it in and run `blinkc ports` to see which port it is")
    if code in (errno.EACCES, errno.EPERM) or "ermission" in text:
        return PortError(
            f"Permission denied opening {port}.",
            cause="your user may not open serial ports",
            fix="on Linux: sudo usermod -aG dialout $USER, then log out and back in")
    if code == errno.EBUSY or "busy" in text.lower() or "exclusively lock" in text:
        return PortError(
            f"{port} is in use by another program.",
            cause="the Arduino IDE's serial monitor, another blinkc or avrdude has it open",
            fix="close the other program and try again")
    if code == errno.ENOTTY or "Inappropriate ioctl" in text:
        return PortError(f"{port} is not a serial port.",
                         fix="give the programmer's port; `blinkc ports` lists them")
    return PortError(f"Cannot open {port}: {text}.",
                     fix="check the port name with `blinkc ports`")


def _disconnected(port: str, e: BaseException) -> DisconnectedError:
    return DisconnectedError(
        f"The connection to the programmer on {port} was lost ({e}).",
        cause="the programmer was unplugged or reset in the middle of the session",
        fix="reconnect it and flash the tile again; the tile is not harmed, only half written")
