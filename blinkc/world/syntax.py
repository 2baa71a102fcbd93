"""Shared pieces of the hand-written text formats (layouts and scenarios).

Both formats are line based: `#` starts a comment, blank lines are ignored,
words are separated by spaces, and a value may be quoted with double quotes
(JSON string syntax). Every error carries the file and line it came from, so
the command line can print `file:line: what is wrong` and never a traceback.
"""

from __future__ import annotations

import difflib
import json
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass

#: A value given to a program in `key=value` form.
Value = int | bool | str

#: Tile names: a letter or underscore, then letters, digits, `_` or `-`.
NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*\Z")
_KEY_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_INT_RE = re.compile(r"[+-]?(?:0[xX][0-9a-fA-F]+|\d+)\Z")
_DURATION_RE = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ms|s|min)\Z")
_NUMBER_RE = re.compile(r"(?:\d+(?:\.\d*)?|\.\d+)\Z")
# A word: runs of plain characters and complete "quoted" parts.
_WORD_RE = re.compile(r'(?:[^\s"#]|"(?:[^"\\]|\\.)*")+')
_BAREWORD_RE = re.compile(r"[^\s\"#=]+\Z")


@dataclass(frozen=True)
class Where:
    """A place in a text file (or in Python code) that a thing came from."""

    path: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        path = self.path or "<text>"
        return f"{path}:{self.line}" if self.line is not None else path


class SourceError(Exception):
    """A mistake in a layout or scenario, with where it is and what to do."""

    def __init__(self, message: str, where: Where | None = None, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.where = where
        self.hint = hint

    def __str__(self) -> str:
        text = f"{self.where}: {self.message}" if self.where else self.message
        return f"{text}\n  hint: {self.hint}" if self.hint else text


def caller_where() -> Where:
    """The line of Python code that called into this module's caller (for API errors)."""
    frame = sys._getframe(1)
    here = frame.f_code.co_filename
    while frame.f_back is not None and frame.f_code.co_filename == here:
        frame = frame.f_back
    return Where(frame.f_code.co_filename, frame.f_lineno)


@dataclass(frozen=True)
class Word:
    """One word of a line and the column (1-based) it starts at."""

    text: str
    col: int


def split_line(line: str, where: Where, error: type[SourceError]) -> list[Word]:
    """The words of a line, without its comment."""
    words: list[Word] = []
    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        if ch.isspace():
            i += 1
            continue
        if ch == "#":
            break
        m = _WORD_RE.match(line, i)
        if m is None:  # an opening quote without its closing one
            raise error(f"unterminated quote at column {i + 1}", where,
                        'close the value with a double quote, e.g. label="two words"')
        words.append(Word(m.group(), i + 1))
        i = m.end()
    return words


def strip_comment(line: str) -> str:
    """The line up to a `#` that is not inside quotes (for column-sensitive maps)."""
    quoted = False
    for i, ch in enumerate(line):
        if ch == '"':
            quoted = not quoted
        elif ch == "#" and not quoted:
            return line[:i]
    return line


def check_name(text: str, where: Where, error: type[SourceError], what: str = "tile name") -> str:
    if not NAME_RE.match(text):
        raise error(f"{text!r} is not a valid {what}", where,
                    "names start with a letter and use letters, digits, '_' and '-'")
    return text


def parse_int(text: str) -> int | None:
    """An integer written in decimal or as 0x hex, else None."""
    if not _INT_RE.match(text):
        return None
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("+-")
    return sign * (int(body[2:], 16) if body[:2] in ("0x", "0X") else int(body))


def parse_value(text: str, where: Where, error: type[SourceError]) -> Value:
    """`true`/`false`, an integer (decimal or 0x hex), a "quoted string" or a bare word."""
    if text.startswith('"'):
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            value = None
        if not isinstance(value, str):
            raise error(f"bad quoted value {text}", where,
                        'quote the whole value: key="some text"')
        return value
    if text in ("true", "false"):
        return text == "true"
    number = parse_int(text)
    if number is not None:
        return number
    if not _BAREWORD_RE.match(text):
        raise error(f"bad value {text!r}", where, 'quote values with unusual characters: key="..."')
    return text


def format_value(value: Value) -> str:
    """The text that `parse_value` reads back as `value`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if (value and _BAREWORD_RE.match(value) and value not in ("true", "false")
            and parse_int(value) is None and not value.startswith('"')):
        return value
    return json.dumps(value)  # ASCII escapes: no odd line breaks in the file


def parse_key_value(word: Word, where: Where, error: type[SourceError]) -> tuple[str, Value]:
    key, _, raw = word.text.partition("=")
    if not _KEY_RE.match(key):
        raise error(f"{key!r} is not a valid setting name", where,
                    "settings look like key=value, with a key made of letters, digits and '_'")
    if not raw:
        raise error(f"setting {key!r} has no value", where, f"write {key}=VALUE")
    return key, parse_value(raw, where, error)


def parse_duration(text: str, where: Where | None, error: type[SourceError],
                   what: str = "duration") -> float:
    """A duration in milliseconds from text such as `80ms`, `1.5s` or `2min`."""
    m = _DURATION_RE.match(text.strip())
    if m is None:
        if _NUMBER_RE.fullmatch(text.strip()):
            hint = f"give a unit: {text}ms or {text}s"
        else:
            hint = "write a number and a unit: 80ms, 1.5s or 2min"
        raise error(f"bad {what} {text!r}", where, hint)
    number, unit = float(m.group(1)), m.group(2)
    return number * {"ms": 1.0, "s": 1000.0, "min": 60_000.0}[unit]


def format_duration(ms: float) -> str:
    if ms >= 1000 and (ms / 1000).is_integer():
        return f"{int(ms // 1000)}s"
    if float(ms).is_integer():
        return f"{int(ms)}ms"
    return f"{ms:g}ms"


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f"did you mean {close[0]!r}?" if close else None
