"""How many datagrams get through between two tiles whose clocks differ depends on the
datagram's length, as co-simulation of the real BIOS measured it (bench/ir_clock_tolerance.py
--datagram N, docs/emulator.md). The emulator, with its decoder model, decodes the shares the
real BIOS did, length by length. No SDK needed: the measurement is written down here."""

import pytest

from blinkc.blinklib import Blinklib
from blinkc.world import Faults, World, python_engine
from blinkc.world.infrared import DATAGRAM_DECODERS, DATAGRAM_MAX_LEN, DECODERS, decoded_share

#: Measured 2026-12-06 (BlinkBIOS v1.1.0-GM in co-simulation, two tiles facing each other,
#: each sending a datagram on every face every pass; 2 runs of 10 s a figure): per payload
#: length, rx/tx in % (the receiver's clock over the sender's, less 1) -> (datagrams sent,
#: datagrams the receiving sketch took).
MEASURED = {
    1: {
        -22: (128, 2), -21: (128, 40), -20: (128, 14), -19: (128, 64), -18: (126, 82),
        -17: (128, 120), -16: (128, 120), -15: (128, 104), -14: (128, 128), -13: (136, 128),
        -12.3: (186, 182), -11.5: (168, 168), -10.7: (160, 154), -9.9: (156, 154),
        -9.1: (216, 194), -8.3: (192, 190), -7.4: (226, 226), -6.5: (312, 296), -5.7: (336, 332),
        -4.8: (336, 332), -3.8: (372, 366), -2.9: (342, 342), -2: (368, 364), 0: (742, 730),
        2: (366, 366), 3: (344, 340), 4: (370, 366), 5: (336, 328), 6: (336, 322), 7: (306, 278),
        8: (226, 150), 9: (192, 68), 10: (208, 12), 11: (158, 4), 12: (162, 6), 13: (168, 14),
        14: (188, 8)},
    2: {
        -22: (124, 0), -21: (124, 2), -20: (124, 56), -19: (124, 74), -18: (126, 88),
        -17: (126, 94), -16: (124, 114), -15: (126, 122), -14: (126, 114), -13: (132, 132),
        -10.7: (156, 154), -9.9: (148, 144), -9.1: (172, 170), -8.3: (166, 162), -7.4: (190, 188),
        -6.5: (230, 230), -5.7: (230, 230), -4.8: (242, 242), -3.8: (242, 240), -2.9: (244, 244),
        -2: (244, 244), 0: (252, 4), 2: (246, 244), 3: (248, 240), 4: (242, 242), 5: (244, 230),
        6: (232, 214), 7: (232, 216), 8: (190, 110), 9: (166, 28), 10: (172, 2), 11: (150, 0),
        12: (158, 0)},
    4: {
        -22: (116, 0), -21: (118, 2), -20: (118, 24), -19: (116, 58), -18: (118, 58),
        -17: (120, 92), -16: (122, 102), -15: (124, 112), -14: (120, 104), -13: (124, 112),
        -10.7: (134, 128), -9.9: (132, 128), -9.1: (130, 128), -8.3: (128, 122), -7.4: (138, 130),
        -6.5: (142, 130), -5.7: (142, 130), -4.8: (134, 124), -3.8: (138, 130), -2.9: (138, 128),
        -2: (136, 124), 0: (252, 246), 2: (134, 124), 3: (132, 124), 4: (134, 124), 5: (130, 110),
        6: (136, 110), 7: (132, 82), 8: (138, 42), 9: (130, 0), 10: (134, 0), 11: (134, 0),
        12: (136, 0)},
    8: {
        -22: (66, 0), -21: (66, 0), -20: (74, 0), -19: (68, 20), -18: (72, 32), -17: (68, 40),
        -16: (74, 54), -15: (76, 54), -14: (74, 54), -13: (74, 58), -10.7: (80, 64),
        -9.9: (80, 66), -9.1: (80, 62), -8.3: (82, 62), -7.4: (76, 58), -6.5: (78, 60),
        -5.7: (78, 64), -4.8: (78, 60), -3.8: (80, 62), -2.9: (76, 60), -2: (76, 64),
        0: (164, 160), 2: (74, 72), 3: (74, 68), 4: (78, 72), 5: (74, 50), 6: (76, 54),
        7: (74, 44), 8: (70, 0), 9: (78, 0), 10: (74, 0), 11: (74, 0), 12: (74, 0)},
    12: {
        -22: (46, 0), -21: (52, 0), -20: (52, 0), -19: (48, 14), -18: (54, 12), -17: (50, 30),
        -16: (50, 40), -15: (54, 40), -14: (56, 38), -13: (56, 38), -10.7: (60, 44),
        -9.9: (60, 48), -9.1: (60, 44), -8.3: (58, 44), -7.4: (58, 42), -6.5: (58, 44),
        -5.7: (60, 46), -4.8: (54, 44), -3.8: (56, 44), -2.9: (54, 42), -2: (50, 40),
        0: (122, 120), 2: (46, 46), 3: (52, 48), 4: (50, 44), 5: (52, 40), 6: (58, 42),
        7: (52, 32), 8: (52, 0), 9: (54, 0), 10: (56, 0), 11: (48, 0), 12: (46, 0)},
    16: {
        -22: (38, 0), -21: (42, 0), -20: (44, 0), -19: (38, 12), -18: (38, 10), -17: (38, 24),
        -16: (40, 32), -15: (44, 32), -14: (40, 38), -13: (44, 34), -12.3: (46, 38),
        -11.5: (46, 32), -10.7: (48, 34), -9.9: (48, 36), -9.1: (46, 34), -8.3: (46, 34),
        -7.4: (48, 32), -6.5: (44, 36), -5.7: (38, 34), -4.8: (46, 36), -3.8: (46, 34),
        -2.9: (40, 32), -2: (44, 32), 0: (96, 92), 2: (42, 40), 3: (38, 34), 4: (44, 40),
        5: (42, 30), 6: (26, 18), 7: (38, 14), 8: (44, 0), 9: (40, 0), 10: (38, 0), 11: (40, 0),
        12: (40, 0), 13: (38, 0), 14: (30, 0)},
}


