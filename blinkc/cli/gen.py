"""`blinkc gen`: write the Arduino sketch generated from a game."""

from __future__ import annotations

from pathlib import Path

import click

from ..dsl.errors import GameErrors
from . import main


@main.command()
@click.argument("game", type=click.Path(dir_okay=False))
@click.option("-o", "--out", "out_dir", default="out", show_default=True,
              type=click.Path(file_okay=False), help="Folder to write the sketch folder into.")
def gen(game: str, out_dir: str) -> None:
    """Generate the Arduino sketch for GAME: OUT/<game>/<game>.ino, ready for the Arduino IDE.

    \b
    Example:
      blinkc gen firmware/pirates_lasers.py -o out/
    """
    from ..backends.cpp import generate_sketch

    try:
        ino = generate_sketch(game, Path(out_dir))
    except GameErrors as e:
        raise click.ClickException(f"{game} has errors:\n{e}") from None
    except OSError as e:
        raise click.ClickException(f"cannot write the sketch: {e.strerror or e}") from None
    click.echo(f"wrote {ino}")
