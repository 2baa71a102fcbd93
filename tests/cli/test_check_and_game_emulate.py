"""`blinkc check` and `blinkc emulate GAME.py --layout ...` from the command line."""

import json
from pathlib import Path

from click.testing import CliRunner

from blinkc.cli import main

ROOT = Path(__file__).resolve().parents[2]
GAME = str(ROOT / "firmware" / "pirates_lasers.py")
SHIP = str(ROOT / "examples" / "ship.layout")
TURN = str(ROOT / "examples" / "turn.scenario")


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_check_clean_game_exits_0_and_verbose_shows_the_bit_layout():
    r = run("check", GAME, "--verbose")
    assert r.exit_code == 0, r.output
    assert "pirates_lasers is clean" in r.output
    assert "bits 1-4   message code" in r.output and "6 of 6 bits used" in r.output


def test_check_reports_every_error_with_file_line_and_exits_1(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from blinkc.dsl import *\ngame = Game('b')\n\n@game.on_click\ndef f(t):\n"
                   "    t.x = 1.5\n    while True:\n        pass\n")
    r = run("check", str(bad))
    assert r.exit_code == 1
    assert f"{bad}:6: error" in r.output and f"{bad}:7: error" in r.output
    assert "hint:" in r.output and "Traceback" not in r.output


def test_check_missing_file_is_one_clear_error(tmp_path):
    r = run("check", str(tmp_path / "nope.py"))
    assert r.exit_code == 1 and "cannot read the game file" in r.output


def test_emulate_a_game_json_gives_kind_hp_orientation_sunk_and_colours():
    r = run("emulate", GAME, "--layout", SHIP, "--script", TURN, "--json")
    assert r.exit_code == 0, r.output
    tiles = {t["name"]: t for t in json.loads(r.stdout)["tiles"]}
    assert tiles["z"]["state"]["kind"] == "HAZARD" and tiles["z"]["state"]["orient"] == 1
    assert tiles["h1"]["state"]["hp"] == 5 and tiles["h3"]["state"]["hp"] == 4  # shot, then repaired
    assert tiles["h2"]["state"]["hp"] == 4 and tiles["h2"]["state"]["sunk"] is False
    assert len(tiles["h1"]["colors"]) == 6


def test_emulate_a_game_needs_a_layout():
    r = run("emulate", GAME)
    assert r.exit_code == 2 and "--layout" in r.output


def test_emulate_rejects_a_bad_initial_state_with_the_layout_line(tmp_path):
    layout = tmp_path / "bad.layout"
    layout.write_text("tile a at 0,0 kind=BOAT\n")
    r = run("emulate", GAME, "--layout", str(layout))
    assert r.exit_code == 1 and "kind cannot be 'BOAT'" in r.output and "bad.layout:1" in r.output
