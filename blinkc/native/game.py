"""Run a game's generated C++ as tiles in the emulator (the "native" backend).

The game is rendered by the C++ backend, compiled for the host against
blinkc's own blinklib (blinkc.native), and each tile loads a private copy.
The class made here has the same shape as the Python backend's: `setup`,
`loop`, `quiet_until`, `display`, `idle`, `value` and `state` (kinds by
name, bools as bools), so tests and the differential checker can swap them.
"""

from __future__ import annotations

import ctypes
from pathlib import Path
from typing import Any

from ..backends.cpp import generate_cpp
from ..backends.drive import drive
from ..blinklib.api import Blinklib
from ..ir.nodes import GlobalVar, Program
from ..ir.probes import has_probes
from . import load_sketch_text


def native_class(program: Program, game_path: Path) -> type:
    """A tile program class running `program` as compiled C++."""
    text = generate_cpp(program)
    sketch = load_sketch_text(text, program.name, Path(game_path).with_suffix(".ino"),
                              check_int16=False)
    fields = [(g.name, g) for g in program.state_fields]
    derived = [f.name[len("value_"):] for f in program.functions if f.role == "derived"]
    # The explorer's build can be driven from outside (a scenario's send and flood steps,
    # blinkc explore), as the Python backend's tiles can: the same labels and functions.
    hands = drive(program) if has_probes(program) else None

    class NativeGameTile:
        GAME = program.name
        SOURCE = text
        if hands is not None:
            MESSAGES, FLOODS = hands.messages, hands.floods
            WIDE_MESSAGES, FLOOD_VALUES = hands.wide_messages, hands.flood_values

        def __init__(self, **initial: int) -> None:
            # (the explorer's build can restart: it plays a run after another with its tiles)
            self.native = sketch(restartable=hands is not None)
            lib = self.native.lib
            self._cells = dict(self.native._fields or [])
            self._set(initial)
            self._idle = _fn(lib, "blinkc_idle", ctypes.c_uint8)
            self._links = _fn(lib, "blinkc_links", ctypes.c_uint8)
            self._values = {n: _fn(lib, f"blinkc_value_{n}", ctypes.c_int32) for n in derived}
            self.quiet_until = self.native.quiet_until
            self.display = self.native.display
            if hands is not None:
                self._begin = _fn(lib, "blinkc_call_begin", None)
                self._end = _fn(lib, "blinkc_call_end", None)
                self._hands = {name: _fn(lib, f"blinkc_explore_{name}", _u8, args)
                               for name, args in _HANDS.items()
                               if hasattr(lib, f"blinkc_explore_{name}")}

        def setup(self, api: Blinklib) -> None:
            self.native.setup(api)

        def loop(self, api: Blinklib) -> None:
            self.native.loop(api)

        def idle(self, api: Blinklib) -> bool:
            return bool(self._idle())

        def links(self, api: Blinklib) -> int:
            """Bit f: face f has a working session with its neighbour."""
            return int(self._links())

        def _set(self, initial: dict[str, Any]) -> None:
            for name, value in initial.items():
                if isinstance(value, list):  # a per-face field: six values
                    self._cells[name][:] = value
                else:
                    self._cells[name].value = value

        @property
        def can_restart(self) -> bool:
            return self.native.can_restart

        def restart(self, **initial: int) -> None:
            """This tile from its power-up again, with these settings, as a new one would be
            (NativeProgram.restart; the explorer's build only)."""
            self.native.restart()
            self._set(initial)

        def send(self, label: str, face: int) -> None:
            """Queue MESSAGES[label] out of face, as a handler's t.send would (the explorer's
            build only)."""
            if label in self.WIDE_MESSAGES:
                code, value, chunks = self.WIDE_MESSAGES[label]
                self._act("send_wide", code, value, chunks, face)
            else:
                self._act("send", self.MESSAGES[label], face)

        def start_flood(self, name: str) -> None:
            """Start flood `name`, as a handler's t.flood would (the explorer's build only)."""
            if name in self.FLOOD_VALUES:
                self._act("flood_with", *self.FLOOD_VALUES[name])
            else:
                self._act("flood", self.FLOODS[name])

        def flood_within_faces(self, k: int) -> int:
            """Bit f: flood k's group lets a wave cross face f now (the explorer's build)."""
            return int(self._hands["flood_faces"](k))

        def _act(self, hand: str, *args: int) -> None:
            """Call one of the explorer's exports as a pass runs loop(), against the tile's
            api (its last pass's): its outputs (a bounce's colours, a draw) go to the api,
            its probes to the api's probe observers."""
            api = self.native.api
            if api is None:
                raise RuntimeError(f"{self.GAME}: the tile has not run yet")
            fn = self._hands[hand]

            def call() -> None:
                self._begin()
                fn(*args)
                self._end()

            self.native._run(api, call)

        def value(self, api: Blinklib, name: str) -> Any:
            result: list[int] = []
            self.native._run(api, lambda: result.append(self._values[name]()))
            return bool(result[0]) if _is_bool(program, name) else result[0]

        def state(self) -> dict[str, Any]:
            out: dict[str, Any] = {}
            for name, g in fields:
                cell = self._cells[name]
                out[name] = ([_shown(g, v, program.enums) for v in cell] if g.size is not None
                             else _shown(g, cell.value, program.enums))
            return out

        def __getattr__(self, name: str) -> Any:
            # Engine state by its IR name (e.g. `overflow`), for tests.
            cells = self.__dict__.get("_cells", {})
            if name in cells:
                return cells[name].value
            raise AttributeError(name)

    return NativeGameTile


def _shown(g: GlobalVar, v: int, enums: dict[str, tuple[str, ...]]) -> Any:
    """A field's value as the Python backend's state() shows it: kinds by name, bools as bools."""
    if g.is_bool:
        return bool(v)
    if g.enum is not None:
        return enums[g.enum][v]
    return v


_u8, _u16 = ctypes.c_uint8, ctypes.c_uint16
#: The explorer's exports of a sketch (backends/cpp.py, explore_hooks): blinkc_explore_<name>
#: and its argument types (code, face, value, chunks, k).
_HANDS: dict[str, list[Any]] = {
    "send": [_u8, _u8], "send_wide": [_u8, _u16, _u8, _u8], "flood": [_u8],
    "flood_with": [_u8, _u16], "flood_faces": [_u8]}


def _fn(lib: Any, symbol: str, restype: Any, argtypes: list[Any] | None = None) -> Any:
    f = getattr(lib, symbol)
    f.argtypes = argtypes or []
    f.restype = restype
    return f


def _is_bool(program: Program, name: str) -> bool:
    from ..ir.nodes import BOOL

    return program.function(f"value_{name}").ret == BOOL
