"""WHAM!: whack the moles before they get away (a port of Move38's WHAM! to blinkc).

How to play and what differs from the original: docs/wham.md. How the original's
signalling became floods and a message: docs/porting.md.

A double click on any tile starts the game. Each round, some tiles raise a mole: its
red pips burn down, and a press knocks it back. A mole that gets away ends the game, and
so does the third press on a tile without a mole (the strikes flash yellow, then orange).
After 30 rounds the moles give up: victory. A double click then (or after a death) goes
back to the field, and another starts a new game.
"""

from blinkc.dsl import (
    OFF,
    ORANGE,
    RED,
    YELLOW,
    Face,
    Game,
    cw,
    faces,
    makeColorHSB,
    makeColorRGB,
)

game = Game("wham", randomize="clock", queue_len=6)

Stage = game.kinds("SETUP", "GAME", "DEATH", "VICTORY")

GREEN_GRASS = makeColorHSB(70, 255, 255)  # the field: (90, 255, 0)
GRASS_RED = 90  # its red; 255 - 90 = 165 = 255 * 11 // 17
GRASS_DIM = makeColorHSB(70, 255, 170)  # the grass stirring as a round starts
ROUNDS = 30  # the moles give up after this many rounds
LEVEL_MAX = 15  # the difficulty climbs one level a round up to here

EMERGE_MAX = 2000  # from a round's start to the moles coming up: at level 1 ...
EMERGE_MIN = 500  # ... and at LEVEL_MAX
EMERGE_DRIFT = 200  # each tile adds up to this much, so moles do not rise in step
ABOVE_MAX = 3000  # how long a mole stays up: at level 1 ...
ABOVE_MIN = 1500  # ... and at LEVEL_MAX
FLASH_MS = 500  # a whacked mole (and the start of the game): white fading to green
STRIKE_MS = 200  # a strike: the whole cluster flashes its colour
RIPPLE_MS = 500  # the grass stirs as a round starts
FIRST_ROUND_MS = 2000  # from the start of the game to its first round
PICK_SLOTS = 7  # a tile decides whether it raises a mole at one of 8 moments ...
PICK_STEP_MS = 40  # ... this far apart, from the start of the round on
PULSE_MS = 1500  # the death pulse: down and up again
HALF_PULSE = PULSE_MS // 2
SPARKLE_MS = 250  # a victory sparkle, and up to as much again between two
PEEK_RED_MS = 1250  # on the field, a mole peeks out of a face for 1.25 s ...
PEEK_FADE_MS = 500  # ... the hole fades from white back to green ...
PEEK_DELAY_MS = 3000  # ... and up to 3 s pass before the next one

stage = game.field(Stage, default=Stage.SETUP, doc="where the game is")
round = game.field(range(0, ROUNDS + 2), default=0, doc="rounds started")
strikes = game.field(range(0, 3), default=0, doc="presses without a mole (a third ends it)")
up = game.field(bool, default=False, doc="this tile raises a mole this round")
near_up = game.field(bool, default=False, doc="a neighbour raises one this round")
source = game.field(bool, default=False, doc="the game ended here (the death pulse is white)")
peek_face = game.field(Face, default=0, doc="the face a mole peeks out of, on the field")

above = game.field(range(ABOVE_MIN, ABOVE_MAX + 1), default=ABOVE_MAX,
                  doc="how long this round's mole stays up")

round_timer = game.timer()  # the next round (every tile keeps one; the first to ring starts it)
emerge = game.timer()  # the round's moles come up
pick = game.timer()  # this tile decides whether it raises a mole
mole = game.timer()  # the mole is up: it gets away when this rings
flash = game.timer()  # white fading to green
strike_flash = game.timer()  # the strike colour
ripple = game.timer()  # the grass stirs as a round starts
anim = game.timer()  # the field's peeks, the death pulse, the victory sparkles

Next = game.flood("Next")  # field -> game; death or victory -> field
Round = game.flood("Round")  # a round starts
Strike1 = game.flood("Strike1")  # a press without a mole: the first strike ...
Strike2 = game.flood("Strike2")  # ... the second (the third ends the game: Death)
Death = game.flood("Death")  # a mole got away, or the third strike
Up = game.message("Up")  # "I raise a mole this round", to each neighbour


# --- the pace ------------------------------------------------------------------------
# Every interval shrinks linearly from level 1 to LEVEL_MAX: by 1500 ms over 14 levels,
# 107 ms a level (the original divides, and ends 2 ms shorter: 500 ms, not 502).
SPEED_UP = (EMERGE_MAX - EMERGE_MIN) // (LEVEL_MAX - 1)


# --- the field -----------------------------------------------------------------------
def next_peek(t):
    """A mole will peek out of the next face (the original: 0 to 4 faces on)."""
    t.peek_face = cw(t.peek_face)
    t.anim.start(PEEK_RED_MS + PEEK_FADE_MS + t.random(PEEK_DELAY_MS))


@game.setup
def power_up(t):
    next_peek(t)


@game.on_double_click
def next_stage(t):
    t.flood(Next)  # (in a game, every tile lets it pass)


@game.on_flood(Next)
def advance(t):
    if t.stage == Stage.SETUP:
        t.stage = Stage.GAME
        t.flash.start(FLASH_MS)
        t.round_timer.start(FIRST_ROUND_MS)
    elif t.stage != Stage.GAME:
        t.stage = Stage.SETUP
        t.round = 0
        t.strikes = 0
        t.source = False
        next_peek(t)


# --- rounds --------------------------------------------------------------------------
@game.on_timer(round_timer)
def round_due(t):
    t.flood(Round)


