"""DSL errors: where (file:line), what is wrong, and what to do instead."""

from __future__ import annotations

from dataclasses import dataclass

from ..ir.nodes import SrcLoc


@dataclass
class DslError(Exception):
    loc: SrcLoc
    message: str
    hint: str = ""
    severity: str = "error"  # or "warning"

    def __str__(self) -> str:
        text = f"{self.loc}: {self.severity}: {self.message}"
        if self.hint:
            text += f"\n    hint: {self.hint}"
        return text


class GameErrors(Exception):
    """Every error found while compiling a game (raised once, after collecting them all)."""

    def __init__(self, errors: list[DslError]) -> None:
        self.errors = errors
        super().__init__("\n".join(str(e) for e in errors))
