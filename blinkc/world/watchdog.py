"""The emulator never hangs: every call into a tile's code has a budget.

A Blinks sketch whose loop() never returns (`while (1);`, as Move38's
SerialNumberPrinter ends) freezes a real tile; in the emulator it would hang
the run for ever. Instead, a call into a tile's code (setup(), loop(), and
the quiet_until / display hooks) that has used more than the budget of CPU
time is stopped. A loop() stopped so freezes its tile (freeze.py: the world
runs on without it); anything else stops the run with a `TileHangError`
naming the tile and its program, and the world cannot run on.

The budget: BLINKC_TILE_BUDGET seconds (default 2; 0 turns the watchdog
off; read when a world first runs), or `World.tile_budget_s`. It is CPU time of the thread running the
tile, not wall-clock time, so a loaded machine does not make a working tile
look stuck, and a true infinite loop is always stopped (within two ticks
past the budget; a tick is an eighth of it, at most 50 ms). A normal pass
takes microseconds.

- Native tiles (compiled sketches, blinkc.native) are stopped by the
  watchdog in blinkc/native/guard.cpp, in either world.
- Python tile programs: while `World.run_until` (or `World.evaluate`) runs,
  a watchdog thread looks every tick; when the world has scheduled nothing
  (its sequence number is unchanged) while the running thread has used the
  budget of CPU time, and that thread is inside a tile's code, it raises
  `TileOverrun` there (an asynchronous exception, PyThreadState_SetAsyncExc:
  no signals, and a run costs a few attribute stores). Not covered: a
  Python program stuck inside one long call into C that holds the GIL (it
  is stopped when that call returns), one that blocks (a sleep uses no CPU
  time; Ctrl-C still stops it), and a second thread running a world while
  one runs.

This module imports nothing of blinkc at load time: the world package and
blinkc.native both use it.
"""

from __future__ import annotations

import ctypes
import math
import os
import sys
import threading
import time
from types import CodeType, FrameType, TracebackType
from typing import Any

from .errors import WorldError

BUDGET_ENV = "BLINKC_TILE_BUDGET"
#: CPU seconds one call into a tile's code may take.
DEFAULT_BUDGET_S = 2.0


class TileOverrun(BaseException):
    """Raised out of tile code that ran past its budget, or was stopped there by Ctrl-C.

    A BaseException, like KeyboardInterrupt, so that a program's own
    `except Exception` cannot swallow it; the world turns it into a
    TileHangError (a WorldError) once it is out of the tile's code.
    """

    def __init__(self, what: str | None, seconds: float, interrupted: bool = False,
                 tile: Any = None) -> None:
        super().__init__(what, seconds)
        #: Which of the program's functions was running ("setup", "loop", ...), if known.
        self.what = what
        #: CPU seconds it had run when it was stopped (at least the budget, for a timeout).
        self.seconds = seconds
        self.interrupted = interrupted
        #: The world's Tile, when the raiser knows it.
        self.tile = tile


_from_env = ("", DEFAULT_BUDGET_S)  # the last value read, and what it means


def budget_from_env(strict: bool = True) -> float:
    """$BLINKC_TILE_BUDGET in seconds, else the default; with `strict`, a bad value is an error."""
    global _from_env
    raw = os.environ.get(BUDGET_ENV, "")
    if raw == _from_env[0]:
        return _from_env[1]
    try:
        value = float(raw) if raw.strip() else DEFAULT_BUDGET_S
    except ValueError:
        value = math.nan
    if not 0 <= value < math.inf:
        if not strict:
            return DEFAULT_BUDGET_S
        raise WorldError(f"{BUDGET_ENV}={raw.strip()!r} is not a number of seconds "
                         f"(e.g. {BUDGET_ENV}=5; 0 turns the watchdog off)")
    _from_env = (raw, value)
    return value


# --------------------------------------------------------------- Python tiles
#: The code of the World and PythonEngine methods that call into a tile's code, with a local
#: `tile`.
_CALLERS: set[CodeType] = set()


#: The code of functions that call native code under its own watchdog (guard.cpp).
_NATIVE: set[CodeType] = set()


def tile_callers(*functions: Any) -> None:
    """Register the methods that call a tile's code (each has a local named `tile`)."""
    _CALLERS.update(f.__code__ for f in functions)


