"""Corpus: click to count 0..5 (then round to 0); the count is shown on the faces. No messages."""

from blinkc.dsl import GREEN, OFF, Game, faces

game = Game("counter")
count = game.field(range(0, 6), default=0)


@game.on_click
def press(t):
    t.count = 0 if t.count == 5 else t.count + 1


@game.display
def look(t):
    for f in faces():
        t.color(f, GREEN if f < t.count else OFF)
