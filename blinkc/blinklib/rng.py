"""blinklib's random numbers: xorshift32 with Marsaglia's seed."""

from __future__ import annotations

SEED = 2463534242


class Xorshift32:
    """The tile's generator. Every tile starts from the same seed until `randomize()`."""

    __slots__ = ("state",)

    def __init__(self, state: int = SEED) -> None:
        self.state = state & 0xFFFFFFFF or SEED

    def next32(self) -> int:
        x = self.state
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self.state = x
        return x

    def random_word(self) -> int:
        """randomWord(): the low 16 bits of the next state."""
        return self.next32() & 0xFFFF

    def random(self, limit: int) -> int:
        """random(limit): uniform in 0..limit inclusive, by rejection sampling."""
        limit &= 0xFFFF
        span = (limit + 1) & 0xFFFF  # unsigned int on AVR: random(65535) wraps to 0
        # avr-gcc's unsigned division by zero yields 0xFFFF; mirror it.
        divisor = 0xFFFF // span if span else 0xFFFF
        while True:
            r = self.random_word() // divisor
            if r <= limit:
                return r