def native_callers(*functions: Any) -> None:
    """Register functions that call native tile code through guard.cpp: while a thread is in
    one, stopping it is the native watchdog's business (it also marks the tile dead)."""
    _NATIVE.update(f.__code__ for f in functions)


def _in_tile_call(frame: FrameType | None) -> tuple[Any, str | None] | None:
    """(tile, the function of its program that runs) if `frame` is inside a tile's code."""
    inner = None
    while frame is not None:
        if frame.f_code in _CALLERS:
            return frame.f_locals.get("tile"), inner.f_code.co_name if inner is not None else None
        inner = frame
        frame = frame.f_back
    return None


def tile_in_traceback(tb: TracebackType | None) -> Any:
    """The tile whose code raised, from the innermost frame of a registered caller."""
    tile = None
    while tb is not None:
        if tb.tb_frame.f_code in _CALLERS:
            tile = tb.tb_frame.f_locals.get("tile")
        tb = tb.tb_next
    return tile


#: A run's progress token before the watchdog first looked at it.
UNSEEN = object()


class _Run:
    """The run being watched: its world, its thread and what the watchdog saw last."""

    __slots__ = ("budget", "clock", "fired", "ident", "since", "token", "world")

    def __init__(self, world: Any, budget: float) -> None:
        self.world = world
        self.budget = budget
        self.ident = threading.get_ident()
        self.clock: int | None = None
        #: The run's progress token when the watchdog last saw it move (UNSEEN: not looked
        #: yet, so the first look starts the count: a World evaluating a hook has no token,
        #: and None would match it at once, counting the thread's CPU time from its start).
        self.token: object = UNSEEN
        self.since = 0.0
        #: (tile, what, seconds) once the watchdog raised into the run.
        self.fired: tuple[Any, str | None, float] | None = None


class _AsyncOverrun(TileOverrun):
    """What the watchdog thread raises into a stuck run (an exception class, made there)."""

    def __init__(self) -> None:
        run = _run
        tile, what, seconds = run.fired if run is not None and run.fired else (None, None, 0.0)
        super().__init__(what, seconds, tile=tile)


_run: _Run | None = None
_runs = 0  # runs begun: the watchdog thread parks when it sees none for a while
_thread: threading.Thread | None = None
_parked = False
_wake = threading.Event()
_lock = threading.Lock()
_PARK_AFTER_TICKS = 40


def arm(world: Any, budget: float) -> bool:
    """Watch the world's Python tiles during a run; False when it does not (then no disarm).
    `world` is the PythonEngine running the events (its sequence number tells the watchdog
    that the run moves on), or the World evaluating a hook (which queues nothing)."""
    global _run, _runs
    _prepare_native(budget)
    if _run is not None or budget <= 0:
        return False  # nested in a run, or another thread's run is watched: leave it
    _run = _Run(world, budget)
    _runs += 1
    if _parked or _thread is None:
        _start_or_wake()
    return True


def rearm() -> None:
    """The run caught what the watchdog raised into it (a tile froze) and goes on: watch it
    again from now, so that a second tile that gets stuck is caught as well."""
    run = _run
    if run is not None:
        run.fired = None
        run.token = UNSEEN


def disarm() -> None:
    global _run
    run, _run = _run, None
    if run is not None and run.fired is not None:
        # Raised into the run, which normally caught it; if it ended just before, the
        # exception is still pending: drop it rather than raise it in the caller's code.
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(run.ident), None)


def _start_or_wake() -> None:
    global _thread, _parked
    with _lock:
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_watch, name="blinkc tile watchdog", daemon=True)
            _thread.start()
        _parked = False
        _wake.set()


def _tick_s(run: _Run | None) -> float:
    return min(0.05, max(0.005, run.budget / 8)) if run is not None else 0.05


def _watch() -> None:
    global _parked
    idle, seen = 0, -1
    while True:
        time.sleep(_tick_s(_run))
        run = _run
        if run is None:
            idle = idle + 1 if _runs == seen else 0
            seen = _runs
            if idle >= _PARK_AFTER_TICKS:
                _park(seen)
                idle = 0
            continue
        idle = 0
        seen = _runs
        try:
            _look(run)
        except Exception:  # a watchdog must never die of a race with the run ending
            pass


