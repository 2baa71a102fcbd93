"""IR packets on the air: encoding and air time.

A face-value packet is the BIOS user-data header byte 0x37 followed by the
value byte (6 data bits, bit 6 the viral "button was pressed" flag, bit 7 odd
parity). A datagram is the header, the encoded datagram marker, 1..16 payload
bytes and an inverted-sum checksum. Bits are gaps between IR flashes: '1'
about 194 µs, '0' about 476 µs, with a sync of about 758 µs at each end and
a fixed overhead that makes one value packet take 5.9–7.6 ms, as measured.
"""

from __future__ import annotations

USER_DATA_HEADER = 0x37
DATAGRAM_MARKER = 0b00101010

ONE_US = 194
ZERO_US = 476
SYNC_US = 758
#: Fixed per-packet overhead, fitted so a value packet spans 5.9 ms (value 63) to 7.6 ms (value 0).
OVERHEAD_US = 160

# How the BIOS sends a packet, measured on its pins in co-simulation (docs/cosim.md, "How a
# packet is sent"): a flash, a sync, the bits, and two closing syncs. The receiver has the
# packet at the first closing sync (the air time above, from the first flash); the second is
# a last flash on the sender's LED. The send call returns just after the last data bit, while
# the BIOS's timer interrupt flashes the closing syncs, and a packet asked for while the
# tile's previous one is still flashing waits for it.
#: From blinklib's send call to the packet's first flash, the LED idle (207-211 µs measured).
TX_LEAD_US = 209
#: From the tile's previous packet's last flash to the next packet's first, sent back to back
#: (226-261 µs measured).
TX_GAP_US = 243
#: From the last data bit's flash to the send call's return (and blinklib's next step):
#: 31.5-36 µs measured; 28 here, since the model's last bit comes 4 µs late.
TX_RETURN_US = 28


def odd_parity(d: int) -> bool:
    return bin(d).count("1") & 1 == 1


def encode_value_byte(value: int, viral: bool) -> int:
    d = value & 0x3F
    if viral:
        d |= 0x40
    if not odd_parity(d):
        d |= 0x80
    return d


def checksum(payload: bytes) -> int:
    return (sum(payload) & 0xFF) ^ 0xFF


def _bits_us(b: int) -> int:
    ones = bin(b & 0xFF).count("1")
    return ones * ONE_US + (8 - ones) * ZERO_US


_HEADER_US = 2 * SYNC_US + OVERHEAD_US + _bits_us(USER_DATA_HEADER)

#: Air time of a value packet, indexed by the encoded value byte.
VALUE_AIR_US = tuple(_HEADER_US + _bits_us(b) for b in range(256))


#: encode_value_byte for every (viral << 6 | value): the hot path looks it up.
ENCODED = tuple(encode_value_byte(v & 0x3F, bool(v & 0x40)) for v in range(128))


def value_air_us(value: int, viral: bool = False) -> int:
    return VALUE_AIR_US[encode_value_byte(value, viral)]


def flashing_us(air_us: int) -> int:
    """From a packet's first flash to its last (the closing syncs): the sender's LED is busy."""
    return air_us - OVERHEAD_US + SYNC_US


def send_blocks_us(air_us: int) -> int:
    """From a packet's first flash to the send call's return: the sender's CPU is busy."""
    return air_us - OVERHEAD_US - SYNC_US + TX_RETURN_US


def datagram_air_us(payload: bytes, viral: bool = False) -> int:
    body = bytes([encode_value_byte(DATAGRAM_MARKER, viral)]) + payload + bytes([checksum(payload)])
    return _HEADER_US + sum(_bits_us(b) for b in body)


