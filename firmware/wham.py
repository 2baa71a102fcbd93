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
    Game,
    dim,
    faces,
    makeColorHSB,
)

game = Game("wham", randomize=True, queue_len=6)

Phase = game.kinds("SETUP", "GAME", "DEATH", "VICTORY")

GRASS = 70  # the hue of the field
ROUNDS = 30  # the moles give up after this many rounds
LEVEL_MAX = 15  # the difficulty climbs one level a round up to here
STRIKES = 3  # presses without a mole that end the game

EMERGE_MAX = 2000  # from a round's start to the moles coming up: at level 1 ...
EMERGE_MIN = 500  # ... and at LEVEL_MAX
EMERGE_DRIFT = 200  # each tile adds up to this much, so moles do not rise in step
ABOVE_MAX = 3000  # how long a mole stays up: at level 1 ...
ABOVE_MIN = 1500  # ... and at LEVEL_MAX
FLASH_MS = 500  # a whacked mole (and the start of the game): white fading to green
STRIKE_MS = 200  # a strike: the whole cluster flashes its colour
RIPPLE_MS = 500  # the grass shimmers as a round starts
FIRST_ROUND_MS = 2000  # from the start of the game to its first round
PICK_SLOTS = 7  # a tile decides whether it raises a mole at one of 8 moments ...
PICK_STEP_MS = 40  # ... this far apart, from the start of the round on
PULSE_MS = 1500  # the death pulse: down and up again
SPARKLE_MS = 250  # a victory sparkle, and up to as much again between two
PEEK_RED_MS = 1000  # on the field, a mole peeks out of a face for 1 to 1.5 s ...
PEEK_FADE_MS = 500  # ... the hole fades from white back to green ...
PEEK_DELAY_MS = 3000  # ... and up to 3 s pass before the next one