def _cpu_time(run: _Run) -> float:
    """CPU seconds the run's thread has used (wall-clock seconds where that is unknown)."""
    if run.clock is None:
        clock_id = getattr(time, "pthread_getcpuclockid", None)
        run.clock = clock_id(run.ident) if clock_id is not None else -1
    return time.clock_gettime(run.clock) if run.clock != -1 else time.monotonic()


def _forget_thread() -> None:
    global _thread, _parked
    _thread, _parked = None, False  # in a forked child: the watchdog thread is not there


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_thread)


def _park(seen: int) -> None:
    global _parked
    _wake.clear()
    _parked = True
    if _runs != seen or _run is not None:  # a run began meanwhile
        _parked = False
        return
    _wake.wait()


def _look(run: _Run) -> None:
    """One tick: raise into the run's thread if it has been stuck in a tile's code too long."""
    if run.fired is not None:
        return
    now = _cpu_time(run)
    token = getattr(run.world, "_seq", None)  # a PythonEngine's: it moves as events are queued
    if token != run.token:
        run.token, run.since = token, now
        return
    if now - run.since < run.budget:
        return
    frame = sys._current_frames().get(run.ident)
    if frame is not None and frame.f_code in _NATIVE:
        return
    found = _in_tile_call(frame)
    if found is None:  # stuck outside tile code (a scheduled call): not a tile's hang
        run.since = now
        return
    if _run is not run:
        return
    run.fired = (found[0], found[1], now - run.since)
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(run.ident),
                                               ctypes.py_object(_AsyncOverrun))


def _prepare_native(budget: float) -> None:
    """The same budget for native tiles, if any are loaded (and Ctrl-C seen inside them)."""
    guard = sys.modules.get("blinkc.native.guard")
    loaded = guard._loaded if guard is not None else None
    if loaded is not None:
        loaded.prepare(budget)


# ----------------------------------------------------------------- messages
def program_label(program: Any) -> str:
    """How a message names what a tile runs: its game, its sketch, or its program class."""
    game = getattr(program, "GAME", None)
    if isinstance(game, str):
        return f"game {game}"
    native = getattr(program, "native", program)
    source = getattr(native, "source", None)
    if getattr(native, "is_native_program", False):
        return f"sketch {source or native.name}"
    return f"program {type(program).__name__}"


def seconds_text(s: float) -> str:
    """Seconds as messages write them: 2 s, 0.15 s, 1.234 s."""
    return f"{s:.3f}".rstrip("0").rstrip(".") + " s"


def hang_message(tile: Any, what: str | None, budget: float, at_ms: float,
                 interrupted: bool = False, seconds: float = 0.0) -> str:
    """What happened, why it matters, and what to do: one message for a stuck tile."""
    who = f"tile {tile.name!r} ({program_label(tile.program)})" if tile is not None else "a tile"
    fn = f"{what}()" if what else "its code"
    where = f"at t = {seconds_text(at_ms / 1000)}"
    if interrupted:
        head = (f"{who}: stopped by Ctrl-C inside {fn}, which had run for "
                f"{seconds_text(seconds)} without returning ({where})")
    else:
        head = f"{who}: {fn} did not return within {seconds_text(budget)} of CPU time ({where})"
    if what == "setup":
        why = ("setup() runs once when the tile powers up, before its first loop(): a tile "
               "stuck there stays dark and silent and its game never starts, which is a bug "
               "of the sketch rather than a state worth emulating")
    elif what == "loop":
        why = ("loop() runs over and over, and blinklib reads the button, talks IR and "
               "updates the LEDs between two calls, so it must return quickly")
    elif what in ("quiet_until", "display"):
        why = (f"{what}() is one of blinkc's emulator hooks, not run on a tile: one that does "
               "not return is a bug of the hook, and the emulator cannot tell what the tile "
               "would do")
    else:
        why = "a tile's code must return quickly"
    return (f"{head}.\n  {why}: look for a loop that never ends, such as `while (1);`.\n"
            f"  The run stopped there, and this world cannot continue. If the code is only "
            f"slow, allow more time per call: {BUDGET_ENV}=SECONDS (0: no limit).")
