"""Fleet Combos: the board game Pirates Under Fire, played on the tiles.

How to play, and the rules exactly: docs/fleet-combos.md. Every tile is one ship; the
tiles laid together are the sea. Each player lays numbered ships (1..9), one a turn, and
scores at the end for straight lines of their own ships with one number or a run.

- In the hand (a lone tile): a click deals a number from the tile's deck, a double click
  switches the owner, a long press lays the first ship of a new game.
- Laid against the sea, a ship is legal or it shows it is not; a legal ship counts a turn
  on every tile of the sea and acts on its neighbours (1, 5 and 9 have abilities).
- In the sea: a click shows the turn, a long press the score (and the winner), a triple
  click starts a new game.

A tile tells each neighbour what it is with one wide message (Hello): its ship, whether
the neighbour's face is the space of a burned ship, and the turn. Every tile keeps what
its neighbours said, one byte a face, so a ship scores its lines from its neighbours
alone: a line of L ships is L - 2 ships with a ship of the line on both sides.
"""

from blinkc.dsl import (
    GREEN,
    MAGENTA,
    OFF,
    ORANGE,
    RED,
    WHITE,
    Face,
    Game,
    bit,
    faces,
    makeColorRGB,
    opposite,
)

# randomize="clock": a deal follows a player's click, so the clock mixed into the tile's
# own sequence makes every game's deals different, without randomize()'s wait.
game = Game("fleet_combos", randomize="clock", queue_len=40)

# --- state ---------------------------------------------------------------------------------
number = game.field(range(0, 10), default=0, doc="the ship's number; 0: none dealt yet")
owner = game.field(range(0, 2), default=0, doc="the player: 0 green, 1 magenta")
deck = game.field(range(0, 512), default=0, doc="bit n - 1: number n dealt from this deck")
sea = game.field(bool, default=False, doc="a legal ship of the sea")
fire = game.field(bool, default=False, doc="the ship is burning")
# (0..32: every count is one ship more than a count below 32 or one heard; 64 so that no
# assignment clamps it)
count = game.field(range(0, 64), default=0, doc="legal ships laid in this game (a sea tile)")
first = game.field(range(0, 2), default=0, doc="the player who laid the first ship")
born = game.field(range(0, 33), default=0, doc="the count when this ship was laid")
joined = game.field(range(0, 64), default=0, doc="bit f: a working link on face f; 0: in the hand")
owed = game.field(range(0, 64), default=0, doc="bit f: face f's Hello bounced on a full queue")
fresh = game.field(bool, default=False, doc="put against something, the sea not heard yet")
near = game.field(range(0, 128), default=0, per_face=True,
                  doc="what lies on this face: 0 nothing known, a ship, or HOLE")
points = game.field(range(0, 65536), default=0, doc="the Points gather's total (its starter)")
ships = game.field(range(0, 65536), default=0, doc="the Ships gather's total (its starter)")
gathered = game.field(range(0, 4), default=0,
                      doc="since the long press: bit 0 Points is back, bit 1 Ships")
val_a = game.field(range(0, 100), default=0, doc="shown: the first number (the winner's points)")
val_b = game.field(range(0, 100), default=0, doc="shown: the second number (or the turn)")
who_a = game.field(range(0, 3), default=0,
                   doc="val_a's colour: a player (val_b in the other's), or DRAW: both white")

window = game.timer()  # a ship put against the sea: Hellos that make it legal count 3 s
show = game.timer()  # the score (2 digits in the winner's colour, 2 in the other's) or the turn
again = game.timer()  # a Hello that found the queue full goes again when this ends

GAME_SHIPS = 32
WINDOW_MS = 3000
AGAIN_MS = 100  # a wide message's five codes leave a face in some tens of ms
DIGIT_MS = 512  # a power of two: the digit shown is remaining >> 9
TURN_MS = 2 * DIGIT_MS
SCORE_MS = 4 * DIGIT_MS
DRAW = 2  # (and DRAW ^ 1, the other number of a draw: both white)
RED_LOOK = 4  # a burning ship, an illegal one

FIRESHIP = 1  # sets every adjacent opponent ship on fire
FIREBOAT = 5  # puts out every adjacent own burning ship
PRIVATEER = 9  # takes every adjacent burning opponent ship: it is put out and changes sides

# near[f]: number + NEAR_OWNER x owner for a ship, + BURNING when it burns; HOLE for the
# space a burning ship was taken from (until a ship of the sea fills it).
NEAR_OWNER = 16
BURNING = 32
# A Hello's word: its low byte the sender's ship in near's form (0: not a ship of the sea)
# and these two bits, its high byte the count (0..32) and FIRST (15 bits in all, so the
# tile's 16-bit arithmetic never wraps). Bytes, not fields of 6 bits across them: the AVR
# takes a byte apart in a register where it shifts a word one bit at a time.
HOLE_BIT = 64  # the receiver's face is the space a burning ship was taken from
LAID = 128  # the sender was just laid: its ability acts on the receiver
COUNT = 256  # the high byte: the count...
FIRST = 64  # ... and the first player, its bit 6
HOLE = HOLE_BIT + BURNING  # (no ship has HOLE_BIT: the Hello copies it from near[])

