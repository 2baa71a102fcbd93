"""Helpers for driving native tiles in the world and watching them pass by pass."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from blinkc.blinklib import Blinklib
from blinkc.world import World


@dataclass(frozen=True)
class Pass:
    """What one pass of a tile produced."""

    world_ms: float
    millis: int
    values: tuple[int, ...]
    pixels: tuple[int, ...]


@dataclass
class Recorder:
    """Wraps a tile program and records every pass (the world sees no hooks: no idle skip)."""

    program: Any
    world: World
    passes: list[Pass] = field(default_factory=list)

    def setup(self, api: Blinklib) -> None:
        self.program.setup(api)

    def loop(self, api: Blinklib) -> None:
        self.program.loop(api)
        self.passes.append(Pass(self.world.now_ms, api.now, tuple(api.out_value),
                                tuple(api.pixels)))

    def first(self, predicate) -> Pass | None:
        return next((p for p in self.passes if predicate(p)), None)


def click(world: World, name: str, hold_ms: float = 60) -> None:
    """Press and release a tile's button now (a single click fires 330 ms after the press)."""
    world.button(name, True)
    world.run_for(hold_ms)
    world.button(name, False)
