"""`blinkc check`: what it says about a game, and its exit status."""

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from blinkc.cli import main

GAME = """\
from blinkc.dsl import *
game = Game("g")
hp = game.field(range(0, 6), default=5)

@game.display
def look(t):
    t.color_all(BLUE)
"""


CONVOY = Path(__file__).resolve().parents[1] / "golden" / "games" / "convoy.py"


def check(tmp_path, body: str = "", *options: str):
    path = tmp_path / "game.py"
    path.write_text(GAME + textwrap.dedent(body))
    return path, CliRunner().invoke(main, ["check", str(path), *options])


def test_a_game_without_problems_is_clean(tmp_path):
    path, r = check(tmp_path)
    assert r.exit_code == 0, r.output
    assert f"{path}: g is clean" in r.output


def test_a_game_with_warnings_is_not_called_clean(tmp_path):
    path, r = check(tmp_path, 'Ping = game.message("Ping")\n')
    assert r.exit_code == 0, r.output
    assert "clean" not in r.output
    assert f"{path}: g has no errors, but 2 warnings" in r.output


def test_strict_makes_warnings_fail_the_check(tmp_path):
    _, r = check(tmp_path, 'Ping = game.message("Ping")\n', "--strict")
    assert r.exit_code == 1, r.output
    assert "2 warnings (--strict)" in r.output


def test_a_flood_given_to_on_message_is_an_error_not_a_traceback(tmp_path):
    path, r = check(tmp_path, """
        Reset = game.flood("Reset")

        @game.on_message(Reset)
        def got(t, face):
            t.flood(Reset)
        """)
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit), r.output
    assert f"{path}:11: error: @game.on_message() takes a message, not the flood 'Reset'" in r.output


def test_an_async_handler_is_an_error_not_a_traceback(tmp_path):
    path, r = check(tmp_path, """
        @game.on_click
        async def press(t):
            t.hp = 1
        """)
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit), r.output
    assert f"{path}:10: error: async def is not available on the tile" in r.output


def test_check_says_how_many_warnings_were_silenced(tmp_path):
    path, r = check(tmp_path, 'Ping = game.message("Ping")  # blinkc: ignore\n')
    assert r.exit_code == 0, r.output
    assert f"{path}: g is clean (2 warnings silenced by # blinkc: ignore)" in r.output
    assert "warning:" not in r.output


def test_verbose_shows_what_each_field_and_the_queue_cost_in_ram(tmp_path):
    body = """
        hits = game.field(range(0, 4), default=0, per_face=True)
        Ping = game.message("Ping")

        @game.on_click
        def press(t):
            t.hits[2] += 1
            t.send(Ping, 2)

        @game.on_message(Ping)
        def got(t, face):
            t.hits[face] = 0
        """
    _, r = check(tmp_path, body, "--verbose")
    assert r.exit_code == 0, r.output
    assert "  hp           uint8_t       1 byte  0..5\n" in r.output
    assert "  hits         uint8_t[6]   6 bytes  0..3, one per face\n" in r.output
    assert ("  queue_len=12: 12 messages can wait for their face (6 bytes of RAM, a count per "
            "face: the game's messages have one code); a full queue bounces") in r.output
    assert "(7 of them game state)" in r.output


def test_verbose_shows_the_games_own_queue_length(tmp_path):
    path = tmp_path / "game.py"
    path.write_text(GAME.replace('Game("g")', 'Game("g", queue_len=3)') + textwrap.dedent("""
        Ping = game.message("Ping", payload=range(2))

        @game.on_click
        def press(t):
            t.send(Ping, 0, 1)
        """))
    r = CliRunner().invoke(main, ["check", str(path), "--verbose"])
    assert "queue_len=3: 3 messages can wait for their face (3 bytes of RAM)" in r.output


def test_verbose_shows_each_wide_value_and_what_its_engine_state_costs():
    r = CliRunner().invoke(main, ["check", "-v", str(CONVOY)])
    assert r.exit_code == 0, r.output
    assert "Values wider than a code" in r.output
    assert "  Cargo        0..255: message after 2 data codes" in r.output
    assert "  Tally        0..4095: gather (sum): each echo after 3 data codes" in r.output
    assert "engine state for them: 70 bytes of RAM (wide_rx 12, wide_busy 1," in r.output


def test_verbose_says_nothing_of_wide_values_for_a_game_without_them(tmp_path):
    _, r = check(tmp_path, 'Small = game.message("Small", payload=range(4))\n', "-v")
    assert r.exit_code == 0, r.output
    assert "wider" not in r.output and "data code" not in r.output


@pytest.mark.parametrize("randomize, says", [
    (None, "the SDK's random(), seeded by randomize() at power-up"),
    (False, "the tile's own sequence, seeded from its serial number (randomize=False"),
    ('"clock"', "the tile's own sequence, seeded from its serial number, mixed with the clock"),
])
def test_verbose_says_where_the_random_numbers_come_from(tmp_path, randomize, says):
    path = tmp_path / "game.py"
    game = GAME.replace('Game("g")', f'Game("g", randomize={randomize})')
    path.write_text(game + "\n@game.on_click\ndef roll(t):\n    t.hp = t.random(5)\n")
    r = CliRunner().invoke(main, ["check", str(path), "--verbose"])
    assert r.exit_code == 0, r.output
    assert f"Random numbers: {says}" in r.output


def test_verbose_says_nothing_of_random_numbers_for_a_game_that_draws_none(tmp_path):
    _, r = check(tmp_path, "", "--verbose")
    assert r.exit_code == 0 and "Random numbers" not in r.output
