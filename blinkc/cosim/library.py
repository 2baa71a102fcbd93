"""The co-simulation harness (harness.c) compiled against the system's libsimavr, cached by
its source's hash, and bound with ctypes.

The harness is C; it includes simavr's installed headers (`<simavr/sim_avr.h>`, Debian's
libsimavr-dev) and links the installed libsimavr. It is compiled on first use into the
cache (`$BLINKC_CACHE_DIR/cosim`, else `~/.cache/blinkc/cosim`), under a name made of the
hash of its source and flags, so an edited harness is never confused with an old one.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "harness.c"
FLAGS = ("-std=gnu11", "-O2", "-fPIC", "-shared", "-fvisibility=hidden", "-Wall")
LIBS = ("-lsimavr", "-lpthread")
#: Where Debian's libsimavr-dev puts simavr's headers.
HEADER = Path("/usr/include/simavr/sim_avr.h")
INSTALL_HINT = "install simavr's library and headers: apt-get install libsimavr-dev"


class HarnessUnavailable(Exception):
    """The harness cannot be built here (no C compiler, no libsimavr); the text says what to do."""


def cache_dir() -> Path:
    root = os.environ.get("BLINKC_CACHE_DIR")
    if root:
        return Path(root) / "cosim"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "blinkc" / "cosim"


def source_key() -> str:
    h = hashlib.sha256()
    h.update(" ".join((*FLAGS, *LIBS)).encode() + b"\0")
    h.update(SOURCE.read_bytes())
    return h.hexdigest()[:24]


def compiler() -> str | None:
    name = os.environ.get("CC") or "cc"
    return shutil.which(name) or shutil.which("gcc")


def build_library() -> Path:
    """The compiled harness, built now if the cache has none for this source."""
    out = cache_dir() / f"harness-{source_key()}.so"
    if out.exists():
        return out
    cc = compiler()
    if cc is None:
        raise HarnessUnavailable("co-simulation needs a C compiler (cc) to build its harness: "
                                 "apt-get install gcc")
    if not HEADER.exists():
        raise HarnessUnavailable(f"co-simulation runs on simavr, whose headers are missing "
                                 f"({HEADER}): {INSTALL_HINT}")
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=out.parent)
    os.close(fd)
    try:
        done = subprocess.run([cc, *FLAGS, str(SOURCE), "-o", tmp, *LIBS],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise HarnessUnavailable("the co-simulation harness did not compile against this "
                                     f"system's simavr ({INSTALL_HINT}):\n{done.stderr.strip()}")
        os.replace(tmp, out)  # atomic: a parallel build never loads half a file
    finally:
        Path(tmp).unlink(missing_ok=True)
    return out


P = ctypes.c_void_p
U8, U16, U32, U64, I64 = (ctypes.c_uint8, ctypes.c_uint16, ctypes.c_uint32, ctypes.c_uint64,
                          ctypes.c_int64)
_SIGNATURES = {
    "cs_tile_new": (P, [ctypes.c_char_p, U32, U32, U32, ctypes.c_char_p, U32]),
    "cs_tile_free": (None, [P]),
    "cs_set_loop_pc": (None, [P, U32]),
    "cs_set_poke": (None, [P, U32, ctypes.c_char_p, U32]),
    "cs_set_clock": (None, [P, I64]),
    "cs_set_button": (None, [P, ctypes.c_int]),
    "cs_discharge": (None, [P, ctypes.c_int]),
    "cs_run": (ctypes.c_int, [P, U64]),
    "cs_boot": (U64, [P, U32, U64]),
    "cs_set_watch": (None, [P, U16, U8, U32]),
    "cs_take_changes": (I64, [P, ctypes.POINTER(U64), ctypes.c_char_p, U32]),
    "cs_cycle": (U64, [P]),
    "cs_pc": (U32, [P]),
    "cs_state": (ctypes.c_int, [P]),
    "cs_sp_min": (U16, [P]),
    "cs_loop_max": (U64, [P]),
    "cs_loops": (U64, [P]),
    "cs_discharges": (U64, [P]),
    "cs_read": (None, [P, U16, ctypes.c_char_p, U16]),
    "cs_write": (None, [P, U16, ctypes.c_char_p, U16]),
    "cs_take_service": (U32, [P, ctypes.c_char_p, U32]),
    "cs_service_input": (U32, [P, ctypes.c_char_p, U32]),
    "cs_cluster_new": (P, [ctypes.c_int, U32, U64]),
    "cs_cluster_free": (None, [P]),
    "cs_cluster_add": (ctypes.c_int, [P, P, U64]),
    "cs_cluster_link": (None, [P, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]),
    "cs_cluster_unlink_all": (None, [P]),
    "cs_cluster_faults": (None, [P, ctypes.c_double, U64]),
    "cs_cluster_run": (None, [P, U64]),
    "cs_cluster_now": (U64, [P]),
    "cs_cluster_flashes": (U64, [P]),
    "cs_cluster_dropped": (U64, [P]),
    "cs_cluster_packets": (U64, [P, ctypes.c_int, ctypes.c_int]),
}


@cache
def harness() -> ctypes.CDLL:
    """The loaded harness with every entry point typed; raises HarnessUnavailable."""
    try:
        lib = ctypes.CDLL(str(build_library()))
    except OSError as e:
        raise HarnessUnavailable(f"cannot load the co-simulation harness ({e}): "
                                 f"{INSTALL_HINT}") from None
    for name, (restype, argtypes) in _SIGNATURES.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    return lib
