"""Corpus: a colour picker. Each click shows the next of six colours on the whole tile."""

from blinkc.dsl import BLUE, CYAN, GREEN, MAGENTA, RED, YELLOW, Game

game = Game("picker")
Hue = game.kinds("RED", "YELLOW", "GREEN", "CYAN", "BLUE", "MAGENTA")
hue = game.field(Hue, default=Hue.RED)


@game.on_click
def press(t):
    t.hue = t.hue.next()


@game.display
def look(t):
    if t.hue == Hue.RED:
        t.color_all(RED)
    elif t.hue == Hue.YELLOW:
        t.color_all(YELLOW)
    elif t.hue == Hue.GREEN:
        t.color_all(GREEN)
    elif t.hue == Hue.CYAN:
        t.color_all(CYAN)
    elif t.hue == Hue.BLUE:
        t.color_all(BLUE)
    else:
        t.color_all(MAGENTA)