# What the BIOS's decoder takes when the two tiles' clocks differ. It times each gap between
# flashes by its own clock, so the sender's gaps look longer to a faster receiver and shorter
# to a slower one; far enough apart, a gap falls in the wrong class and the packet is lost.
# Measured on the real BIOS (v1.1.0-GM) in co-simulation with bench/ir_clock_tolerance.py:
# two tiles, the share of packets decoded at each ratio of the receiver's clock to the
# sender's (less 1); for face values over the share where the clocks are equal or close
# (which loses some to collisions: the emulator models those itself), for datagrams as below.
# docs/emulator.md has the measurement beside the tables.
#: Within these ratios every face value is decoded (none measured lost beyond collisions).
DECODE_WINDOW = (-0.155, 0.07)
#: (ratio, share of face values decoded) outside the window; linear in between, the nearest
#: end's share beyond the last point (none decoded beyond -26 % and +17.6 %, measured to ±40 %).
DECODE_POINTS: tuple[tuple[float, float], ...] = (
    (-0.26, 0.0), (-0.25, 0.10), (-0.23, 0.07), (-0.22, 0.08), (-0.21, 0.27), (-0.20, 0.44),
    (-0.19, 0.59), (-0.18, 0.68), (-0.174, 0.84), (-0.17, 0.95), (-0.16, 0.95),
    (DECODE_WINDOW[0], 1.0), (DECODE_WINDOW[1], 1.0),
    (0.075, 0.98), (0.08, 0.90), (0.087, 0.76), (0.09, 0.63), (0.10, 0.44), (0.11, 0.26),
    (0.12, 0.22), (0.124, 0.15), (0.13, 0.13), (0.136, 0.08), (0.14, 0.06), (0.15, 0.06),
    (0.16, 0.03), (0.17, 0.02), (0.176, 0.0),
)
#: The most payload bytes a datagram carries (blinklib.h's IR_DATAGRAM_LEN).
DATAGRAM_MAX_LEN = 16

Decoder = tuple[tuple[float, float], tuple[tuple[float, float], ...]]

#: Datagrams, by payload length as measured (2026-12-06, `--datagram N`, 2 runs of 10 s at
#: 22-26 clock figures): (window, points), fitted by the bench (`fit`) so that the emulator,
#: which loses datagrams of its own (collisions, a face blinded while it sends, the one-slot
#: buffer), decodes with them the shares the real BIOS did, rather than each share over the
#: share at close clocks. A faster receiver loses a datagram sooner, the more so the longer it
#: is; from 8 bytes on, some are lost at any clock difference with the faster tile sending
#: (cause unknown: docs/emulator.md). tests/world/test_datagram_decoder.py holds the figures.
DATAGRAM_DECODERS: dict[int, Decoder] = {
    1: ((-0.14, 0.07), (
        (-0.24, 0.0), (-0.23, 0.07), (-0.22, 0.02), (-0.21, 0.36), (-0.2, 0.11), (-0.19, 0.52),
        (-0.18, 0.66), (-0.17, 0.94), (-0.16, 0.94), (-0.15, 0.83), (-0.14, 1.0), (0.07, 1.0),
        (0.08, 0.67), (0.09, 0.35), (0.1, 0.05), (0.11, 0.03), (0.12, 0.03), (0.13, 0.07),
        (0.14, 0.04), (0.149, 0.0))),
    2: ((-0.16, 0.07), (
        (-0.22, 0.0), (-0.21, 0.02), (-0.2, 0.46), (-0.19, 0.61), (-0.18, 0.73), (-0.17, 0.79),
        (-0.16, 1.0), (0.07, 1.0), (0.08, 0.58), (0.09, 0.19), (0.1, 0.01), (0.11, 0.0))),
    4: ((-0.17, 0.04), (
        (-0.22, 0.0), (-0.21, 0.02), (-0.2, 0.24), (-0.19, 0.64), (-0.18, 0.62), (-0.17, 1.0),
        (0.04, 1.0), (0.05, 0.87), (0.06, 0.82), (0.07, 0.64), (0.08, 0.31), (0.09, 0.0))),
    8: ((0.0, 0.04), (
        (-0.2, 0.0), (-0.19, 0.36), (-0.18, 0.58), (-0.17, 0.81), (-0.16, 0.96), (-0.15, 1.0),
        (-0.074, 1.0), (-0.065, 0.87), (-0.057, 0.93), (-0.048, 0.87), (-0.038, 0.82),
        (-0.029, 0.81), (-0.02, 0.86), (0.0, 1.0), (0.04, 1.0), (0.05, 0.73), (0.06, 0.75),
        (0.07, 0.63), (0.08, 0.0))),
    12: ((0.0, 0.04), (
        (-0.2, 0.0), (-0.19, 0.4), (-0.18, 0.33), (-0.17, 0.88), (-0.16, 1.0), (-0.15, 0.99),
        (-0.14, 0.94), (-0.13, 0.94), (-0.107, 1.0), (-0.074, 1.0), (-0.065, 0.87),
        (-0.057, 0.88), (-0.048, 0.91), (-0.038, 0.85), (-0.029, 0.78), (-0.02, 0.82),
        (0.0, 1.0), (0.04, 1.0), (0.05, 0.83), (0.06, 0.77), (0.07, 0.66), (0.08, 0.0))),
    16: ((0.0, 0.04), (
        (-0.2, 0.0), (-0.19, 0.41), (-0.18, 0.41), (-0.17, 0.78), (-0.16, 0.99), (-0.15, 0.97),
        (-0.14, 1.0), (-0.074, 1.0), (-0.065, 0.99), (-0.057, 1.0), (-0.048, 0.88),
        (-0.038, 0.77), (-0.029, 0.82), (-0.02, 0.71), (0.0, 1.0), (0.04, 1.0), (0.05, 0.77),
        (0.06, 0.7), (0.07, 0.39), (0.08, 0.0))),
}


