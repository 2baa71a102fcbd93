"""The `blinkc` command line: thin wrappers around the library's layers."""

from __future__ import annotations

import click

from .. import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="blinkc")
def main() -> None:
    """blinkc: write Blinks games in Python, emulate clusters, build and flash firmware."""


def _register() -> None:
    # Each command lives in its own module; importing it attaches it to `main`.
    from . import build, check, cosim, emulate, examples, explore, flash, gen, sim, solve  # noqa: F401


_register()
