"""blinklib's integer helpers `map()` and `sin8_C()`, bit for bit."""

from __future__ import annotations

_B_M16_INTERLEAVE = (0, 49, 49, 41, 90, 27, 117, 10)


def map_range(x: int, in_min: int, in_max: int, out_min: int, out_max: int) -> int:
    """blinklib's map(): word arguments, clamped input, 16-bit spans, 32-bit product."""
    x, in_min, in_max = x & 0xFFFF, in_min & 0xFFFF, in_max & 0xFFFF
    out_min, out_max = out_min & 0xFFFF, out_max & 0xFFFF
    if x < in_min:
        return out_min
    if x > in_max:
        return out_max
    in_span = (in_max - in_min) & 0xFFFF
    out_span = (out_max - out_min) & 0xFFFF
    if in_span > out_span:
        # (out_max - out_min + 1) is int arithmetic on word operands: unsigned, wraps at 16 bits.
        num, den = (out_span + 1) & 0xFFFF, (in_span + 1) & 0xFFFF
    else:
        num, den = out_span, in_span
    if den == 0:
        quotient = 0xFFFFFFFF  # avr-gcc's unsigned 32-bit division by zero
    else:
        quotient = (((x - in_min) & 0xFFFF) * num & 0xFFFFFFFF) // den
    return ((quotient & 0xFFFF) + out_min) & 0xFFFF


def sin8_C(theta: int) -> int:
    """FastLED's 8-bit sine approximation: one period over 0..255, centred on 128."""
    theta &= 0xFF
    offset = theta
    if theta & 0x40:
        offset = 255 - offset
    offset &= 0x3F
    secoffset = offset & 0x0F
    if theta & 0x40:
        secoffset += 1
    section = offset >> 4
    b = _B_M16_INTERLEAVE[section * 2]
    m16 = _B_M16_INTERLEAVE[section * 2 + 1]
    mx = (m16 * secoffset) >> 4
    y = (mx + b) & 0xFF
    if y >= 128:
        y -= 256  # int8_t
    if theta & 0x80:
        y = -y
    return (y + 128) & 0xFF
