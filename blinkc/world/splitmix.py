"""The world's fault stream: SplitMix64, a small generator specified in full.

Both world engines (this Python world and the C++ core, `native_world/core/splitmix64.h`) draw
packet drops and delivery jitter from it, so they drop and delay exactly the same packets
for a seed, and the stream does not depend on CPython's `random` internals. SplitMix64 is
Steele, Lea and Flood's generator (Java's SplittableRandom) as published by Vigna; the
tests check it against the reference outputs.
"""

from __future__ import annotations

import hashlib

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15


class SplitMix64:
    """64-bit draws; `chance(p)` and `below(n)` are the two the world needs."""

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK

    @classmethod
    def from_text(cls, text: str) -> SplitMix64:
        """A generator seeded from a text (the first 8 bytes of its SHA-256, little-endian)."""
        return cls(int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little"))

    def next64(self) -> int:
        self.state = z = (self.state + _GAMMA) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def chance(self, p: float) -> bool:
        """True with probability p: the top 53 bits as a fraction in [0, 1), below p."""
        return (self.next64() >> 11) * (1.0 / (1 << 53)) < p

    def below(self, n: int) -> int:
        """A whole number in 0..n-1 (1 <= n < 2**32, as the core takes it; the modulo's bias is
        below 2**-32)."""
        return self.next64() % n
