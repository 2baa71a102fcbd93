"""AVR integer arithmetic for host code.

On the ATmega168PB `int` is 16-bit, `byte` is uint8, `word` uint16 and `long`
32-bit. Python integers are unbounded, so every value that lives in a typed
C variable must be wrapped to its width after each operation. The backends
call these helpers so the emulator computes exactly what the tile computes.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class IntType:
    """A fixed-width C integer type."""

    bits: int
    signed: bool

    @property
    def c_name(self) -> str:
        return f"{'' if self.signed else 'u'}int{self.bits}_t"

    @property
    def min(self) -> int:
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def max(self) -> int:
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1

    def wrap(self, value: int) -> int:
        """Two's-complement wrap of `value` into this type (C conversion rules)."""
        mask = (1 << self.bits) - 1
        value &= mask
        if self.signed and value >> (self.bits - 1):
            value -= 1 << self.bits
        return value

    def contains(self, value: int) -> bool:
        return self.min <= value <= self.max


U8 = IntType(8, False)
I8 = IntType(8, True)
U16 = IntType(16, False)
I16 = IntType(16, True)
U32 = IntType(32, False)
I32 = IntType(32, True)

#: The AVR names for the C types a sketch uses.
BYTE, WORD, INT, LONG = U8, U16, I16, I32


def u8(v: int) -> int:
    return v & 0xFF


def u16(v: int) -> int:
    return v & 0xFFFF


def u32(v: int) -> int:
    return v & 0xFFFFFFFF


def i16(v: int) -> int:
    return I16.wrap(v)


def i32(v: int) -> int:
    return I32.wrap(v)


def promote(t: IntType) -> IntType:
    """C integer promotion on AVR: anything narrower than int becomes int (16-bit signed)."""
    return INT if t.bits < 16 else t


def common_type(a: IntType, b: IntType) -> IntType:
    """The usual arithmetic conversions of C, for AVR's type widths."""
    a, b = promote(a), promote(b)
    if a == b:
        return a
    if a.bits != b.bits:
        # On AVR a wider type, signed or not, holds every value of a narrower one.
        return a if a.bits > b.bits else b
    # Same width, different signedness: unsigned wins.
    return a if not a.signed else b


def c_div(a: int, b: int) -> int:
    """C division: truncates toward zero (Python's // floors)."""
    if b == 0:
        raise ZeroDivisionError("division by zero on the tile is undefined behaviour")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def c_mod(a: int, b: int) -> int:
    """C remainder: has the sign of the dividend."""
    return a - c_div(a, b) * b
