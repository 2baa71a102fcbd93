"""Hand-written Python tile programs, for tests, demos and as examples.

Each is a class with `setup(api)` and `loop(api)` written like a Blinks
sketch against the blinklib API. `PROGRAMS` maps the names a layout file
uses to the classes.
"""

from __future__ import annotations

from .examples import BusyCounter, ClickCounter, HopDistance, NeighbourColours

PROGRAMS = {
    "neighbours": NeighbourColours,
    "clicks": ClickCounter,
    "hops": HopDistance,
    "busy": BusyCounter,
}

__all__ = ["PROGRAMS", "BusyCounter", "ClickCounter", "HopDistance", "NeighbourColours"]
