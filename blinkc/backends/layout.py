"""Lines of C++ that know where they may be broken, and their folding within LINE_WIDTH.

The expression printer (cexpr.py) records where each operator and argument separator sits
and how many parentheses are open there; the folding breaks a long line at those places
only, so it never reads the text back to find them.
"""

from __future__ import annotations

from dataclasses import dataclass

#: No line of the sketch runs past this column.
LINE_WIDTH = 120

_BREAKS = (" || ", " && ", " ? ", " : ", " | ", " + ", " - ", ", ")
#: The breaks tried in turn: logic, then a conditional, then sums and masks, then arguments.
_BREAK_CLASSES = (_BREAKS[:2], _BREAKS[2:4], _BREAKS[4:7], _BREAKS[7:])
#: Operators that end a broken line (the others begin the next).
_ENDS_LINE = (" || ", " && ", ", ")


@dataclass(frozen=True, slots=True)
class Break:
    """A separator (` + `, `, `) at `at` in a line's text, with `depth` parentheses open."""

    at: int
    depth: int
    sep: str


@dataclass(frozen=True, slots=True)
class Code:
    """A line's text (or a part of it) and the places it may be broken."""

    text: str
    breaks: tuple[Break, ...] = ()

    def __add__(self, other: Code | str) -> Code:
        other = as_code(other)
        shift = len(self.text)
        moved = tuple(Break(b.at + shift, b.depth, b.sep) for b in other.breaks)
        return Code(self.text + other.text, self.breaks + moved)

    def __radd__(self, other: str) -> Code:
        return Code(other) + self

    def part(self, start: int, end: int, depth: int) -> Code:
        """text[start:end], whose first character sits inside `depth` parentheses."""
        return Code(self.text[start:end], tuple(Break(b.at - start, b.depth - depth, b.sep)
                                                for b in self.breaks
                                                if start <= b.at and b.at + len(b.sep) <= end))

    def strip(self, indent: str) -> Code:
        """The text stripped, after `indent`."""
        lead = len(self.text) - len(self.text.lstrip())
        return indent + self.part(lead, len(self.text.rstrip()), 0)


def as_code(x: Code | str) -> Code:
    return x if isinstance(x, Code) else Code(x)


def folded(line: Code | str) -> str:
    """A line of code within LINE_WIDTH where it can be: broken after the `||`/`&&` (else
    before the `?`/`:`, else before the `|`/`+`/`-`, else after the commas) nearest its top,
    the next lines indented under it."""
    line = as_code(line)
    text = line.text
    if len(text) <= LINE_WIDTH:
        return text
    lead = len(text) - len(text.lstrip())
    # Deeper, a break would read worse than the long line.
    found = [b for b in line.breaks if b.sep in _BREAKS and b.depth <= 3 and b.at >= lead]
    if not found:
        return text
    for seps in _BREAK_CLASSES:
        cuts = [b for b in found if b.sep in seps]
        if cuts:
            break
    top = min(b.depth for b in cuts)
    cuts = [b for b in cuts if b.depth == top]
    indent = " " * (lead + 8)
    pieces, start = [], 0
    for b in cuts:
        if b.sep in _ENDS_LINE:  # the operator ends the line
            pieces.append(line.part(start, b.at + len(b.sep) - 1, 0 if not pieces else top))
            start = b.at + len(b.sep)
        else:  # the operator begins the next
            pieces.append(line.part(start, b.at, 0 if not pieces else top))
            start = b.at + 1
    pieces.append(line.part(start, len(text), top))
    out = [pieces[0]] + [p.strip(indent) for p in pieces[1:]]
    return "\n".join(folded(p) if len(text) > len(p.text) > LINE_WIDTH else p.text for p in out)
