"""`blinkc emulate --trace/--png` and `blinkc explore --out` never replace a file blinkc did not
write: a user's notes.txt or photo.png named by mistake stays as it was, unless --force."""

from pathlib import Path

from click.testing import CliRunner
from PIL import Image

from blinkc.cli import main

ROOT = Path(__file__).resolve().parents[2]
CHAIN = str(ROOT / "examples" / "chain.layout")
GAME = str(ROOT / "firmware" / "pirates_lasers.py")


def blinkc(*args: str):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert "Traceback" not in result.output
    return result


def refused(result, path: Path) -> None:
    assert result.exit_code == 1, result.output
    assert f"{path.name} already exists and blinkc did not write it" in result.output
    assert "--force" in result.output


def test_a_trace_does_not_replace_a_users_file(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    refused(blinkc("emulate", CHAIN, "--trace", notes), notes)
    assert notes.read_text() == "my notes\n"


def test_a_trace_replaces_an_earlier_trace_and_an_empty_file(tmp_path):
    trace = tmp_path / "run.jsonl"
    assert blinkc("emulate", CHAIN, "--trace", trace).exit_code == 0
    first = trace.read_text()
    assert first.startswith('{"t":')
    r = blinkc("emulate", CHAIN, "--trace", trace, "--seed", "1")
    assert r.exit_code == 0, r.output
    assert trace.read_text() != "" and trace.read_text().startswith('{"t":')
    empty = tmp_path / "empty.jsonl"
    empty.touch()
    assert blinkc("emulate", CHAIN, "--trace", empty).exit_code == 0
    assert empty.stat().st_size > 0


def test_force_replaces_a_users_file(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    r = blinkc("emulate", CHAIN, "--trace", notes, "--force")
    assert r.exit_code == 0, r.output
    assert notes.read_text().startswith('{"t":')


def test_a_picture_does_not_replace_a_users_png(tmp_path):
    photo = tmp_path / "photo.png"
    Image.new("RGB", (4, 4), "red").save(photo)
    before = photo.read_bytes()
    refused(blinkc("emulate", CHAIN, "--png", photo), photo)
    assert photo.read_bytes() == before


def test_a_picture_replaces_blinkcs_own_picture(tmp_path):
    pic = tmp_path / "end.png"
    assert blinkc("emulate", CHAIN, "--png", pic).exit_code == 0
    assert Image.open(pic).text.get("Software", "").startswith("blinkc")
    r = blinkc("emulate", CHAIN, "--png", pic, "--time", "3s")
    assert r.exit_code == 0, r.output


def test_a_folder_or_missing_folder_is_one_clear_message(tmp_path):
    r = blinkc("emulate", CHAIN, "--trace", tmp_path / "nowhere" / "t.jsonl")
    assert r.exit_code != 0 and "does not exist" in r.output
    r = blinkc("emulate", CHAIN, "--png", tmp_path)
    assert r.exit_code != 0 and "folder" in r.output


def test_explore_does_not_replace_a_users_layout(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    mine = out / "explore.layout"
    mine.write_text("tile a at 0,0\n")
    r = blinkc("explore", GAME, "--out", out, "--limit", "1")
    # nothing is found in a correct game, so nothing is written; the refusal comes first
    refused(r, mine)
    assert mine.read_text() == "tile a at 0,0\n"
