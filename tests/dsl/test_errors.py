"""One small test per DSL mistake: each gives file:line, what is wrong, and a hint."""

import textwrap

import pytest

from blinkc.dsl import lower_game

HEADER = """\
from blinkc.dsl import *
game = Game("g")
hp = game.field(range(0, 6), default=5)
Ping = game.message("Ping")
flash = game.timer()

@game.display
def look(t):
    t.color_all(BLUE)
"""
HEADER_LINES = HEADER.count("\n")


def errors_of(tmp_path, body: str, header: str = HEADER):
    path = tmp_path / "game.py"
    path.write_text(header + textwrap.dedent(body))
    result = lower_game(path)
    return path, result.errors, result.warnings


def line_of(body: str, marker: str) -> int:
    for i, line in enumerate(textwrap.dedent(body).splitlines(), start=HEADER_LINES + 1):
        if marker in line:
            return i
    raise AssertionError(marker)


CASES = [
    # (name, body, marker on the offending line, words in the message, words in the hint)
    ("field named like a layout's clock setting", """
        phase = game.field(range(0, 4))  # here
        """, "# here", "cannot be called 'phase'", "another name"),
    ("field named like a method of the emulator's program", """
        links = game.field(range(0, 7))  # here
        """, "# here", "cannot be called 'links'", "another name"),
    ("timer named like a method of the emulator's program", """
        value = game.timer()  # here
        """, "# here", "cannot be called 'value'", "another name"),
    ("field named like a function of the protocol engine", """
        send_code = game.field(range(0, 4))  # here
        """, "# here", "cannot be called 'send_code'", "another name"),
    ("field named like a variable of the protocol engine", """
        queue = game.field(range(0, 4))  # here
        """, "# here", "protocol engine keeps a variable", "another name"),
    ("field named like a function of the generated dispatch", """
        deliver = game.field(range(0, 4))  # here
        """, "# here", "cannot be called 'deliver'", "another name"),
    ("field named like a layout's start state", """
        start = game.field(bool)  # here
        """, "# here", "start state", "another name"),
    ("while loop", """
        @game.on_click
        def f(t):
            while t.hp > 0:  # here
                t.hp -= 1
        """, "# here", "while loops", "for f in faces()"),
    ("float", """
        @game.on_click
        def f(t):
            t.hp = 2.5  # here
        """, "# here", "floating point", "whole numbers"),
    ("true division", """
        @game.on_click
        def f(t):
            t.hp = t.hp / 2  # here
        """, "# here", "fraction", "//"),
    ("string", """
        @game.on_click
        def f(t):
            x = "hello"  # here
        """, "# here", "strings", "numbers"),
    ("unknown field", """
        @game.on_click
        def f(t):
            t.health -= 1  # here
        """, "# here", "no field 'health'", "game.field"),
    ("unknown name", """
        @game.on_click
        def f(t):
            t.hp = hpp  # here
        """, "# here", "unknown name 'hpp'", "spelling"),
    ("field read without tile", """
        @game.on_click
        def f(t):
            x = hp  # here
        """, "# here", "is not a value here", ""),
    ("list", """
        @game.on_click
        def f(t):
            x = [1, 2]  # here
        """, "# here", "lists", "bit mask"),
    ("comprehension", """
        @game.on_click
        def f(t):
            x = [f for f in faces()]  # here
        """, "# here", "comprehensions", "for loop"),
    ("try", """
        @game.on_click
        def f(t):
            try:  # here
                t.hp = 1
            except Exception:
                pass
        """, "# here", "try/except", "if"),
    ("import inside", """
        @game.on_click
        def f(t):
            import math  # here
        """, "# here", "imports inside", "top of the game file"),
    ("global", """
        @game.on_click
        def f(t):
            global hp  # here
        """, "# here", "global", "fields"),
    ("power", """
        @game.on_click
        def f(t):
            t.hp = 2 ** 2  # here
        """, "# here", "**", "1 << n"),
    ("is", """
        @game.on_click
        def f(t):
            if t.hp is 0:  # here
                pass
        """, "# here", "'is'", "=="),
    ("in", """
        @game.on_click
        def f(t):
            if t.hp in (1, 2):  # here
                pass
        """, "# here", "'in'", "or"),
    ("send needs a message", """
        @game.on_click
        def f(t):
            t.send(3, 0)  # here
        """, "# here", "needs a message", "game.message"),
    ("send needs a face", """
        @game.on_click
        def f(t):
            t.send(Ping)  # here
        """, "# here", "needs the face", ""),
    ("payload on a plain message", """
        @game.on_click
        def f(t):
            t.send(Ping, 0, 2)  # here
        """, "# here", "carries no payload", "payload=range"),
    ("colour arithmetic", """
        @game.on_click
        def f(t):
            t.color_all(RED + 1)  # here
        """, "# here", "colours cannot be computed", "dim("),
    ("number as colour", """
        @game.on_click
        def f(t):
            t.color(0, 5)  # here
        """, "# here", "not a colour", "RED"),
    ("assign to computed value", """
        @game.derived(bool)
        def full(t):
            return t.hp == 5

        @game.on_click
        def f(t):
            t.full = True  # here
        """, "# here", "is computed", "fields it is computed from"),
    ("timer too long", """
        @game.on_click
        def f(t):
            t.flash.start(60000)  # here
        """, "# here", "timers run 0..30000 ms", "count in a field"),
    ("python function", """
        import math

        @game.on_click
        def f(t):
            t.hp = math.floor(2)  # here
        """, "# here", "not available", "docs/dsl.md"),
    ("handler signature", """
        @game.on_message(Ping)
        def got(t):  # here
            pass
        """, "# here", "handler takes (t, face)", "def got(t, face)"),
    ("neighbour reads a private field", """
        @game.on_click
        def f(t):
            if t.neighbor(0).hp == 1:  # here
                pass
        """, "# here", "not broadcast", "broadcast=True"),
    ("division by zero", """
        @game.on_click
        def f(t):
            t.hp = t.hp // 0  # here
        """, "# here", "division by zero", ""),
    ("break outside loop", """
        @game.on_click
        def f(t):
            break  # here
        """, "# here", "outside loop", "Python syntax"),
    ("tuple assignment", """
        @game.on_click
        def f(t):
            a, b = 1, 2  # here
        """, "# here", "one value at a time", "two lines"),
    ("derived without return", """
        @game.derived(bool)
        def full(t):  # here
            if t.hp == 5:
                return True
        """, "# here", "return a value on every path", "return"),
    ("comparison that does nothing", """
        @game.on_click
        def f(t):
            t.hp == 3  # here
        """, "# here", "does nothing", "=="),
    ("loop variable read after its loop", """
        @game.on_click
        def f(t):
            for f in faces():
                pass
            t.hp = f  # here
        """, "# here", "read after its loop", "another local inside the loop"),
    ("local given a value on one path only", """
        @game.on_click
        def f(t):
            if t.hp > 2:
                left = t.hp - 2
            t.hp = left  # here
        """, "# here", "may have no value here", "left = 0"),
    ("local given a value only inside a loop", """
        @game.on_click
        def f(t):
            for f in faces():
                last = f
            t.hp = last  # here
        """, "# here", "may have no value here", "before the if or the loop"),
    ("derived value that changes a field", """
        @game.derived(bool)
        def low(t):
            t.hp = 1  # here
            return t.hp < 2
        """, "# here", "derived value cannot change the tile: this assigns t.hp", "in a handler"),
    ("derived value that starts a timer, through a helper", """
        def blink(t):
            t.flash.start(100)  # here

        @game.derived(bool)
        def blinking(t):
            blink(t)
            return True
        """, "# here", "derived value cannot change the tile: this starts a timer",
     "in a handler"),
    ("decorator used without its message", """
        @game.on_message  # here
        def got(t, face):
            t.hp = 1
        """, "# here", "@game.on_message needs the message it handles", "@game.on_message(Ping)"),
    ("a flood given to on_message", """
        Reset = game.flood("Reset")

        @game.on_message(Reset)  # here
        def got(t, face):
            t.flood(Reset)
        """, "# here", "@game.on_message() takes a message, not the flood 'Reset'",
     "@game.on_flood(Reset)"),
    ("a message given to on_timer", """
        @game.on_timer(Ping)  # here
        def rang(t):
            pass
        """, "# here", "@game.on_timer() takes a timer, not the message 'Ping'", "@game.on_timer(flash)"),
    ("on_timer used without its timer", """
        @game.on_timer  # here
        def rang(t):
            pass
        """, "# here", "@game.on_timer needs the timer it handles", "@game.on_timer(flash)"),
    ("derived used without its type", """
        @game.derived  # here
        def full(t):
            return t.hp == 5
        """, "# here", "@game.derived needs the type of its value", "@game.derived(bool)"),
    ("an alone guard that is not a bool", """
        @game.on_click(alone=1)  # here
        def press(t):
            t.hp = 1
        """, "# here", "alone= is True or False", "alone=True"),
    ("an async handler", """
        @game.on_click
        async def press(t):  # here
            t.hp = 1
        """, "# here", "async def is not available on the tile", "def press(t):"),
    ("a lambda as a handler", """
        game.on_click(lambda t: None)  # here
        """, "# here", "a handler is a def function, not a lambda", "@game.on_click"),
    ("a class as a handler", """
        @game.on_click  # here
        class Press:
            pass
        """, "# here", "@game.on_click decorates a def function, not a class", "def "),
    ("two click handlers", """
        @game.on_click
        def a(t):
            t.hp = 1

        @game.on_click  # here
        def b(t):
            t.hp = 2
        """, "# here", "a second @game.on_click handler", "merge them into one function"),
    ("two handlers of one message", """
        @game.on_message(Ping)
        def a(t, face):
            t.hp = 1

        @game.on_message(Ping)  # here
        def b(t, face):
            t.hp = 2
        """, "# here", "a second @game.on_message(Ping) handler", "merge them"),
    ("two handlers of one timer", """
        @game.on_timer(flash)
        def a(t):
            t.hp = 1

        @game.on_timer(flash)  # here
        def b(t):
            t.hp = 2
        """, "# here", "a second @game.on_timer(flash) handler", "merge them"),
    ("two derived values of one name", """
        @game.derived(bool)
        def full(t):
            return t.hp == 5

        @game.derived(bool)  # here
        def full(t):
            return t.hp == 4
        """, "# here", "two derived values are named 'full'", "rename one"),
    ("a broadcast value named like a field", """
        level = game.field(range(0, 3))  # here

        @game.broadcast(bool)
        def level(t):
            return True
        """, "# here", "the field 'level' has lost its name to the broadcast value level()",
     "rename one of them"),
    ("a field declared after a derived value of its name", """
        @game.derived(bool)
        def level(t):  # here
            return True

        level = game.field(range(0, 3))
        """, "# here", "'level' is both a field and a derived value", "rename one"),
    ("mutual recursion", """
        def a(t, n: int) -> int:
            return b(t, n)

        def b(t, n: int) -> int:
            return a(t, n)  # here

        @game.on_click
        def press(t):
            t.hp = a(t, 1)
        """, "# here", "a() calls itself: a() -> b() -> a()", "loop"),
    ("a helper that calls itself", """
        def down(t, n: int) -> int:
            if n == 0:
                return 0
            return down(t, n - 1)  # here

        @game.on_click
        def press(t):
            t.hp = down(t, 3)
        """, "# here", "down() calls itself", "loop"),
    ("a derived value that reads itself", """
        @game.derived(bool)
        def odd(t):
            return not t.odd  # here

        @game.on_click
        def press(t):
            if t.odd:
                t.hp = 1
        """, "# here", "the derived value t.odd reads itself", "fields"),
    ("a face that does not exist", """
        @game.on_click
        def press(t):
            t.send(Ping, 6)  # here
        """, "# here", "face 6 does not exist: faces are 0..5", "cw(f)"),
    ("a neighbour on a face that does not exist", """
        near = game.field(bool, broadcast=True)

        @game.on_click
        def press(t):
            if t.neighbor(7).near:  # here
                t.hp = 1
        """, "# here", "face 7 does not exist: faces are 0..5", "cw(f)"),
    ("a colour as a face", """
        @game.on_click
        def press(t):
            t.send(Ping, RED)  # here
        """, "# here", "RED is a colour, not a face", "0..5"),
    ("a kind as a face", """
        Piece = game.kinds("HULL", "HAZARD")

        @game.on_click
        def press(t):
            t.color(Piece.HAZARD, RED)  # here
        """, "# here", "Piece.HAZARD is one of Piece's kinds, not a face", "0..5"),
    ("a number into a kinds field", """
        Piece = game.kinds("HULL", "HAZARD")
        kind = game.field(Piece)

        @game.on_click
        def press(t):
            t.kind = 1  # here
        """, "# here", "t.kind holds one of Piece's kinds, not a number", "t.kind = Piece.HULL"),
    ("arithmetic into a kinds field", """
        Piece = game.kinds("HULL", "HAZARD")
        kind = game.field(Piece)

        @game.on_click
        def press(t):
            t.kind = t.kind + 1  # here
        """, "# here", "t.kind holds one of Piece's kinds, not a number", "t.kind.next()"),
    ("a kind of other kinds into a kinds field", """
        Piece = game.kinds("HULL", "HAZARD")
        Mood = game.kinds("CALM", "ANGRY")
        kind = game.field(Piece)

        @game.on_click
        def press(t):
            t.kind = Mood.ANGRY  # here
        """, "# here", "t.kind holds one of Piece's kinds, not one of Mood's", "Piece.HULL"),
    ("a kind into a number field", """
        Piece = game.kinds("HULL", "HAZARD")

        @game.on_click
        def press(t):
            t.hp = Piece.HAZARD  # here
        """, "# here", "t.hp is a number, not one of Piece's kinds", "game.field(Piece)"),
    ("a derived kind that returns a number", """
        Piece = game.kinds("HULL", "HAZARD")

        @game.derived(Piece)
        def looks(t):
            return 1  # here
        """, "# here", "looks() gives one of Piece's kinds, not a number", "return Piece.HULL"),
    ("a colour as a payload", """
        Beam = game.message("Beam", payload=range(4))

        @game.on_click
        def press(t):
            t.send(Beam, 0, RED)  # here
        """, "# here", "a colour cannot be a payload", "number"),
    ("a misspelt field", """
        hue = game.field(range(0, 6))

        @game.on_click
        def press(t):
            t.hu = 1  # here
        """, "# here", "the tile has no field 'hu'", "did you mean t.hue?"),
    ("a misspelt field read", """
        hue = game.field(range(0, 6))

        @game.on_click
        def press(t):
            t.hp = t.hu  # here
        """, "# here", "the tile has no field 'hu'", "did you mean t.hue?"),
    ("a misspelt message", """
        @game.on_click
        def press(t):
            t.send(Pnig, 0)  # here
        """, "# here", "unknown name 'Pnig'", "did you mean Ping?"),
    ("a misspelt kind", """
        Piece = game.kinds("HULL", "HAZARD")
        kind = game.field(Piece)

        @game.on_click
        def press(t):
            t.kind = Piece.HAZRD  # here
        """, "# here", "Piece has no member 'HAZRD'", "did you mean Piece.HAZARD?"),
    ("a misspelt tile method", """
        @game.on_click
        def press(t):
            t.sned(Ping, 0)  # here
        """, "# here", "the tile has no method sned()", "did you mean t.send()?"),
    ("a misspelt broadcast value", """
        near = game.field(bool, broadcast=True)

        @game.on_click
        def press(t):
            if t.neighbor(0).naer:  # here
                t.hp = 1
        """, "# here", "neighbours cannot read 'naer'", "did you mean .near?"),
    ("a misspelt timer property", """
        @game.on_click
        def press(t):
            if t.flash.runing:  # here
                t.hp = 1
        """, "# here", "timers have .running and .remaining, not .runing", "did you mean .running?"),
    ("a misspelt message in a decorator", """
        @game.on_message(Pnig)  # here
        def got(t, face):
            t.hp = 1
        """, "# here", "NameError: name 'Pnig' is not defined", "did you mean Ping?"),
    ("division by a value that can be 0", """
        @game.on_click
        def press(t):
            t.hp = 10 // t.hp  # here
        """, "# here", "this division can divide by 0: its divisor can be 0..5", "if t.hp != 0:"),
    ("remainder by a value that can be 0", """
        @game.on_click
        def press(t):
            t.hp = 10 % (t.hp - 2)  # here
        """, "# here", "this remainder can divide by 0: its divisor can be -2..3", "max("),
    ("division after the guard was undone", """
        @game.on_click
        def press(t):
            if t.hp != 0:
                t.hp -= 1
                t.hp = 10 // t.hp  # here
        """, "# here", "this division can divide by 0", ""),
    ("division in a loop that undoes the guard", """
        @game.on_click
        def press(t):
            if t.hp > 0:
                for i in range(3):
                    t.hp = 10 // t.hp  # here
                    t.hp -= 1
        """, "# here", "this division can divide by 0", ""),
    ("division after a guard whose other branch undoes it", """
        @game.on_click
        def press(t):
            if t.hp == 0:
                return
            else:
                t.hp -= 1
            t.hp = 10 // t.hp  # here
        """, "# here", "this division can divide by 0", ""),
    ("a computed face that can be 6", """
        @game.on_click
        def press(t):
            t.send(Ping, t.hp + 1)  # here
        """, "# here", "this face can be 1..6, but faces are 0..5", "cw(f, n)"),
    ("a computed face always outside 0..5", """
        @game.on_click
        def press(t):
            t.color(t.hp + 6, RED)  # here
        """, "# here", "this face is always outside 0..5 (it is 6..11)", "cw(f, n)"),
    ("a helper without a result used as a value", """
        def bump(t):
            t.hp += 1

        @game.on_click
        def press(t):
            t.hp = bump(t) + 1  # here
        """, "# here", "bump() gives no value", "-> int"),
    ("a face given twice", """
        @game.on_click
        def press(t):
            t.send(Ping, 0, face=2)  # here
        """, "# here", "t.send() is given its face twice", "face=f"),
    ("a timer used as a value", """
        @game.on_click
        def press(t):
            t.hp = t.flash  # here
        """, "# here", "t.flash is a timer, not a value", "t.flash.running"),
    ("next() with an argument", """
        Piece = game.kinds("HULL", "HAZARD")
        kind = game.field(Piece)

        @game.on_click
        def press(t):
            t.kind = t.kind.next(2)  # here
        """, "# here", "t.kind.next() takes no arguments", "next kind"),
    ("assigning the clock", """
        @game.on_click
        def press(t):
            t.now = 0  # here
        """, "# here", "t.now is read from the tile, it cannot be assigned", "field"),
    ("a colour as t.random's limit", """
        @game.on_click
        def press(t):
            t.hp = t.random(RED)  # here
        """, "# here", "t.random()'s limit is a number, not a colour", "colours"),
    ("a colour as a timer's duration", """
        @game.on_click
        def press(t):
            t.flash.start(RED)  # here
        """, "# here", "t.flash.start()'s duration is a number, not a colour", "colours"),
    ("a colour into a helper", """
        def twice(t, n: int) -> int:
            return n * 2

        @game.on_click
        def press(t):
            t.hp = twice(t, RED)  # here
        """, "# here", "an argument of twice() is a number, not a colour", "colours"),
    ("a colour turned like a face", """
        @game.on_click
        def press(t):
            t.send(Ping, cw(RED))  # here
        """, "# here", "this needs numbers, not colours", ""),
    ("a shift by more than the type's width", """
        @game.on_click
        def press(t):
            t.hp = 1 << 16  # here
        """, "# here", "a shift by 16 has no meaning in int16_t (16 bits)", "0..15"),
    ("a negative shift", """
        @game.on_click
        def press(t):
            t.hp = t.hp >> -1  # here
        """, "# here", "a shift by -1 has no meaning in int16_t", "0..15"),
    ("a computed shift always too far", """
        @game.on_click
        def press(t):
            t.hp = 1 << (t.hp + 16)  # here
        """, "# here", "this shift is by 16..21: in int16_t only 0..15 mean something", "n & 15"),
    ("a derived value named like the tile's own", """
        @game.derived(bool)  # here
        def alone(t):
            return True
        """, "# here", "a derived value cannot be named 'alone': t.alone is the tile's own", "another name"),
    ("a flood's group that does not take (t, face)", """
        def near(t):  # here
            return True
        F = game.flood("F", within=near)
        """, "# here", "near(), the group of flood 'F', takes (t, face)", "def near(t, face):"),
    ("a flood's group that returns a number", """
        def near(t, face):
            return t.hp  # here
        F = game.flood("F", within=near)
        """, "# here", "near(), the group of flood 'F', returns True or False, not t.hp",
     "return a comparison or a bool"),
    ("a flood's group that sends", """
        def near(t, face):
            t.send(Ping, face)  # here
            return True
        F = game.flood("F", within=near)
        """, "# here", "a flood's group (within=) cannot change the tile: this sends a message",
     "in a handler"),
    ("a flood's group that starts a flood", """
        def near(t, face):
            t.flood(F)  # here
            return True
        F = game.flood("F", within=near)
        """, "# here", "a flood's group (within=) cannot change the tile: this starts a flood",
     "in a handler"),
    ("a flood's group that writes a field", """
        def near(t, face):
            t.hp = 1  # here
            return True
        F = game.flood("F", within=near)
        """, "# here", "a flood's group (within=) cannot change the tile: this assigns t.hp",
     "in a handler"),
    ("a message's group that does not take (t, face)", """
        def near(t, face, hops):  # here
            return True
        M = game.message("M", within=near)
        """, "# here", "near(), the group of message 'M', takes (t, face)", "def near(t, face):"),
    ("a message's group that returns a number", """
        def near(t, face):
            return t.hp  # here
        M = game.message("M", within=near)
        """, "# here", "near(), the group of message 'M', returns True or False, not t.hp",
     "return a comparison or a bool"),
    ("a message's group that sends", """
        def near(t, face):
            t.send(Ping, face)  # here
            return True
        M = game.message("M", within=near)
        """, "# here", "a message's group (within=) cannot change the tile: this sends a message",
     "in a handler"),
    ("a message's group that writes a field", """
        def near(t, face):
            t.hp = 1  # here
            return True
        M = game.message("M", within=near)
        """, "# here", "a message's group (within=) cannot change the tile: this assigns t.hp",
     "in a handler"),
    ("a send given a group", """
        def near(t, face):
            return True
        @game.on_click
        def press(t):
            t.send(Ping, 0, within=near)  # here
        """, "# here", "t.send() takes no within=: a message's group is part of the message's "
     "declaration", 'game.message("Hail", within=same_ship)'),
    ("loop longer than a byte can count", """
        @game.on_click
        def f(t):
            for i in range(300):  # here
                t.hp = 1
        """, "# here", "loop counters are bytes", "range(min(n, 255))"),
]


