"""`blinkc check --verbose`'s flash figure: the game built as `blinkc build` builds it, when
there is an SDK and a toolchain; a plain "not measured", and how to get the figure, when not
(never a made-up number)."""

import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from blinkc.build import BudgetExceeded, SizeReport
from blinkc.cli import main

from ..building.helpers import AVR_TOOLS, make_standin, require_tools

ROOT = Path(__file__).resolve().parents[2]
GAME = ROOT / "firmware" / "pirates_lasers.py"
FLEET = ROOT / "tests" / "golden" / "games" / "fleet.py"
#: A measured figure, as the size report gives it ("Flash:  4,661 of 5,888 bytes ...").
FIGURE = re.compile(r"^ *(Flash|RAM): +[\d,]+ of [\d,]+ bytes.*$", re.M)


@pytest.fixture
def no_sdk_anywhere(tmp_path, monkeypatch):
    """No BLINKS_SDK, an empty home (no Arduino folders) and a working folder with no
    checkout: find_sdk() finds nothing."""
    for name in ("BLINKS_SDK", "ARDUINO_DIRECTORIES_DATA", "ARDUINO_DIRECTORIES_USER"):
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)


def check_verbose(game: Path, *options: str) -> str:
    done = CliRunner().invoke(main, ["check", str(game), "--verbose", *options])
    assert done.exit_code == 0, done.output
    return done.output


def figures(output: str) -> list[str]:
    return [m.group(0).strip() for m in FIGURE.finditer(output)]


def test_without_an_sdk_it_says_the_flash_is_not_measured_and_how_to_get_it(no_sdk_anywhere):
    out = check_verbose(GAME)
    assert "Flash: not measured: no Blinks SDK found (BLINKS_SDK is not set" in out
    assert "set BLINKS_SDK" in out and f"`blinkc build {GAME} -o build/`" in out
    assert figures(out) == []  # no number for the flash nor the tile's whole RAM


def test_with_an_sdk_that_is_not_one_it_says_why(tmp_path):
    out = check_verbose(GAME, "--sdk", str(tmp_path / "nowhere"))
    assert f"Flash: not measured: {tmp_path / 'nowhere'} (from --sdk) is not a usable Blinks SDK" in out
    assert figures(out) == []


def test_without_avr_gcc_it_says_so(tmp_path, monkeypatch, no_sdk_anywhere):
    standin = make_standin(tmp_path / "standin" / "avr")
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools"))
    out = check_verbose(GAME, "--sdk", str(standin))
    assert "Flash: not measured: No avr-gcc found" in out and "apt-get install gcc-avr" in out
    assert figures(out) == []


def test_a_game_too_big_for_the_tile_is_said_not_to_fit(tmp_path, monkeypatch):
    import blinkc.cli.check as check

    standin = make_standin(tmp_path / "standin" / "avr")

    def too_big(game, out, sdk):
        report = SizeReport(Path(out) / "game.elf", 6_000, 700, 382)
        raise BudgetExceeded("game does not fit on a tile.", report)

    monkeypatch.setattr(check, "build_firmware", too_big)
    out = check_verbose(GAME, "--sdk", str(standin))
    assert "IT DOES NOT FIT, `blinkc build` refuses it" in out
    assert "Flash:  6,000 of 5,888 bytes" in out and "OVER BUDGET: flash" in out


def _built(game: Path, out: Path, *options: str) -> list[str]:
    done = CliRunner().invoke(main, ["build", str(game), "-o", str(out), *options])
    assert done.exit_code == 0, done.output
    return figures(done.output)


@pytest.mark.parametrize("game", [GAME, FLEET], ids=["pirates_lasers", "fleet"])
def test_with_the_stand_in_sdk_the_figure_is_what_blinkc_build_reports(tmp_path, game):
    require_tools(*AVR_TOOLS)
    standin = make_standin(tmp_path / "standin" / "avr")
    out = check_verbose(game, "--sdk", str(standin))
    assert "built with avr-gcc against Standin" in out
    measured = figures(out)
    assert [f.split(":")[0] for f in measured] == ["Flash", "RAM"]
    assert measured == _built(game, tmp_path / "build", "--sdk", str(standin))


@pytest.mark.skipif(not os.environ.get("BLINKS_SDK"),
                    reason="BLINKS_SDK is not set: it names a Blinks SDK checkout to build with")
@pytest.mark.parametrize("game", [GAME, FLEET], ids=["pirates_lasers", "fleet"])
def test_with_the_real_sdk_the_figure_is_what_blinkc_build_reports(tmp_path, game):
    require_tools(*AVR_TOOLS)
    out = check_verbose(game)
    assert "(found via BLINKS_SDK), as `blinkc build` measures them" in out
    measured = figures(out)
    assert [f.split(":")[0] for f in measured] == ["Flash", "RAM"]
    assert measured == _built(game, tmp_path / "build")