def table_share(decoder: Decoder, rx_over_tx: float) -> float:
    """One table's share at a ratio: 1 in its window, linear between its points, the nearest
    end's share beyond them."""
    (low, high), points = decoder
    if low <= rx_over_tx <= high:
        return 1.0
    if rx_over_tx <= points[0][0]:
        return points[0][1]
    if rx_over_tx >= points[-1][0]:
        return points[-1][1]
    k = 1
    while points[k][0] < rx_over_tx:
        k += 1
    (x0, y0), (x1, y1) = points[k - 1], points[k]
    return y0 + (y1 - y0) * (rx_over_tx - x0) / (x1 - x0)


def _datagram_decoder(length: int) -> Decoder:
    """A measured length's table; between two measured lengths, their tables weighted by
    how near the length is to each (both piecewise linear: the blend is exact at the union
    of their points), decoding everything only where both do."""
    measured = sorted(DATAGRAM_DECODERS)
    if length in DATAGRAM_DECODERS:
        return DATAGRAM_DECODERS[length]
    below = max((n for n in measured if n < length), default=measured[0])
    above = min((n for n in measured if n > length), default=measured[-1])
    if below == above:
        return DATAGRAM_DECODERS[below]
    a, b = DATAGRAM_DECODERS[below], DATAGRAM_DECODERS[above]
    w = (length - below) / (above - below)
    low, high = max(a[0][0], b[0][0]), min(a[0][1], b[0][1])
    xs = sorted({x for x, _ in a[1] + b[1] if x < low or x > high} | {low, high})
    return ((low, high),
            tuple((x, (1 - w) * table_share(a, x) + w * table_share(b, x)) for x in xs))


#: (window, points) by packet: [0] face values, [n] datagrams of n payload bytes (1..16).
#: What world_core.cpp is handed, one table a length.
DECODERS: tuple[Decoder, ...] = (
    (DECODE_WINDOW, DECODE_POINTS), *(_datagram_decoder(n) for n in range(1, DATAGRAM_MAX_LEN + 1)))


def decoded_share(rx_over_tx: float, length: int = 0) -> float:
    """The share of packets the receiver decodes when its clock runs `rx_over_tx` faster than
    the sender's (0.1: 10 % faster; -0.1: 10 % slower): a face value's (`length` 0), or a
    datagram's of `length` payload bytes. world_core.cpp computes the same, step for step,
    from the same tables (handed over by native_world/engine.py)."""
    return table_share(DECODERS[length], rx_over_tx)


def linking_skew() -> float:
    """The widest spread of clock errors (±, as Faults.skew) at which any two tiles decode
    each other's face values both ways: the worst pair, one at +s and one at -s, stays inside
    the window. (Datagrams need closer clocks, the closer the longer: 1- and 2-byte ones get
    through both ways within ±3 % too, 4-byte ones within ±1.9 %; 8- to 16-byte ones lose
    some at any clock difference.)"""
    low, high = DECODE_WINDOW
    # (1 + s) / (1 - s) - 1 <= high and (1 - s) / (1 + s) - 1 >= low; high is the nearer edge.
    s = min(high / (2 + high), -low / (2 + low))
    return int(s * 100) / 100   # in whole per cent, rounded down


#: ±3 %: clock conditions of tests and explorations that expect every link to work.
LINKING_SKEW = linking_skew()
