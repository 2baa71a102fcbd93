"""`blinkc build` and `blinkc size`: firmware for a tile and its flash/RAM budget."""

from __future__ import annotations

from pathlib import Path

import click

from ..build import BACKENDS, BudgetExceeded, BuildError, find_sdk, limits, report_for
from ..build import build as build_firmware
from ..dsl.errors import GameErrors
from . import main


@main.command("build")
@click.argument("source", type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--out",
    "out_dir",
    type=click.Path(path_type=Path),
    default=Path("build"),
    show_default=True,
    help="Output folder.",
)
@click.option(
    "--sdk",
    type=click.Path(path_type=Path),
    help="Blinks SDK folder (default: BLINKS_SDK, then Arduino's folders).",
)
@click.option(
    "--backend",
    type=click.Choice(BACKENDS),
    default="auto",
    show_default=True,
    help="auto: arduino-cli when installed and it knows the SDK, else avr-gcc.",
)
@click.option(
    "--top",
    default=10,
    show_default=True,
    help="How many of the largest functions/variables to list.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Build into OUT even if blinkc did not create it (same-named files are replaced).",
)
@click.option(
    "--line-directives",
    is_flag=True,
    help="For a game: emit #line directives, so that compiler messages and avr-gdb (the "
    ".elf's line table) point at the game file's lines.",
)
def build_command(
    source: Path, out_dir: Path, sdk: Path | None, backend: str, top: int, force: bool,
    line_directives: bool,
) -> None:
    """Build SKETCH.ino, a sketch folder, or GAME.py into OUT: the sketch folder,
    .elf, .hex, .with_bootloader.hex (game + BIOS, for ISP) and a size report.

    OUT must be new, empty, or made by an earlier blinkc build (blinkc marks it with a
    .blinkc-output file); any other folder is refused unless --force."""
    try:
        found = find_sdk(sdk)
        click.echo(f"Blinks SDK: {found.describe()}")
        result = build_firmware(source, out_dir, sdk=found, backend=backend, force=force,
                                line_directives=line_directives)
    except BudgetExceeded as over:
        raise click.ClickException(over.message) from None
    except BuildError as err:
        raise click.ClickException(str(err)) from None
    except GameErrors as err:
        raise click.ClickException(f"{source} has errors:\n{err}") from None
    click.echo(f"Built with {result.backend}.")
    for note in result.notes:
        click.echo(f"Note: {note}")
    click.echo(result.report.format(top=top))
    click.echo("Outputs:")
    for label, path in (
        ("sketch", result.sketch.folder),
        ("elf", result.elf),
        ("hex", result.hex),
        ("for ISP", result.with_bootloader),
        ("size report", result.report_file),
    ):
        click.echo(f"  {label:12} {path}")


@main.command("size")
@click.argument("target", type=click.Path(path_type=Path))
@click.option(
    "--sdk", type=click.Path(path_type=Path), help="Take the limits from this SDK's boards.txt."
)
@click.option(
    "--top",
    default=10,
    show_default=True,
    help="How many of the largest functions/variables to list.",
)
def size_command(target: Path, sdk: Path | None, top: int) -> None:
    """Flash and RAM of an ELF, a hex, or a build folder, against the tile's budgets."""
    try:
        flash_limit, ram_limit = (limits(find_sdk(sdk))[1:]) if sdk else (None, None)
        report = report_for(target) if sdk is None else report_for(target, flash_limit, ram_limit)
    except BuildError as err:
        raise click.ClickException(str(err)) from None
    click.echo(f"{report.source}:")
    click.echo(report.format(top=top))
    if report.ram is None:
        click.echo("(a hex file has no RAM figures; give the .elf for RAM and the largest symbols)")
    _running_figures(target)
    if report.problems():
        raise click.ClickException("over budget: " + "; ".join(report.problems()))


def _running_figures(target: Path) -> None:
    """The stack's high-water mark and the longest loop(), co-simulated, when the target is
    a build (an ELF with its .with_bootloader.hex beside it)."""
    from ..cosim.figures import build_images, figure_lines

    found = build_images(target)
    if found is not None:
        click.echo("\n".join(figure_lines(*found)))
