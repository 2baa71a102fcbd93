"""STK500 version 2 over a transport: AVRISP-compatible serial programmers
(Pololu USB AVR Programmer v2.x, STK500 with v2 firmware, AVRISP).

Frame: 1B seq lenH lenL 0E body checksum (XOR of all preceding bytes); the
answer echoes seq and starts with the command id and a status byte.
Flash addresses are big-endian word addresses and auto-increment.
"""

from __future__ import annotations

from .errors import DisconnectedError, NoResponseError, NoTargetError, ProtocolError
from .isp import Timeouts, wire_seconds
from .targets import Part
from .transport import Transport

MESSAGE_START, TOKEN = 0x1B, 0x0E
CMD_SIGN_ON, CMD_SET_PARAMETER, CMD_GET_PARAMETER = 0x01, 0x02, 0x03
CMD_LOAD_ADDRESS = 0x06
CMD_ENTER_PROGMODE_ISP, CMD_LEAVE_PROGMODE_ISP, CMD_CHIP_ERASE_ISP = 0x10, 0x11, 0x12
CMD_PROGRAM_FLASH_ISP, CMD_READ_FLASH_ISP = 0x13, 0x14
CMD_PROGRAM_FUSE_ISP, CMD_READ_FUSE_ISP = 0x17, 0x18
CMD_READ_LOCK_ISP, CMD_READ_SIGNATURE_ISP = 0x1A, 0x1B
ANSWER_CKSUM_ERROR = 0xB0
STATUS_CMD_OK, STATUS_CMD_TOUT, STATUS_RDY_BSY_TOUT = 0x00, 0x80, 0x81
STATUS_CMD_FAILED, STATUS_CKSUM_ERROR, STATUS_CMD_UNKNOWN = 0xC0, 0xC1, 0xC9
PARAM_HW_VER, PARAM_SW_MAJOR, PARAM_SW_MINOR = 0x90, 0x91, 0x92
PARAM_SCK_DURATION = 0x98

MAX_READ = 256        # the answer body limit (275) fits 256 data bytes
MIN_ANSWER, MAX_ANSWER = 2, 275     # an answer body: command id and status, up to AVR068's limit
MAX_FRAME = MAX_ANSWER + 6          # with the 5-byte header and the checksum
# SCK duration 2 is ~115 kHz, what avrdude's -B 5 picks for an STK500v2: slow
# enough for a tile whose CPU starts at 1 MHz (ISP needs SCK < clock / 4).
SLOW_SCK_DURATION = 2


