"""`blinkc emulate` as a user runs it."""

import json
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image

from blinkc.cli import main

ROOT = Path(__file__).resolve().parents[2]
CHAIN = str(ROOT / "examples" / "chain.layout")
CLICKS = str(ROOT / "examples" / "clicks.scenario")
FLOWER = str(ROOT / "examples" / "flower.layout")
FLOWER_SC = str(ROOT / "examples" / "flower.scenario")


def run(*args: str, code: int = 0, env: dict | None = None):
    result = CliRunner().invoke(main, ["emulate", *args], env=env)
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return result


def test_prints_each_tiles_final_state():
    out = run(CHAIN).stdout
    assert out.splitlines()[0] == "t = 2 s, seed 0"
    assert re.search(r"^src\s+at 0,0\s+rot 0\s+all RED\s+source=true distance=0$", out, re.M)
    assert re.search(r"^d\s+at 4,0\s+rot 0\s+.*distance=4$", out, re.M)


def test_json_is_the_snapshot_of_every_tile_after_the_scenario():
    data = json.loads(run(CHAIN, "--script", CLICKS, "--json").stdout)
    assert data["seed"] == 0 and data["time_ms"] > 5000
    tiles = {t["name"]: t for t in data["tiles"]}
    assert [tiles[n]["state"]["distance"] for n in ("src", "a", "b", "c", "d")] == [4, 3, 2, 1, 0]
    assert tiles["b"]["rot"] == 1 and tiles["b"]["pos"] == [2, 0]
    assert set(tiles["d"]) >= {"colors", "sent", "received", "expired", "millis"}


def test_with_json_the_picture_goes_to_stderr():
    result = run(CHAIN, "--json", "--render", "--no-color")
    json.loads(result.stdout)
    assert "\\_______/" in result.stderr


def test_render_draws_hexagons_plain_or_in_colour():
    plain = run(CHAIN, "--render", "--no-color").stdout
    assert "\\_______/" in plain and "\x1b" not in plain
    coloured = run(CHAIN, "--render", "--color", env={"COLORTERM": "truecolor"}).stdout
    assert "\x1b[" in coloured and "38;2;255;0;0" in coloured  # the red source


def test_render_steps_draws_after_each_group_of_steps():
    out = run(FLOWER, "-s", FLOWER_SC, "--render-steps", "--no-color").stdout
    titles = [line for line in out.splitlines() if line.startswith(("after ", "end,"))]
    assert len(titles) == 7
    assert titles[0].startswith("after double mid (line 3), t = ")
    assert titles[-1].startswith("after place ne at NE of mid rot 2 (line 10); rotate ne +1")


def test_png_and_trace_files(tmp_path):
    png, trace = tmp_path / "c.png", tmp_path / "t.jsonl"
    result = run(CHAIN, "-s", CLICKS, "--png", str(png), "--trace", str(trace))
    assert f"picture saved to {png}" in result.stderr
    with Image.open(png) as img:
        assert img.format == "PNG"
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    actions = [(e["do"], e["line"]) for e in events if e["ev"] == "action"]
    assert actions[0] == ("click d", 3)
    assert any(e["ev"] == "button" and "single" in e["events"] for e in events)


def test_time_and_seed_and_faults():
    out = run(CHAIN, "--time", "500ms").stdout
    assert out.startswith("t = 0.5 s")
    a = run(CHAIN, "--seed", "4", "--faults", "drop=0.2,jitter=2ms,skew=10%", "--json").stdout
    b = run(CHAIN, "--seed", "4", "--faults", "drop=0.2,jitter=2ms,skew=10%", "--json").stdout
    assert a == b


def test_steps_cut_off_by_time_are_noted():
    result = run(CHAIN, "-s", CLICKS, "-t", "3s")
    assert "note: 2 scenario steps not over when the run ended at 3 s" in result.stderr
    assert "lift b, line 7" in result.stderr


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("layout,script,message", [
    ("tile a at 0,0 hops\ntile b at 0,0 hops\n", None, "bad.layout:2: tile 'b' at 0,0 overlaps"),
    ("tile a at 0,0 hopz\n", None, "bad.layout:1: unknown program 'hopz'"),
    ("tile a at 0,0 hops\n", "click a\nfrobnicate a\n", "bad.scenario:2: unknown action"),
    ("tile a at 0,0 hops\n", "wait 1s\nclick b\n", "bad.scenario:2: no tile named 'b'"),
])
def test_bad_files_give_one_message_with_file_and_line(tmp_path, layout, script, message):
    args = [write(tmp_path, "bad.layout", layout)]
    if script is not None:
        args += ["--script", write(tmp_path, "bad.scenario", script)]
    result = run(*args, code=1)
    assert message in result.stderr
    assert result.stderr.startswith("Error: ")


def test_missing_files_are_reported(tmp_path):
    assert "cannot read layout" in run(str(tmp_path / "nope.layout"), code=1).stderr
    assert "cannot read scenario" in run(CHAIN, "-s", str(tmp_path / "no.scenario"), code=1).stderr
    assert "Cannot write the picture" in run(CHAIN, "--png", str(tmp_path / "no" / "x.png"), code=1).stderr


@pytest.mark.parametrize("args,message", [
    (["--faults", "drop=2"], "drop must be in [0, 1)"),
    (["--faults", "noise=1"], "bad fault 'noise=1'"),
    (["--time", "5"], "give a unit"),
    (["--time", "0s"], "more than 0"),
    (["--seed", "x"], "'x' is not a valid integer"),
])
def test_bad_options_are_usage_errors(args, message):
    result = run(CHAIN, *args, code=2)
    assert message in result.stderr


def test_the_readme_commands_work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # they may write files
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Emulating a cluster"):]
    commands = [line.strip() for line in re.findall(r"```sh\n(.*?)```", section, re.S)[0]
                .splitlines() if line.strip().startswith("blinkc emulate")]
    assert len(commands) >= 3
    for command in commands:
        args = shlex.split(command.split("#")[0])[2:]
        args = [str(ROOT / a) if a.startswith("examples/") else a for a in args]
        run(*args)
    assert (tmp_path / "flower.png").exists() and (tmp_path / "flower.jsonl").exists()
