"""Layout files: what they mean, and a clear file:line error for every mistake."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blinkc.programs import PROGRAMS
from blinkc.world import World
from blinkc.world.layout import Layout, LayoutError, ProgramError, TileSpec
from blinkc.world.layout_file import load_layout, parse_layout


def test_tile_lines_give_places_rotations_programs_and_typed_settings():
    layout = parse_layout(
        "tile a at 0,0 hops source=true\n"
        "tile b at 1,-1 rot 3 clicks\n"
        "tile c at (2, 0) rot=5 hops source=false\n"
    )
    a, b, c = layout.tiles
    assert (a.name, a.pos, a.rot, a.program, a.params) == ("a", (0, 0), 0, "hops", {"source": True})
    assert (b.pos, b.rot, b.program, b.params) == ((1, -1), 3, "clicks", {})
    assert (c.pos, c.rot, c.params) == ((2, 0), 5, {"source": False})


def test_settings_keep_ints_words_and_quoted_text():
    layout = parse_layout(
        'game g.py\ntile a at 0,0 kind=HAZARD hp=5 mask=0x3f label="two words # not a comment"')
    assert layout.tiles[0].params == {"kind": "HAZARD", "hp": 5, "mask": 63,
                                      "label": "two words # not a comment"}


def test_places_next_to_other_tiles_follow_the_lattice_directions():
    layout = parse_layout(
        "program hops\n"
        "tile a at 0,0\n"
        "tile n at N of a\ntile ne at NE of a\ntile se at se of a\n"
        "tile s at S of a\ntile sw at SW of a\ntile nw at NW of a\n"
        "tile far at SE of se   # chains work, in any order of lines\n"
    )
    where = {t.name: t.pos for t in layout.tiles}
    assert where == {"a": (0, 0), "n": (0, -1), "ne": (1, -1), "se": (1, 0), "s": (0, 1),
                     "sw": (-1, 1), "nw": (-1, 0), "far": (2, 0)}


def test_a_place_may_refer_to_a_tile_defined_later():
    layout = parse_layout("tile b at SE of a hops\ntile a at 3,3 hops")
    assert layout.tile("b").pos == (4, 3)


def test_a_hex_map_places_neighbouring_columns_half_a_row_apart():
    layout = parse_layout(
        "program neighbours\n"
        "map\n"
        "        n\n"
        "  nw         ne\n"
        "        mid\n"
        "  sw         se\n"
        "        s\n"
        "end\n"
    )
    pos = {t.name: t.pos for t in layout.tiles}
    mid = pos["mid"]
    # Every petal is a lattice neighbour of the middle tile, in its drawn direction.
    assert pos["n"] == (mid[0], mid[1] - 1)
    assert pos["s"] == (mid[0], mid[1] + 1)
    assert pos["ne"] == (mid[0] + 1, mid[1] - 1)
    assert pos["se"] == (mid[0] + 1, mid[1])
    assert pos["sw"] == (mid[0] - 1, mid[1] + 1)
    assert pos["nw"] == (mid[0] - 1, mid[1])


def test_a_flower_from_a_map_gives_the_middle_tile_six_neighbours():
    layout = load_layout("examples/flower.layout")
    world = World()
    layout.build(world)
    world.run_until(1000)
    counts = {s["name"]: s["state"].get("neighbours") for s in world.snapshot()}
    assert counts == {"n": 3, "nw": 3, "ne": 3, "mid": None, "sw": 3, "se": 3, "s": 3}
    assert len(world.neighbours_of(world.tile("mid"))) == 6


def test_map_tiles_take_programs_and_settings_from_tile_lines_and_dots_are_empty():
    layout = parse_layout(
        "tile a hops source=true\n"
        "map\n"
        "  a   .\n"
        "    b\n"
        "end\n"
        "tile b rot 2 hops\n"
    )
    a, b = layout.tiles
    assert (a.pos, a.params) == ((0, 0), {"source": True})
    assert (b.pos, b.rot, b.program) == ((1, 0), 2, "hops")


def test_tabs_in_a_map_count_as_spaces_to_the_next_multiple_of_8():
    layout = parse_layout("program hops\nmap\na\n\tb\n\n        .\nend")
    assert [t.pos for t in layout.tiles] == [(0, 0), (1, 0)]


def test_held_tiles_have_no_place():
    layout = parse_layout("tile a held clicks")
    assert layout.tiles[0].pos is None


def test_build_powers_every_tile_up_with_its_program_and_state():
    layout = load_layout("examples/chain.layout")
    world = World()
    tiles = layout.build(world)
    assert [t.name for t in tiles] == ["src", "a", "b", "c", "d"]
    world.run_until(1500)
    distances = [s["state"]["distance"] for s in world.snapshot()]
    assert distances == [0, 1, 2, 3, 4]
    assert world.tile("b").rot == 3


def test_the_game_header_reaches_the_resolver_with_generic_settings(tmp_path):
    path = tmp_path / "sub" / "ships.layout"
    path.parent.mkdir()
    path.write_text("game ../firmware/pirates.py\ntile h at 0,0 kind=HAZARD\n")
    layout = load_layout(path)
    seen: list[TileSpec] = []

    def resolver(spec: TileSpec):
        seen.append(spec)
        return PROGRAMS["clicks"]()

    layout.build(World(), resolver)
    assert seen[0].game == str(tmp_path / "sub" / "../firmware/pirates.py")
    assert seen[0].params == {"kind": "HAZARD"} and seen[0].program is None
    assert layout.game == "../firmware/pirates.py"


def test_a_resolver_complaint_names_the_tile_line():
    def resolver(spec):
        raise ProgramError("no such kind", "kinds are HULL and HAZARD")

    layout = parse_layout("\ntile h at 0,0 kind=SHIP", "x.layout")
    with pytest.raises(LayoutError) as err:
        layout.build(World(), resolver)
    assert str(err.value) == "x.layout:2: no such kind\n  hint: kinds are HULL and HAZARD"


def test_layouts_can_be_built_from_python():
    layout = Layout(program="hops").add("a", (0, 0), source=True).add("b", (1, 0))
    assert layout.tile("b").program == "hops"
    with pytest.raises(LayoutError, match="overlaps tile 'a'"):
        layout.add("c", (0, 0))


# ------------------------------------------------------------------ errors
ERRORS = {
    "duplicate name": ("tile a at 0,0 hops\ntile a at 1,0 hops", 2,
                       "tile 'a' is already defined on line 1"),
    "overlap": ("tile a at 0,0 hops\n\ntile b at 0,0 hops", 3,
                "tile 'b' at 0,0 overlaps tile 'a' (line 1)"),
    "overlap via relative place": ("tile a at 0,0 hops\ntile b at 1,0 hops\ntile c at SE of a hops",
                                   3, "tile 'c' at 1,0 overlaps tile 'b'"),
    "bad rotation": ("tile a at 0,0 rot 6 hops", 1, "bad rotation '6'"),
    "bad rotation word": ("tile a at 0,0 rot=x hops", 1, "bad rotation 'x'"),
    "missing rotation": ("tile a at 0,0 rot", 1, "`rot` needs a rotation"),
    "two rotations": ("tile a at 0,0 rot 1 rot 2", 1, "two rotations"),
    "unknown line": ("program hops\ntiel a at 0,0", 2, "unknown line 'tiel'"),
    "unterminated quote": ('tile a at 0,0 hops label="oops', 1, "unterminated quote"),
    "bad place": ("tile a at 0;0 hops", 1, "bad place '0;0'"),
    "missing place": ("tile a at", 1, "a place is missing"),
    "incomplete relative place": ("tile a at SE", 1, "incomplete place 'SE'"),
    "too far": ("tile a at 0,100 hops", 1, "too far out"),
    "two places": ("tile a at 0,0 held hops", 1, "two places"),
    "no place": ("tile a hops", 1, "tile 'a' has no place"),
    "next to unknown": ("tile a at SE of b hops", 1, "no tile named 'b'"),
    "next to held": ("tile a held hops\ntile b at S of a hops", 2, "'a' is held"),
    "place cycle": ("tile a at S of b hops\ntile b at N of a hops", 1, "depends on itself"),
    "two programs": ("tile a at 0,0 hops clicks", 1, "unexpected word 'clicks'"),
    "bad name": ("tile 9lives at 0,0", 1, "'9lives' is not a valid tile name"),
    "no name": ("tile", 1, "a tile needs a name"),
    "bad setting key": ("tile a at 0,0 hops 1x=2", 1, "'1x' is not a valid setting name"),
    "empty setting": ("tile a at 0,0 hops source=", 1, "setting 'source' has no value"),
    "setting twice": ("tile a at 0,0 hops x=1 x=2", 1, "setting 'x' is given twice"),
    "bad quoted value": ('tile a at 0,0 hops x="a"b', 1, "bad quoted value"),
    "two games": ("game a.py\ngame b.py", 2, "names a game twice"),
    "game without path": ("game", 1, "`game` takes one value"),
    "two default programs": ("program hops\nprogram clicks", 2, "default program twice"),
    "map with words": ("map x", 1, "`map` stands alone"),
    "map without end": ("map\n a\n", 1, "the map has no `end`"),
    "map off grid": ("map\n a\n\n   b\nend\n", 4, "'b' is off the hex grid"),
    "map name twice": ("program hops\nmap\n a\n\n a\nend", 5, "tile 'a' is in the map twice"),
    "map and at": ("tile a at 0,0 hops\nmap\n a\nend", 1, "tile 'a' is placed twice"),
    "map bad name": ("map\n a-b 7\nend", 2, "'7' is not a valid tile name"),
}


@pytest.mark.parametrize("text,line,message", ERRORS.values(), ids=ERRORS.keys())
def test_each_mistake_is_reported_at_its_file_and_line(text, line, message):
    with pytest.raises(LayoutError) as err:
        parse_layout(text, "bad.layout")
    assert err.value.where.line == line
    assert str(err.value).startswith(f"bad.layout:{line}: ")
    assert message in err.value.message


PROGRAM_ERRORS = {
    "unknown program": ("tile a at 0,0 hopz", "unknown program 'hopz'", "did you mean 'hops'?"),
    "unknown setting": ("tile a at 0,0 hops power=3", "program 'hops' has no setting 'power'",
                        "it takes: source"),
    "no program": ("tile a at 0,0", "tile 'a' has no program", "program NAME"),
    "a game cannot run yet": ("game g.py\ntile a at 0,0", "would run the game g.py", "built-in"),
}


@pytest.mark.parametrize("text,message,hint", PROGRAM_ERRORS.values(), ids=PROGRAM_ERRORS.keys())
def test_program_mistakes_are_reported_at_the_tile_line(text, message, hint):
    layout = parse_layout(text, "bad.layout")
    with pytest.raises(LayoutError) as err:
        layout.check()
    assert err.value.where.line == text.count("\n") + 1
    assert message in err.value.message
    assert hint in err.value.hint


def test_an_empty_layout_says_it_has_no_tiles():
    with pytest.raises(LayoutError, match="no tiles"):
        parse_layout("# nothing\n\n", "empty.layout")


def test_a_missing_file_is_an_error_not_a_crash(tmp_path):
    with pytest.raises(LayoutError) as err:
        load_layout(tmp_path / "nope.layout")
    assert "cannot read layout" in str(err.value)


# ---------------------------------------------------------------- properties
names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_\-]{0,8}", fullmatch=True)
values = st.one_of(st.booleans(), st.integers(-10**6, 10**6), st.text(max_size=12))
keys = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True).filter(lambda k: k != "rot")


@st.composite
def layouts(draw):
    game = draw(st.none() | st.text(min_size=1, max_size=10))
    tile_names = draw(st.lists(names, min_size=1, max_size=6, unique=True))
    coord = st.integers(-99, 99)
    spots = draw(st.lists(st.one_of(st.none(), st.tuples(coord, coord)),
                          min_size=len(tile_names), max_size=len(tile_names),
                          unique_by=lambda p: p if p is not None else object()))
    tiles = [
        TileSpec(name, pos, draw(st.integers(0, 5)), draw(st.sampled_from(sorted(PROGRAMS))),
                 draw(st.dictionaries(keys, values, max_size=3)), game)
        for name, pos in zip(tile_names, spots, strict=True)
    ]
    return Layout(tiles, game, draw(st.none() | st.sampled_from(sorted(PROGRAMS))))


@settings(max_examples=150, deadline=None)
@given(layouts())
def test_a_written_layout_reads_back_the_same(layout):
    again = parse_layout(layout.to_text())
    assert again.tiles == layout.tiles
    assert (again.game, again.program) == (layout.game, layout.program)


line_words = st.sampled_from(["tile", "map", "end", "game", "program", "at", "rot", "held", "of",
                              "SE", "n", "0,0", "1,-1", "(2,", "3)", "a", "b", "hops", "x=1",
                              'y="q', "#", "=", ",", ".", "99999", "-", '"', "\t"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(line_words | st.text(max_size=4), max_size=7), max_size=8))
def test_any_text_parses_or_gives_a_layout_error(lines):
    text = "\n".join(" ".join(words) for words in lines)
    try:
        layout = parse_layout(text, "fuzz.layout")
        layout.check()
    except LayoutError as e:
        assert str(e).startswith("fuzz.layout")
