"""Workshop mode: flash tile after tile, count them, set a bad tile aside and go on.

One loop for every programmer. What differs is the station, how the loop learns that a
tile is on the clip and off it again: `ClipStation` polls an ISP programmer for a
signature; `PromptStation` asks the person (avrdude cannot poll cheaply), so for it an
empty clip or the wrong chip is not a tile that failed, only a reason to ask again.

The policy, in one place: a tile that does not verify, or is lost from the clip half way,
is counted as failed and the workshop goes on; a broken link to the programmer (or an
avrdude run that gives up) counts the tile on the clip as failed and ends the workshop
with that error, after the tally is final.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from .errors import FlashError, NoTargetError, VerifyError, WrongChipError
from .flasher import FlashResult, probe, validate_signature
from .isp import IspProgrammer
from .targets import Part


@dataclass
class Tally:
    ok: int = 0
    failed: int = 0
    failures: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.ok + self.failed

    def fail(self, tile: int, error: FlashError) -> None:
        self.failed += 1
        self.failures.append(f"tile {tile}: {error.what}")


class WorkshopEvents(Protocol):
    def waiting(self, tile: int) -> None: ...

    def flashing(self, tile: int) -> None: ...

    def done(self, tile: int, result: FlashResult | None, tally: Tally) -> None: ...

    def failed(self, tile: int, error: FlashError, tally: Tally) -> None: ...

    def wrong_chip(self, error: WrongChipError) -> None: ...

    def nothing_flashed(self, tile: int, error: FlashError) -> None: ...  # asked again

    def remove(self, tile: int) -> None: ...


class Station(Protocol):
    # Errors that mean "no tile (or not a Blink) on the clip": ask again, count nothing.
    not_a_tile: tuple[type[FlashError], ...]

    def wait_for_tile(self, tile: int) -> bool: ...  # False: the person ends the workshop

    def wait_for_removal(self, tile: int) -> None: ...


class ClipStation:
    """An ISP programmer that is polled: a tile is there when its signature answers."""

    not_a_tile: tuple[type[FlashError], ...] = ()

    def __init__(self, prog: IspProgrammer, part: Part, events: WorkshopEvents,
                 poll: float = 0.3) -> None:
        self.prog, self.part, self.events, self.poll = prog, part, events, poll

    def wait_for_tile(self, tile: int) -> bool:
        reported = False
        while True:
            sig = probe(self.prog)
            if sig == self.part.signature:
                return True
            if sig is not None and not reported:
                try:
                    validate_signature(sig, self.part)
                except WrongChipError as e:
                    self.events.wrong_chip(e)
                reported = True
            elif sig is None:
                reported = False
            self.prog.transport.sleep(self.poll)

    def wait_for_removal(self, tile: int) -> None:
        while probe(self.prog) is not None:
            self.prog.transport.sleep(self.poll)


class PromptStation:
    """The person puts a tile on and says so (`ask(tile)` is False when they are done)."""

    not_a_tile: tuple[type[FlashError], ...] = (NoTargetError, WrongChipError)

    def __init__(self, ask: Callable[[int], bool]) -> None:
        self.ask = ask

    def wait_for_tile(self, tile: int) -> bool:
        return self.ask(tile)

    def wait_for_removal(self, tile: int) -> None:
        pass   # the next prompt says to put the next one on


# A tile that fails this way is set aside and the workshop goes on; any other FlashError
# means the programmer (or avrdude) gave up, which ends the workshop.
TILE_FAILURES: tuple[type[FlashError], ...] = (NoTargetError, WrongChipError, VerifyError)


def workshop(flash_tile: Callable[[], FlashResult | None], station: Station,
             events: WorkshopEvents, tally: Tally, count: int | None = None) -> Tally:
    """Flash tile after tile until `count` tiles, the station says stop, or Ctrl-C."""
    while count is None or tally.total < count:
        tile = tally.total + 1
        events.waiting(tile)
        if not station.wait_for_tile(tile):
            break
        events.flashing(tile)
        try:
            result = flash_tile()
        except station.not_a_tile as e:
            events.nothing_flashed(tile, e)   # nothing counted: the station asks again
            continue
        except TILE_FAILURES as e:
            tally.fail(tile, e)
            events.failed(tile, e, tally)
        except FlashError as e:
            # The link broke with this tile on the clip, maybe half written: it failed,
            # and without a programmer the workshop cannot go on.
            tally.fail(tile, e)
            events.failed(tile, e, tally)
            raise
        else:
            tally.ok += 1
            events.done(tile, result, tally)
        if count is not None and tally.total >= count:
            break
        events.remove(tile)
        station.wait_for_removal(tile)
    return tally
