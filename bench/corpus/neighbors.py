"""Corpus: a team display. Each tile broadcasts its team (a click changes it); a face with a
neighbour shows the neighbour's team colour, a face without one is dark. No messages."""

from blinkc.dsl import BLUE, OFF, RED, YELLOW, Game, faces

game = Game("neighbors")
team = game.field(range(0, 3), default=0, broadcast=True)


@game.on_click
def press(t):
    t.team = 0 if t.team == 2 else t.team + 1


@game.display
def look(t):
    for f in faces():
        if not t.has_neighbor(f):
            t.color(f, OFF)
        elif t.neighbor(f).team == 0:
            t.color(f, RED)
        elif t.neighbor(f).team == 1:
            t.color(f, YELLOW)
        else:
            t.color(f, BLUE)
