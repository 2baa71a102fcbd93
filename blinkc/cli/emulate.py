"""`blinkc emulate`: run a cluster in the emulator."""

from __future__ import annotations

import click

from . import main


@main.command()
def emulate() -> None:
    """Run a layout of tiles in the emulator (being built)."""
    raise click.ClickException("emulate is not wired up yet")
