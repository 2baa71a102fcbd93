"""Exercises floods and messages confined to a group: a ship is the ship tiles joined by
ship-to-ship links."""

from blinkc.dsl import BLUE, GREEN, RED, WHITE, Game, dim, faces

game = Game("fleet")
ship = game.field(bool, default=False, broadcast=True)
captured = game.field(range(0, 16), default=0)  # times Capture ran here
alarms = game.field(range(0, 16), default=0)  # times Alarm ran here
ended = game.field(range(0, 16), default=0)  # Captures started here that have ended
hails = game.field(range(0, 16), default=0)  # Hails received
signals = game.field(range(0, 16), default=0)  # Signals received
refused = game.field(range(0, 16), default=0)  # Signals that bounced (outside the ship, or gone)
Hail = game.message("Hail")  # a plain message beside the floods (the explorer sends one)


def same_ship(t, face):
    """The link on `face` joins two tiles of one ship (the neighbour's broadcast value)."""
    return t.ship and t.neighbor(face).ship


Capture = game.flood("Capture", within=same_ship)  # the ship of the tile clicked
# Along the ship only, with the hops it may still go (a send outside the ship bounces).
Signal = game.message("Signal", payload=range(0, 2), within=same_ship)
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
            t.send(Signal, f, 1)


@game.on_message(Hail)
def hailed(t, face):
    if t.hails < 15:
        t.hails += 1


@game.on_message(Signal)
def signalled(t, face, hops):
    if t.signals < 15:
        t.signals += 1
    if hops == 1:  # one more hop, along the ship
        for f in faces():
            if f != face and t.has_neighbor(f):
                t.send(Signal, f, 0)


@game.on_bounce(Signal)
def refused_here(t, face):
    if t.refused < 15:
        t.refused += 1


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
