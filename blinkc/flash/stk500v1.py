"""STK500 version 1 over a transport: ArduinoISP and the original AVR ISP.

Every request ends with CRC_EOP (0x20); every answer is INSYNC (0x14),
payload, OK (0x10). Flash addresses are little-endian word addresses.
"""

from __future__ import annotations

from .errors import DisconnectedError, NoResponseError, NoTargetError, ProtocolError
from .isp import FUSE_WRITE_DELAY_S, Timeouts, wire_seconds
from .targets import Part
from .transport import Transport

CRC_EOP = 0x20
INSYNC, OK, FAILED, UNKNOWN, NODEVICE, NOSYNC = 0x14, 0x10, 0x11, 0x12, 0x13, 0x15
GET_SYNC, GET_SIGN_ON = 0x30, 0x31
GET_PARAMETER, SET_DEVICE, SET_DEVICE_EXT = 0x41, 0x42, 0x45
ENTER_PROGMODE, LEAVE_PROGMODE = 0x50, 0x51
LOAD_ADDRESS, UNIVERSAL = 0x55, 0x56
PROG_PAGE, READ_PAGE = 0x64, 0x74
PARM_HW_VER, PARM_SW_MAJOR, PARM_SW_MINOR = 0x80, 0x81, 0x82

MAX_BLOCK = 256   # ArduinoISP's buffer; avrdude's stk500 driver uses the same limit


