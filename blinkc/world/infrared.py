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
