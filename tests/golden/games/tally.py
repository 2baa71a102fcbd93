"""Exercises per-face fields (numbers, bools and kinds, six of each) and a short message queue."""

from blinkc.dsl import BLUE, GREEN, OFF, RED, WHITE, YELLOW, Face, Game, cw, dim, faces, opposite

game = Game("tally", queue_len=4)
Mark = game.kinds("DOT", "RING", "STAR")
hits = game.field(range(0, 4), default=0, per_face=True)     # hits received on each face
missed = game.field(bool, default=False, per_face=True)      # a Hit out of it bounced
mark = game.field(Mark, default=Mark.DOT, per_face=True)
total = game.field(range(0, 100), default=0)
Hit = game.message("Hit", payload=range(1, 3))


def ringed(t, f: Face) -> bool:
    """A face with a RING mark hits twice as hard."""
    return t.mark[f] == Mark.RING


@game.on_click
def fire(t):
    # Up to six sends in one pass, and the queue holds four: the rest bounce.
    for f in faces():
        if t.has_neighbor(f):
            strong = ringed(t, f)
            t.send(Hit, f, 2 if strong else 1)


@game.on_double_click
def turn_marks(t):
    for f in faces():
        t.mark[f] = t.mark[f].next()


@game.on_long_press
def clear(t):
    for f in faces():
        t.hits[f] = 0
        t.missed[f] = False


@game.on_message(Hit)
def hit(t, face, n):
    t.hits[face] += n
    t.total += n
    if t.hits[face] == 3 and t.mark[opposite(face)] == Mark.STAR:
        t.mark[cw(face)] = Mark.RING


@game.on_bounce(Hit)
def miss(t, face):
    t.missed[face] = True


@game.display
def look(t):
    for f in faces():
        c = OFF
        if t.missed[f]:
            c = RED
        elif t.hits[f] > 0:
            c = dim(YELLOW, 85 * t.hits[f])
        elif t.mark[f] == Mark.STAR:
            c = WHITE
        elif t.mark[f] == Mark.RING:
            c = BLUE
        else:
            c = dim(GREEN, 60)
        t.color(f, c)