Hello = game.message("Hello", payload=range(0, 65536))  # (never above 32,767: see above)
Reset = game.flood("Reset")  # a new game
Points = game.gather("Points", combine="sum", payload=range(0, 65536))
Ships = game.gather("Ships", combine="sum", payload=range(0, 65536))

SEA_BLUE = makeColorRGB(0, 0, 50)
DIM_WHITE = makeColorRGB(50, 50, 50)
END_WHITE = makeColorRGB(90, 90, 90)


# --- telling the neighbours ------------------------------------------------------------------
def hello(t, face: Face):
    low = t.near[face] & HOLE_BIT
    if t.sea:
        low += t.number + t.owner * NEAR_OWNER
        if t.fire:
            low += BURNING
        if t.window.running:
            low += LAID
    # (& 255: the low byte is all blinkc needs to keep of `low`, so it keeps it in a byte)
    t.send(Hello, face, (t.count + t.first * FIRST) * COUNT + (low & 255))


def tell(t, to: int):
    """A Hello to each face of the mask `to`."""
    for f in faces():
        if bit(to, f):
            hello(t, f)


@game.on_bounce(Hello)
def hello_bounced(t, face):
    """A Hello that found the queue full (a tile just joined by many faces, then laid, under
    loss) goes again, with what is true then: a neighbour must not miss a turn or a fire."""
    t.owed |= 1 << face
    t.again.start(AGAIN_MS)


@game.on_timer(again)
def hello_again(t):
    due = t.owed & t.joined  # (a face gone since needs none)
    t.owed = 0
    tell(t, due)


@game.on_neighbor_joined
def joined_face(t, face):
    if t.joined == 0 and not t.sea and t.number > 0:
        t.fresh = True  # a ship in the hand put against something: it waits for the sea
        t.window.start(WINDOW_MS)  # (and looks illegal if it has not heard it by then)
    t.joined |= 1 << face
    hello(t, face)


@game.on_neighbor_left
def left_face(t, face):
    t.joined &= ~(1 << face)
    # a burning ship gone is gone for good: its space may be filled (a space stays one:
    # HOLE has the BURNING bit)
    t.near[face] = HOLE if t.near[face] & BURNING else 0
    if t.joined == 0 and t.fire:
        wreck(t)


def wreck(t):
    """A burning ship taken from the sea is destroyed: the tile is a blank ship in the hand."""
    t.sea = False
    t.fire = False
    t.number = 0
    t.count = 0
    for f in faces():
        t.near[f] = 0


@game.on_message(Hello)
def heard(t, face, word):
    ship = word & 63  # its ship: number + NEAR_OWNER x owner + BURNING: near's own form
    laid = (word >> 8) & 63  # the sender's count of ships laid
    if ship & 15 == 0:  # not a ship of the sea: it fills no space
        if t.near[face] != HOLE:
            t.near[face] = 0
        return
    # Not the ship this face knew (a ship that caught fire or was put out is the same one:
    # a Fireboat set on fire within its window must not put out its neighbours again).
    news = (t.near[face] | BURNING) != (ship | BURNING)
    t.near[face] = ship
    if t.sea:
        was = t.fire
        if word & LAID and news and laid > t.born:
            # a ship laid after this one, new beside it: its ability acts (once)
            ability(t, ship)
        if laid > t.count or t.fire != was:  # a turn played (or played while this ship
            # was away), or this ship caught fire, was put out or taken
            t.count = max(t.count, laid)  # (its first player it knows: one game)
            tell(t, t.joined)  # the news goes on, ship to ship, over the sea
        return
    if t.fresh:
        # The first Hello of a ship of the sea, however late loss made it: the Hellos of the
        # next 3 s decide (links of one tile come up at slightly different times).
        t.fresh = False
        t.window.start(WINDOW_MS)
    if (t.window.running and t.number and laid < GAME_SHIPS
            and ((word >> 14) ^ laid ^ t.owner) & 1 == 0
            and (laid < 2 or ship ^ t.owner * NEAR_OWNER < NEAR_OWNER or word & HOLE_BIT)):
        # Legal: it is this owner's turn (the first player's, flipped by each ship laid), and
        # its first ship, or beside an active ship of its own (below NEAR_OWNER once its own
        # owner's bit is taken away: not BURNING, not the other's), or in a burned ship's space.
        t.sea = True
        t.count = laid + 1
        t.born = laid + 1
        t.first = (word >> 14) & 1
        tell(t, t.joined)  # one turn more, and LAID: the new ship's ability acts on its neighbours


def ability(t, ship: int):
    """A ship was laid beside this one (`ship` in near's form, burning or not)."""
    other = (ship ^ t.owner * NEAR_OWNER) & 31  # its number, + NEAR_OWNER if an opponent's
    if other == FIREBOAT:
        t.fire = False
    elif other == NEAR_OWNER + FIRESHIP:
        t.fire = True
    elif other == NEAR_OWNER + PRIVATEER and t.fire:
        t.fire = False
        t.owner ^= 1  # the layer's


