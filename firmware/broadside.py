"""Broadside: two hidden fleets of sea and ship tiles; capture the other player's ships.

How to set up and play, the decisions and the limits: docs/broadside.md. Every tile
runs this one firmware and is open sea or part of a ship.

- Setup, alone: a double click cycles sea/ship; a long press toggles the Sweet Spot
  on a ship tile, the fleet colour on a sea tile.
- In a fleet: a click fires on the tile (miss: a white peg; hit: a red peg); a double
  click is the Scatter Shot (once per fleet: also the tile on face 3); a triple click
  shows the points the fleet has lost; a press held 3 s resets the fleet (roles kept).

A ship is the ship tiles joined by ship-to-ship links: its floods are confined to it
(`within=same_ship`). After a hit, the ship counts itself with one gather (`Survey`):
every tile adds a packed word of its size (1), hit, Sweet Spot hit and Sweet Spot, so
the starter learns n, the hits, whether a Sweet Spot was hit and how many Sweet Spots
the ship has, each tile counted once. A capture then floods the ship with its value.
"""

from blinkc.dsl import (
    CYAN,
    MAGENTA,
    OFF,
    ORANGE,
    RED,
    WHITE,
    YELLOW,
    Game,
    faces,
    makeColorRGB,
)

game = Game("broadside", randomize=False)

# --- state ---------------------------------------------------------------------------------
ship = game.field(bool, default=False, doc="a ship tile (else open sea)")
ship_near = game.field(bool, default=False, per_face=True, doc="the neighbour on this face is a ship tile")
sweet = game.field(bool, default=False, doc="a ship tile that is its ship's Sweet Spot")
yellow = game.field(bool, default=False, doc="the fleet colour shown while alone: yellow, else cyan")
linked = game.field(range(0, 7), default=0, doc="this tile's working links: 0 is alone (setup)")
fired = game.field(bool, default=False, doc="this tile has been fired on")
captured = game.field(bool, default=False, doc="this tile's ship has been captured")
worth = game.field(range(0, 16), default=0, doc="the captured ship's size n (n x 100 points)")
illegal = game.field(bool, default=False, doc="this tile's ship has two Sweet Spots (setup)")
scattered = game.field(bool, default=False, doc="the fleet has taken its Scatter Shot")
lost = game.field(range(0, 64), default=0, doc="the fleet's captured tiles (x 100 points lost)")
spending = game.field(bool, default=False, doc="this tile counts a Scatter Shot's ship: it tells the fleet")

flash = game.timer()  # a capture: full red for 1 s
show = game.timer()  # the score display: 3 s
check = game.timer()  # a link of this ship tile changed: count the Sweet Spots soon

# One tile's word in a Survey: 1 (its size) + HIT if hit + SWEET if it is a Sweet Spot +
# SWEET_HIT if it is a Sweet Spot that was hit. The sum holds the ship's size and hits
# (4 bits each: ships up to 15 tiles), its Sweet Spots (2 bits) and its Sweet Spot hits.
HIT = 16
SWEET = 256
SWEET_HIT = 1024

FLASH_MS = 1000
SHOW_MS = 3000
CHECK_MS = 400  # a changed link on face f: the Sweet Spot count starts 0.4 s ...
CHECK_STEP_MS = 256  # ... + f x 0.256 s later (spread, so two tiles seldom count at once)
SCATTER_FACE = 3

SEA_BLUE = makeColorRGB(0, 0, 60)


def same_ship(t, face):
    """The link on `face` joins two ship tiles: two tiles of one ship."""
    return t.ship and t.ship_near[face]


# The 6-bit face value has room for 31 codes and no broadcast bit beside them (a flood
# takes four), so a tile tells each new neighbour that it is a ship tile (Ahoy) instead of
# broadcasting its role, and the ship's and the fleet's floods carry what they mean.
Ahoy = game.message("Ahoy")  # "I am a ship tile", to each new neighbour
Shot = game.message("Shot")  # the Scatter Shot's second shot, to the tile on face 3
Survey = game.gather("Survey", combine="sum", payload=range(0, 4096), within=same_ship)
# To the ship: LEGAL, TWO_SWEET_SPOTS (the setup's verdict), or CAPTURED + n.
Ship = game.flood("Ship", payload=range(0, 18), within=same_ship)
# To the fleet: LOST + n (a ship of n tiles was captured; + SCATTER_SPENT when that was
# the Scatter Shot's), SCATTER_SPENT alone, SHOW (the score, 3 s) or RESET (a new game).
Fleet = game.flood("Fleet", payload=range(0, 34))

