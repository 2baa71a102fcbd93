"""Pirates & Lasers: the tiles together form a ship; Hazards fire lasers at it.

Rules and decisions: docs/pirates-and-lasers.md. Every tile runs this one
firmware and is a Hull, a Hazard or a Redirector.
"""

from blinkc.dsl import (
    MAGENTA,
    RED,
    WHITE,
    Face,
    Game,
    bit,
    ccw,
    cw,
    faces,
    makeColorRGB,
    opposite,
)

# randomize=False: which tan segment shows water needs no entropy from the watchdog, so the
# tile skips randomize()'s half second at power-up and the SDK's generator; each tile draws
# from its own sequence, seeded from its serial number (docs/dsl.md, "Random numbers").
game = Game("pirates_lasers", randomize=False)

Piece = game.kinds("HULL", "HAZARD", "REDIRECTOR")

# A beam ends at the Redirector that would bend it a fourth time. A beam can only come
# back to a tile it crossed after four bends (docs/pirates-and-lasers.md), so with three
# it never crosses a tile twice; and it carries its bends with it, so two shots in
# flight at once never get in each other's way.
MAX_BENDS = 3

kind = game.field(Piece, default=Piece.HULL, doc="what this tile is")
hp = game.field(range(0, 6), default=5, doc="a Hull's hit points")
water = game.field(range(0, 32), default=0, doc="bit f: hull segment f is damaged and shows water")
orient = game.field(Face, default=0, doc="a Hazard's first red face; a Redirector's bend starts here")
sunk = game.field(bool, default=False, doc="the ship has sunk; only a reset does anything")
shots = game.field(range(0, 256), default=0, doc="shots a Hazard has fired (its score)")
flash_faces = game.field(range(0, 64), default=0, doc="faces a beam passed through, flashed red")

beam_flash = game.timer()
pulse = game.timer()

Laser = game.message("Laser", payload=range(MAX_BENDS + 1))  # the payload: bends it has left
Repair = game.message("Repair")
Reset = game.flood("Reset")
Sunk = game.flood("Sunk")

FULL_HP = 5
RED_FACES_EVEN = 0b010101  # a Hazard's three alternate faces: 0, 2, 4 ...
RED_FACES_ODD = 0b101010  # ... or 1, 3, 5
REPAIR_FACE = 5
FLASH_MS = 400
PULSE_MS = 300

TAN = makeColorRGB(200, 140, 70)
DEEP_ORANGE = makeColorRGB(255, 70, 0)
REDIRECTOR_COLOUR = MAGENTA


# --- what neighbours see ---------------------------------------------------------
@game.broadcast(bool)
def hull(t):
    """Neighbours need to know whether we are a Hull (Hazards must touch one)."""
    return t.kind == Piece.HULL


@game.derived(bool)
def illegal(t):
    """Alone; a weak link; or a Hazard/Redirector touching no Hull (display only)."""
    alone = True
    hull_near = t.kind == Piece.HULL
    for f in faces():
        if t.has_neighbor(f):
            if not t.has_neighbor(ccw(f)) and not t.has_neighbor(cw(f)):
                return True  # a weak link
            alone = False
            if t.neighbor(f).hull:
                hull_near = True
    return alone or not hull_near


# --- hit points ------------------------------------------------------------------
def lose_hp(t):
    """One HP goes: a random tan segment shows water; at 0 HP the ship sinks."""
    if t.hp == 0:
        return
    pick = t.random(t.hp - 1)
    for f in range(5):
        if not bit(t.water, f):
            if pick == 0:
                t.water |= 1 << f
                break
            pick -= 1
    t.hp -= 1
    if t.hp == 0:
        t.flood(Sunk)


def gain_hp(t):
    """A Hull below full HP gets one back (its lowest damaged segment turns tan again);
    a flooded Hull (0 HP) only comes back with a reset."""
    if 0 < t.hp < FULL_HP:
        t.hp += 1
        t.water &= t.water - 1


