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
@click.option("--line-directives", is_flag=True,
              help="Emit #line directives, so that compiler messages and avr-gdb point at the "
                   "game file's lines (and blinkc's protocol.py for the protocol).")
def gen(game: str, out_dir: str, force: bool, line_directives: bool) -> None:
    """Generate the Arduino sketch for GAME: OUT/<game>/<game>.ino, ready for the Arduino IDE.

    blinkc writes only into a sketch folder it created and over a sketch it wrote that has not
    been edited since; anything else is refused unless --force.

    \b
    Example:
      blinkc gen firmware/pirates_lasers.py -o out/
      blinkc gen firmware/pirates_lasers.py --line-directives   # errors at the game's lines
    """
    from ..build.errors import BuildError
    from ..build.game_sketch import write_game_sketch

    try:
        ino = write_game_sketch(game, out_dir, force=force, line_directives=line_directives)
    except GameErrors as e:
        raise click.ClickException(f"{game} has errors:\n{e}") from None
    except BuildError as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"wrote {Path(out_dir) / ino.parent.name / ino.name}")
