"""Errors for people: what went wrong, the likely cause, and what to do.

Every failure the flasher can meet ends in one of these. The CLI prints
`render()` and exits non-zero; it never shows a traceback for them.
"""

from __future__ import annotations


class FlashError(Exception):
    """Base class: a one-line summary, a likely cause and a fix."""

    def __init__(self, what: str, cause: str | None = None, fix: str | None = None) -> None:
        super().__init__(what)
        self.what = what
        self.cause = cause
        self.fix = fix

    def render(self) -> str:
        lines = [self.what]
        if self.cause:
            lines.append(f"  Likely cause: {self.cause}")
        if self.fix:
            lines.append(f"  Fix: {self.fix}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()


class HexFileError(FlashError):
    """The input file is not a usable Intel HEX file."""


class ImageError(FlashError):
    """The image does not fit the part or overlaps something it must not."""


class PortError(FlashError):
    """The serial port (or TCP address) cannot be opened."""


class NoResponseError(FlashError):
    """The programmer never answered."""


class ProtocolError(FlashError):
    """The programmer answered with something we did not expect."""


class DisconnectedError(FlashError):
    """The programmer went away in the middle of a session."""


class NoTargetError(FlashError):
    """The programmer is fine but no chip answers on the ISP lines."""


class WrongChipError(FlashError):
    """A chip answered, but it is not the part we were asked to flash."""


class VerifyError(FlashError):
    """What we read back differs from what we wrote."""

    def __init__(self, what: str, cause: str | None = None, fix: str | None = None,
                 address: int | None = None) -> None:
        super().__init__(what, cause, fix)
        self.address = address


class AvrdudeError(FlashError):
    """avrdude failed (or is missing); the message is translated into ours."""


class BuildUnavailableError(FlashError):
    """A game source was given but this blinkc cannot build games."""
