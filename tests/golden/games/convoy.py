"""Exercises values wider than a code: a wide message, a flood with a value, and gathers.

A convoy of tiles: a click sends each neighbour this tile's cargo (0..255, a wide message),
a double click floods the convoy with a new flag (0..999: a valued flood), a long press counts
the convoy's cargo (a sum gather) and a triple click finds its smallest cargo (a min gather).
"""

from blinkc.dsl import BLUE, GREEN, OFF, RED, WHITE, Game, dim, faces

game = Game("convoy", randomize=False)
cargo = game.field(range(0, 256), default=7)  # this tile's cargo (a layout sets it)
got = game.field(range(0, 256), default=0)  # the cargo a neighbour sent last
gifts = game.field(range(0, 16), default=0)  # cargo messages received
flag = game.field(range(0, 1000), default=0)  # the flag the last Flag flood carried
flags = game.field(range(0, 16), default=0)  # Flag floods that reached this tile
total = game.field(range(0, 4096), default=0)  # the last Tally's total (on its starter)
least = game.field(range(0, 256), default=255)  # the last Least's smallest cargo
returned = game.field(range(0, 16), default=0)  # Cargo messages that bounced

Cargo = game.message("Cargo", payload=range(0, 256))  # 256 values: a wide message
Flag = game.flood("Flag", payload=range(0, 1000))  # the wave carries the flag
Tally = game.gather("Tally", combine="sum", payload=range(0, 4096))
Least = game.gather("Least", combine="min", payload=range(0, 256))


@game.on_click
def give(t):
    for f in faces():
        if t.has_neighbor(f):
            t.send(Cargo, f, t.cargo)


@game.on_message(Cargo)
def given(t, face, amount):
    t.got = amount
    if t.gifts < 15:
        t.gifts += 1


@game.on_bounce(Cargo)
def refused(t, face):
    if t.returned < 15:
        t.returned += 1


@game.on_double_click
def hoist(t):
    t.flood(Flag, t.flag + 100 if t.flag < 900 else 1)


@game.on_flood(Flag)
def hoisted(t, value):
    t.flag = value
    if t.flags < 15:
        t.flags += 1


@game.on_long_press
def tally(t):
    t.flood(Tally)


@game.on_flood(Tally)
def my_cargo(t):
    return t.cargo


@game.on_flood_done(Tally)
def tallied(t, total):
    t.total = total


@game.on_multi_click
def find_least(t):
    t.flood(Least)


@game.on_flood(Least)
def my_least(t):
    return t.cargo


@game.on_flood_done(Least)
def found(t, total):
    t.least = total


@game.display
def look(t):
    if t.flags > 0:
        t.color_all(dim(WHITE, 40 + t.flags * 10))
    else:
        t.color_all(OFF)
    for f in faces():
        if f < t.gifts:
            t.color(f, GREEN)
    if t.returned > 0:
        t.color(0, RED)
    if t.total > 0:
        t.color(5, BLUE)
