"""`blinkc examples`: run every example sketch of the Blinks SDK (or every sketch of a folder)
in the emulator with a smoke scenario, and say which run and which fail, and why."""

from __future__ import annotations

from pathlib import Path

import click

from ..build import BuildError, find_sdk
from ..native.toolchain import ToolMissing
from ..smoke import SMOKE_LAYOUT, SMOKE_SCENARIO, find_sketches, smoke_all
from . import main


@main.command()
@click.argument("folder", required=False, type=click.Path(file_okay=False, exists=True))
@click.option("--sdk", metavar="PATH", type=click.Path(file_okay=False),
              help="Blinks SDK folder whose examples to run (default: BLINKS_SDK, then "
                   "Arduino's folders).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of each run (clock phases): same seed, same runs.")
@click.option("--show-scenario", is_flag=True,
              help="Print the layout and scenario every sketch is run with, and exit.")
def examples(folder: str | None, sdk: str | None, seed: int, show_scenario: bool) -> None:
    """Run every example sketch of your Blinks SDK in the emulator, one line each.

    Each sketch (X/X.ino, as the Arduino IDE keeps them) is compiled for this host and
    runs on four tiles (a triangle and one in the hand) for about 15 s: a click, a double
    and a multi click, long presses, a tile put down, one lifted and put back elsewhere,
    one turned. A line says `ok` with the passes the tiles ran, or `FAIL` with why (it
    does not compile, its loop() never returns, ...). Exits 1 if any fails.

    FOLDER runs every sketch under it instead of the SDK's examples. Needs g++.

    \b
    Examples:
      BLINKS_SDK=~/Move38-Arduino-Platform blinkc examples
      blinkc examples tests/native/corpus
    """
    if show_scenario:
        click.echo(f"# layout\n{SMOKE_LAYOUT}\n# scenario\n{SMOKE_SCENARIO}", nl=False)
        return
    if folder is None:
        try:
            found = find_sdk(sdk)
        except BuildError as err:
            raise click.ClickException(str(err)) from None
        root = found.path / "libraries"
        click.echo(f"Blinks SDK: {found.describe()}")
    else:
        root = Path(folder)
    if not find_sketches(root):
        raise click.ClickException(
            f"no sketches under {root}: a sketch is a folder X holding X.ino (as the Arduino "
            "IDE keeps them); give the folder that holds them")
    results = []
    try:
        for result in smoke_all(root, seed):
            results.append(result)
            click.echo(result.line())
    except ToolMissing as e:
        raise click.ClickException(str(e)) from None
    failed = [r for r in results if not r.ok]
    click.echo(f"{len(results) - len(failed)} of {len(results)} ran"
               + (f"; failed: {', '.join(r.name for r in failed)}" if failed else ""))
    if failed:
        raise SystemExit(1)
