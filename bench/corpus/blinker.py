"""Corpus: a blinker on a DSL timer. The tile is lit and dark by turns, 500 ms each; a click
changes between white and blue."""

from blinkc.dsl import BLUE, OFF, WHITE, Game

game = Game("blinker")
lit = game.field(bool, default=True)
blue = game.field(bool, default=False)
tick = game.timer()


@game.setup
def start(t):
    t.tick.start(500)


@game.on_timer(tick)
def toggle(t):
    t.lit = not t.lit
    t.tick.start(500)


@game.on_click
def press(t):
    t.blue = not t.blue


@game.display
def look(t):
    if not t.lit:
        t.color_all(OFF)
    elif t.blue:
        t.color_all(BLUE)
    else:
        t.color_all(WHITE)
