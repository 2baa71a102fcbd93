"""Exercises the rest of the DSL: payloads, floods, timers, derived and broadcast values."""

from blinkc.dsl import BLUE, OFF, RED, YELLOW, Game, dim, faces, makeColorHSB, opposite, sin8

game = Game("beacon")
level = game.field(range(0, 4), default=0, broadcast=True)
lit = game.field(bool, default=False)
hops = game.field(range(-3, 4), default=0)
glow = game.timer()
Pulse = game.message("Pulse", payload=range(1, 3))
Wipe = game.flood("Wipe")


@game.derived(bool)
def crowded(t):
    n = 0
    for f in faces():
        if t.has_neighbor(f) and t.neighbor(f).level > t.level:
            n += 1
    return n >= 2


@game.on_click(alone=False)
def press(t):
    t.level = (t.level + 1) % 4
    for f in faces():
        t.send(Pulse, f, 2 if t.level > 1 else 1)


@game.on_message(Pulse)
def pulsed(t, face, strength):
    t.hops -= strength
    t.glow.start(250 * strength)
    if strength > 1:
        t.send(Pulse, opposite(face), strength - 1)


@game.on_bounce(Pulse)
def lost(t, face):
    t.lit = not t.lit


@game.on_long_press
def wipe(t):
    t.flood(Wipe)


@game.on_flood(Wipe)
def wiped(t):
    t.level = 0
    t.hops = 0


@game.on_flood_done(Wipe)
def done(t):
    t.lit = True


@game.on_timer(glow)
def glow_over(t):
    t.lit = False


@game.display
def look(t):
    base = makeColorHSB(t.level * 60, 255, 200)
    for f in faces():
        c = base
        if t.crowded:
            c = RED
        elif t.glow.running:
            c = dim(YELLOW, sin8(t.now // 4 + f * 40))
        elif t.lit:
            c = BLUE if f % 2 == 0 else OFF
        t.color(f, c)
