"""Workshop mode: tile after tile, counted, a bad tile set aside without stopping."""

import pytest

from blinkc.flash.errors import DisconnectedError, FlashError, NoTargetError, VerifyError
from blinkc.flash.flasher import flash_image
from blinkc.flash.targets import ATMEGA168PB
from blinkc.flash.workshop import ClipStation, PromptStation, Tally, workshop
from blinkc.progsim import Chip, ProgrammerSim

from .conftest import connected


class Events:
    def __init__(self):
        self.log = []

    def waiting(self, tile):
        self.log.append(("waiting", tile))

    def flashing(self, tile):
        self.log.append(("flashing", tile))

    def done(self, tile, result, tally):
        self.log.append(("done", tile, tally.ok, tally.failed))

    def failed(self, tile, error, tally):
        self.log.append(("failed", tile, type(error).__name__))

    def wrong_chip(self, error):
        self.log.append(("wrong chip", error.what))

    def nothing_flashed(self, tile, error):
        self.log.append(("nothing flashed", tile, type(error).__name__))

    def remove(self, tile):
        self.log.append(("remove", tile))


def isp_workshop(sim, image, events, tally, count, poll=0.3):
    """The workshop as `blinkc flash --repeat` runs it on an ISP programmer."""
    prog = connected(sim)
    return workshop(lambda: flash_image(prog, image, ATMEGA168PB, efuse=0xF8),
                    ClipStation(prog, ATMEGA168PB, events, poll), events, tally, count=count)


def test_three_tiles_in_a_row(game_image):
    sim = ProgrammerSim("stk500v1", tiles=3)
    events, tally = Events(), Tally()
    isp_workshop(sim, game_image, events, tally, count=3)
    assert (tally.ok, tally.failed) == (3, 0)
    for chip in sim.workbench.tiles:
        assert bytes(chip.flash) == game_image.flat(16384)
        assert chip.read_fuse("ext") == 0xF8
    assert [e for e in events.log if e[0] == "done"] == [
        ("done", 1, 1, 0), ("done", 2, 2, 0), ("done", 3, 3, 0)]
    assert events.log[-1] == ("done", 3, 3, 0)          # no "take it off" after the last


def test_a_bad_tile_is_counted_and_the_workshop_goes_on(game_image):
    sim = ProgrammerSim("stk500v2", tiles=3)
    sim.workbench.tiles[1].bad_pages.add(0x1780)
    events, tally = Events(), Tally()
    isp_workshop(sim, game_image, events, tally, count=3)
    assert (tally.ok, tally.failed) == (2, 1)
    assert ("failed", 2, "VerifyError") in events.log
    assert tally.failures[0].startswith("tile 2: Verify failed at 0x1780")
    assert bytes(sim.workbench.tiles[2].flash) == game_image.flat(16384)


def test_a_chip_that_is_not_a_blink_is_reported_and_skipped(game_image):
    sim = ProgrammerSim("stk500v1", tiles=2)
    stranger = Chip(ATMEGA168PB, signature=bytes([0x1E, 0x95, 0x0F]))
    sim.workbench.tiles.insert(1, stranger)
    sim.workbench.patience = 3       # the person takes it off again after a moment
    events, tally = Events(), Tally()
    isp_workshop(sim, game_image, events, tally, count=2)
    assert tally.ok == 2
    assert any(e[0] == "wrong chip" and "ATmega328P" in e[1] for e in events.log)
    assert bytes(stranger.flash) == b"\xff" * 16384        # never touched


def test_a_link_drop_mid_write_counts_the_tile_as_failed_and_ends_the_workshop(game_image):
    sim = ProgrammerSim("stk500v1", tiles=3, faults=["disconnect=60"])   # during the writes
    events, tally = Events(), Tally()
    with pytest.raises(DisconnectedError):
        isp_workshop(sim, game_image, events, tally, count=3)
    assert (tally.ok, tally.failed) == (0, 1)
    assert tally.failures[0].startswith("tile 1: The connection to the simulated programmer")
    assert ("failed", 1, "DisconnectedError") in events.log
    assert sim.workbench.tiles[0].page_writes > 0          # it really was half written


def test_asked_tiles_an_empty_clip_is_asked_again_and_a_dead_programmer_ends_it():
    # avrdude's workshop: the person says when a tile is on. An empty clip is not a failed
    # tile; a verify failure is counted and the workshop goes on; avrdude giving up (any
    # other error) counts the tile on the clip and ends it.
    results = iter([NoTargetError("No chip answers."), None, VerifyError("Verify failed."),
                    None, FlashError("avrdude gave up.")])

    def flash_tile():
        r = next(results)
        if r is not None:
            raise r

    answers = iter([True] * 10)
    events, tally = Events(), Tally()
    with pytest.raises(FlashError, match="avrdude gave up"):
        workshop(flash_tile, PromptStation(lambda tile: next(answers)), events, tally)
    assert ("nothing flashed", 1, "NoTargetError") in events.log
    assert (tally.ok, tally.failed) == (2, 2)
    assert tally.failures == ["tile 2: Verify failed.", "tile 4: avrdude gave up."]


def test_asked_tiles_the_person_ends_the_workshop():
    answers = iter([True, True, False])
    events, tally = Events(), Tally()
    workshop(lambda: None, PromptStation(lambda tile: next(answers)), events, tally)
    assert (tally.ok, tally.failed) == (2, 0)
