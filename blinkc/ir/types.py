"""The IR's value types beyond C's integers (blinkc.blinklib.arith's): booleans and colours.
blinkc.ir.nodes re-exports them with the integer types, so the IR's types come from one place."""

from __future__ import annotations

from dataclasses import dataclass

from ..blinklib.arith import IntType


@dataclass(frozen=True)
class BoolType(IntType):
    """Booleans: stored as uint8 0/1, but a type of their own (never equal to U8)."""


BOOL = BoolType(8, False)


@dataclass(frozen=True)
class ColorType(IntType):
    """A colour value (16 bits); only made, dimmed and shown, never computed with."""


COLOR = ColorType(16, False)
