"""Per-face fields and engine settings: each mistake gives file:line, what is wrong, and a hint;
what is right compiles to six values per tile on both backends."""

import textwrap

import pytest

from blinkc.dsl import lower_game

from .test_errors import HEADER, HEADER_LINES, errors_of, line_of

PER_FACE = HEADER + """\
score = game.field(range(0, 4), default=0, per_face=True)
Dir = game.kinds("N", "E", "S")
dirs = game.field(Dir, default=Dir.N, per_face=True)
"""


def per_face_line(body: str, marker: str) -> int:
    return line_of(body, marker) + PER_FACE.count("\n") - HEADER_LINES


MISTAKES = [
    # (name, body, marker, words in the message, words in the hint)
    ("indexing a scalar field", """
        @game.on_click
        def f(t):
            t.hp[0] = 1  # here
        """, "# here", "t.hp is one value, not one per face: it cannot be indexed", "per_face=True"),
    ("reading a per-face field whole", """
        @game.on_click
        def f(t):
            x = t.score  # here
        """, "# here", "t.score holds six values, one per face: read one at a time", "t.score[f]"),
    ("assigning a whole per-face field", """
        @game.on_click
        def f(t):
            t.score = 0  # here
        """, "# here", "t.score holds six values, one per face: assign one face at a time",
     "for f in faces(): t.score[f] = ..."),
    ("a constant index that is no face", """
        @game.on_click
        def f(t):
            t.score[6] = 1  # here
        """, "# here", "face 6 does not exist: faces are 0..5", "count faces from 0"),
    ("an index the ranges say can leave 0..5", """
        @game.on_message(Ping)
        def got(t, face):
            t.score[face + 1] = 1  # here
        """, "# here", "this face (the index of t.score[...]) can be 1..6, but faces are 0..5",
     "cw(f, n)"),
    ("a read index the ranges say can leave 0..5", """
        @game.on_click
        def f(t):
            t.hp = t.score[t.hp + 1]  # here
        """, "# here", "this face (the index of t.score[...]) can be 1..6", "test it first"),
    ("a kind as an index", """
        @game.on_click
        def f(t):
            t.score[Dir.S] = 1  # here
        """, "# here", "Dir.S is one of Dir's kinds, not a face", "faces are 0..5"),
    ("a number into a per-face kinds field", """
        @game.on_click
        def f(t):
            t.dirs[0] = 2  # here
        """, "# here", "t.dirs[...] holds one of Dir's kinds, not a number", "t.dirs[...] = Dir.N"),
    ("an assigned index with a side effect", """
        @game.on_click
        def f(t):
            t.score[t.random(5)] += 1  # here
        """, "# here", "a per-face index you assign must not have side effects", "local first"),
    ("indexing a local", """
        @game.on_click
        def f(t):
            x = 3
            t.hp = x[0]  # here
        """, "# here", "only per-face fields can be indexed", "per_face=True"),
]


@pytest.mark.parametrize("name, body, marker, message, hint", MISTAKES, ids=[c[0] for c in MISTAKES])
def test_per_face_mistake_reports_file_line_and_hint(tmp_path, name, body, marker, message, hint):
    path, errors, _ = errors_of(tmp_path, body, PER_FACE)
    assert errors, f"{name}: no error reported"
    e = errors[0]
    assert e.loc.file == str(path) and e.loc.line == per_face_line(body, marker), str(e)
    assert message in e.message and hint in e.hint, str(e)


DECLARATIONS = [
    ("a per-face field broadcast", "x = game.field(range(0, 4), per_face=True, broadcast=True)\n",
     "the per-face field 'x' cannot be broadcast", "@game.broadcast"),
    ("per_face not a bool", 'x = game.field(range(0, 4), per_face="yes")\n',
     "per_face= is True or False, not 'yes'", "per_face=True"),
    ("six defaults", "x = game.field(range(0, 4), default=(0, 1, 0, 1, 0, 1), per_face=True)\n",
     "the default of the per-face field 'x' is one value", "@game.setup"),
]


@pytest.mark.parametrize("name, decl, message, hint", DECLARATIONS, ids=[c[0] for c in DECLARATIONS])
def test_per_face_declaration_mistakes(tmp_path, name, decl, message, hint):
    path, errors, _ = errors_of(tmp_path, decl)
    assert errors
    e = errors[0]
    assert e.loc.file == str(path) and e.loc.line == HEADER_LINES + 1, str(e)
    assert message in e.message and hint in e.hint, str(e)


def setting_error(tmp_path, setting: str, value):
    """The one error of a game whose Game(...) line sets `setting` to `value`, at that line."""
    header = HEADER.replace('Game("g")', f'Game("g", {setting}={value!r})')
    path, errors, _ = errors_of(tmp_path, "", header)
    (e,) = errors
    assert e.loc.file == str(path) and e.loc.line == 2
    return e


@pytest.mark.parametrize("queue_len", [0, 65, "12", True])
def test_a_queue_length_outside_1_to_64_is_an_error_at_the_game_line(tmp_path, queue_len):
    e = setting_error(tmp_path, "queue_len", queue_len)
    assert f"queue_len must be a whole number of messages in 1..64, not {queue_len!r}" in e.message
    assert "queue_len=12" in e.hint and "bounces" in e.hint


@pytest.mark.parametrize("randomize", ["yes", 1, "Clock"])
def test_a_random_source_other_than_true_false_none_or_clock_is_an_error(tmp_path, randomize):
    e = setting_error(tmp_path, "randomize", randomize)
    assert f'randomize must be True, False, None or "clock", not {randomize!r}' in e.message
    assert "own sequence" in e.hint


def test_a_queue_length_sizes_the_engine_queue(tmp_path):
    path = tmp_path / "game.py"
    path.write_text(HEADER.replace('Game("g")', 'Game("g", queue_len=3)') + textwrap.dedent("""
        Pong = game.message("Pong")

        @game.on_click
        def f(t):
            t.send(Ping, 0)
            t.send(Pong, 1)
        """))
    program = lower_game(path).program
    assert dict((k, v) for k, v, _ in program.constants)["QUEUE_LEN"] == 3
    assert next(g for g in program.globals if g.name == "queue").size == 3


def test_a_game_with_one_message_code_counts_its_queue_per_face(tmp_path):
    # All its queued messages are the same code: a count per face is the queue (6 bytes
    # whatever queue_len is), and the queue's length is their sum.
    path = tmp_path / "game.py"
    path.write_text(HEADER.replace('Game("g")', 'Game("g", queue_len=30)') + textwrap.dedent("""
        @game.on_click
        def f(t):
            t.send(Ping, 0)
        """))
    program = lower_game(path).program
    names = {g.name: g for g in program.globals}
    assert "queue" not in names and "queue_len" not in names
    assert names["queued_for"].size == 6
    assert dict((k, v) for k, v, _ in program.constants)["QUEUE_LEN"] == 30


def test_per_face_fields_used_rightly_are_accepted(tmp_path):
    body = """
        def bump(t, f: Face):
            t.score[f] += 1

        @game.on_click
        def press(t):
            for f in faces():
                bump(t, f)
                t.dirs[f] = t.dirs[f].next()
                if t.score[f] == 3 and t.dirs[cw(f)] == Dir.S:
                    t.score[opposite(f)] = 0
                    t.send(Ping, f)

        @game.on_message(Ping)
        def got(t, face):
            t.score[face] = t.score[face] - 1
            if face + 1 < 6:
                t.score[face + 1] = 2
        """
    _, errors, warnings = errors_of(tmp_path, body, PER_FACE)
    assert errors == [] and warnings == [], (errors, warnings)