phase = game.field(Phase, default=Phase.SETUP, doc="where the game is")
round = game.field(range(0, ROUNDS + 2), default=0, doc="rounds started")
level = game.field(range(0, LEVEL_MAX + 1), default=0, doc="difficulty: 1 in round 1 ...")
strikes = game.field(range(0, STRIKES + 1), default=0, doc="presses without a mole")
up = game.field(bool, default=False, doc="this tile raises a mole this round")
ups = game.field(range(0, 7), default=0, doc="neighbours that raise one this round")
source = game.field(bool, default=False, doc="the game ended here (the death pulse is white)")
peek_face = game.field(range(0, 6), default=0, doc="the face a mole peeks out of, on the field")
peek_red = game.field(range(PEEK_RED_MS, PEEK_RED_MS * 3 // 2 + 1), default=PEEK_RED_MS,
                      doc="how long it stays out this time")

above = game.field(range(ABOVE_MIN, ABOVE_MAX + 1), default=ABOVE_MAX,
                  doc="how long this round's mole stays up")

round_timer = game.timer()  # the next round (every tile keeps one; the first to ring starts it)
emerge = game.timer()  # the round's moles come up
pick = game.timer()  # this tile decides whether it raises a mole
mole = game.timer()  # the mole is up: it gets away when this rings
flash = game.timer()  # white fading to green
strike_flash = game.timer()  # the strike colour
anim = game.timer()  # the field's peeks, the death pulse, the victory sparkles

Next = game.flood("Next")  # field -> game; death or victory -> field
Round = game.flood("Round")  # a round starts
Strike = game.flood("Strike")  # a press without a mole
Death = game.flood("Death")  # a mole got away
Up = game.message("Up")  # "I raise a mole this round", to each neighbour


# --- the pace: every interval shrinks linearly from level 1 to LEVEL_MAX -------------
def shrink(t, longest: int, shortest: int) -> int:
    return longest - (t.level - 1) * (longest - shortest) // (LEVEL_MAX - 1)


@game.derived(range(EMERGE_MIN, EMERGE_MAX + 1))
def emerge_ms(t):
    return shrink(t, EMERGE_MAX, EMERGE_MIN)


@game.derived(range(ABOVE_MIN, ABOVE_MAX + 1))
def above_ms(t):
    return shrink(t, ABOVE_MAX, ABOVE_MIN)


def round_ms(t) -> int:
    """From one round's start to the next: the moles rise, stay, flash, and a pause."""
    return 2 * t.emerge_ms + EMERGE_DRIFT + t.above_ms + FLASH_MS


# --- the field -----------------------------------------------------------------------
def next_peek(t):
    t.peek_red = PEEK_RED_MS + t.random(PEEK_RED_MS // 2)
    t.anim.start(t.peek_red + PEEK_FADE_MS + t.random(PEEK_DELAY_MS))


@game.setup
def power_up(t):
    t.peek_face = t.random(4)
    next_peek(t)


@game.on_double_click
def next_phase(t):
    if t.phase != Phase.GAME:
        t.flood(Next)


@game.on_flood(Next)
def advance(t):
    if t.phase == Phase.SETUP:
        t.phase = Phase.GAME
        t.flash.start(FLASH_MS)
        t.round_timer.start(FIRST_ROUND_MS)
    elif t.phase != Phase.GAME:
        t.phase = Phase.SETUP
        t.round = 0
        t.level = 0
        t.strikes = 0
        t.up = False
        t.source = False
        t.flash.stop()
        next_peek(t)


# --- rounds --------------------------------------------------------------------------
@game.on_timer(round_timer)
def round_due(t):
    if t.phase == Phase.GAME:
        t.flood(Round)


@game.on_flood(Round)
def new_round(t):
    if t.phase != Phase.GAME or t.emerge.running:
        return  # a second start of a round under way (two tiles' timers rang together)
    t.round += 1
    if t.round > ROUNDS:
        t.phase = Phase.VICTORY
        t.anim.start(0)
        return
    t.level = min(t.level + 1, LEVEL_MAX)
    t.up = False
    t.ups = 0
    t.emerge.start(t.emerge_ms + t.random(EMERGE_DRIFT))
    t.round_timer.start(round_ms(t))
    t.pick.start(t.random(PICK_SLOTS) * PICK_STEP_MS)


# Which tiles raise a mole: the original's rule, a tile with no neighbour up rises and a
# tile with more than three neighbours up goes down; the tiles decide one after another
# (at random moments), so neighbours seldom rise together.
@game.on_timer(pick)
def decide(t):
    if t.ups == 0:
        t.up = True
        for f in faces():
            if t.has_neighbor(f):
                t.send(Up, f)


@game.on_message(Up)
def neighbour_up(t, face):
    t.ups += 1
    if t.ups > 3:
        t.up = False


@game.on_timer(emerge)
def moles_rise(t):
    if t.up and t.phase == Phase.GAME:
        t.above = t.above_ms
        t.mole.start(t.above)


# --- the player ----------------------------------------------------------------------
@game.on_press
def whack(t):
    if t.phase != Phase.GAME:
        return
    if t.mole.running:
        t.mole.stop()
        t.flash.start(FLASH_MS)
    else:
        t.source = t.strikes == STRIKES - 1
        t.flood(Strike)


@game.on_flood(Strike)
def struck(t):
    if t.phase != Phase.GAME:
        return
    t.strikes += 1
    t.strike_flash.start(STRIKE_MS)
    if t.strikes == STRIKES:
        die(t)


@game.on_timer(mole)
def got_away(t):
    t.source = True
    t.flood(Death)


@game.on_flood(Death)
def death(t):
    if t.phase == Phase.GAME or t.phase == Phase.VICTORY:
        die(t)


def die(t):
    t.phase = Phase.DEATH
    t.round_timer.stop()
    t.emerge.stop()
    t.mole.stop()
    t.anim.start(PULSE_MS)


@game.on_timer(anim)
def animate(t):
    if t.phase == Phase.SETUP:
        t.peek_face = (t.peek_face + t.random(4)) % 6
        next_peek(t)
    elif t.phase == Phase.DEATH:
        t.anim.start(PULSE_MS)
    elif t.phase == Phase.VICTORY:
        t.flash.start(SPARKLE_MS)
        t.anim.start(SPARKLE_MS + t.random(SPARKLE_MS))


# --- the look ------------------------------------------------------------------------
@game.display
def look(t):
    green = makeColorHSB(GRASS, 255, 255)
    t.color_all(green)
    if t.phase == Phase.SETUP:
        left = t.anim.remaining
        if left < PEEK_FADE_MS:  # 255 * left // 500, in 16 bits:
            t.color(t.peek_face, makeColorHSB(GRASS, 255 - min(left, PEEK_FADE_MS) * 51 // 100, 255))
        elif left < t.peek_red + PEEK_FADE_MS:
            t.color(t.peek_face, RED)
    elif t.phase == Phase.DEATH:
        # Down from 255 to 0 and up again over PULSE_MS: 255 * |left - half| // half, in 16
        # bits (17 / 50 = 255 / 750).
        left = min(t.anim.remaining, PULSE_MS)
        half = PULSE_MS // 2
        v = (max(left, half) - min(left, half)) * 17 // 50
        if t.source:
            t.color_all(makeColorHSB(0, v, 255))  # red and white
        else:
            t.color_all(makeColorHSB(0, 255, v))  # red and dark
    elif t.flash.running:
        t.color_all(makeColorHSB(GRASS, (FLASH_MS - min(t.flash.remaining, FLASH_MS)) * 51 // 100, 255))
    elif t.phase == Phase.VICTORY:
        pass
    elif t.mole.running:
        # Six pips burn down: face 0 goes out last, the pip burning dims as it goes.
        step = t.above // 6
        left = min(t.mole.remaining, ABOVE_MAX)
        full = left // step
        for f in faces():
            if f < full:
                t.color(f, RED)
            elif f == full:
                t.color(f, dim(RED, left % step * 51 // (step // 5)))
            else:
                t.color(f, OFF)
    elif t.strike_flash.running:
        t.color_all(YELLOW if t.strikes == 1 else ORANGE if t.strikes == 2 else RED)
    elif t.round > 0 and t.round_timer.remaining > round_ms(t) - RIPPLE_MS:
        for f in faces():
            t.color(f, makeColorHSB(GRASS, 255, 205 + t.random(50)))
