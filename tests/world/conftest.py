import pytest

from blinkc.blinklib import FACE_COUNT, NEVER, Blinklib
from blinkc.world import Trace, World


class FaceIds:
    """Sends 10 + f on face f; records what each pass saw."""

    def __init__(self, base: int = 10) -> None:
        self.base = base
        self.seen: list[tuple[int, list[int], list[bool]]] = []

    def setup(self, b: Blinklib) -> None:
        for f in range(FACE_COUNT):
            b.setValueSentOnFace(self.base + f, f)

    def loop(self, b: Blinklib) -> None:
        self.seen.append((b.millis(), list(b.in_value),
                          [b.isValueReceivedOnFaceExpired(f) for f in range(FACE_COUNT)]))

    def quiet_until(self, b: Blinklib) -> int:
        return NEVER


class Settable:
    """Sends whatever value the test puts in `.value`; logs latch times of received values."""

    def __init__(self, value: int = 0) -> None:
        self.value = value
        self.log: list[tuple[int, int]] = []  # (millis, value on face 0..5 joined)

    def setup(self, b: Blinklib) -> None:
        pass

    def loop(self, b: Blinklib) -> None:
        b.setValueSentOnAllFaces(self.value)


@pytest.fixture
def world():
    return World(seed=7, trace=Trace())


@pytest.fixture
def face_ids():
    return FaceIds
