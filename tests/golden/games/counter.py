"""A counter passed to neighbours (the example in docs/dsl.md)."""

from blinkc.dsl import GREEN, OFF, Game, faces

game = Game("counter", randomize=False)
count = game.field(range(0, 7), default=0)
Bump = game.message("Bump")


@game.on_click
def press(t):
    t.count += 1
    for f in faces():
        if t.has_neighbor(f):
            t.send(Bump, f)


@game.on_message(Bump)
def bumped(t, face):
    t.count += 1


@game.display
def look(t):
    for f in faces():
        t.color(f, GREEN if f < t.count else OFF)
