"""PNG pictures: each LED colour where its face points, tiles where the lattice puts them."""

import io

from PIL import Image

from blinkc.blinklib.color import BLUE, CYAN, GREEN, OFF, ORANGE, RED, YELLOW, rgb5, to_rgb888
from blinkc.render.png import UNLIT, centres, draw_cluster, face_point, save_png

RAINBOW = [RED, ORANGE, YELLOW, GREEN, CYAN, BLUE]


def tile(name="a", pos=(0, 0), rot=0, colors=RAINBOW):
    return {"name": name, "pos": pos, "rot": rot, "colors": list(colors)}


def pixel_towards(img, tiles, name, direction, size=48, title=None):
    cx, cy = centres(tiles, title, size)[name]
    x, y = face_point(cx, cy, size, direction)
    return img.getpixel((round(x), round(y)))


def test_each_faces_segment_has_its_led_colour_in_the_direction_it_points():
    for rot in (0, 2, 5):
        tiles = [tile(rot=rot)]
        img = draw_cluster(tiles)
        for direction in range(6):
            face = (direction - rot) % 6
            assert pixel_towards(img, tiles, "a", direction) == to_rgb888(RAINBOW[face])


def test_any_colour_shows_as_a_screen_would_and_unlit_faces_are_grey():
    odd = rgb5(3, 20, 9)
    tiles = [tile(colors=[odd, OFF, OFF, OFF, OFF, OFF])]
    img = draw_cluster(tiles)
    assert pixel_towards(img, tiles, "a", 0) == to_rgb888(odd)
    assert pixel_towards(img, tiles, "a", 3) == UNLIT


def test_neighbours_are_drawn_where_the_lattice_puts_them():
    tiles = [tile("a", (0, 0)), tile("se", (1, 0), colors=[GREEN] * 6),
             tile("s", (0, 1), colors=[BLUE] * 6), tile("g", None, colors=[RED] * 6)]
    spots = centres(tiles, "title", 40)
    ax, ay = spots["a"]
    assert spots["se"][0] > ax and spots["se"][1] > ay
    assert spots["s"][0] == ax and spots["s"][1] > ay
    assert spots["g"][1] > max(y for _, y in spots.values() if y != spots["g"][1])  # held: below
    img = draw_cluster(tiles, "title", 40)
    assert pixel_towards(img, tiles, "se", 1, 40, "title") == to_rgb888(GREEN)
    assert pixel_towards(img, tiles, "s", 4, 40, "title") == to_rgb888(BLUE)
    assert pixel_towards(img, tiles, "g", 2, 40, "title") == to_rgb888(RED)


def test_save_png_writes_a_png_file(tmp_path):
    path = tmp_path / "cluster.png"
    img = save_png([tile(), tile("b", (1, -1))], path, "t = 1 s", size=30)
    with Image.open(path) as again:
        assert again.format == "PNG" and again.size == img.size
    buf = io.BytesIO()
    save_png([tile()], buf)
    assert buf.getvalue().startswith(b"\x89PNG")
