"""The protocol explorer: a game's own messages and floods, on small clusters, against an
adversary that chooses drops, blinding lock-steps, stalls, clock ratios and link flaps.

The protocol runs as compiled: the game's C++ in the C++ world core (`--world native`, the
default where g++ is), or its Python backend in the reference world (`--world python`), with
the same results; the monitor hears it through probes (blinkc/ir/probes.py). The explorer
makes tiles send the game's messages and start its floods as handlers would
(the scenario actions `send` and `flood`), and plays an adversary through scenario actions
too (`cut` one direction of a link, `stall` a tile, `lift` and `place` it back, or with
`turns` at another rotation: the monitor's links follow the moves, links.py), with clock
errors and frame phases chosen per tile in the layout. So every run is a layout and a
scenario that `blinkc emulate` replays exactly. The game's handlers run as they do on the
tile, so what they send in answer is checked too.

After every delivery and bounce, and at the end of a quiet period, it checks:
- exactly once and in order on each link: a delivery is the oldest message sent over that
  link and not yet delivered;
- a bounce only when the neighbour was gone: taken away, or silent for about the grace
  (a cut, the probes' lock-step, or both), during the message's life or, for an
  immediate bounce, lately; and never a message dropped without a bounce;
- nothing left hanging: every message delivered or bounced, every face settled, every link
  between touching tiles up;
- every flood ends (its starter hears it is done), and reaches every tile that stayed in
  the cluster at least once and no tile more often than floods of its kind were started
  (floods of one kind that overlap merge).

`explore()` enumerates every connected shape of n tiles (up to a turn of the whole
cluster) and every rotation of every tile, under chosen clock conditions, with scripted
or seeded random schedules; a violation is shrunk to a few steps and written out as files.
"""

from __future__ import annotations

from .clusters import Run, Tile, shapes
from .explorer import CLOCKS, SCRIPTS, Report, explore, explore_lifts
from .monitor import Monitor
from .runs import Subject, check, play, shrink, subject, write_counterexample

__all__ = ["CLOCKS", "SCRIPTS", "Monitor", "Report", "Run", "Subject", "Tile", "check", "explore",
           "explore_lifts", "play", "shapes", "shrink", "subject", "write_counterexample"]
