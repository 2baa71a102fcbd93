"""The simulator behind a pseudo-terminal: a serial port any program can open.

The slave side (/dev/pts/N) is what avrdude or `blinkc flash --port` opens.
We keep our own handle on the slave so the pty survives clients coming and
going; a disconnect fault closes both ends, which the client sees as EIO,
exactly like a USB-serial adapter being unplugged.
"""

from __future__ import annotations

import errno
import os
import select
import threading
import time
import tty
from collections.abc import Callable

from .faults import Link, LinkDropped
from .pacing import Pacer


class PtySimulator:
    def __init__(self, make_link: Callable[[], Link], baud: int | None = None) -> None:
        self.link = make_link()
        self.pacer = Pacer(baud) if baud else None
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)          # no echo, no line editing, 8-bit clean
        tty.setraw(self.master)
        self.port = os.ttyname(self.slave)
        self._stop_r, self._stop_w = os.pipe()
        self._thread = threading.Thread(target=self._serve, name=f"progsim {self.port}",
                                        daemon=True)
        self.finished = threading.Event()
        self.error: BaseException | None = None

    def start(self) -> PtySimulator:
        self._thread.start()
        return self

    def _serve(self) -> None:
        try:
            while True:
                ready, _, _ = select.select([self.master, self._stop_r], [], [])
                if self._stop_r in ready:
                    break
                try:
                    data = os.read(self.master, 4096)
                except OSError as e:
                    if e.errno == errno.EIO:    # no client right now
                        time.sleep(0.01)
                        continue
                    raise
                if data:
                    self._handle(data)
        except LinkDropped:
            pass
        except BaseException as e:          # surfaced to the test or CLI that runs us
            self.error = e
        finally:
            self._close()
            self.finished.set()

    def _handle(self, data: bytes) -> None:
        if self.pacer:
            self.pacer.received(len(data))
        for reply in self.link.process(data):
            if self.pacer:
                self.pacer.transmit(len(reply))
            view = memoryview(reply)
            while view:
                n = os.write(self.master, view)
                view = view[n:]

    def _close(self) -> None:
        for fd in (self.master, self.slave, self._stop_r):
            try:
                os.close(fd)
            except OSError:
                pass

    def stop(self) -> None:
        if not self.finished.is_set():
            try:
                os.write(self._stop_w, b"x")
            except OSError:
                pass
            self._thread.join(timeout=5)
        try:
            os.close(self._stop_w)
        except OSError:
            pass

    def __enter__(self) -> PtySimulator:
        return self if self._thread.ident is not None else self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
