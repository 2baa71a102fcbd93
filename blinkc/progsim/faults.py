"""Faults the simulator can inject, and the link that applies them.

Chip faults change the target (no chip, another chip, a page that does not
hold); link faults change what travels on the wire (silence, corruption,
a disconnect). Each is a short spec, usable from the CLI:

    silent                 the programmer never answers
    no-target              no chip on the ISP lines
    wrong-signature[=SIG]  another chip (default 1E950F, an ATmega328P)
    corrupt[=N]            from the N-th reply on, one byte of every reply is flipped
    glitch[=N]             one byte of the N-th flash-data reply (over 32 bytes) is flipped,
                           once: a single line error
    disconnect[=N]         the link drops after N replies (mid-transfer by default)
    bad-page[=ADDR]        the flash page holding ADDR does not keep what is written
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .chip import Chip
from .server import ProgrammerServer

FAULT_NAMES = ("silent", "no-target", "wrong-signature", "corrupt", "glitch", "disconnect",
               "bad-page")
DEFAULT_CORRUPT_FROM = 16
DEFAULT_GLITCH_AT = 1
GLITCH_MIN_REPLY = 33         # a reply this long carries flash data
DEFAULT_DISCONNECT_AFTER = 40
DEFAULT_BAD_PAGE = 0x1780
DEFAULT_WRONG_SIGNATURE = bytes([0x1E, 0x95, 0x0F])


class FaultSpecError(ValueError):
    pass


class LinkDropped(Exception):
    """The simulated programmer went away (the disconnect fault)."""


@dataclass
class Faults:
    silent: bool = False
    no_target: bool = False
    wrong_signature: bytes | None = None
    corrupt_from: int | None = None
    glitch_at: int | None = None
    disconnect_after: int | None = None
    bad_pages: set[int] = field(default_factory=set)

    @classmethod
    def parse(cls, specs: Iterable[str]) -> Faults:
        f = cls()
        for spec in specs:
            name, _, arg = spec.strip().partition("=")
            name = name.strip().lower().replace("_", "-")
            try:
                if name == "silent":
                    f.silent = True
                elif name == "no-target":
                    f.no_target = True
                elif name == "wrong-signature":
                    sig = bytes.fromhex(arg.replace(" ", "")) if arg else DEFAULT_WRONG_SIGNATURE
                    if len(sig) != 3:
                        raise ValueError("a signature is 3 bytes, e.g. 1E950F")
                    f.wrong_signature = sig
                elif name == "corrupt":
                    f.corrupt_from = int(arg, 0) if arg else DEFAULT_CORRUPT_FROM
                elif name == "glitch":
                    f.glitch_at = int(arg, 0) if arg else DEFAULT_GLITCH_AT
                elif name == "disconnect":
                    f.disconnect_after = int(arg, 0) if arg else DEFAULT_DISCONNECT_AFTER
                elif name == "bad-page":
                    f.bad_pages.add(int(arg, 0) if arg else DEFAULT_BAD_PAGE)
                else:
                    raise ValueError(f"unknown fault; known: {', '.join(FAULT_NAMES)}")
            except ValueError as e:
                raise FaultSpecError(f"bad fault '{spec}': {e}") from None
        return f

    def apply_to_chip(self, chip: Chip) -> Chip:
        if self.no_target:
            chip.present = False
        if self.wrong_signature is not None:
            chip.signature = self.wrong_signature
        page = chip.part.page_size
        chip.bad_pages |= {a - a % page for a in self.bad_pages}
        return chip


class Link:
    """A programmer server behind the faults: bytes in, (possibly damaged) replies out."""

    def __init__(self, server: ProgrammerServer, faults: Faults | None = None) -> None:
        self.server = server
        self.faults = faults or Faults()
        self.replies = 0
        self.data_replies = 0      # replies long enough to carry flash data
        self.dropped = False
        self.bytes_in = 0          # from the host, as on the wire
        self.bytes_out = 0         # to the host

    def process(self, data: bytes) -> list[bytes]:
        if self.dropped:
            raise LinkDropped
        self.bytes_in += len(data)
        if self.faults.silent:
            return []
        out = []
        for reply in self.server.feed(data):
            self.replies += 1
            limit = self.faults.disconnect_after
            if limit is not None and self.replies > limit:
                self.dropped = True
                if out:
                    return out
                raise LinkDropped
            start = self.faults.corrupt_from
            if start is not None and self.replies >= start and reply:
                reply = _flip(reply)
            if len(reply) >= GLITCH_MIN_REPLY:
                self.data_replies += 1
                if self.data_replies == self.faults.glitch_at:
                    reply = _flip(reply)
            out.append(reply)
            self.bytes_out += len(reply)
        return out


def _flip(reply: bytes) -> bytes:
    damaged = bytearray(reply)
    damaged[len(damaged) // 2] ^= 0x55    # a noisy line flips bits
    return bytes(damaged)
