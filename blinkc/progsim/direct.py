"""An in-memory transport straight into a simulated programmer.

No pty, no threads: writes are fed to the link and replies queue up for
reads. Time is virtual (a read that runs dry "waits" its timeout by moving
the clock), so even a silent-programmer test finishes at once. With a baud
rate the clock also advances by the wire time of every byte; with `latency`
every reply arrives that many seconds after the request that caused it (a
slow USB bridge, a programmer on a network link).
"""

from __future__ import annotations

from ..flash.errors import DisconnectedError
from .faults import Link, LinkDropped


class SimTransport:
    def __init__(self, link: Link, baud: int | None = None, latency: float = 0.0) -> None:
        self.link = link
        self.baud = baud
        self.latency = latency
        self.description = "the simulated programmer"
        self.bytes_out = 0
        self.bytes_in = 0
        self._rx = bytearray()                       # arrived, not read yet
        self._in_flight: list[tuple[float, bytes]] = []   # (arrival time, reply)
        self._clock = 0.0
        self._gone = False

    def _arrive(self) -> None:
        while self._in_flight and self._in_flight[0][0] <= self._clock:
            self._rx += self._in_flight.pop(0)[1]

    def _wire(self, n: int) -> float:
        return n * 10 / self.baud if self.baud else 0.0

    def _drop(self) -> DisconnectedError:
        self._gone = True
        return DisconnectedError(
            "The connection to the simulated programmer was lost.",
            cause="the programmer was unplugged or reset in the middle of the session",
            fix="reconnect it and flash the tile again")

    def write(self, data: bytes) -> None:
        if self._gone:
            raise self._drop()
        self.bytes_out += len(data)
        self._clock += self._wire(len(data))
        try:
            for reply in self.link.process(bytes(data)):
                self._in_flight.append((self._clock + self.latency, reply))
        except LinkDropped:
            raise self._drop() from None

    def read(self, n: int, timeout: float) -> bytes:
        if self._gone:
            raise self._drop()
        self._arrive()
        deadline = self._clock + timeout
        while len(self._rx) < n and self._in_flight and self._in_flight[0][0] <= deadline:
            self._clock = max(self._clock, self._in_flight[0][0])
            self._arrive()
        if len(self._rx) < n:
            self._clock = deadline
            if self.link.dropped:
                raise self._drop()
        out = bytes(self._rx[:n])
        del self._rx[:n]
        self.bytes_in += len(out)
        self._clock += self._wire(len(out))
        return out

    def discard_input(self) -> None:
        self._arrive()              # what is still on its way is not discarded
        self._rx.clear()

    def now(self) -> float:
        return self._clock

    def sleep(self, seconds: float) -> None:
        self._clock += max(0.0, seconds)

    def close(self) -> None:
        pass
