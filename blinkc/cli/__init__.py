"""The `blinkc` command line: thin wrappers around the library's layers."""

from __future__ import annotations

import importlib

import click

from .. import __version__

#: Each command lives in its own module, which attaches it to `main` when imported; a
#: command's module is imported only when that command runs (or help lists them all), so
#: `blinkc emulate` does not pay for the flasher, the simulator's server or the solver.
COMMAND_MODULES = {
    "build": "build", "size": "build", "check": "check", "cosim": "cosim",
    "emulate": "emulate", "examples": "examples", "explore": "explore",
    "flash": "flash", "read": "flash", "ports": "flash", "programmer-sim": "flash",
    "gen": "gen", "sim": "sim", "solve": "solve",
}


class _LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(COMMAND_MODULES) | set(self.commands))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands and name in COMMAND_MODULES:
            importlib.import_module(f"{__name__}.{COMMAND_MODULES[name]}")
        return super().get_command(ctx, name)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="blinkc")
def main() -> None:
    """blinkc: write Blinks games in Python, emulate clusters, build and flash firmware."""
