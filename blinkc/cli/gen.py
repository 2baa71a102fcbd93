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
@click.option("--force", is_flag=True,
              help="Write the sketch even into a folder blinkc did not create, or over a sketch "
                   "that blinkc did not write or that was edited since.")
def gen(game: str, out_dir: str, force: bool) -> None:
    """Generate the Arduino sketch for GAME: OUT/<game>/<game>.ino, ready for the Arduino IDE.

    blinkc writes only into a sketch folder it created and over a sketch it wrote that has not
    been edited since; anything else is refused unless --force.

    \b
    Example:
      blinkc gen firmware/pirates_lasers.py -o out/
    """
    from ..backends.cpp import generate_cpp
    from ..build.errors import BuildError
    from ..build.outputs import write_generated
    from ..dsl.loader import compile_game

    try:
        program = compile_game(game)
        ino = write_generated(Path(out_dir) / program.name, f"{program.name}.ino",
                              generate_cpp(program), force=force)
    except GameErrors as e:
        raise click.ClickException(f"{game} has errors:\n{e}") from None
    except BuildError as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"wrote {Path(out_dir) / program.name / ino.name}")
