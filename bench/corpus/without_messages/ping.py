"""ping without its message, to measure what the protocol engine costs in ping
(bench/firmware_size.py --corpus): the same fields, display and click, but a click counts on
the tile's own faces that have a neighbour instead of sending Ping there."""

from blinkc.dsl import BLUE, GREEN, OFF, RED, Game, faces

game = Game("ping")
hits = game.field(range(0, 4), default=0, per_face=True)


@game.on_click
def press(t):
    for f in faces():
        if t.has_neighbor(f):
            t.hits[f] = 0 if t.hits[f] == 3 else t.hits[f] + 1


@game.display
def look(t):
    for f in faces():
        if t.hits[f] == 0:
            t.color(f, OFF)
        elif t.hits[f] == 1:
            t.color(f, RED)
        elif t.hits[f] == 2:
            t.color(f, GREEN)
        else:
            t.color(f, BLUE)