# --- setup: cycle the piece while alone ----------------------------------------------
@game.on_double_click(alone=True)
def cycle_kind(t):
    if t.sunk:
        return
    t.kind = t.kind.next()
    t.hp = FULL_HP
    t.water = 0


# --- a turn: Repair, Redirect, Lasers ------------------------------------------------
@game.on_click
def press(t):
    if t.sunk:
        return
    if t.kind == Piece.HULL:
        if t.hp > 0:
            lose_hp(t)
            t.send(Repair, REPAIR_FACE)
            t.pulse.start(PULSE_MS)
    elif t.kind == Piece.HAZARD:
        fire(t)
    else:
        t.orient = cw(t.orient)


def fire(t):
    """Three beams out of the red faces; then the red faces flip."""
    for b in range(3):
        t.send(Laser, cw(t.orient, 2 * b), MAX_BENDS)
    t.flash_faces = RED_FACES_EVEN if t.orient % 2 == 0 else RED_FACES_ODD
    t.beam_flash.start(FLASH_MS)
    t.orient = cw(t.orient)
    t.shots += 1


@game.on_message(Laser)
def laser(t, face, bends_left):
    out = opposite(face)
    left = bends_left
    if t.kind == Piece.HULL:
        lose_hp(t)
    elif t.kind == Piece.REDIRECTOR:
        o = t.orient
        t.orient = cw(o)  # every beam that reaches a Redirector turns it
        if face == o or face == cw(o, 2):
            if bends_left == 0:
                return  # it would bend a fourth time: the Redirector stops it
            left = bends_left - 1
            out = cw(o, 2) if face == o else o
    t.flash_faces = (1 << face) | (1 << out)
    t.beam_flash.start(FLASH_MS)
    t.send(Laser, out, left)


@game.on_message(Repair)
def repaired(t, face):
    t.pulse.start(PULSE_MS)
    if t.kind == Piece.HULL:
        gain_hp(t)


# --- sinking and reset ---------------------------------------------------------------
@game.on_flood(Sunk)
def ship_sank(t):
    t.sunk = True


@game.on_neighbor_joined
def touched(t, face):
    if t.sunk:
        t.flood(Sunk)  # a sunk tile sinks whatever it is put against


@game.on_multi_click
def ask_reset(t):
    t.flood(Reset)


@game.on_flood(Reset)
def reset(t):
    if t.kind == Piece.HULL:
        t.hp = FULL_HP
        t.water = 0
    t.sunk = False
    t.shots = 0


# --- the look --------------------------------------------------------------------------
@game.display
def look(t):
    bad = t.illegal
    flashing = t.beam_flash.running
    pulsing = t.pulse.running
    # Water: a slow wave; a whirlpool (fast, spinning) when illegal; a fast churn when sunk.
    now = t.now >> 2
    step = 40
    if t.sunk:
        now = t.now >> 1
        step = 80
    elif not bad:
        now = t.now >> 4
    for f in faces():
        phase = now & 255  # (t.now >> k) + f * step, in a byte
        now += step
        wave = phase & 127
        if phase & 128:
            wave = 255 - phase  # a triangle wave: up, then down (127 - wave)
        c = makeColorRGB(0, 0, 110 + wave)
        if t.kind == Piece.HULL:
            if f < REPAIR_FACE:
                if not bit(t.water, f) and not t.sunk:
                    c = DEEP_ORANGE if bad else TAN
            elif t.hp > 0 and not t.sunk:
                c = WHITE
        elif t.kind == Piece.HAZARD:
            if (f + t.orient) % 2 == 0:
                c = RED
            if t.sunk and f < t.shots:
                c = WHITE  # the score: shots fired (up to six)
        elif f == t.orient or f == cw(t.orient, 2):
            c = REDIRECTOR_COLOUR
        if flashing and bit(t.flash_faces, f):
            c = RED
        if pulsing:
            c = WHITE  # an HP transfer: a short white pulse
        t.color(f, c)
