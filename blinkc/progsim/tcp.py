"""The simulator on a TCP port (avrdude: -P net:127.0.0.1:PORT; blinkc: --port net:...).

One client at a time; each connection gets a fresh programmer (as if it had
just been plugged in) in front of the same chip.
"""

from __future__ import annotations

import select
import socket
import threading
from collections.abc import Callable

from .faults import Link, LinkDropped
from .pacing import Pacer


class TcpSimulator:
    def __init__(self, make_link: Callable[[], Link], port: int = 0,
                 host: str = "127.0.0.1", baud: int | None = None) -> None:
        self.make_link = make_link
        self.baud = baud
        self.sock = socket.create_server((host, port))
        self.host, self.port = self.sock.getsockname()[:2]
        self.address = f"net:{self.host}:{self.port}"
        self._stop_r, self._stop_w = socket.socketpair()
        self._thread = threading.Thread(target=self._serve, name=f"progsim tcp {self.port}",
                                        daemon=True)
        self.error: BaseException | None = None

    def start(self) -> TcpSimulator:
        self._thread.start()
        return self

    def _serve(self) -> None:
        try:
            while True:
                ready, _, _ = select.select([self.sock, self._stop_r], [], [])
                if self._stop_r in ready:
                    return
                conn, _ = self.sock.accept()
                with conn:
                    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    if self._session(conn):
                        return
        except BaseException as e:
            self.error = e
        finally:
            self.sock.close()

    def _session(self, conn: socket.socket) -> bool:
        """Serve one client; True if we were asked to stop."""
        link, pacer = self.make_link(), Pacer(self.baud) if self.baud else None
        while True:
            ready, _, _ = select.select([conn, self._stop_r], [], [])
            if self._stop_r in ready:
                return True
            data = conn.recv(4096)
            if not data:
                return False
            if pacer:
                pacer.received(len(data))
            try:
                replies = link.process(data)
            except LinkDropped:
                return False
            for reply in replies:
                if pacer:
                    pacer.transmit(len(reply))
                conn.sendall(reply)

    def stop(self) -> None:
        try:
            self._stop_w.send(b"x")
        except OSError:
            pass
        self._thread.join(timeout=5)
        self._stop_w.close()
        self._stop_r.close()

    def __enter__(self) -> TcpSimulator:
        return self if self._thread.ident is not None else self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
