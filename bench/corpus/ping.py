"""Corpus: the one that sends. A click sends Ping out of every face with a neighbour; a tile
that gets a Ping shows the next colour on the face it came from."""

from blinkc.dsl import BLUE, GREEN, OFF, RED, Game, faces

game = Game("ping")
hits = game.field(range(0, 4), default=0, per_face=True)
Ping = game.message("Ping")


@game.on_click
def press(t):
    for f in faces():
        if t.has_neighbor(f):
            t.send(Ping, f)


@game.on_message(Ping)
def pinged(t, face):
    t.hits[face] = 0 if t.hits[face] == 3 else t.hits[face] + 1


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
