"""What the flasher needs from a serial ISP programmer, whatever its protocol."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from .targets import Part
from .transport import Transport

FUSE_WRITE_DELAY_S = 0.0045    # tWD_FUSE of the ATmega168 family (avrdude: 4500 us)


@dataclass(frozen=True)
class Timeouts:
    """How long we wait; a silent programmer must fail in at most 5 s in total."""

    sync: float = 4.0          # the whole handshake, all retries included
    sync_attempt: float = 0.25  # one handshake attempt
    reply: float = 1.0         # one reply, plus its transfer time at the baud rate


class IspProgrammer(Protocol):
    """One serial programmer session. Addresses are byte addresses."""

    transport: Transport
    part: Part
    name: str

    def connect(self) -> str:
        """Synchronise with the programmer; return a one-line description of it."""
        ...

    def enter_progmode(self) -> None: ...

    def leave_progmode(self) -> None: ...

    def read_signature(self) -> bytes: ...

    def chip_erase(self) -> None: ...

    def read_fuse(self, which: str) -> int:
        """which: 'low', 'high', 'ext' or 'lock'."""
        ...

    def write_fuse(self, which: str, value: int) -> None:
        """which: 'low', 'high' or 'ext'. There is no way to write lock bits."""
        ...

    def write_page(self, addr: int, data: bytes) -> None: ...

    def read_flash(self, addr: int, n: int) -> bytes: ...

    def close(self) -> None: ...


def wire_seconds(nbytes: int, baud: int | None) -> float:
    """Time `nbytes` take on an 8N1 serial line (10 bits per byte)."""
    return nbytes * 10 / baud if baud else 0.0
