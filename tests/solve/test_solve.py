"""`blinkc solve`: its best ship is at least as good as every layout a separate, plain
enumeration finds, and the files it writes replay in `blinkc emulate` to the same sinking."""

import itertools
import json
import random
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from blinkc.cli import main
from blinkc.games import game_resolver
from blinkc.solve import Policy, play
from blinkc.solve.files import ship_of
from blinkc.world.emulation import EmulationOptions, emulate
from blinkc.world.layout_file import load_layout
from blinkc.world.scenario_file import load_scenario

GAME = Path(__file__).resolve().parents[2] / "firmware" / "pirates_lasers.py"
NEIGHBOURS = [(0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0)]


def every_layout_of_two_hulls_and_a_hazard(tmp_path: Path):
    """Written apart from the solver: three tiles that touch each other (the only shape of
    three without a weak link: both triangles at the origin), each tile any kind (two Hulls,
    one Hazard), each tile any of its six rotations."""
    triangles = [[(0, 0), (1, 0), (0, 1)], [(0, 0), (1, -1), (1, 0)]]
    for cells in triangles:
        assert all((b[0] - a[0], b[1] - a[1]) in NEIGHBOURS for a, b in itertools.combinations(cells, 2))
        for hazard in range(3):
            for rots in itertools.product(range(6), repeat=3):
                lines = [f"game {GAME}"]
                for i, (c, rot) in enumerate(zip(cells, rots)):
                    kind = "HAZARD" if i == hazard else "HULL"
                    lines.append(f"tile t{i} at {c[0]},{c[1]} rot {rot} kind={kind}")
                yield "\n".join(lines) + "\n"


def _solve(tmp_path: Path, *more: str) -> tuple[dict, str]:
    result = CliRunner().invoke(main, ["solve", str(GAME), "--hulls", "2", "--hazards", "1",
                                       "--jobs", "1", "--out", str(tmp_path), "--json", *more])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout.splitlines()[0]), result.output


def _rounds_of(tmp_path: Path, text: str) -> int:
    path = tmp_path / "given.layout"
    path.write_text(text)
    return play(GAME, ship_of(path), Policy()).rounds


def test_the_best_of_a_small_ship_beats_a_sample_of_every_layout(tmp_path):
    summary, _ = _solve(tmp_path)
    assert summary["search"] == "exhaustive" and summary["legal"] == summary["searched"] == 4
    layouts = list(every_layout_of_two_hulls_and_a_hazard(tmp_path))
    assert len(layouts) == 2 * 3 * 6**3
    sample = random.Random(1).sample(layouts, 24)
    rounds = [_rounds_of(tmp_path, text) for text in sample]
    assert max(rounds) <= summary["best_rounds"]
    assert summary["best_rounds"] in rounds or max(rounds) < summary["best_rounds"]


@pytest.mark.long
def test_the_best_of_a_small_ship_beats_every_layout(tmp_path):
    summary, _ = _solve(tmp_path)
    best = max(_rounds_of(tmp_path, text) for text in every_layout_of_two_hulls_and_a_hazard(tmp_path))
    assert best == summary["best_rounds"]


def _sunk_at(layout: Path, scenario: Path, until_ms: float) -> bool:
    done = emulate(load_layout(layout), load_scenario(scenario),
                   EmulationOptions(seed=0, time_ms=until_ms, resolver=game_resolver(None, "native")))
    return any(t.program.state()["sunk"] for t in done.world.tiles)


def test_the_files_written_replay_to_the_same_sinking_in_the_round_stated(tmp_path):
    summary, output = _solve(tmp_path, "--hulls", "3")
    layout, scenario = tmp_path / "best.layout", tmp_path / "best.scenario"
    text = scenario.read_text()
    rounds = summary["best_rounds"]
    assert f"lasts {rounds} rounds (sinks in round {rounds + 1})" in text
    # The sinking round's first click, and the time the play says the game is over by.
    sinking = text.split(f"# round {rounds + 1}\n", 1)[1]
    first_click = float(re.match(r"at ([\d.]+)ms", sinking).group(1))
    end = float(re.search(r"--time ([\d.]+)ms", output).group(1))
    assert not _sunk_at(layout, scenario, first_click - 1)
    assert _sunk_at(layout, scenario, end)
    # --evaluate plays the written ship to the same count.
    result = CliRunner().invoke(main, ["solve", str(GAME), "--evaluate", str(layout)])
    assert result.exit_code == 0 and f"lasts {rounds} rounds" in result.output


def test_a_best_layout_blinkc_did_not_write_is_never_overwritten(tmp_path):
    mine = tmp_path / "best.layout"
    mine.write_text("tile a at 0,0\n")
    result = CliRunner().invoke(main, ["solve", str(GAME), "--hulls", "2", "--hazards", "1",
                                       "--jobs", "1", "--out", str(tmp_path)])
    assert result.exit_code == 1 and "blinkc did not write" in result.output
    assert mine.read_text() == "tile a at 0,0\n"


def test_a_ship_with_a_weak_link_is_refused_with_the_rule(tmp_path):
    line = tmp_path / "line.layout"
    line.write_text("tile a at 0,0 kind=HAZARD\ntile b at 1,0\ntile c at 2,0\n")
    result = CliRunner().invoke(main, ["solve", str(GAME), "--evaluate", str(line)])
    assert result.exit_code == 1 and "weak link" in result.output and "Traceback" not in result.output
