"""Datagrams over the emulated IR links: 1..16 bytes, sent once, one-slot receive buffer."""

from blinkc.blinklib import Blinklib
from blinkc.world import Faults, World


class Sender:
    def __init__(self, payloads):
        self.payloads = list(payloads)  # (millis, bytes) to send on face 3

    def setup(self, b: Blinklib) -> None:
        pass

    def loop(self, b: Blinklib) -> None:
        while self.payloads and b.millis() >= self.payloads[0][0]:
            b.sendDatagramOnFace(self.payloads.pop(0)[1], 3)


class Reader:
    def __init__(self, read=True):
        self.read = read
        self.got = []

    def setup(self, b: Blinklib) -> None:
        pass

    def loop(self, b: Blinklib) -> None:
        if b.isDatagramReadyOnFace(0):
            self.got.append(bytes(b.getDatagramOnFace(0)))
            if self.read:
                b.markDatagramReadOnFace(0)


def pair(sender, reader, seed=1):
    w = World(seed=seed, faults=Faults(skew=0))
    w.add_tile("s", sender, (0, 0))          # face 3 (S) touches ...
    w.add_tile("r", reader, (0, 1))          # ... face 0 (N) of r
    return w


def test_a_datagram_arrives_once_with_its_bytes():
    reader = Reader()
    w = pair(Sender([(600, bytes(range(16)))]), reader)
    w.run_for(1500)
    assert reader.got == [bytes(range(16))]


def test_oversized_datagrams_are_ignored_and_empty_ones_cancel():
    b = Blinklib()
    b.sendDatagramOnFace(bytes(17), 2)
    assert b.out_datagram[2] is None
    b.sendDatagramOnFace(b"ab", 2)
    b.sendDatagramOnFace(b"", 2)
    assert b.out_datagram[2] is None


def test_a_new_send_replaces_an_unsent_one():
    reader = Reader()
    # Both are queued in the same pass: only the second leaves.
    w = pair(Sender([(600, b"first"), (600, b"second")]), reader)
    w.run_for(1500)
    assert reader.got == [b"second"]


def test_the_receive_slot_holds_one_datagram_until_it_is_read():
    reader = Reader(read=False)
    w = pair(Sender([(600, b"one"), (900, b"two")]), reader)
    w.run_for(1800)
    # The reader never marks it read: the second is dropped, the first stays readable.
    assert set(reader.got) == {b"one"}
