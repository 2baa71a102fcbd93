"""Sans-IO plumbing shared by the simulated programmers.

A server is fed bytes as they arrive and returns the complete replies they
produced. Its protocol logic is written as a generator that pulls one byte
at a time, like the firmware it imitates (`ch = yield from self.getch()`),
so partial commands simply wait for more input.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Generator

from .chip import Target

Pull = Generator[None, None, int]


class ProgrammerServer:
    protocol = "?"

    def __init__(self, chip: Target) -> None:
        self.chip = chip
        self._in: deque[int] = deque()
        self._replies: list[bytes] = []
        self.commands = 0              # requests handled, for tests
        self._gen = self.run()
        next(self._gen)

    def feed(self, data: bytes) -> list[bytes]:
        """Take bytes from the host; return the replies they completed."""
        self._in.extend(data)
        next(self._gen)
        out, self._replies = self._replies, []
        return out

    def reply(self, *parts: int | bytes) -> None:
        buf = bytearray()
        for p in parts:
            if isinstance(p, int):
                buf.append(p)
            else:
                buf += p
        self._replies.append(bytes(buf))

    def getch(self) -> Pull:
        while not self._in:
            yield
        return self._in.popleft()

    def fill(self, n: int) -> Generator[None, None, bytes]:
        buf = bytearray()
        while len(buf) < n:
            while not self._in:
                yield
            take = min(n - len(buf), len(self._in))
            buf += bytes(self._in.popleft() for _ in range(take))
        return bytes(buf)

    def run(self) -> Generator[None, None, None]:
        raise NotImplementedError
