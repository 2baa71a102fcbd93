"""Exercises floods confined to a group: a ship is the ship tiles joined by ship-to-ship links."""

from blinkc.dsl import BLUE, GREEN, RED, WHITE, Game, dim, faces

game = Game("fleet")
ship = game.field(bool, default=False, broadcast=True)
captured = game.field(range(0, 16), default=0)  # times Capture ran here
alarms = game.field(range(0, 16), default=0)  # times Alarm ran here
ended = game.field(range(0, 16), default=0)  # Captures started here that have ended
hails = game.field(range(0, 16), default=0)  # Hails received
Hail = game.message("Hail")  # a plain message beside the floods (the explorer sends one)


def same_ship(t, face):
    """The link on `face` joins two tiles of one ship (the neighbour's broadcast value)."""
    return t.ship and t.neighbor(face).ship


Capture = game.flood("Capture", within=same_ship)  # the ship of the tile clicked
Alarm = game.flood("Alarm")  # every tile, ships and sea: a flood without a group


@game.on_click
def capture(t):
    t.flood(Capture)


@game.on_double_click
def alarm(t):
    t.flood(Alarm)


@game.on_multi_click
def hail(t):
    for f in faces():
        if t.has_neighbor(f):
            t.send(Hail, f)


@game.on_message(Hail)
def hailed(t, face):
    if t.hails < 15:
        t.hails += 1


@game.on_long_press
def launch(t):
    t.ship = not t.ship


@game.on_flood(Capture)
def taken(t):
    if t.captured < 15:
        t.captured += 1


@game.on_flood_done(Capture)
def all_taken(t):
    if t.ended < 15:
        t.ended += 1


@game.on_flood(Alarm)
def alarmed(t):
    if t.alarms < 15:
        t.alarms += 1


@game.display
def look(t):
    if t.captured > 0:
        t.color_all(dim(RED, 60 + 12 * t.captured))
    elif t.alarms > 0:
        t.color_all(WHITE)
    elif t.ship:
        t.color_all(GREEN)
    else:
        t.color_all(dim(BLUE, 80))
