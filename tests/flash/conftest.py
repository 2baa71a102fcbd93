"""Shared images and a quick way to a connected programmer on the in-memory simulator."""

import pytest

from blinkc.flash.flasher import SERIAL_PROGRAMMERS, open_programmer
from blinkc.flash.hexfile import Image, synthetic_blinks_image, synthetic_image
from blinkc.flash.targets import ATMEGA168PB
from blinkc.progsim import ProgrammerSim

PROTOCOLS = ["stk500v1", "stk500v2"]


@pytest.fixture(scope="session")
def full_image() -> Image:
    """Every byte of the 16 KB flash (needs --raw on a Blink: it covers 0x0000)."""
    return synthetic_image([(0x0000, 16 * 1024)], seed=11, source="full16k.hex")


@pytest.fixture(scope="session")
def game_image() -> Image:
    """A realistic image: a 5,000-byte game at 0x1700 and a made-up BIOS at 0x2E00-0x3FFF."""
    return synthetic_blinks_image(5000, seed=12, source="GAME.with_bootloader.hex")


def connected(sim: ProgrammerSim, baud: int | None = None):
    """A protocol object on the simulator's in-memory transport, already synced."""
    prog = open_programmer(SERIAL_PROGRAMMERS[sim.protocol], ATMEGA168PB,
                           transport=sim.transport(baud))
    prog.connect()
    return prog