@pytest.mark.parametrize("name, body, marker, message, hint", CASES, ids=[c[0] for c in CASES])
def test_mistake_reports_file_line_and_hint(tmp_path, name, body, marker, message, hint):
    path, errors, _ = errors_of(tmp_path, body)
    assert errors, f"{name}: no error reported"
    e = errors[0]
    assert e.loc.file == str(path)
    assert e.loc.line == line_of(body, marker), str(e)
    assert message in e.message, str(e)
    assert hint in e.hint, str(e)
    assert f"{path}:{e.loc.line}: error:" in str(e)


DECLARATION_CASES = [
    ("default out of range", 'x = game.field(range(0, 6), default=6)\n', "outside its range", "0..5"),
    ("unsupported field type", 'x = game.field(str)\n', "unsupported type", "range(lo, hi)"),
    ("unnamed field", 'game.field(range(0, 3))\n', "has no name", "bind it"),
    ("duplicate message", 'Ping2 = game.message("Ping")\n', "two messages or floods", "own name"),
    ("bad kinds", 'K = game.kinds("HULL", "HULL")\n', "same member twice", "different name"),
    ("a field of more than 32 bits", 'big = game.field(range(0, 2**40))\n',
     "field 'big' needs more than 32 bits: 0..1,099,511,627,775", "range(0, 2**32)"),
    ("a field named like the tile's own", 'now = game.field(range(0, 3))\n',
     "a field cannot be named 'now': t.now is the tile's own", "another name"),
    ("a message named by a number", 'M = game.message(3)\n',
     "a message's name is a word such as 'Laser', not 3", 'game.message("Laser")'),
    ("sys.exit() in the game file", 'import sys; sys.exit(0)\n',
     "the game file called sys.exit(0) while blinkc read it", "take the exit out"),
    ("a misspelt kind in a default", 'K = game.kinds("HULL", "HAZARD"); k = game.field(K, default=K.HAZRD)\n',
     "K has no member 'HAZRD'", "did you mean K.HAZARD?"),
    ("a number as a kinds default", 'K = game.kinds("HULL", "HAZARD"); k = game.field(K, default=1)\n',
     "the default of 'k' is a number, not one of K's kinds", "default=K.HULL"),
    ("a flood's group that is not a function", 'F = game.flood("F", within=3)\n',
     "within= takes a function of the tile and a face, not int 3", "within=same_ship"),
    ("a message's group that is not a function", 'M = game.message("M", within=3)\n',
     "within= takes a function of the tile and a face, not int 3",
     'M = game.message("M", within=same_ship)'),
    ("a group on a message's handler", '@game.on_message(Ping, within=3)\ndef f(t, face):\n    pass\n',
     "@game.on_message() takes no within=: a message's group is part of the message's declaration",
     'Hail = game.message("Hail", within=same_ship)'),
    ("a group on a flood's handler",
     'F = game.flood("F"); G = game.on_flood_done(F, within=3)\n',
     "@game.on_flood_done() takes no within=: a flood's group is part of the flood's declaration",
     'game.flood("Capture", within=same_ship)'),
    ("a group on a field", 'ship = game.field(bool, within=3)\n',
     "field() takes no within=: only a message, a flood or a gather can be confined to a group",
     'game.message("Hail", within=same_ship)'),
    ("a kind as a number default", 'K = game.kinds("HULL", "HAZARD"); x = game.field(range(0, 4), '
     'default=K.HAZARD)\n', "the default of 'x' is one of K's kinds, not a number", "default=0"),
]


@pytest.mark.parametrize("name, decl, message, hint", DECLARATION_CASES,
                         ids=[c[0] for c in DECLARATION_CASES])
def test_declaration_mistakes(tmp_path, name, decl, message, hint):
    path, errors, _ = errors_of(tmp_path, decl)
    assert errors
    e = errors[0]
    assert e.loc.file == str(path) and e.loc.line == HEADER_LINES + 1, str(e)
    assert message in e.message and hint in e.hint, str(e)


def test_face_value_over_budget_lists_what_each_part_costs(tmp_path):
    header = """\
from blinkc.dsl import *
game = Game("g")
big = game.field(range(0, 16), default=0, broadcast=True)
A, B, C = game.message("A"), game.message("B"), game.message("C")
"""
    _, errors, _ = errors_of(tmp_path, "", header)
    (e,) = errors
    assert "needs 8 bits but a Blinks face value has 6" in e.message
    assert "big: 4 bits" in e.message and "message code: 3 bits" in e.message and "ack: 1 bit" in e.message
    assert "broadcast less" in e.hint


def test_python_error_in_the_game_file_points_at_its_line(tmp_path):
    _, errors, _ = errors_of(tmp_path, "x = 1 / 0\n")
    (e,) = errors
    assert e.loc.line == HEADER_LINES + 1 and "ZeroDivisionError" in e.message


def test_syntax_error_points_at_its_line(tmp_path):
    _, errors, _ = errors_of(tmp_path, "def broken(:\n")
    (e,) = errors
    assert e.loc.line == HEADER_LINES + 1 and "syntax error" in e.message


def test_all_errors_are_reported_not_just_the_first(tmp_path):
    _, errors, _ = errors_of(tmp_path, """
        @game.on_click
        def f(t):
            t.hp = 2.5
            t.health = 1
        """)
    assert len(errors) == 2


def test_unused_message_is_a_warning_not_an_error(tmp_path):
    _, errors, warnings = errors_of(tmp_path, "")
    assert not errors
    assert any("never sent" in w.message for w in warnings)
    assert any("no @game.on_message handler" in w.message for w in warnings)


def test_arithmetic_that_can_wrap_is_a_warning_with_the_line(tmp_path):
    body = """
        score = game.field(range(0, 100), default=0)

        @game.on_click
        def f(t):
            t.score = t.score * 1000 // 100  # here
        """
    _, errors, warnings = errors_of(tmp_path, body)
    assert not errors
    (w,) = [w for w in warnings if "wraps around" in w.message]
    assert w.loc.line == line_of(body, "# here")
    assert "can reach 99,000, beyond int16_t" in w.message and "divide first" in w.hint


def test_arithmetic_within_its_type_gives_no_wrap_warning(tmp_path):
    body = """
        score = game.field(range(0, 100), default=0)

        @game.on_click
        def f(t):
            t.score = t.score * 100 // 1000
        """
    _, errors, warnings = errors_of(tmp_path, body)
    assert not errors and not [w for w in warnings if "wraps around" in w.message]


def test_a_display_that_sends_a_message_is_refused(tmp_path):
    header = HEADER.replace("    t.color_all(BLUE)\n", "    t.color_all(BLUE)\n    t.send(Ping, 0)\n")
    path, errors, _ = errors_of(tmp_path, "", header)
    assert len(errors) == 1, errors
    assert errors[0].loc.file == str(path)
    assert errors[0].loc.line == header.splitlines().index("    t.send(Ping, 0)") + 1
    assert "the display cannot change the tile: this sends a message" in errors[0].message


PAYLOAD_HEADER = """\
from blinkc.dsl import *
game = Game("g")
hp = game.field(range(0, 6), default=5)
Beam = game.message("Beam", payload=range(4))

@game.display
def look(t):
    t.color_all(BLUE)

@game.on_message(Beam)
def got(t, face, n):
    t.hp = n
"""


def test_a_payload_always_outside_its_range_is_an_error(tmp_path):
    body = """
        @game.on_click
        def f(t):
            t.send(Beam, 0, t.hp + 4)  # here
        """
    _, errors, _ = errors_of(tmp_path, body, PAYLOAD_HEADER)
    (e,) = errors
    assert e.loc.line == line_of(body, "# here") + PAYLOAD_HEADER.count("\n") - HEADER_LINES
    assert "always outside its range 0..3" in e.message and "4..9" in e.message
    assert "widen payload=range" in e.hint


def test_a_payload_that_may_leave_its_range_is_clamped_with_a_warning(tmp_path):
    body = """
        @game.on_click
        def f(t):
            t.send(Beam, 0, t.hp)  # here
        """
    _, errors, warnings = errors_of(tmp_path, body, PAYLOAD_HEADER)
    assert errors == []
    (w,) = warnings
    assert "can be 0..5, outside its range 0..3: it is clamped" in w.message


def test_a_payload_the_ranges_keep_inside_needs_no_clamp_and_no_warning(tmp_path):
    body = """
        @game.on_click
        def f(t):
            if t.hp < 4:
                t.send(Beam, 0, 3)
            t.send(Beam, 0, min(t.hp, 3))
        """
    _, errors, warnings = errors_of(tmp_path, body, PAYLOAD_HEADER)
    assert errors == [] and warnings == []


def test_decorators_without_arguments_may_be_called_with_parentheses(tmp_path):
    header = """\
from blinkc.dsl import *
game = Game("g")
hp = game.field(range(0, 6), default=5)

@game.setup()
def start(t):
    t.hp = 3

@game.on_neighbor_joined()
def hello(t, face):
    t.hp = 4

@game.display()
def look(t):
    t.color_all(BLUE)
"""
    _, errors, warnings = errors_of(tmp_path, "", header)
    assert errors == [] and warnings == [], (errors, warnings)


def test_click_handlers_with_exclusive_guards_are_not_duplicates(tmp_path):
    _, errors, _ = errors_of(tmp_path, """
        @game.on_click(alone=True)
        def a(t):
            t.hp = 1

        @game.on_click(alone=False)
        def b(t):
            t.hp = 2
        """)
    assert errors == []


def test_kinds_and_faces_used_rightly_are_accepted(tmp_path):
    _, errors, _ = errors_of(tmp_path, """
        Piece = game.kinds("HULL", "HAZARD", "REDIRECTOR")
        kind = game.field(Piece, default=Piece.HAZARD, broadcast=True)
        last = game.field(Piece)
        where = game.field(Face, default=5)

        @game.derived(Piece)
        def looks(t):
            return Piece.HULL if t.hp > 2 else t.kind

        @game.on_message(Ping)
        def got(t, face):
            k = Piece.HULL
            if t.hp > 3:
                k = Piece.REDIRECTOR
            t.last = k
            t.kind = t.neighbor(face).kind
            t.kind = t.kind.next()
            t.last = t.looks
            t.send(Ping, opposite(face))
            t.send(Ping, t.where)
            t.send(Ping, 5)
            for f in faces():
                t.color(cw(f, 2), RED)
        """)
    assert errors == []


def test_guarded_divisions_and_faces_are_accepted(tmp_path):
    _, errors, warnings = errors_of(tmp_path, """
        s = game.field(range(-5, 5), default=1)

        def hit(t, f: Face):
            t.send(Ping, f)
            t.color(f, RED)

        @game.on_message(Ping)
        def got(t, face):
            x = 0
            if t.hp != 0:
                x = 10 // t.hp
                for i in range(3):
                    x += 10 % t.hp
            x += 10 // max(t.hp, 1)
            x += 10 // t.hp if t.hp else 0
            if t.hp > 0 and 10 // t.hp > 1:
                x += 1
            if t.s != 0:
                x += 100 // t.s
            x += 100 // ((t.now & 7) + 1)
            x += 100 // ((t.s & 7) + 1)
            t.hp = x
            out = face + 1
            if out < 6:
                t.send(Ping, out)
            hit(t, opposite(face))
            for g in faces():
                if g == 7:
                    t.color(g, RED)  # never runs: no face is 7

        @game.on_click
        def press(t):
            if t.hp == 0:
                return
            t.hp = 10 // t.hp
        """)
    assert errors == [], errors
    assert warnings == [], warnings


def test_a_helper_face_outside_0_to_5_is_a_warning(tmp_path):
    # Inside hit(), f is taken to be a face (0..5); what its callers pass is warned about.
    body = """
        def hit(t, f: Face):
            t.send(Ping, f)

        @game.on_click
        def press(t):
            hit(t, t.hp + 1)  # here
            hit(t, t.hp + 6)  # there
        """
    _, errors, warnings = errors_of(tmp_path, body)
    assert errors == []
    w1, w2 = [w for w in warnings if "face" in w.message]
    assert w1.loc.line == line_of(body, "# here")
    assert "this face (hit()'s f) can be 1..6, but faces are 0..5" in w1.message
    assert w2.loc.line == line_of(body, "# there")
    assert "this face (hit()'s f) is always outside 0..5 (it is 6..11)" in w2.message


def test_a_shift_that_may_go_too_far_is_a_warning(tmp_path):
    body = """
        n = game.field(range(0, 40), default=0)

        @game.on_click
        def press(t):
            t.hp = 1 << t.n  # here
        """
    _, errors, warnings = errors_of(tmp_path, body)
    assert errors == []
    (w,) = [w for w in warnings if "shift" in w.message]
    assert w.loc.line == line_of(body, "# here")
    assert "this shift is by 0..39: in int16_t only 0..15 mean something" in w.message


def test_a_bug_of_blinkc_is_one_error_not_a_traceback(tmp_path, monkeypatch):
    from blinkc.dsl import lowering

    def broken(self):
        raise RuntimeError("boom")

    monkeypatch.delenv("BLINKC_DEBUG", raising=False)
    monkeypatch.setattr(lowering, "run_lints", broken)
    path, errors, _ = errors_of(tmp_path, "")
    (e,) = errors
    assert e.loc.file == str(path) and e.loc.line == 2
    assert e.message == "blinkc failed on this game (internal error: RuntimeError: boom)"
    assert "a bug in blinkc" in e.hint


def test_face_value_over_budget_says_what_a_flood_costs(tmp_path):
    header = """\
from blinkc.dsl import *
game = Game("g")
level = game.field(range(0, 4), default=0, broadcast=True)
A, B, C = game.message("A"), game.message("B"), game.message("C")
Wipe = game.flood("Wipe")
"""
    _, errors, _ = errors_of(tmp_path, "", header)
    (e,) = errors
    assert "message code: 4 bits for 7 codes and HELLO" in e.message
    assert "each flood four" in e.hint


@pytest.mark.parametrize("grace_ms", [999, 32_257, 40_000, 4000.5, True])
def test_a_grace_the_engine_cannot_time_is_an_error_at_the_game_line(tmp_path, grace_ms):
    # Twice the grace is timed on a byte of 256 ms units: at 40 s (156 units, twice that 312)
    # a face that hears its neighbour but never gets a session would never be taken for gone,
    # and a message sent there would never bounce.
    header = HEADER.replace('Game("g")', f'Game("g", grace_ms={grace_ms!r})')
    path, errors, _ = errors_of(tmp_path, "", header)
    (e,) = errors
    assert e.loc.file == str(path) and e.loc.line == 2
    assert f"grace_ms must be a whole number of milliseconds in 1000..32000, not {grace_ms!r}" \
        in e.message
    assert "grace_ms=4000" in e.hint and "byte" in e.hint


def test_the_longest_grace_is_timed_within_the_engines_byte_clock(tmp_path):
    path = tmp_path / "game.py"
    path.write_text(HEADER.replace('Game("g")', 'Game("g", grace_ms=32_000)'))
    result = lower_game(path)
    assert result.errors == []
    units = dict((k, v) for k, v, _ in result.program.constants)["GRACE_UNITS"]
    assert 2 * units <= 255
