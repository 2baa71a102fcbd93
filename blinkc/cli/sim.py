"""`blinkc sim`: the browser simulator, a local page driven by the real emulator."""

from __future__ import annotations

import asyncio
import webbrowser

import click

from . import main


@main.command()
@click.argument("source", metavar="GAME.py|SKETCH.ino|LAYOUT",
                type=click.Path(exists=True, dir_okay=False))
@click.option("-l", "--layout", "layout_file", metavar="LAYOUT",
              type=click.Path(exists=True, dir_okay=False),
              help="The cluster to run a game or sketch on (default: three tiles).")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="The port to serve on, on 127.0.0.1 (0: a free one).")
@click.option("--no-browser", is_flag=True, help="Only print the page's address.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed for everything random: the same seed and inputs give the same run.")
@click.option("--faults", "faults_text", metavar="SPEC",
              help="Faults at the start, e.g. drop=0.1,jitter=2ms,skew=10% (the page's "
                   "fault panel changes them live).")
def sim(source: str, layout_file: str | None, port: int, no_browser: bool, seed: int,
        faults_text: str | None) -> None:
    """Play a cluster in the browser: the emulator runs here, the page shows and drives it.

    The first line printed is the page's address (127.0.0.1 only). The page
    serves its own files (no network needed) and reads no file but SOURCE
    and the layout. Stop it with Ctrl-C. See docs/sim.md.

    \b
    Examples:
      blinkc sim firmware/pirates_lasers.py --layout examples/ship.layout
      blinkc sim examples/flower.layout --no-browser --port 8765
    """
    from ..sim import Session, SimError, load_source
    from ..sim.server import SimServer, bind, serve, url_of

    try:
        session = Session(load_source(source, layout_file, seed, faults_text))
    except SimError as e:
        raise click.ClickException(str(e)) from None
    try:
        sock = bind(port)
    except OSError as e:
        raise click.ClickException(f"cannot serve on 127.0.0.1:{port}: "
                                   f"{e.strerror or e}") from None
    url = url_of(sock)

    def started() -> None:
        click.echo(url)
        click.echo("blinkc sim: serving the page at that address; Ctrl-C stops it", err=True)
        if not no_browser:
            webbrowser.open(url)

    try:
        asyncio.run(serve(SimServer(session), sock, started))
    except KeyboardInterrupt:
        pass
