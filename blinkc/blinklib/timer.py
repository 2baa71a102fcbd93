"""blinklib's Timer, with the SDK's exact comparisons."""

from __future__ import annotations

from collections.abc import Callable

NEVER = 0xFFFFFFFF


class Timer:
    """A timer on the tile's frozen millis().

    Like the SDK's: it comes into the world with expiry time 0 (so it reads as
    expired from millis() == 1 on), `isExpired()` is strict (`millis() > expiry`),
    `getRemaining()` is 0 once `millis() >= expiry`, and `add()` extends the
    expiry time itself, saturating at never.
    """

    __slots__ = ("_millis", "expire_time")

    def __init__(self, millis: Callable[[], int]) -> None:
        self._millis = millis
        self.expire_time = 0

    def isExpired(self) -> bool:
        return self._millis() > self.expire_time

    def getRemaining(self) -> int:
        now = self._millis()
        return 0 if now >= self.expire_time else self.expire_time - now

    def set(self, ms: int) -> None:
        self.expire_time = (self._millis() + (ms & 0xFFFFFFFF)) & 0xFFFFFFFF

    def add(self, ms: int) -> None:
        ms &= 0xFFFF
        if ms > NEVER - self.expire_time:
            self.expire_time = NEVER
        else:
            self.expire_time += ms

    def never(self) -> None:
        self.expire_time = NEVER
