"""`blinkc emulate` never hangs: stuck tiles and Ctrl-C end a run with a message.

Each test runs `blinkc emulate` in a subprocess, as a user would, with a
timeout: a tile whose loop() never returns (a native sketch's `while (1);`,
a Python program's `while True`) freezes, as a real tile does: the run goes
on and its summary says so in one line, exit status 0. One whose setup()
never returns stops the run with one error naming the tile, exit status 1.
SIGINT stops any run promptly with exit status 130. BLINKC_TILE_BUDGET
shortens the watchdog's limit so the tests take seconds.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from blinkc.native import load_sketch

from ..tools import require_tool

ROOT = Path(__file__).resolve().parents[2]
SKETCHES = ROOT / "tests" / "native" / "sketches"

#: Registers Python tile programs that never return, then runs the blinkc command line.
PROGRAMS = '''
import sys
from blinkc.programs import PROGRAMS

class Forever:
    """loop() never returns."""
    def setup(self, b):
        b.setColor(0x1F)
    def loop(self, b):
        while True:
            pass

class ForeverSetup:
    """setup() never returns."""
    def setup(self, b):
        n = 0
        while True:
            n += 1
    def loop(self, b):
        pass

class StuckOnPress:
    """Busy until its button is pressed; then loop() never returns."""
    def setup(self, b):
        self.passes = 0
    def loop(self, b):
        self.passes += 1
        b.setValueSentOnAllFaces(self.passes & 63)
        if b.buttonPressed():
            while True:
                pass

PROGRAMS.update(forever=Forever, forever_setup=ForeverSetup, stuck_on_press=StuckOnPress)
from blinkc.cli import main
main(["emulate", *sys.argv[1:]], prog_name="blinkc")
'''

#: Generous: a stuck run must end well before this, a working one long before. (30 s was not
#: enough on a 2-core machine at a load of 30, where these 10 s runs took over 30 s of wall time.)
TIMEOUT_S = 120
#: How soon after SIGINT a run must end: generous for a loaded machine, and still far below
#: the 60 s budget of the Ctrl-C tests and their runs' length, so only Ctrl-C can end them.
PROMPT_S = 10


def env(budget: str | None = "0.3") -> dict[str, str]:
    out = dict(os.environ, PYTHONUNBUFFERED="1", NO_COLOR="1")
    out.pop("BLINKC_TILE_BUDGET", None)
    if budget is not None:
        out["BLINKC_TILE_BUDGET"] = budget
    return out


def blinkc_emulate(args: list[str], python_programs: bool = False) -> list[str]:
    if python_programs:
        return [sys.executable, "-c", PROGRAMS, *args]
    return [sys.executable, "-m", "blinkc", "emulate", *args]


def run(args: list[str], python_programs: bool = False, budget: str | None = "0.3"):
    try:
        return subprocess.run(blinkc_emulate(args, python_programs), capture_output=True,
                              text=True, env=env(budget), timeout=TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"blinkc emulate {' '.join(args)} still running after {TIMEOUT_S} s: it hangs")


def layout(tmp_path: Path, text: str) -> str:
    path = tmp_path / "cluster.layout"
    path.write_text(text)
    return str(path)


@pytest.fixture(scope="module")
def sketches():
    """Compile the test sketches once, so the subprocesses find them in the cache."""
    require_tool("g++")
    return {name: str(load_sketch(SKETCHES / name, check_int16=False).sketch.path)
            for name in ("Forever", "ForeverSetup", "StuckOnPress", "Relay")}


def assert_stuck_error(proc, tile: str, what: str, source: str) -> None:
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    err = proc.stderr
    assert err.startswith("Error: "), err
    assert f"tile {tile!r}" in err and source in err, err
    assert f"{what}() did not return" in err, err
    assert "BLINKC_TILE_BUDGET" in err, err
    assert proc.stdout == ""


def freeze_lines(proc, ran_to: str) -> list[str]:
    """A run in which tiles froze: it went on to its end, status 0; the lines reporting them."""
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    out = proc.stdout.splitlines()
    assert out[0].startswith(f"t = {ran_to}, seed 0"), proc.stdout
    return [line for line in out if " froze at t = " in line]


# --------------------------------------------------------------- stuck tiles
@pytest.mark.parametrize("world", ["native", "python"])
def test_a_sketch_whose_loop_never_returns_freezes_and_the_run_goes_on(sketches, tmp_path, world):
    cluster = layout(tmp_path, "tile a at 0,0\ntile b at SE of a\n")
    proc = run([sketches["Forever"], "-l", cluster, "--world", world, "--time", "10s"])
    lines = freeze_lines(proc, "10 s")
    assert [line.split(" froze")[0] for line in lines] == [
        f"tile 'a' (sketch {sketches['Forever']})", f"tile 'b' (sketch {sketches['Forever']})"]
    assert lines[0].endswith(": loop() did not return within 0.3 s of CPU time (it ends in an "
                             "endless loop such as `while (1);`; a real tile freezes there too)")
    assert " froze at t = 0 s: " in lines[0]


@pytest.mark.parametrize("world", ["native", "python"])
def test_a_sketch_whose_setup_never_returns_stops_the_run(sketches, tmp_path, world):
    cluster = layout(tmp_path, "tile a at 0,0\ntile b at SE of a\n")
    proc = run([sketches["ForeverSetup"], "-l", cluster, "--world", world, "--time", "10s"])
    assert_stuck_error(proc, "a", "setup", f"sketch {sketches['ForeverSetup']}")
    assert "stays dark and silent" in proc.stderr


@pytest.mark.parametrize("world", ["auto", "python"])
def test_a_python_program_whose_loop_never_returns_freezes(tmp_path, world):
    cluster = layout(tmp_path, "tile a at 0,0 hops source=true\ntile b at SE of a forever\n")
    proc = run([cluster, "--world", world, "--time", "10s"], python_programs=True)
    [line] = freeze_lines(proc, "10 s")
    assert line.startswith("tile 'b' (program Forever) froze at t = 0 s: loop() did not return")


@pytest.mark.parametrize("world", ["auto", "python"])
def test_a_python_program_whose_setup_never_returns_stops_the_run(tmp_path, world):
    cluster = layout(tmp_path, "tile a at 0,0 hops source=true\ntile b at SE of a forever_setup\n")
    proc = run([cluster, "--world", world, "--time", "10s"], python_programs=True)
    assert_stuck_error(proc, "b", "setup", "program")


def test_a_tile_stuck_later_in_the_run_freezes_there(sketches, tmp_path):
    cluster = layout(tmp_path, "tile a at 0,0\ntile b at SE of a\n")
    scenario = tmp_path / "s.scenario"
    scenario.write_text("at 1s press b\n")
    proc = run([sketches["StuckOnPress"], "-l", cluster, "-s", str(scenario), "--time", "60s"])
    [line] = freeze_lines(proc, "60 s")
    assert line.startswith(f"tile 'b' (sketch {sketches['StuckOnPress']}) froze at t = 1.")


def test_the_budget_is_generous_by_default(sketches, tmp_path):
    # Without BLINKC_TILE_BUDGET the limit is 2 s of CPU time per call.
    cluster = layout(tmp_path, "tile a at 0,0\n")
    started = time.monotonic()
    proc = run([sketches["Forever"], "-l", cluster], budget=None)
    [line] = freeze_lines(proc, "2 s")
    assert "within 2 s of CPU time" in line
    assert time.monotonic() - started >= 2


# -------------------------------------------------------------------- Ctrl-C
def interrupt(args: list[str], python_programs: bool = False, budget: str = "60"):
    """Start a run, wait until its first scenario picture is out, send SIGINT, time the exit."""
    proc = subprocess.Popen(blinkc_emulate(args, python_programs), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env(budget))
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("after "):  # the picture after the first step: the run is on
                break
        else:
            pytest.fail(f"the run ended early: {proc.communicate()}")
        time.sleep(1)  # well inside the long run (or the stuck loop)
        assert proc.poll() is None, "the run should still be going"
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=TIMEOUT_S)
        return proc.returncode, time.monotonic() - sent, err
    except subprocess.TimeoutExpired:
        pytest.fail("SIGINT did not stop blinkc emulate")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def assert_interrupted(code: int, took: float, err: str) -> None:
    assert code == 130, err
    assert took < PROMPT_S, f"it took {took:.1f} s to stop"
    assert "Traceback" not in err, err
    assert "interrupted" in err.lower(), err


@pytest.mark.parametrize("trace", [False, True])
@pytest.mark.parametrize("world", ["native", "python"])
def test_ctrl_c_stops_a_long_run_of_sketches(sketches, tmp_path, world, trace):
    # With a trace, the C++ core calls Python for every pass: Ctrl-C often lands there.
    # A click every 5 minutes keeps the cluster from the SDK's sleep after 10 minutes
    # without a press: asleep, the rest of the run costs nothing, and a fast machine would
    # finish it before the signal.
    cluster = layout(tmp_path, "tile a at 0,0\ntile b at SE of a\ntile c at SE of b\n")
    scenario = tmp_path / "s.scenario"
    scenario.write_text("at 100ms click a\nat 200ms click b\n"
                        + "".join(f"at {5 * i}min click a\n" for i in range(1, 288)))
    assert_interrupted(*interrupt([sketches["Relay"], "-l", cluster, "-s", str(scenario),
                                   "--render-steps", "--world", world, "--time", "10000000s",
                                   *(["--trace", str(tmp_path / "run.trace")] if trace else [])]))


def test_ctrl_c_stops_a_long_run_of_python_tiles(tmp_path):
    cluster = layout(tmp_path, "program busy\ntile a at 0,0\ntile b at SE of a\ntile c at SE of b\n")
    scenario = tmp_path / "s.scenario"
    scenario.write_text("at 100ms click a\nat 200ms click b\n")
    assert_interrupted(*interrupt([cluster, "-s", str(scenario), "--render-steps",
                                   "--time", "10000000s"]))


@pytest.mark.parametrize("world", ["native", "python"])
def test_ctrl_c_stops_a_run_with_a_stuck_sketch(sketches, tmp_path, world):
    cluster = layout(tmp_path, "tile a at 0,0\ntile b at SE of a\n")
    scenario = tmp_path / "s.scenario"
    scenario.write_text("at 100ms rotate a 1\nat 200ms press b\n")
    code, took, err = interrupt([sketches["StuckOnPress"], "-l", cluster, "-s", str(scenario),
                                 "--render-steps", "--world", world, "--time", "100s"])
    assert_interrupted(code, took, err)
    assert "tile 'b' (sketch " in err and "stopped by Ctrl-C inside loop()" in err


def test_ctrl_c_stops_a_run_with_a_stuck_python_tile(tmp_path):
    cluster = layout(tmp_path, "tile a at 0,0 stuck_on_press\ntile b at SE of a stuck_on_press\n")
    scenario = tmp_path / "s.scenario"
    scenario.write_text("at 100ms rotate a 1\nat 200ms press b\n")
    assert_interrupted(*interrupt([cluster, "-s", str(scenario), "--render-steps",
                                   "--time", "100s"], python_programs=True))
