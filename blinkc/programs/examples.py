"""Small sketches in Python, written the way a Blinks sketch is written."""

from __future__ import annotations

from ..blinklib import BLUE, FACE_COUNT, GREEN, NEVER, OFF, ORANGE, RED, WHITE, YELLOW, Blinklib

_BY_COUNT = (OFF, RED, ORANGE, YELLOW, GREEN, BLUE, WHITE)


class NeighbourColours:
    """Colour by neighbour count: 0 off ... 6 white; sends 1 on every face."""

    def __init__(self) -> None:
        self.count = 0

    def setup(self, b: Blinklib) -> None:
        b.setValueSentOnAllFaces(1)

    def loop(self, b: Blinklib) -> None:
        self.count = sum(1 for f in range(FACE_COUNT) if not b.isValueReceivedOnFaceExpired(f))
        b.setColor(_BY_COUNT[self.count])

    def quiet_until(self, b: Blinklib) -> int:
        return NEVER  # a pure function of its inputs

    def state(self) -> dict:
        return {"neighbours": self.count}


class ClickCounter:
    """Counts single clicks (lit faces show the count mod 7); double click resets."""

    def __init__(self) -> None:
        self.clicks = 0
        self.doubles = 0
        self.multis = 0
        self.longs = 0

    def setup(self, b: Blinklib) -> None:
        pass

    def loop(self, b: Blinklib) -> None:
        if b.buttonSingleClicked():
            self.clicks += 1
        if b.buttonDoubleClicked():
            self.doubles += 1
            self.clicks = 0
        if b.buttonMultiClicked():
            self.multis += 1
        if b.buttonLongPressed():
            self.longs += 1
        b.setValueSentOnAllFaces(self.clicks)
        shown = self.clicks % 7
        for f in range(FACE_COUNT):
            b.setColorOnFace(GREEN if f < shown else OFF, f)

    def quiet_until(self, b: Blinklib) -> int:
        return NEVER

    def state(self) -> dict:
        return {"clicks": self.clicks, "doubles": self.doubles,
                "multis": self.multis, "longs": self.longs}


class HopDistance:
    """Passes a number across the cluster: the hop count from the nearest source.

    A source (click it to toggle) sends 0; every other tile sends one more
    than the smallest value it hears, so a chain counts 0, 1, 2, ... A tile
    that hears nothing sends 63.
    """

    def __init__(self, source: bool = False) -> None:
        self.source = bool(source)
        self.distance = 63

    def setup(self, b: Blinklib) -> None:
        pass

    def loop(self, b: Blinklib) -> None:
        if b.buttonSingleClicked():
            self.source = not self.source
        if self.source:
            self.distance = 0
        else:
            best = 62
            for f in range(FACE_COUNT):
                if not b.isValueReceivedOnFaceExpired(f):
                    best = min(best, b.getLastValueReceivedOnFace(f))
            self.distance = best + 1
        b.setValueSentOnAllFaces(self.distance)
        b.setColor(RED if self.source else b.dim(BLUE, max(0, 255 - 40 * self.distance)))

    def quiet_until(self, b: Blinklib) -> int:
        return NEVER

    def state(self) -> dict:
        return {"source": self.source, "distance": self.distance}


class BusyCounter:
    """Changes its face values every pass (a load for benchmarks)."""

    def __init__(self) -> None:
        self.n = 0

    def setup(self, b: Blinklib) -> None:
        pass

    def loop(self, b: Blinklib) -> None:
        self.n = (self.n + 1) & 63
        for f in range(FACE_COUNT):
            b.setValueSentOnFace((self.n + f) & 63, f)
        b.setColorOnFace(b.makeColorHSB(self.n * 4, 255, 255), self.n % FACE_COUNT)

    def state(self) -> dict:
        return {"n": self.n}
