"""Arduino platform.txt / boards.txt: parsing and `{variable}` expansion.

blinkc never carries a copy of the SDK's build recipe. It reads the user's
platform.txt and boards.txt at build time and expands the `recipe.*.pattern`
entries the way the Arduino build does (see the Arduino platform specification
for 3rd-party hardware).
"""

from __future__ import annotations

import platform as _host
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

_VAR = re.compile(r"\{([^{}\s]+)\}")

# Arduino picks `key.linux` / `key.windows` / `key.macosx` over `key` on that OS.
_OS_SUFFIX = {"Linux": "linux", "Darwin": "macosx", "Windows": "windows"}.get(
    _host.system(), "linux"
)


class Properties(dict[str, str]):
    """An ordered key=value map with Arduino-style expansion."""

    @classmethod
    def parse(cls, text: str, os_suffix: str = _OS_SUFFIX) -> Properties:
        props = cls()
        overrides: dict[str, str] = {}
        for raw in text.splitlines():
            line = raw.strip()
            if not line or line.startswith("#") or "=" not in line:
                continue
            key, value = line.split("=", 1)
            key, value = key.strip(), value.strip()
            if key.endswith("." + os_suffix):
                overrides[key[: -len(os_suffix) - 1]] = value
            elif not key.endswith((".linux", ".windows", ".macosx")):
                props[key] = value
        props.update(overrides)
        return props

    @classmethod
    def load(cls, path: Path) -> Properties:
        return cls.parse(path.read_text(encoding="utf-8", errors="replace"))

    def subtree(self, prefix: str) -> Properties:
        """The entries under `prefix.`, with the prefix removed (a board's settings)."""
        cut = prefix + "."
        return Properties({k[len(cut) :]: v for k, v in self.items() if k.startswith(cut)})

    def first_level_keys(self) -> list[str]:
        return sorted({k.split(".", 1)[0] for k in self})

    def expand(self, text: str, max_depth: int = 20) -> str:
        """Replace `{name}` by its value, repeatedly; unknown names stay as they are
        (as in Arduino), so a missing variable is visible in the command line."""
        for _ in range(max_depth):
            new = _VAR.sub(lambda m: self.get(m.group(1), m.group(0)), text)
            if new == text:
                return new
            text = new
        return text

    def keys_matching(self, pattern: str) -> Iterator[str]:
        rx = re.compile(pattern)
        return (k for k in sorted(self) if rx.fullmatch(k))


def split_command(line: str) -> list[str]:
    """Split an expanded recipe into argv like Arduino does: whitespace separates
    words, double or single quotes group them (and are removed), no backslash
    escapes (so Windows paths survive)."""
    args: list[str] = []
    word: list[str] = []
    quote: str | None = None
    started = False
    for ch in line:
        if quote:
            if ch == quote:
                quote = None
            else:
                word.append(ch)
        elif ch in "\"'":
            quote, started = ch, True
        elif ch.isspace():
            if started:
                args.append("".join(word))
                word, started = [], False
        else:
            word.append(ch)
            started = True
    if started:
        args.append("".join(word))
    return args


def board_properties(platform_dir: Path, board: str = "blink") -> Properties:
    """platform.txt, overridden by the board's entries in boards.txt, overridden by
    an optional platform.local.txt — the same layering as the Arduino build."""
    props = Properties.load(platform_dir / "platform.txt")
    boards = Properties.load(platform_dir / "boards.txt")
    props.update(boards.subtree(board))
    local = platform_dir / "platform.local.txt"
    if local.is_file():
        props.update(Properties.load(local))
    return props


def merged(base: Mapping[str, str], extra: Mapping[str, str]) -> Properties:
    out = Properties(base)
    out.update(extra)
    return out
