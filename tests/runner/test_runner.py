"""The runner: the same results however the runs are played, a results file that a stopped
batch goes on from (losing at most the runs in flight), Ctrl-C that says how to go on, and
--ray without Ray that says how to install it."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import weakref
from pathlib import Path

import pytest
from click.testing import CliRunner

from blinkc.cli import main
from blinkc.explore.explorer import explore_job, report_of
from blinkc.runner import Job, Options, run

ROOT = Path(__file__).resolve().parents[2]
GAME = ROOT / "firmware" / "pirates_lasers.py"
BLINKC = [sys.executable, "-m", "blinkc"]
#: A small exploration: 6 configurations of 2 tiles, 54 runs of a few hundredths of a second.
SMALL = ["explore", str(GAME), "--tiles", "2", "--clock", "±3 %", "--limit", "6", "--random", "1",
         "--keep-going", "--json"]


def small_job():
    return explore_job(GAME, 2, clocks=["±3 %"], random_runs=1, limit=4, stop_at_first=False)


def test_one_process_and_two_give_the_same_results_in_the_order_of_the_runs():
    one = run(small_job(), Options(jobs=1))
    two = run(small_job(), Options(jobs=2))
    assert one.engine == "serial" and two.engine == "2 processes"
    assert one.ordered() == two.ordered() and len(one.ordered()) == 36
    assert report_of(one).lines() == report_of(two).lines()


def test_the_summary_is_the_same_with_one_job_and_two(tmp_path):
    outputs = [subprocess.run([*BLINKC, *SMALL, "--jobs", jobs], capture_output=True, text=True,
                              cwd=tmp_path, check=True).stdout for jobs in ("1", "2")]
    assert outputs[0] == outputs[1] and json.loads(outputs[0])["runs"] == 54


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def _start(tmp_path: Path, results: Path, *more: str,
           sigint_ignored: bool = False) -> subprocess.Popen:
    ignore = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if sigint_ignored else None
    return subprocess.Popen([*BLINKC, *SMALL, "--jobs", "1", "--results", str(results), *more],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, preexec_fn=ignore)


def _wait_for(results: Path, lines: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while _lines(results) < lines:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the batch never got going"
        time.sleep(0.02)


def test_a_batch_killed_midway_goes_on_with_resume_and_ends_as_one_never_stopped(tmp_path):
    whole = subprocess.run([*BLINKC, *SMALL, "--jobs", "1"], capture_output=True, text=True,
                           cwd=tmp_path, check=True).stdout
    results = tmp_path / "results.jsonl"
    process = _start(tmp_path, results)
    _wait_for(results, 1 + 10, process)
    os.killpg(process.pid, signal.SIGKILL)           # a cut: no chance to tidy up
    process.wait()
    kept = _lines(results) - 1
    assert 10 <= kept < 54
    resumed = subprocess.run([*BLINKC, *SMALL, "--jobs", "2", "--results", str(results),
                              "--resume"], capture_output=True, text=True, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout == whole
    # Every run it had kept was read back, not played again; the file now has all 54.
    assert f"{54 - kept:,} runs in" in resumed.stderr and f"{kept:,} read back" in resumed.stderr
    assert _lines(results) == 1 + 54


@pytest.mark.parametrize(("stop", "sigint_ignored"),
                         [(signal.SIGINT, False), (signal.SIGINT, True), (signal.SIGTERM, False)],
                         ids=["ctrl-c", "ctrl-c, started in a script's background", "sigterm"])
def test_ctrl_c_stops_cleanly_and_says_how_to_go_on(tmp_path, stop, sigint_ignored):
    results = tmp_path / "results.jsonl"
    process = _start(tmp_path, results, "--limit", "60",   # 324 runs: seconds, to land in
                     sigint_ignored=sigint_ignored)
    _wait_for(results, 1 + 5, process)
    process.send_signal(stop)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "Traceback" not in err and out == ""
    assert f"runs done, their results in {results}" in err
    command = err.split("go on with: ", 1)[1].strip()
    assert command.startswith("blinkc explore") and command.endswith("--resume")


def test_ray_asked_for_without_ray_says_how_to_install_it_and_exits_2(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)     # import ray fails as if not installed
    result = CliRunner().invoke(main, [*SMALL[:6], "--ray", "local"])
    assert result.exit_code == 2
    assert "pip install 'blinkc[ray]'" in result.output and "Traceback" not in result.output


def test_a_results_file_blinkc_did_not_write_is_never_overwritten(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    result = CliRunner().invoke(main, [*SMALL, "--results", str(notes)])
    assert result.exit_code == 1 and "blinkc did not write" in result.output
    assert notes.read_text() == "my notes\n"


def test_an_earlier_runs_results_are_kept_unless_resumed(tmp_path):
    results = tmp_path / "results.jsonl"
    args = [*SMALL[:8], "--limit", "1", "--results", str(results)]
    assert CliRunner().invoke(main, args).exit_code == 0
    before = results.read_text()
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 1 and "--resume" in again.output
    assert results.read_text() == before
    other = CliRunner().invoke(main, [*args[:-2], "--seed", "3", "--results", str(results),
                                      "--resume"])
    assert other.exit_code == 1 and "another batch" in other.output


def _no_network_namespace() -> str | None:
    """Why Ray cannot be tried here, or None. Ray 2.60's servers listen on every interface
    (it turns 127.0.0.1 into the host's address): the test runs it in a network namespace of
    its own, with only a loopback interface, so no port of it is open to another host."""
    try:
        import ray  # noqa: F401
    except ImportError:
        return "Ray is not installed (pip install 'blinkc[ray]')"
    if shutil.which("unshare") is None:
        return "no unshare(1) to give Ray a network of its own"
    probe = subprocess.run(["unshare", "-rn", "true"], capture_output=True)
    if probe.returncode != 0:
        return "unshare -rn is not allowed here (no user namespaces)"
    return None


# Long tier: a Ray cluster's start costs some 17 s on two cores (its servers, workers and
# their imports), which made it the default tier's slowest test. CI runs it after the default
# tier. In the default tier, the local-process tests above hold the runner to one summary, and
# test_ray_asked_for_without_ray_says_how_to_install_it_and_exits_2 checks the --ray option.
@pytest.mark.long
@pytest.mark.skipif(_no_network_namespace() is not None, reason=str(_no_network_namespace()))
def test_ray_local_gives_the_same_summary_as_local_processes(tmp_path):
    local = subprocess.run([*BLINKC, *SMALL, "--jobs", "2"], capture_output=True, text=True,
                           cwd=tmp_path, check=True).stdout
    script = ("ip link set lo up 2>/dev/null; "
              + " ".join([*BLINKC, *(f"'{a}'" for a in SMALL), "--ray", "local", "--jobs", "2"]))
    on_ray = subprocess.run(["unshare", "-rn", "sh", "-c", script], capture_output=True,
                            text=True, cwd=tmp_path, timeout=300)
    assert on_ray.returncode == 0, on_ray.stderr
    assert on_ray.stdout == local
    assert "on ray local" in on_ray.stderr


def test_a_line_cut_in_half_is_played_again_and_the_file_stays_readable(tmp_path):
    results = tmp_path / "results.jsonl"
    whole = run(small_job(), Options(results=results))
    lines = results.read_text().splitlines(keepends=True)
    results.write_text("".join(lines[:11]) + lines[11][:15])   # cut while writing run 10
    resumed = run(small_job(), Options(results=results, resume=True))
    assert resumed.resumed == 10 and resumed.ordered() == whole.ordered()
    assert run(small_job(), Options(results=results, resume=True)).resumed == 36


def _setup_that_fails(shared):
    raise RuntimeError(f"cannot set up: {shared}")


def _never_played(context, spec):
    return {"spec": spec}


def test_a_setup_that_fails_in_the_workers_stops_the_batch_with_its_error():
    # multiprocessing.Pool starts a new worker for each one whose initializer raised, for
    # ever: the batch hung with no message. The error must come back to the driver instead.
    job = Job("failing setup", {}, _setup_that_fails, "no SDK here", _never_played, [1, 2, 3])
    code = (f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
            "from tests.runner.test_runner import _setup_that_fails, _never_played\n"
            "from blinkc.runner import Job, Options, run\n"
            "try:\n"
            "    run(Job('failing setup', {}, _setup_that_fails, 'no SDK here', _never_played,"
            " [1, 2, 3]), Options(jobs=2))\n"
            "except RuntimeError as e:\n"
            "    print('raised:', e)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert "raised: cannot set up: no SDK here" in done.stdout, done.stderr[-2000:]
    with pytest.raises(RuntimeError, match="no SDK here"):
        run(job, Options(jobs=1))


def _nothing(shared):
    return None


def _odd_fails(context, spec):
    return {"seed": spec, "bad": spec % 2 == 1}


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_batch_that_goes_on_after_failures_goes_on_after_a_resume_too(tmp_path, jobs):
    # A --keep-going exploration stopped after its first violation and resumed played no
    # further run: the runner took the violation read back for the one it stops at.

    def job(runs: int) -> Job:
        return Job("keep going", {}, _nothing, None, _odd_fails, range(runs),
                   failed=lambda r: r["bad"], stop_at_failure=False)

    results = tmp_path / "results.jsonl"
    whole = run(job(8), Options(jobs=jobs))
    first = run(job(8), Options(jobs=jobs, results=results))
    lines = results.read_text().splitlines(keepends=True)
    results.write_text("".join(lines[:5]))                  # runs 0..3 kept, run 1 failed
    resumed = run(job(8), Options(jobs=jobs, results=results, resume=True))
    assert resumed.resumed == 4 and resumed.complete
    assert resumed.ordered() == first.ordered() == whole.ordered()
    assert resumed.failures() == 4


def _ctrl_c_and_wait() -> None:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.1)                                   # the handler runs in here


def _ctrl_c_in_a_finaliser_at_run_3(context, spec):
    """Ctrl-C while a weakref finaliser runs, where Python cannot raise its KeyboardInterrupt
    (it prints "Exception ignored" and goes on), as CI once saw."""
    if spec == 3:
        thing = type("Thing", (), {})()
        weakref.finalize(thing, _ctrl_c_and_wait)
        del thing                                     # the finaliser runs now
    return {"seed": spec}


def test_ctrl_c_swallowed_where_python_ignores_it_still_stops_the_batch_quietly(monkeypatch):
    printed = []     # what Python would print as "Exception ignored ..." with a traceback
    monkeypatch.setattr(sys, "unraisablehook", printed.append)
    job = Job("swallowed", {}, _nothing, None, _ctrl_c_in_a_finaliser_at_run_3, range(20))
    outcome = run(job, Options(jobs=1))
    assert outcome.interrupted and not outcome.complete
    assert sorted(outcome.results) == [0, 1, 2, 3]    # run 3's result kept; no run after it
    assert printed == []
