"""The watchdog for native tile code (guard.cpp): built once, loaded once per process.

`library()` is the loaded watchdog, or None when it cannot be built (no g++;
tile code then runs unguarded). NativeProgram calls every entry point of a
sketch through `Guard.call`, and the C++ world core gets the same entry
points (`call_addr`, `call_u32_addr`) and the SIGINT count to read between
events. See guard.cpp for how a stuck call is stopped, and
blinkc/world/watchdog.py for the budget.
"""

from __future__ import annotations

import ctypes
from functools import cache
from pathlib import Path

from . import compile_cache
from .toolchain import NATIVE_DIR, ToolMissing, compiler_identity, host_cxx, run_compiler

GUARD_OK, GUARD_TIMEOUT, GUARD_INTERRUPTED = 0, 1, 2

SOURCE = NATIVE_DIR / "guard.cpp"
FLAGS = ("-std=gnu++17", "-O2", "-fPIC", "-shared", "-fvisibility=hidden", "-Wall", "-pthread")


class GuardBuildError(Exception):
    """guard.cpp did not compile (a bug in blinkc, not in a sketch)."""


class Guard:
    """The loaded watchdog library."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self.lib = lib
        #: call(address of a `void f(void)`) -> GUARD_OK, GUARD_TIMEOUT or GUARD_INTERRUPTED.
        self.call = lib.blinkc_guard_call
        self.call.argtypes = [ctypes.c_void_p]
        self.call.restype = ctypes.c_int
        #: call_u32(address of a `uint32_t f(void)`) -> its value, or -GUARD_TIMEOUT / -GUARD_INTERRUPTED.
        self.call_u32 = lib.blinkc_guard_call_u32
        self.call_u32.argtypes = [ctypes.c_void_p]
        self.call_u32.restype = ctypes.c_int64
        self._prepare = lib.blinkc_guard_prepare
        self._prepare.argtypes = [ctypes.c_int64]
        self._prepare.restype = None
        self._ran = lib.blinkc_guard_ran_ns
        self._ran.argtypes = []
        self._ran.restype = ctypes.c_int64
        self._defer = lib.blinkc_guard_defer
        self._defer.argtypes = [ctypes.c_int]
        self._defer.restype = ctypes.c_int
        self._last_stop = lib.blinkc_guard_last_stop
        self._last_stop.argtypes = []
        self._last_stop.restype = ctypes.c_int
        interrupts = lib.blinkc_guard_interrupts
        interrupts.argtypes = []
        interrupts.restype = ctypes.c_void_p
        #: Where the SIGINT count lives (the world core reads it between events).
        self.interrupts_addr: int = interrupts()
        self.call_addr: int = _address(self.call)
        self.call_u32_addr: int = _address(self.call_u32)

    def prepare(self, budget_s: float) -> None:
        """Before a run: the CPU time one call may take (0: no limit); SIGINT is counted."""
        self._prepare(round(budget_s * 1e9))

    def ran_s(self) -> float:
        """The CPU time the last stopped call had run when it was stopped."""
        return self._ran() / 1e9

    def last_stop(self) -> int:
        """How the last guarded call ended: GUARD_OK, or why it was stopped."""
        return self._last_stop()

    def defer(self) -> None:
        """Hold SIGINT (and SIGTERM, while Python handles it) back from Python (it is still
        counted) until `resume`."""
        self._defer(1)

    def resume(self) -> bool:
        """Hand a SIGINT (SIGTERM) that came since `defer` to Python; True if one did (then
        call check_signals() to raise its KeyboardInterrupt)."""
        return bool(self._defer(0))


def check_signals() -> None:
    """Run Python's pending signal handlers now: after a SIGINT, its handler raises
    KeyboardInterrupt here, right after the native call that saw it."""
    check = ctypes.pythonapi.PyErr_CheckSignals
    check.argtypes = []
    check.restype = ctypes.c_int
    check()


def _address(fn: object) -> int:
    value = ctypes.cast(fn, ctypes.c_void_p).value
    assert value is not None
    return value


_loaded: Guard | None = None


@cache
def library() -> Guard | None:
    """The watchdog, built on first use (cached like native tiles); None without g++."""
    global _loaded
    try:
        path = _build()
    except ToolMissing:
        return None
    guard = Guard(ctypes.CDLL(str(path)))
    from ..world.watchdog import budget_from_env

    guard.prepare(budget_from_env(strict=False))
    _loaded = guard
    return guard


def loaded() -> Guard | None:
    """The watchdog if a native tile has loaded it already (never builds it)."""
    return _loaded


def _build() -> Path:
    cxx = host_cxx()
    key = compile_cache.key((compiler_identity(cxx), " ".join(FLAGS)), (SOURCE,))

    def compile_into(tmp: Path) -> Path:
        target = tmp / "guard.so"
        proc = run_compiler([cxx, *FLAGS, str(SOURCE), "-o", str(target)])
        if proc.returncode != 0:
            raise GuardBuildError(f"the tile watchdog does not compile:\n{proc.stdout}{proc.stderr}")
        return target

    return compile_cache.reuse_or_make(compile_cache.entry("guard", key), compile_into)
