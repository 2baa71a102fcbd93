"""`NativeProgram`: a compiled sketch as a tile program for the world.

Each pass copies the tile's blinklib inputs from the world's `Blinklib`
object into the C state (one `struct.pack_into`), makes one ctypes call,
and copies the outputs back (one `struct.unpack_from`). Datagrams are
copied only when they change. The C side keeps what only the sketch can
see (its globals, didValueOnFaceChange's memory, the pixel buffer).

Every call into the sketch goes through the watchdog (guard.py): a call that
does not return within its budget (`while (1);`) is stopped, raises
`TileOverrun`, and the program cannot run again.

The explorer's build of a game reports probes (blinkc/ir/probes.py) through its library's
`blinkc_set_probe` callback: the program hands them to its tile's api (`Blinklib.probe`), as
a Python tile does, so an engine hears both alike. Its api is the one of its last call, or the
one the C++ core's engine gives it (`api`).
"""

from __future__ import annotations

import ctypes
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..blinklib.api import Blinklib
from ..world import watchdog
from ..world.watchdog import TileOverrun
from . import abi, guard
from .library import close_library, load_private_copy, writable_memory


class NativeAbiError(Exception):
    """The library was built for another layout of the shared state."""


class ServicePortFull(ValueError):
    """Bytes fed to a sketch's service port that it cannot hold."""


_IN_OFF = abi.TileState.in_datagram.offset
_SERIAL_OFF = abi.TileState.serial.offset
_DGRAM = abi.DATAGRAM_LEN
_PASS_IN_OFF, _PASS_OUT_OFF, _OUT = abi.PASS_IN.offset, abi.PASS_OUT.offset, abi.OUT