@game.on_flood(Round)
def new_round(t):
    if t.stage != Stage.GAME or t.emerge.running:
        return  # a second start of a round under way (two tiles' timers rang together)
    t.round += 1
    if t.round > ROUNDS:
        t.stage = Stage.VICTORY
        t.anim.start(0)
        return
    t.up = False
    t.near_up = False
    faster = (min(t.round, LEVEL_MAX) - 1) * SPEED_UP  # the level: the round, up to 15
    emerge_ms = EMERGE_MAX - faster
    t.above = ABOVE_MAX - faster
    t.emerge.start(emerge_ms + t.random(EMERGE_DRIFT))
    # From one round's start to the next: the moles rise, stay up, flash, and a pause.
    t.round_timer.start(2 * emerge_ms + EMERGE_DRIFT + t.above + FLASH_MS)
    t.pick.start(t.random(PICK_SLOTS) * PICK_STEP_MS)
    t.ripple.start(RIPPLE_MS)


# Which tiles raise a mole: the original's rule, a tile with no neighbour up rises. The
# original's tiles start a round up or down at random and all apply the rule at about
# the same moment; here each decides at a random moment of the round's first 280 ms and
# tells its neighbours. Neighbours deciding within a message's crossing both rise, as
# the original's do, so the counts of moles come out alike (docs/wham.md). The rule's
# second half (more than three neighbours up: go down again) would need four of them
# to rise with the tile in that moment, and is left out.
@game.on_timer(pick)
def decide(t):
    if not t.near_up:
        t.up = True
        for f in faces():
            if t.has_neighbor(f):
                t.send(Up, f)


@game.on_message(Up)
def neighbour_up(t, face):
    t.near_up = True


@game.on_timer(emerge)
def moles_rise(t):
    if t.up:
        t.mole.start(t.above)


# --- the player ----------------------------------------------------------------------
@game.on_press
def whack(t):
    if t.stage != Stage.GAME:
        return
    if t.mole.running:
        t.mole.stop()
        t.flash.start(FLASH_MS)
    elif t.strikes == 0:
        t.flood(Strike1)
    elif t.strikes == 1:
        t.flood(Strike2)
    else:
        t.source = True  # the third strike: the game ends here
        t.flood(Death)


# A strike says how many strikes there are now, as the original's tiles do, and a tile
# takes the larger count: a second press comes through while the first one's flood is
# still under way (one flood for both would take it for the same strike).
@game.on_flood(Strike1)
def first_strike(t):
    strike(t, 1)


@game.on_flood(Strike2)
def second_strike(t):
    strike(t, 2)


def strike(t, n: int):
    if t.stage == Stage.GAME and t.strikes < n:
        t.strikes = n
        t.strike_flash.start(STRIKE_MS)


@game.on_timer(mole)
def got_away(t):
    t.source = True
    t.flood(Death)


@game.on_flood(Death)
def death(t):
    if t.stage != Stage.SETUP:  # (a tile already dead stays the same)
        die(t)


def die(t):
    t.stage = Stage.DEATH
    t.round_timer.stop()  # (a round that starts once the game is over could reach the next)
    t.emerge.stop()
    t.mole.stop()
    t.anim.start(PULSE_MS)


@game.on_timer(anim)
def animate(t):
    if t.stage == Stage.SETUP:
        next_peek(t)
    elif t.stage == Stage.DEATH:
        t.anim.start(PULSE_MS)
    elif t.stage == Stage.VICTORY:
        t.flash.start(SPARKLE_MS)
        t.anim.start(SPARKLE_MS + t.random(SPARKLE_MS))


# --- the look ------------------------------------------------------------------------
# One colour is mixed at run time (white fading into the grass, the death pulse, a mole
# peeking out on the field), every other colour is a constant: that keeps the display
# small (docs/porting.md).
@game.display
def look(t):
    r = GRASS_RED
    g = 255
    w = 0  # white mixed into the grass (blue, and red towards 255)
    if t.stage == Stage.DEATH:
        # Down from 255 to 0 and up again over PULSE_MS: 255 * |left - half| / half, with
        # 11 / 32 for 255 / 750 (a shift, not a division). The tile the game ended on
        # pulses red and white, the others red and dark.
        left = min(t.anim.remaining, PULSE_MS)
        v = min((max(left, HALF_PULSE) - min(left, HALF_PULSE)) * 11 >> 5, 255)
        r = 255
        g = 255 - v
        w = g
        if not t.source:
            r = v
            g = 0
            w = 0
    else:
        if t.stage == Stage.SETUP:
            left = t.anim.remaining
            if left < PEEK_FADE_MS:
                w = min(left, PEEK_FADE_MS) >> 1  # the hole: white, fading to green
            elif left < PEEK_RED_MS + PEEK_FADE_MS:
                r = 255  # a mole peeks out: red
                g = 0
        elif t.flash.running:
            w = min(t.flash.remaining, FLASH_MS) >> 1  # 250 down to 0
        if g == 255:
            r = GRASS_RED + (min(w, 250) * 21 >> 5)  # the grass towards white: 90 + 164 at w = 250
    c = makeColorRGB(r, g, w)
    if t.stage == Stage.SETUP:
        t.color_all(GREEN_GRASS)
        t.color(t.peek_face, c)
        return
    t.color_all(c)
    if w > 0 or t.stage != Stage.GAME:
        return
    if t.mole.running:
        # Six pips burn down, face 0 last (the original dims each pip as it goes).
        lit = t.mole.remaining // (t.above // 6)
        for f in faces():
            t.color(f, RED if f <= lit else OFF)
    elif t.strike_flash.running:
        t.color_all(YELLOW if t.strikes == 1 else ORANGE)
    elif t.ripple.running:
        t.color_all(GRASS_DIM)  # the grass stirs: a round starts