class Counter:
    """The bench's sketch: a datagram of `length` bytes on every face every pass; counts the
    datagrams taken per face."""

    def __init__(self, length: int) -> None:
        self.payload = bytearray(length)
        self.taken = [0] * 6

    def setup(self, b: Blinklib) -> None:
        pass

    def loop(self, b: Blinklib) -> None:
        self.payload[0] = (self.payload[0] + 1) & 0xFF
        for f in range(6):
            b.sendDatagramOnFace(bytes(self.payload), f)
            if b.isDatagramReadyOnFace(f):
                self.taken[f] += 1
                b.markDatagramReadOnFace(f)


def emulated(length: int, seeds: int = 4) -> dict[float, list[int]]:
    """The bench's runs in the emulator: rx/tx % -> [sent, taken], both directions."""
    sent: dict[tuple[str, int], int] = {}
    launch = python_engine.PythonEngine._launch

    def counting(self, sender, face, start, pkt):
        sent[sender.name, face] = sent.get((sender.name, face), 0) + 1
        return launch(self, sender, face, start, pkt)

    rows: dict[float, list[int]] = {}
    figures = sorted({round(r) for r in MEASURED[length] if float(r).is_integer()})
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(python_engine.PythonEngine, "_launch", counting)
        for pct in figures:
            ppm = pct * 10_000
            for seed in range(seeds):
                sent.clear()
                r, s = Counter(length), Counter(length)
                w = World(seed=seed, faults=Faults(skew=0))
                w.add_tile("s", s, (0, 0), ppm=ppm)   # s's face 3 touches ...
                w.add_tile("r", r, (0, 1), ppm=0)     # ... r's face 0
                w.run_for(10_000)
                for ratio, n, got in (
                        (1_000_000 / (1_000_000 + ppm) - 1, sent.get(("s", 3), 0), r.taken[0]),
                        (ppm / 1_000_000, sent.get(("r", 0), 0), s.taken[3])):
                    row = rows.setdefault(round(ratio * 100, 1), [0, 0])
                    row[0] += n
                    row[1] += got
    return rows


@pytest.mark.parametrize("length", sorted(MEASURED))
def test_the_emulator_decodes_the_shares_the_real_bios_did(length):
    emu = emulated(length)
    errors = {}
    for ratio, (sent, got) in MEASURED[length].items():
        if ratio == 0 or ratio not in emu or sent < 20:
            continue   # equal clocks lock the two tiles' passes in phase: for 2 bytes in
            # both runs where their datagrams collide (4 of 252 taken), a matter of phase
        errors[ratio] = emu[ratio][1] / emu[ratio][0] - got / sent
        if got == 0:   # nothing got through on the real BIOS: nothing in the emulator
            assert emu[ratio][1] == 0, (ratio, emu[ratio])
    assert len(errors) >= 10
    # Two runs a figure on the real BIOS, a few dozen to a few hundred datagrams each: each
    # share is within sampling error, and they agree on the whole (a mean difference of
    # 0.02-0.06 a length; 0.06-0.09 with the 8-byte table for every length, as before);
    # except that from -7 % to -11 % the emulator takes up to 0.3 fewer 8- to 16-byte
    # datagrams than the real BIOS (there the other way is deaf, and the emulator loses more
    # of its own: the table, at 1, cannot give them back; docs/emulator.md).
    assert max(abs(e) for e in errors.values()) < 0.35, errors
    assert sum(abs(e) for e in errors.values()) / len(errors) < 0.07, errors


def test_every_length_has_a_table_from_the_measured_lengths_around_it():
    assert len(DECODERS) == DATAGRAM_MAX_LEN + 1
    assert set(DATAGRAM_DECODERS) <= set(range(1, DATAGRAM_MAX_LEN + 1))
    measured = sorted(DATAGRAM_DECODERS)
    for n in range(1, DATAGRAM_MAX_LEN + 1):
        below = max((m for m in measured if m <= n), default=measured[0])
        above = min((m for m in measured if m >= n), default=measured[-1])
        for pct in range(-25, 16):
            x = pct / 100
            a, b = decoded_share(x, below), decoded_share(x, above)
            assert min(a, b) - 1e-12 <= decoded_share(x, n) <= max(a, b) + 1e-12, (n, x)


def test_a_long_datagram_is_lost_sooner_than_a_short_one_by_a_faster_receiver():
    # Measured: at +7 % the real BIOS took 91 % of 1-byte datagrams and 37 % of 16-byte ones.
    assert decoded_share(0.07, 16) < decoded_share(0.07, 1)