@game.on_flood(Reset)
def reset(t):
    wreck(t)  # every tile is a blank ship in the hand, with a full deck
    t.deck = 0


# --- the hand ------------------------------------------------------------------------------
@game.on_click
def click(t):
    if t.sea:
        t.val_b = t.count + 1  # the turn being played (33: the game is over)
        t.who_a = (t.first ^ t.count ^ 1) & 1
        t.show.start(TURN_MS)
    elif t.joined == 0:
        deal(t)


def deal(t):
    """The next number from the tile's deck: each of 1..9 once before any repeats (a random
    one, or the next not dealt after it)."""
    if t.deck == 511:
        t.deck = 0
    n = t.random(8)
    for i in range(9):
        if not bit(t.deck, n):
            break
        n = n + 1 if n < 8 else 0
    t.number = n + 1
    t.deck |= 1 << n


@game.on_double_click
def double_click(t):
    if t.joined == 0 and not t.sea:
        t.owner ^= 1


@game.on_long_press
def long_press(t):
    if t.sea:
        t.gathered = 0
        t.flood(Points)
        t.flood(Ships)
    elif t.joined == 0 and t.number > 0:  # the first ship of a new game
        t.sea = True
        t.count = 1
        t.born = 1
        t.first = t.owner


@game.on_multi_click
def new_game(t):
    if t.sea or t.joined == 0:
        t.flood(Reset)


# --- score ---------------------------------------------------------------------------------
def unit(t) -> int:
    """What this ship (or a line through it) adds to a gather: 1 in the low byte (green's),
    256 in the high one (magenta's); 0 for a ship that is not an active ship of the sea."""
    if not t.sea or t.fire:
        return 0
    return 255 * t.owner + 1


@game.on_flood(Points)
def my_lines(t):
    """Lines through this ship with a ship of the line on both sides, in the 3 directions:
    its neighbours on opposite faces are this owner's active ships, with numbers on either
    side equal to its own, or one less on one side and one more on the other. A unit each."""
    one = unit(t)
    me = t.number + t.owner * NEAR_OWNER
    found = 0
    for f in range(3):
        a = t.near[f]
        b = t.near[opposite(f)]
        # a + b == 2 me with a and b at most 2 apart: both within 1 of me, so both ships of
        # this owner (another owner's is 16 away) and active (a burning one is 32 up)
        if a and b and a + b == 2 * me and a <= b + 2 and b <= a + 2:
            found += one
    # (& 65535, as below: a 16-bit value that is never negative, so the gather's entry
    # needs no clamp)
    return found & 65535


@game.on_flood(Ships)
def my_ship(t):
    return unit(t) & 65535


@game.on_flood_done(Points)
def got_points(t, total):
    t.points = total
    t.gathered |= 1
    scored(t)


@game.on_flood_done(Ships)
def got_ships(t, total):
    t.ships = total
    t.gathered |= 2
    scored(t)


def scored(t):
    """Both totals are back (green's in the low byte, magenta's in the high one): the
    winner has more points, on equal points more active ships. Shown: the winner's points
    in the winner's colour, then the other's (a draw: both white)."""
    if t.gathered != 3:
        return
    a = t.points & 255
    b = t.points >> 8
    t.val_a = a
    t.val_b = b
    if a == b:  # equal points: more active ships
        a = t.ships & 255
        b = t.ships >> 8
    t.who_a = 0
    if a == b:
        t.who_a = DRAW
    elif b > a:
        t.who_a = 1
        t.val_a = t.val_b
        t.val_b = t.points & 255
    t.show.start(SCORE_MS)


# --- the look --------------------------------------------------------------------------------
@game.display
def look(t):
    d = t.number  # lit faces: 1..6; 7..9: a full ring with 1..3 faces white; 0: a dim ring
    who = t.owner  # the colour: 0 green, 1 magenta, DRAW (or DRAW ^ 1) white, RED_LOOK
    back = OFF
    if t.show.running:
        left = t.show.remaining >> 9  # // DIGIT_MS: 3 2, the first number; 1 0, the second
        v = t.val_b
        who = t.who_a ^ 1  # (DRAW ^ 1 is white too)
        if left >= 2:
            v = t.val_a
            who = t.who_a
        d = v // 10 if left & 1 else v % 10
    elif t.sea:
        back = END_WHITE if t.count == GAME_SHIPS else SEA_BLUE  # the end: every ship white
        if t.fire:
            who = RED_LOOK
    elif t.joined and d and not t.window.running:
        who = RED_LOOK  # an illegal ship: all red until it is taken away
        d = 6
    lit = GREEN
    if who == 1:
        lit = MAGENTA
    elif who == RED_LOOK:
        lit = RED
    elif who >= DRAW:
        lit = WHITE
    for f in faces():
        c = back
        if d == 0:
            c = DIM_WHITE
        elif f < d:
            c = WHITE if f < d - 6 else lit
        t.color(f, c)
