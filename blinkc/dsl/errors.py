"""DSL errors: where (file:line), what is wrong, and what to do instead."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
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


def did_you_mean(word: str, candidates: Iterable[str], show: str = "{}") -> str:
    """"did you mean X?" for the candidate closest to a misspelt word, or "" if none is close."""
    names = sorted({c for c in candidates if c and c != word})
    close = difflib.get_close_matches(word, names, n=1, cutoff=0.6)
    if not close:
        lower = {c.lower(): c for c in names}
        close = [lower[word.lower()]] if word.lower() in lower else []
    return f"did you mean {show.format(close[0])}?" if close else ""


class MisspeltName(AttributeError):
    """An attribute a DSL object lacks (e.g. a kinds member), with a hint."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint
