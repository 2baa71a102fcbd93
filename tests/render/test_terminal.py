"""Terminal pictures: the right colour on the right edge, and plain text when colour is off."""

import io
import re

from blinkc.blinklib.color import BLUE, CYAN, GREEN, OFF, ORANGE, RED, YELLOW, dim, rgb5, to_rgb888
from blinkc.render import color_letter, color_name
from blinkc.render.terminal import render_ansi, render_plain, show, use_color

RAINBOW = [RED, ORANGE, YELLOW, GREEN, CYAN, BLUE]  # faces 0..5


def tile(name="a", pos=(0, 0), rot=0, colors=RAINBOW):
    return {"name": name, "pos": pos, "rot": rot, "colors": list(colors)}


def ansi_grid(text: str) -> list[list[tuple[str, tuple | None]]]:
    """Each printed character with the 24-bit foreground colour it was printed in."""
    rows: list[list[tuple[str, tuple | None]]] = [[]]
    fg = None
    for m in re.finditer(r"\x1b\[([0-9;]*)m|(.)", text, re.S):
        if m.group(1) is not None:
            codes = m.group(1).split(";")
            fg = tuple(int(c) for c in codes[codes.index("38") + 2:][:3]) if "38" in codes else None
        elif m.group(2) == "\n":
            rows.append([])
        else:
            rows[-1].append((m.group(2), fg))
    return rows


# Where each edge of the hexagon is drawn (line, column), by global direction.
EDGE_CELLS = {0: (0, 6), 1: (1, 10), 2: (3, 11), 3: (4, 6), 4: (3, 1), 5: (1, 2)}


def test_each_edge_is_drawn_in_the_colour_of_the_face_pointing_that_way():
    for rot in (0, 1, 4):
        grid = ansi_grid(render_ansi([tile(rot=rot)]))
        for direction, (line, col) in EDGE_CELLS.items():
            face = (direction - rot) % 6
            assert grid[line][col][1] == to_rgb888(RAINBOW[face]), (rot, direction)


def test_the_colour_picture_marks_face_0_so_the_rotation_shows():
    marks = {0: (1, 6), 1: (1, 9), 2: (3, 9), 3: (3, 6), 4: (3, 3), 5: (1, 3)}
    for rot, (line, col) in marks.items():
        grid = ansi_grid(render_ansi([tile(rot=rot)]))
        stars = [(y, x) for y, row in enumerate(grid) for x, (ch, _) in enumerate(row) if ch == "*"]
        assert stars == [(line, col)]


def test_unlit_faces_are_grey_not_black_so_the_tile_stays_visible():
    grid = ansi_grid(render_ansi([tile(colors=[OFF] * 6)]))
    assert grid[0][6][1] == (90, 90, 90)


def test_plain_pictures_have_no_escape_codes_and_a_letter_per_face():
    text = render_plain([tile(rot=1), tile("b", (1, 0), colors=[dim(BLUE, 128)] * 6)], "t = 1 s")
    assert "\x1b" not in text
    lines = text.splitlines()
    assert lines[0] == "t = 1 s"
    hexa = lines[1:6]
    # rot 1: face f points to direction f + 1, so north shows face 5 (BLUE), ...
    assert hexa[1][3] + hexa[1][6] + hexa[1][9] == "CBR"  # NW, N, NE: faces 4, 5, 0
    assert hexa[3][3] + hexa[3][6] + hexa[3][9] == "GYO"  # SW, S, SE: faces 3, 2, 1
    assert "b  b  b" in text  # dimmed blue is a lower-case b
    assert "a: at 0,0 rot 1, faces 0-5 RED ORANGE YELLOW GREEN CYAN BLUE" in text
    assert "b: at 1,0 rot 0, faces 0-5 all #00007b" in text


def test_tiles_sit_on_the_lattice_a_south_east_neighbour_is_right_and_lower():
    text = render_plain([tile("a", (0, 0)), tile("b", (1, 0)), tile("c", (0, 1))])
    where = {}
    for y, line in enumerate(text.splitlines()):
        for name in "abc":
            m = re.search(rf"/\s+{name}\s+\\", line)
            if m:
                where[name] = (y, m.start())
    assert where["b"][0] - where["a"][0] == 3 and where["b"][1] - where["a"][1] == 10
    assert where["c"][0] - where["a"][0] == 6 and where["c"][1] == where["a"][1]


def test_held_tiles_are_drawn_apart():
    text = render_plain([tile("a"), tile("g", None)])
    before, after = text.split("in the hand:")
    assert " a " in before and " g " in after


def test_other_colours_are_named_by_their_screen_colour():
    assert color_name(RED) == "RED" and color_letter(RED) == "R"
    assert color_letter(OFF) == "."
    assert color_letter(dim(ORANGE, 100)) == "o"
    odd = rgb5(3, 20, 9)
    assert color_letter(odd) == "*" and color_name(odd) == "#18a44a"


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_colour_is_used_only_on_a_terminal_without_no_color(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert not use_color(io.StringIO())
    assert use_color(FakeTerminal())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color(FakeTerminal())


def test_show_draws_plain_text_unless_colour_is_wanted(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    out = io.StringIO()
    show([tile()], out)
    assert "\x1b" not in out.getvalue() and "faces 0-5" in out.getvalue()
    out = FakeTerminal()
    show([tile()], out, color=True)
    assert "\x1b[" in out.getvalue()