class NativeProgram:
    """One tile running a natively compiled sketch, with globals of its own.

    Implements the world's TileProgram protocol (`setup`, `loop`) and, when
    the sketch defines the matching blinkc hooks (blinkc_hooks.h), the
    optional `quiet_until`, `display` and `state`.
    """

    #: For messages (blinkc.world.watchdog.program_label).
    is_native_program = True

    def __init__(self, library: str | Path, name: str = "", source: str | None = None,
                 restartable: bool = False) -> None:
        self.name = name or Path(library).stem
        self._library = Path(library)
        #: The sketch it was compiled from, for messages.
        self.source = source
        lib = load_private_copy(Path(library))
        self._finalizer = weakref.finalize(self, close_library, lib._handle)
        self.lib = lib
        lib.blinkc_abi_version.restype = ctypes.c_uint32
        lib.blinkc_tile_size.restype = ctypes.c_uint32
        version, size = lib.blinkc_abi_version(), lib.blinkc_tile_size()
        if version != abi.ABI_VERSION or size != ctypes.sizeof(abi.TileState):
            raise NativeAbiError(
                f"{library}: built for native ABI {version} ({size} bytes), "
                f"this blinkc speaks {abi.ABI_VERSION} ({ctypes.sizeof(abi.TileState)} bytes)")
        lib.blinkc_tile.restype = ctypes.c_void_p
        self._addr: int = lib.blinkc_tile()
        #: The C state, for inspection and tests (the hot path uses `_mem`).
        self.tile = abi.TileState.from_address(self._addr)
        self._mem = (ctypes.c_char * ctypes.sizeof(abi.TileState)).from_address(self._addr)
        self._setup_fn = self._entry("blinkc_tile_setup")
        self._loop_fn = self._entry("blinkc_tile_loop")
        self._seen_in_datagrams: list[bytes | None] = [None] * abi.FACES
        self._hook_quiet = self._optional("blinkc_quiet_until", ctypes.c_uint32)
        self._hook_display = self._optional("blinkc_display", None)
        self._fields = self._state_fields()
        port = self._optional("blinkc_service_port", ctypes.c_void_p)
        #: The sketch's service-port buffer (Serial.h), or None (a library without one).
        self.service_port = abi.ServicePort.from_address(port()) if port is not None else None
        #: Its address, for the C++ world core (0: none).
        self.service_port_addr: int = port() if port is not None else 0
        port_in = self._optional("blinkc_service_input", ctypes.c_void_p)
        self._service_input = (abi.ServiceInput.from_address(port_in())
                               if port_in is not None else None)
        # Offer only the hooks the sketch has: the world probes with getattr().
        if self._hook_quiet is not None:
            self.quiet_until = self._quiet_until
        if self._hook_display is not None:
            self.display = self._display
            self._display_fn = self._entry("blinkc_tile_display")
        if self._fields is not None:
            self.state = self._state
        #: The tile's api: where its probes go (set by every call with one; the C++ core's
        #: engine, which calls the library without one, sets it).
        self.api: Blinklib | None = None
        self._probe_error: BaseException | None = None
        set_probe = self._optional("blinkc_set_probe", None)
        if set_probe is not None:
            set_probe.argtypes = [abi.PROBE_FN, ctypes.c_void_p]
            self._probe_fn = abi.PROBE_FN(_probe_to_api(weakref.ref(self)))
            set_probe(self._probe_fn, None)
        self._guard(guard.library())
        #: The library's writable memory as loaded (restart() puts it back), if asked for.
        self._loaded: list[tuple[int, bytes]] | None = None
        if restartable:
            regions = writable_memory(lib)
            if regions:
                self._loaded = [(addr, ctypes.string_at(addr, size)) for addr, size in regions]

    def _guard(self, watchdog: guard.Guard | None) -> None:
        """Call the entry points through the watchdog (or, without one, directly)."""
        fns = {"setup": self._setup_fn, "loop": self._loop_fn,
               "display": getattr(self, "_display_fn", None), "quiet_until": self._hook_quiet}
        self._addrs = {what: ctypes.cast(fn, ctypes.c_void_p).value
                       for what, fn in fns.items() if fn is not None}
        self._names = {addr: what for what, addr in self._addrs.items()}
        self._setup_addr, self._loop_addr = self._addrs["setup"], self._addrs["loop"]
        self._display_addr = self._addrs.get("display")
        self._quiet_addr = self._addrs.get("quiet_until")
        if watchdog is not None:
            self._call, self._call_u32 = watchdog.call, watchdog.call_u32
        else:
            by_addr = {self._addrs[what]: fn for what, fn in fns.items() if fn is not None}
            self._call = lambda addr: by_addr[addr]() or 0
            self._call_u32 = lambda addr: by_addr[addr]()

    def fresh(self) -> NativeProgram:
        """Another tile running the same sketch from its start (its own copy of the globals)."""
        return NativeProgram(self._library, name=self.name, source=self.source)

    @property
    def can_restart(self) -> bool:
        """Whether restart() can bring it back (made restartable, never stopped half way,
        not closed)."""
        return self._loaded is not None and self._finalizer.alive

    def restart(self) -> None:
        """This tile from its power-up again, in the same library: its library's writable
        memory (the sketch's globals and statics, blinklib's state) as it was when loaded. A
        world that ran it must be done with it. (The explorer plays a run after another with
        the same tiles: loading a copy of the library cost more than the rest of a run.)"""
        if not self.can_restart:
            raise RuntimeError(f"{self!r} cannot restart (not restartable, or stopped)")
        assert self._loaded is not None
        for addr, data in self._loaded:
            ctypes.memmove(addr, data, len(data))
        self._seen_in_datagrams = [None] * abi.FACES
        self.api = None
        self._probe_error = None

    # --- the TileProgram protocol ------------------------------------------
    def setup(self, api: Blinklib) -> None:
        ctypes.memmove(self._addr + _SERIAL_OFF, bytes(api.serial[:9]).ljust(9, b"\0"), 9)
        self._run(api, self._setup_fn, self._setup_addr)

    def loop(self, api: Blinklib) -> None:
        self._run(api, self._loop_fn, self._loop_addr)

    def _run(self, api: Blinklib, fn: Any, addr: int | None = None) -> None:
        """One call with the world's inputs in and the outputs out: of an entry point (its
        address given), under the watchdog; or of any callable `fn`."""
        self.api = api
        abi.PASS_IN.pack_into(
            self._mem, _PASS_IN_OFF, now=api.now, expire_time=api.expire_time,
            in_value=api.in_value, button_down=api.button_down, click_count=api.click_count,
            start_state=api.start_state, rng_state=api.rng.state, entropy=api.entropy,
            button_flags=api.button_flags, woken=api.woken)
        if api.in_datagram != self._seen_in_datagrams:
            self._push_datagrams(api.in_datagram)
        if addr is None:
            fn()
        else:
            try:
                code = self._call(addr)
                if code:
                    self._stopped(self._names[addr], code)
            except KeyboardInterrupt as e:
                self._interrupted(e, addr)
                raise
        if self._probe_error is not None:  # (raised in a callback: ctypes would swallow it)
            error, self._probe_error = self._probe_error, None
            raise error
        out = abi.PASS_OUT.unpack_from(self._mem, _PASS_OUT_OFF)
        api.rng.state, api.entropy = out[_OUT["rng_state"]], out[_OUT["entropy"]]
        api.button_flags, api.woken = out[_OUT["button_flags"]], bool(out[_OUT["woken"]])
        api.out_value[:] = out[_OUT["out_value"]]
        api.pixels[:] = out[_OUT["pixels"]]
        if out[_OUT["extra_cpu_ms"]]:
            api.extra_cpu_ms += out[_OUT["extra_cpu_ms"]]
        sent, read = out[_OUT["datagram_sent"]], out[_OUT["datagram_read"]]
        if sent or read:
            self._pull_datagrams(api, sent, read)

    # --- datagrams -----------------------------------------------------------
    def _push_datagrams(self, incoming: list[bytes | None]) -> None:
        seen = self._seen_in_datagrams
        for f, data in enumerate(incoming):
            if data is seen[f]:
                continue
            chunk = bytes(data or b"")[:_DGRAM]
            self.tile.in_datagram_len[f] = len(chunk)
            ctypes.memmove(self._addr + _IN_OFF + f * _DGRAM, chunk, len(chunk))
            seen[f] = data

    def _pull_datagrams(self, api: Blinklib, sent: int, read: int) -> None:
        tile = self.tile
        for f in range(abi.FACES):
            if read >> f & 1:
                api.in_datagram[f] = None
                self._seen_in_datagrams[f] = None
            if sent >> f & 1:
                n = tile.out_datagram_len[f]
                # A zero-length send cancels an unsent datagram, as on the tile.
                api.out_datagram[f] = bytes(tile.out_datagram[f][:n]) if n else None

    # --- the service port ----------------------------------------------------
    def take_serial(self) -> bytes:
        """What the sketch wrote to its service port since the last call (and empties it)."""
        port = self.service_port
        if port is None or not (port.len or port.lost):
            return b""
        out = ctypes.string_at(ctypes.addressof(port.data), port.len)
        if port.lost:
            out += f"[{port.lost} bytes lost: more than {abi.SERVICE_PORT_LEN} in one pass]".encode()
        port.len = port.lost = 0
        return out

    def feed_serial(self, data: bytes) -> None:
        """Bytes from the other end of the service port, for Serial.read() to take."""
        buf = self._service_input
        if buf is None:
            raise ServicePortFull(f"{self.name}: this library has no service-port input (it "
                                  "was built by an older blinkc: delete the cache)")
        rest = ctypes.string_at(ctypes.addressof(buf.data) + buf.pos, buf.len - buf.pos)
        waiting = rest + bytes(data)
        if len(waiting) > abi.SERVICE_INPUT_LEN:
            raise ServicePortFull(
                f"{len(waiting):,} bytes would wait on the service port of {self.name}, more than "
                f"its {abi.SERVICE_INPUT_LEN:,}: the sketch has not read what came before "
                f"({len(rest):,} bytes)")
        ctypes.memmove(ctypes.addressof(buf.data), waiting, len(waiting))
        buf.pos, buf.len = 0, len(waiting)

    # --- optional hooks ------------------------------------------------------
    def _quiet_until(self, api: Blinklib) -> int | None:
        try:
            until = self._call_u32(self._quiet_addr)
            if until < 0:
                self._stopped("quiet_until", -until)
        except KeyboardInterrupt as e:
            self._interrupted(e, self._quiet_addr)
            raise
        return until or None

    def _display(self, api: Blinklib) -> None:
        # The whole input state goes in: a display may read expiry and neighbours, not just time.
        self._run(api, self._display_fn, self._display_addr)

    # --- a call that did not return ------------------------------------------
    def _stopped(self, what: str, code: int) -> None:
        """The watchdog stopped `what` (out of budget, or Ctrl-C while it was stuck)."""
        seconds = self.mark_stopped(what, code)
        if code == guard.GUARD_INTERRUPTED:
            guard.check_signals()  # raises KeyboardInterrupt, as Python's SIGINT handler does
        raise TileOverrun(what, seconds, interrupted=code == guard.GUARD_INTERRUPTED)

    def _interrupted(self, e: KeyboardInterrupt, addr: int) -> None:
        """Ctrl-C: Python raises it as soon as the call returns, before `_stopped` can run.
        If the watchdog stopped this call, the program is dead all the same, and the
        KeyboardInterrupt says so (`tile_overrun`, for the world)."""
        watchdog = guard.loaded()
        code = watchdog.last_stop() if watchdog is not None else guard.GUARD_OK
        if code == guard.GUARD_OK:
            return
        what = self._names[addr]
        overrun = TileOverrun(what, self.mark_stopped(what, code),
                              interrupted=code == guard.GUARD_INTERRUPTED)
        e.tile_overrun = overrun  # type: ignore[attr-defined]

    def mark_stopped(self, what: str, code: int) -> float:
        """Record that `what` was stopped half way: the sketch's state is torn, so every
        later call raises. Returns the CPU seconds it had run."""
        watchdog = guard.loaded()
        seconds = watchdog.ran_s() if watchdog is not None else 0.0

        def stopped(*_: Any) -> Any:
            raise TileOverrun(what, seconds, interrupted=code == guard.GUARD_INTERRUPTED)

        self._call = self._call_u32 = stopped
        self._loaded = None  # (its state is torn: it never runs again)
        return seconds

    def _state(self) -> dict[str, Any]:
        assert self._fields is not None
        return {name: (list(v) if isinstance(v, ctypes.Array) else v.value)
                for name, v in self._fields}

    def _entry(self, symbol: str) -> Any:
        fn = getattr(self.lib, symbol)
        fn.argtypes = []
        fn.restype = None
        return fn

    def _optional(self, symbol: str, restype: Any) -> Any:
        try:
            fn = getattr(self.lib, symbol)
        except AttributeError:
            return None
        fn.argtypes = []
        fn.restype = restype
        return fn

    def _state_fields(self) -> list[tuple[str, Any]] | None:
        try:
            table = ctypes.cast(ctypes.addressof(
                abi.StateField.in_dll(self.lib, "blinkc_state_fields")),
                ctypes.POINTER(abi.StateField))
        except ValueError:
            return None
        fields: list[tuple[str, Any]] = []
        for i in range(256):
            entry = table[i]
            if not entry.name:
                break
            ctype = abi.FIELD_TYPES.get(entry.type, ctypes.c_uint8)
            if entry.count == 1:
                fields.append((entry.name.decode(), ctype.from_address(entry.addr)))
            else:
                fields.append((entry.name.decode(),
                               (ctype * entry.count).from_address(entry.addr)))
        return fields

    def close(self) -> None:
        """Unmap this tile's library now (it is also unmapped when the program is collected).

        The program cannot run afterwards: its entry points and state would
        point at unmapped memory, so every method now raises instead.
        """
        def closed(*_: Any) -> Any:
            raise RuntimeError(f"{self!r} was closed")

        for name in ("setup", "loop", "quiet_until", "display", "state", "take_serial",
                     "feed_serial"):
            setattr(self, name, closed)
        self._mem = bytearray(ctypes.sizeof(abi.TileState))
        self.tile = None  # type: ignore[assignment]
        self.service_port = None
        self._finalizer()

    def __repr__(self) -> str:
        return f"NativeProgram({self.name!r})"


def _probe_to_api(program: weakref.ref[NativeProgram]) -> Callable[..., None]:
    """The library's probe callback: to the api of the program's tile (a weak reference: the
    library must not keep its program alive)."""

    def probe(_ctx: int | None, kind: int, *values: int) -> None:
        p = program()
        api = p.api if p is not None else None
        if api is None or api.probe is None:
            return
        try:
            api.probe(kind, values)
        except BaseException as e:  # raised when the call into the library returns
            if p._probe_error is None:  # type: ignore[union-attr]
                p._probe_error = e  # type: ignore[union-attr]

    return probe


watchdog.native_callers(NativeProgram._run, NativeProgram._quiet_until)