class Stk500v1:
    name = "STK500v1"

    def __init__(self, transport: Transport, part: Part,
                 timeouts: Timeouts | None = None, label: str = "programmer") -> None:
        self.transport = transport
        self.part = part
        self.timeouts = timeouts or Timeouts()
        self.label = label
        self._baud: int | None = getattr(transport, "baud", None)
        self._rtt = 0.0          # the round trip measured while syncing (a slow link)

    # -- handshake --------------------------------------------------------

    def connect(self) -> str:
        """GET_SYNC until the programmer answers, for up to `timeouts.sync` seconds.

        A new GET_SYNC goes out every `sync_attempt` seconds, but an answer is
        welcome whenever it comes: a programmer whose answers take longer than
        one attempt (a slow USB bridge, a network link) still connects, as
        long as it answers within the sync timeout. The answer may belong to
        any attempt, so the late ones are let in and dropped, and one more
        GET_SYNC, given as long as the first answer took, confirms the link.
        Its round trip is added to every later reply's time budget.
        """
        t, to = self.transport, self.timeouts
        deadline = t.now() + to.sync
        answer = bytes([INSYNC, OK])
        sync = bytes([GET_SYNC, CRC_EOP])
        heard = bytearray()
        scan_from = 0
        first_sent: float | None = None
        attempts = 0
        next_send = t.now()
        t.discard_input()
        while True:
            if t.now() >= next_send:
                t.write(sync)
                attempts += 1
                first_sent = t.now() if first_sent is None else first_sent
                next_send = t.now() + to.sync_attempt
            heard += t.read(2, max(0.01, min(next_send, deadline) - t.now()))
            if answer in heard[scan_from:]:
                waited = t.now() - (t.now() if first_sent is None else first_sent)
                # Let the answers to the other attempts (or a just-reset board's
                # bootloader chatter) arrive, and drop them.
                quiet = 0.05 if attempts == 1 else to.sync_attempt + 0.05
                while t.read(64, quiet) and t.now() < deadline:
                    pass
                t.discard_input()
                t.write(sync)
                sent = t.now()
                if t.read(2, waited + to.sync_attempt + self._wire(4)) == answer:
                    self._rtt = t.now() - sent
                    break
                # No confirmation: that GET_SYNC is one more attempt whose answer is due.
                scan_from, first_sent, attempts = len(heard), sent, 1
                next_send = sent + to.sync_attempt
            if t.now() >= deadline:
                raise self._sync_failure(bytes(heard))
        hw = self._get_parameter(PARM_HW_VER)
        major = self._get_parameter(PARM_SW_MAJOR)
        minor = self._get_parameter(PARM_SW_MINOR)
        return f"STK500v1 programmer (hardware {hw}, firmware {major}.{minor})"

    def _sync_failure(self, heard: bytes) -> Exception:
        where = self.transport.description
        secs = self.timeouts.sync
        if not heard:
            return NoResponseError(
                f"No answer from the programmer on {where} (waited {secs:.1f} s).",
                cause="wrong port, the ArduinoISP sketch is not on the Arduino, the baud "
                      "rate differs (ArduinoISP: 19200), or it is an STK500v2 programmer",
                fix="check the port with `blinkc ports`; upload ArduinoISP (File > Examples "
                    "> ArduinoISP) or use --programmer stk500v2 for a Pololu/AVRISP programmer")
        sample = heard[:8].hex(" ").upper()
        return ProtocolError(
            f"The device on {where} answers, but not as an STK500v1 programmer "
            f"(got {sample}).",
            cause="wrong baud rate, another sketch on the Arduino, or an STK500v2 programmer",
            fix="use --baud 19200 for ArduinoISP, or --programmer stk500v2 for a "
                "Pololu/AVRISP-compatible programmer")

    # -- commands ---------------------------------------------------------

    def _wire(self, nbytes: int) -> float:
        return wire_seconds(nbytes, self._baud) * 2

    def _command(self, body: bytes, payload: int, what: str) -> bytes:
        """Send one request and return its payload (INSYNC/OK stripped)."""
        self.transport.write(body + bytes([CRC_EOP]))
        return self._answer(payload, what, len(body) + 1)

    def _answer(self, payload: int, what: str, sent: int) -> bytes:
        want = payload + 2
        reply = self.transport.read(want, self.timeouts.reply + self._rtt
                                    + self._wire(sent + want))
        if len(reply) == want and reply[0] == INSYNC and reply[-1] == OK:
            return reply[1:-1]
        raise self._bad_reply(reply, want, what)

    def _bad_reply(self, reply: bytes, want: int, what: str) -> Exception:
        where = self.transport.description
        if not reply:
            return NoResponseError(
                f"The programmer on {where} stopped answering ({what}).",
                cause="it was unplugged or reset, or its serial line dropped out",
                fix="check the USB cable and flash the tile again")
        if reply[0] == INSYNC and len(reply) >= 2:
            status = reply[-1] if len(reply) == want else reply[1]
            if status == NODEVICE:
                return NoTargetError(
                    f"The programmer found no chip on the ISP lines ({what}).",
                    cause="the ISP cable is not seated on the tile, or pin 1 is reversed",
                    fix="seat the connector with pin 1 at the arrow and try again")
            if status == FAILED:
                return ProtocolError(
                    f"The programmer refused the command ({what}).",
                    cause="the programmer could not carry it out on the target",
                    fix="check the ISP connection and the tile's battery, then retry")
        if reply[0] == NOSYNC:
            return ProtocolError(
                f"The programmer on {where} lost sync ({what}).",
                cause="bytes were lost on the serial line, or another program uses the port",
                fix="close other programs using the port and flash again")
        if len(reply) < want and reply[0] == INSYNC:
            return DisconnectedError(
                f"The programmer on {where} stopped in the middle of a reply ({what}).",
                cause="it was unplugged or reset during the transfer",
                fix="reconnect it and flash the tile again")
        return ProtocolError(
            f"Garbled reply from the programmer on {where} ({what}: got "
            f"{reply[:6].hex(' ').upper()}).",
            cause="a noisy or unreliable serial link, a wrong baud rate, or another "
                  "program using the port",
            fix="use a shorter/better USB cable, check --baud, close other programs")

    def _get_parameter(self, parm: int) -> int:
        return self._command(bytes([GET_PARAMETER, parm]), 1, "reading a parameter")[0]

    def _universal(self, instr: tuple[int, int, int, int] | bytes, what: str) -> int:
        return self._command(bytes([UNIVERSAL, *instr]), 1, what)[0]

    def _load_address_bytes(self, addr: int) -> bytes:
        word = addr // 2
        return bytes([LOAD_ADDRESS, word & 0xFF, (word >> 8) & 0xFF, CRC_EOP])

    # -- the IspProgrammer interface -------------------------------------

    def enter_progmode(self) -> None:
        p = self.part
        device = bytes([
            SET_DEVICE, p.stk500_devcode, 0x00,   # device code, revision
            0x00, 0x01, 0x01, 0x01,                # prog type, parallel, polling, self-timed
            0x01, 0x03,                            # lock bytes, fuse bytes
            0xFF, 0xFF, 0xFF, 0xFF,                # flash / EEPROM poll values
            (p.page_size >> 8) & 0xFF, p.page_size & 0xFF,
            (p.eeprom_size >> 8) & 0xFF, p.eeprom_size & 0xFF,
            *p.flash_size.to_bytes(4, "big"),
        ])
        self._command(device, 0, "setting the device parameters")
        # 5 bytes as avrdude sends for firmware > 1.10: size, EEPROM page, PAGEL, BS2, reset.
        self._command(bytes([SET_DEVICE_EXT, 0x05, p.eeprom_page_size, 0xD7, 0xC2, 0x01]),
                      0, "setting the extended device parameters")
        self._command(bytes([ENTER_PROGMODE]), 0, "entering programming mode")

    def leave_progmode(self) -> None:
        self._command(bytes([LEAVE_PROGMODE]), 0, "leaving programming mode")

    def read_signature(self) -> bytes:
        isp = self.part.isp
        return bytes(self._universal(isp.read_signature(i), "reading the signature")
                     for i in range(3))

    def chip_erase(self) -> None:
        self._universal(self.part.isp.chip_erase, "erasing the chip")
        # ArduinoISP does not wait for the erase; the chip needs this long.
        self.transport.sleep(self.part.stk500v2.chip_erase_delay_ms / 1000)

    def read_fuse(self, which: str) -> int:
        return self._universal(self.part.isp.read_fuse[which], f"reading the {which} fuse")

    def write_fuse(self, which: str, value: int) -> None:
        instr = self.part.isp.write_fuse[which]
        self._universal((*instr[:3], value & 0xFF), f"writing the {which} fuse")
        self.transport.sleep(FUSE_WRITE_DELAY_S)

    def write_page(self, addr: int, data: bytes) -> None:
        n = len(data)
        # LOAD_ADDRESS and PROG_PAGE go out together: one round trip per page.
        self.transport.write(self._load_address_bytes(addr)
                             + bytes([PROG_PAGE, n >> 8, n & 0xFF, ord("F")])
                             + data + bytes([CRC_EOP]))
        what = f"writing the page at 0x{addr:04X}"
        self._answer(0, what, 4)
        self._answer(0, what, n + 5)

    def read_flash(self, addr: int, n: int) -> bytes:
        out = bytearray()
        while len(out) < n:
            chunk = min(MAX_BLOCK, n - len(out))
            at = addr + len(out)
            self.transport.write(self._load_address_bytes(at)
                                 + bytes([READ_PAGE, chunk >> 8, chunk & 0xFF, ord("F"),
                                          CRC_EOP]))
            what = f"reading flash at 0x{at:04X}"
            self._answer(0, what, 4)
            out += self._answer(chunk, what, 5)
        return bytes(out)

    def close(self) -> None:
        self.transport.close()