class Stk500v2:
    name = "STK500v2"

    def __init__(self, transport: Transport, part: Part,
                 timeouts: Timeouts | None = None) -> None:
        self.transport = transport
        self.part = part
        self.timeouts = timeouts or Timeouts()
        self._baud: int | None = getattr(transport, "baud", None)
        self._seq = 1
        self._next_addr: int | None = None   # where the programmer's address points
        self._rtt = 0.0          # the round trip measured while signing on (a slow link)

    # -- framing ----------------------------------------------------------

    def _frame(self, body: bytes) -> bytes:
        head = bytes([MESSAGE_START, self._seq, len(body) >> 8, len(body) & 0xFF, TOKEN])
        check = 0
        for b in head + body:
            check ^= b
        return head + body + bytes([check])

    def _read_frame(self, timeout: float, what: str) -> bytes | None:
        """The body of the next answer with our sequence number; None on silence."""
        deadline = self.transport.now() + timeout
        while True:
            got = self._next_frame(max(0.0, deadline - self.transport.now()), what)
            if got is None:
                return None
            seq, body = got
            if seq == self._seq:
                self._seq = (self._seq + 1) & 0xFF
                return body
            # A late answer to an earlier attempt: skip it.

    def _next_frame(self, timeout: float, what: str) -> tuple[int, bytes] | None:
        """The next whole answer frame as (sequence number, body); None on silence.

        A header that is not one, or a length no answer can have, is refused
        at once (the wait is never longer than the biggest possible frame
        takes on the wire) and the rest of the damaged frame is thrown away,
        so the next command starts in sync.
        """
        t = self.transport
        deadline = t.now() + timeout
        head = t.read(5, max(0.0, deadline - t.now()))
        if not head:
            return None
        if len(head) < 5 or head[0] != MESSAGE_START or head[4] != TOKEN:
            self._resync()
            raise self._garbled(head, what)
        size = (head[2] << 8) | head[3]
        if not MIN_ANSWER <= size <= MAX_ANSWER:
            self._resync()
            raise self._garbled(head, what, detail=f"an answer {size:,} bytes long; they are "
                                                   f"{MIN_ANSWER} to {MAX_ANSWER}")
        rest = t.read(size + 1, max(0.05, deadline - t.now()) + self._wire(size + 1))
        if len(rest) < size + 1:
            raise DisconnectedError(
                f"The programmer on {t.description} stopped in the middle of a "
                f"reply ({what}).",
                cause="it was unplugged or reset during the transfer",
                fix="reconnect it and flash the tile again")
        check = 0
        for b in head + rest:
            check ^= b
        if check != 0:
            self._resync()
            raise self._garbled(head + rest, what, checksum=True)
        return head[1], rest[:-1]

    def _resync(self) -> None:
        """Drop what is left of a damaged frame: wait at most one whole frame's wire time."""
        self.transport.read(MAX_FRAME, 0.02 + self._wire(MAX_FRAME))
        self.transport.discard_input()

    def _wire(self, nbytes: int) -> float:
        return wire_seconds(nbytes, self._baud) * 2

    def _garbled(self, got: bytes, what: str, checksum: bool = False,
                 detail: str | None = None) -> ProtocolError:
        detail = detail or ("bad checksum" if checksum else f"got {got[:6].hex(' ').upper()}")
        return ProtocolError(
            f"Garbled reply from the programmer on {self.transport.description} "
            f"({what}: {detail}).",
            cause="a noisy or unreliable serial link, a wrong baud rate (STK500v2 "
                  "programmers use 115200), or another program using the port",
            fix="use a shorter/better USB cable, check --baud, close other programs")

    def _exchange(self, body: bytes, what: str) -> tuple[int, bytes]:
        """Send one command; return the answer's status and the bytes after it."""
        frame = self._frame(body)
        self.transport.write(frame)
        answer = self._read_frame(self.timeouts.reply + self._rtt
                                  + self._wire(len(frame) + MAX_FRAME), what)
        if answer is None:
            raise NoResponseError(
                f"The programmer on {self.transport.description} stopped answering ({what}).",
                cause="it was unplugged or reset, or its serial line dropped out",
                fix="check the USB cable and flash the tile again")
        if len(answer) < 2:
            raise self._garbled(answer, what)
        if answer[0] == ANSWER_CKSUM_ERROR:
            raise self._garbled(answer, what + "; the programmer saw a bad checksum")
        if answer[0] != body[0]:
            raise self._garbled(answer, what)
        return answer[1], answer[2:]

    def _command(self, body: bytes, what: str) -> bytes:
        status, data = self._exchange(body, what)
        if status == STATUS_CMD_OK:
            return data
        if status == STATUS_CMD_UNKNOWN:
            raise ProtocolError(
                f"The programmer does not know the command ({what}).",
                cause="it is not an STK500v2/AVRISP-compatible ISP programmer",
                fix="check --programmer; for a USBtiny or USBasp use avrdude:usbtiny / "
                    "avrdude:usbasp")
        raise ProtocolError(
            f"The programmer reported a failure ({what}: status 0x{status:02X}).",
            cause="the tile stopped responding on the ISP lines (loose connector or "
                  "flat battery)",
            fix="reseat the ISP connector, check the tile's battery and flash again")

    # -- handshake --------------------------------------------------------

    def connect(self) -> str:
        """SIGN_ON until the programmer answers, for up to `timeouts.sync` seconds.

        A new SIGN_ON (with a new sequence number) goes out every
        `sync_attempt` seconds, and an answer to any of them is taken, however
        late: a programmer whose answers take longer than one attempt (a slow
        USB bridge, a network link) still connects, as long as it answers
        within the sync timeout. The answers to the other attempts are let in
        and dropped; the round trip is added to every later reply's budget.
        """
        t, to = self.transport, self.timeouts
        deadline = t.now() + to.sync
        heard = bytearray()
        sent: dict[int, float] = {}
        next_send = t.now()
        t.discard_input()
        while True:
            if t.now() >= next_send:
                sent[self._seq] = t.now()
                t.write(self._frame(bytes([CMD_SIGN_ON])))
                self._seq = (self._seq + 1) & 0xFF
                next_send = t.now() + to.sync_attempt
            try:
                got = self._next_frame(max(0.01, min(next_send, deadline) - t.now()),
                                       "signing on")
            except ProtocolError:
                got, heard = None, heard + b"?"
            if got is not None:
                seq, answer = got
                if (seq in sent and len(answer) >= 3 and answer[0] == CMD_SIGN_ON
                        and answer[1] == STATUS_CMD_OK):
                    name = answer[3:3 + answer[2]].decode("ascii", "replace")
                    self._rtt = t.now() - sent[seq]
                    if len(sent) > 1:          # answers to the other attempts may follow
                        while (t.read(MAX_FRAME, to.sync_attempt + 0.05)
                               and t.now() < deadline):
                            pass
                        t.discard_input()
                    break
                heard += b"!"
            if t.now() >= deadline:
                raise self._sync_failure(bytes(heard))
        hw = self._get_parameter(PARAM_HW_VER)
        major = self._get_parameter(PARAM_SW_MAJOR)
        minor = self._get_parameter(PARAM_SW_MINOR)
        return f"{name} programmer (STK500v2, hardware {hw}, firmware {major}.{minor:02d})"

    def _sync_failure(self, heard: bytes) -> Exception:
        where, secs = self.transport.description, self.timeouts.sync
        if not heard:
            return NoResponseError(
                f"No answer from the programmer on {where} (waited {secs:.1f} s).",
                cause="wrong port (a Pololu programmer has two: use the 'programming' "
                      "one), or it speaks STK500v1 (ArduinoISP)",
                fix="check the port with `blinkc ports`, or use --programmer arduinoisp "
                    "for an Arduino running ArduinoISP")
        return ProtocolError(
            f"The device on {where} answers, but not as an STK500v2 programmer.",
            cause="wrong baud rate (STK500v2 programmers use 115200), or it speaks "
                  "STK500v1 (ArduinoISP)",
            fix="use --programmer arduinoisp for ArduinoISP, or check --baud")

    def _get_parameter(self, parm: int) -> int:
        return self._command(bytes([CMD_GET_PARAMETER, parm]), "reading a parameter")[0]

    # -- the IspProgrammer interface -------------------------------------

    def enter_progmode(self) -> None:
        if self._get_parameter(PARAM_SCK_DURATION) < SLOW_SCK_DURATION:
            self._command(bytes([CMD_SET_PARAMETER, PARAM_SCK_DURATION, SLOW_SCK_DURATION]),
                          "slowing the ISP clock")
        v2, isp = self.part.stk500v2, self.part.isp
        body = bytes([CMD_ENTER_PROGMODE_ISP, v2.timeout, v2.stabdelay, v2.cmdexedelay,
                      v2.synchloops, v2.bytedelay, v2.pollvalue, v2.pollindex,
                      *isp.program_enable])
        status, _ = self._exchange(body, "entering programming mode")
        if status != STATUS_CMD_OK:
            raise NoTargetError(
                "No chip answers on the ISP lines (the programmer could not enter "
                "programming mode).",
                cause="the ISP cable is not seated on the tile, pin 1 is on the wrong side, "
                      "or the tile has no power (flat or missing coin cell)",
                fix="seat the 6-pin connector with pin 1 at the arrow, check the battery, "
                    "and try again")
        self._next_addr = None

    def leave_progmode(self) -> None:
        self._command(bytes([CMD_LEAVE_PROGMODE_ISP, 1, 1]), "leaving programming mode")
        self._next_addr = None

    def read_signature(self) -> bytes:
        isp = self.part.isp
        return bytes(self._command(bytes([CMD_READ_SIGNATURE_ISP, 4, *isp.read_signature(i)]),
                                   "reading the signature")[0] for i in range(3))

    def chip_erase(self) -> None:
        delay = int(self.part.stk500v2.chip_erase_delay_ms)
        self._command(bytes([CMD_CHIP_ERASE_ISP, delay, 0, *self.part.isp.chip_erase]),
                      "erasing the chip")

    def read_fuse(self, which: str) -> int:
        cmd = CMD_READ_LOCK_ISP if which == "lock" else CMD_READ_FUSE_ISP
        return self._command(bytes([cmd, 4, *self.part.isp.read_fuse[which]]),
                             f"reading the {which} fuse")[0]

    def write_fuse(self, which: str, value: int) -> None:
        instr = self.part.isp.write_fuse[which]   # KeyError for "lock": by design
        self._command(bytes([CMD_PROGRAM_FUSE_ISP, *instr[:3], value & 0xFF]),
                      f"writing the {which} fuse")

    def _load_address(self, addr: int) -> None:
        if addr != self._next_addr:
            word = addr // 2
            self._command(bytes([CMD_LOAD_ADDRESS, *word.to_bytes(4, "big")]),
                          f"setting the address 0x{addr:04X}")

    def write_page(self, addr: int, data: bytes) -> None:
        v2, isp = self.part.stk500v2, self.part.isp
        self._load_address(addr)
        n = len(data)
        self._command(bytes([CMD_PROGRAM_FLASH_ISP, n >> 8, n & 0xFF, v2.flash_mode | 0x80,
                             v2.flash_delay, isp.load_page_low, isp.write_page, isp.read_low,
                             0xFF, 0xFF]) + data,
                      f"writing the page at 0x{addr:04X}")
        self._next_addr = addr + n

    def read_flash(self, addr: int, n: int) -> bytes:
        out = bytearray()
        while len(out) < n:
            at = addr + len(out)
            chunk = min(MAX_READ, n - len(out))
            self._load_address(at)
            data = self._command(bytes([CMD_READ_FLASH_ISP, chunk >> 8, chunk & 0xFF,
                                        self.part.isp.read_low]), f"reading flash at 0x{at:04X}")
            if len(data) != chunk + 1:
                raise self._garbled(data[:6], f"reading flash at 0x{at:04X}")
            out += data[:chunk]
            self._next_addr = at + chunk
        return bytes(out)

    def close(self) -> None:
        self.transport.close()
