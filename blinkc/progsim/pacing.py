"""Make a simulated link as slow as a real serial line (8N1: 10 bits a byte)."""

from __future__ import annotations

import time


class Pacer:
    """Tracks when each direction of the line is free; sleeps to keep real time.

    A command is only acted on once its last byte would have arrived, and a
    reply is only delivered once its last byte would have been sent.
    """

    def __init__(self, baud: int) -> None:
        self.baud = baud
        self.byte_time = 10.0 / baud
        self._rx_free = 0.0
        self._tx_free = 0.0

    def received(self, n: int) -> None:
        now = time.monotonic()
        self._rx_free = max(now, self._rx_free) + n * self.byte_time
        _sleep_until(self._rx_free)

    def transmit(self, n: int) -> None:
        now = time.monotonic()
        self._tx_free = max(now, self._tx_free) + n * self.byte_time
        _sleep_until(self._tx_free)


def _sleep_until(t: float) -> None:
    delay = t - time.monotonic()
    if delay > 0:
        time.sleep(delay)
