"""The browser simulator (`blinkc sim`): the real emulator, driven from a web page.

- `source`: what to run (a game, a sketch or a layout) and its errors, as one line each;
- `session`: the live world, the input log, time (pause, step, speed, rewind);
- `inputs`: what the page asks for, as scenario lines (the log replays them exactly);
- `view`: frames for the page and the inspector's view of one tile;
- `ring`: the trace of the last seconds;
- `export`: the session as a layout + scenario for `blinkc emulate`, or as one HTML file;
- `server`: the local web server (aiohttp, 127.0.0.1 only) and its packaged assets.

docs/sim.md describes the page and how it stays exact.
"""

from .session import Session
from .source import SimError, SimSource, load_source

__all__ = ["Session", "SimError", "SimSource", "load_source"]
