"""A simulated ISP programmer with a simulated ATmega168PB behind it.

For tests, and for people without hardware: STK500v1 (ArduinoISP) or
STK500v2 (AVRISP-compatible) on a pseudo-terminal, a TCP port, or in memory,
optionally paced at a real baud rate, with injectable faults (faults.py).

    sim = ProgrammerSim("stk500v1", faults=["bad-page=0x1780"])
    with sim.serve_pty() as pty:        # pty.port is "/dev/pts/N"
        ...                             # avrdude -c stk500v1 -P {pty.port} ...
    sim.chip.flash                      # what ended up in flash
"""

from __future__ import annotations

from collections.abc import Iterable

from ..flash.targets import ATMEGA168PB, Part
from .chip import Chip, Target
from .direct import SimTransport
from .faults import FAULT_NAMES, Faults, FaultSpecError, Link, LinkDropped
from .pty import PtySimulator
from .server import ProgrammerServer
from .stk500v1 import Stk500v1Server
from .stk500v2 import Stk500v2Server
from .tcp import TcpSimulator
from .workbench import Workbench

PROTOCOLS: dict[str, type[ProgrammerServer]] = {
    "stk500v1": Stk500v1Server,
    "stk500v2": Stk500v2Server,
}

__all__ = [
    "FAULT_NAMES", "PROTOCOLS", "Chip", "FaultSpecError", "Faults", "Link", "LinkDropped",
    "ProgrammerSim", "PtySimulator", "SimTransport", "TcpSimulator", "Workbench",
]


class ProgrammerSim:
    """One simulated programmer and what is on its ISP clip."""

    def __init__(self, protocol: str = "stk500v1", part: Part = ATMEGA168PB,
                 faults: Faults | Iterable[str] | None = None, tiles: int | None = None,
                 gap: int = 2) -> None:
        if protocol not in PROTOCOLS:
            raise ValueError(f"unknown protocol {protocol!r}; use one of {', '.join(PROTOCOLS)}")
        self.protocol = protocol
        self.faults = faults if isinstance(faults, Faults) else Faults.parse(faults or ())
        self.workbench: Workbench | None = None
        if tiles is not None:
            chips = [self.faults.apply_to_chip(Chip(part)) for _ in range(tiles)]
            self.workbench = Workbench(chips, gap=gap)
            self.target: Target = self.workbench
            self.chip = chips[0] if chips else Chip(part)
        else:
            self.chip = self.faults.apply_to_chip(Chip(part))
            self.target = self.chip
        self.links: list[Link] = []

    def new_link(self) -> Link:
        link = Link(PROTOCOLS[self.protocol](self.target), self.faults)
        self.links.append(link)
        return link

    def transport(self, baud: int | None = None, latency: float = 0.0) -> SimTransport:
        """An in-memory transport with a virtual clock (fast tests); `latency` delays replies."""
        return SimTransport(self.new_link(), baud, latency)

    def serve_pty(self, baud: int | None = None) -> PtySimulator:
        """Started; `.port` is the /dev/pts path. Pass `baud` to pace it like a real line."""
        return PtySimulator(self.new_link, baud=baud).start()

    def serve_tcp(self, port: int = 0, baud: int | None = None) -> TcpSimulator:
        """Started; `.address` is net:127.0.0.1:PORT."""
        return TcpSimulator(self.new_link, port=port, baud=baud).start()
