"""Errors raised by the build layer: each says what is wrong and what to do."""

from __future__ import annotations


class BuildError(Exception):
    """A build problem a person can act on. `hint` says what to do about it."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\n\n{self.hint}"


class ToolError(BuildError):
    """A tool (compiler, linker, arduino-cli) failed; carries its command and output."""

    def __init__(self, message: str, command: list[str], output: str, hint: str | None = None):
        super().__init__(message, hint)
        self.command = command
        self.output = output

    def __str__(self) -> str:
        text = f"{self.message}\n$ {' '.join(self.command)}\n{self.output.rstrip()}"
        return text if not self.hint else f"{text}\n\n{self.hint}"