LEGAL = 0
TWO_SWEET_SPOTS = 1
CAPTURED = 2
LOST = 0
SCATTER_SPENT = 16
SHOW = 32
RESET = 33


def capture_count(n) -> int:
    """Hits that capture a ship of n tiles: ceil(n / 2) + 1, at most n."""
    return min(n, (n + 1) // 2 + 1)


# --- setup, alone --------------------------------------------------------------------------
# "Alone" is a tile without working links (`linked`), not the SDK's t.alone (nothing heard
# for 200 ms): under heavy packet loss a tile in a fleet hears nothing for 200 ms now and
# then, and a shot would be taken for a setup gesture. A link ends once the neighbour has
# been silent for the game's grace (4 s), so a tile lifted out of its fleet takes that long
# to show its setup look and take setup gestures.
@game.on_double_click
def double_click(t):
    if t.linked == 0:
        t.ship = not t.ship
        t.sweet = False
    else:
        scatter_shot(t)


@game.on_long_press
def long_press(t):
    if t.linked > 0:
        return  # in a fleet: held on to 3 s, it resets (below)
    if t.ship:
        t.sweet = not t.sweet
    else:
        t.yellow = not t.yellow
    t.illegal = False


@game.on_long_long_press
def long_long_press(t):
    # Held 3 s (the SDK gives this only to a tile with a neighbour: a lone tile held 3 s
    # shares its game, the BIOS's seed mode).
    if t.linked > 0:
        t.flood(Fleet, RESET)


@game.on_neighbor_joined
def joined(t, face):
    t.linked += 1  # (ship_near[face] is False: it is cleared when a link ends)
    if t.ship:
        t.send(Ahoy, face)


@game.on_message(Ahoy)
def ahoy(t, face):
    t.ship_near[face] = True
    relink(t, face)


@game.on_neighbor_left
def left(t, face):
    t.linked -= 1
    if t.ship_near[face]:
        relink(t, face)
    t.ship_near[face] = False


def relink(t, face: int):
    """A ship link of this tile began or ended: recount the ship's Sweet Spots soon (the
    first tile whose timer rings counts; its count stops the others' timers)."""
    if t.ship and not t.fired:
        t.check.start(CHECK_MS + face * CHECK_STEP_MS)


@game.on_timer(check)
def count_sweet_spots(t):
    t.flood(Survey)  # (alone, it counts this tile only: no harm)


# --- firing --------------------------------------------------------------------------------
def hit_here(t) -> bool:
    """Fire on this tile if it can be; True when that was a hit (the ship must count)."""
    if t.fired or t.captured:
        return False
    t.fired = True
    return t.ship


@game.on_click
def fire(t):
    if t.linked > 0 and hit_here(t):
        t.flood(Survey)


def scatter_shot(t):
    if t.scattered or t.fired or t.captured:
        return
    t.scattered = True
    hit = hit_here(t)
    # Sent whether or not the SDK hears a neighbour on face 3 now (under packet loss it
    # may not for 200 ms): with nobody there, the Shot bounces.
    t.send(Shot, SCATTER_FACE)
    if t.ship_near[SCATTER_FACE]:
        return  # the tile on face 3 is a ship tile: it counts its ship and tells the fleet
    spend_scatter(t, hit)


def spend_scatter(t, hit: bool):
    """One Fleet flood tells the fleet the Scatter Shot is spent: with the capture if the
    shot's ship count (run here) captures, else alone (two Fleet floods at once would
    merge, and one of them be lost on part of the fleet)."""
    if hit:
        t.spending = True
        t.flood(Survey)
    else:
        t.flood(Fleet, SCATTER_SPENT)


@game.on_message(Shot)
def second_shot(t, face):
    hit_here(t)
    if t.ship:  # the first tile left the count and the fleet's notice to this one
        spend_scatter(t, not t.captured)  # its own hit, and the first shot's if on this ship
    # (on sea, the first tile counts its own ship and tells the fleet: two Fleet floods
    # started at once would merge, and each tile run only the one that came first)


@game.on_bounce(Shot)
def second_shot_lost(t, face):
    # Nobody on face 3, or it went away: the first shot alone. (When this tile has counted
    # already, a second count changes nothing: a captured ship is not captured again, and
    # the Scatter Shot is spent once more.)
    spend_scatter(t, t.ship)


# --- counting a ship -------------------------------------------------------------------------
@game.on_flood(Survey)
def my_word(t):
    t.check.stop()  # this count covers the ship: no need for another
    word = 1
    if t.sweet:
        word += SWEET
    if t.fired:
        word += HIT
        if t.sweet:
            word += SWEET_HIT
    return word


@game.on_flood_done(Survey)
def counted(t, total):
    n = total & 15
    hits = (total >> 4) & 15
    spent = SCATTER_SPENT if t.spending else 0
    t.spending = False
    if hits == 0:  # setup: no hits, so no Sweet Spot hit, and total >> 8 is the Sweet Spots
        t.flood(Ship, TWO_SWEET_SPOTS if total >> 8 >= 2 else LEGAL)
    elif not t.captured and (total >> 10 or hits >= capture_count(n)):
        t.flood(Ship, CAPTURED + n)
        t.flood(Fleet, LOST + n + spent)
        return
    else:
        t.flood(Ship, LEGAL)  # the ship is under fire: setup is over
    if spent:
        t.flood(Fleet, spent)


@game.on_flood(Ship)
def ship_news(t, news):
    if news < CAPTURED:
        t.illegal = news == TWO_SWEET_SPOTS
    elif not t.captured:
        t.captured = True
        t.worth = news - CAPTURED
        t.illegal = False
        t.flash.start(FLASH_MS)


# --- score, Scatter Shot, reset ----------------------------------------------------------------
@game.on_multi_click
def ask_score(t):
    if t.linked > 0:
        t.flood(Fleet, SHOW)


@game.on_flood(Fleet)
def fleet_news(t, news):
    if news == SHOW:
        t.show.start(SHOW_MS)
    elif news == RESET:
        t.fired = False
        t.captured = False
        t.illegal = False
        t.scattered = False
        t.lost = 0
    else:
        if news >= SCATTER_SPENT:
            t.scattered = True
        t.lost += news % SCATTER_SPENT


# --- the look --------------------------------------------------------------------------------
@game.display
def look(t):
    mine = YELLOW if t.yellow else CYAN
    if t.linked == 0:
        # Setup: sea = dim blue with face 0 in the fleet colour; ship = the fleet colour;
        # Sweet Spot = the fleet colour with face 0 white.
        for f in faces():
            c = mine if t.ship else SEA_BLUE
            if f == 0:
                c = WHITE if t.sweet else mine
            t.color(f, c)
        return
    if t.show.running:
        # One lit face per 100 points, six to a ring, a colour per ring of 600 points:
        # the faces of the ring being filled, over the full ring before it.
        rings = t.lost // 6
        for f in faces():
            ring = rings if f < t.lost % 6 else rings - 1
            c = OFF
            if ring == 0:
                c = WHITE
            elif ring == 1:
                c = YELLOW
            elif ring == 2:
                c = ORANGE
            elif ring >= 3:
                c = MAGENTA
            t.color(f, c)
        return
    if t.flash.running:
        t.color_all(RED)
        return
    blink = (t.now >> 8) & 1
    phase = (t.now >> 4) & 255
    wave = phase & 127
    if phase & 128:
        wave = 127 - wave  # a slow triangle wave: up, then down (4 s)
    sea = makeColorRGB(0, 0, 60 + wave)
    for f in faces():
        c = sea
        if t.captured:
            if f < t.worth:
                c = ORANGE
        elif f == 0 and t.fired:
            c = RED if t.ship else WHITE
        elif t.illegal and t.sweet and blink:
            c = ORANGE
        t.color(f, c)
