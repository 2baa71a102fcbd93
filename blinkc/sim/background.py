"""A simulator server on a thread of its own (for tests, the bench and notebooks)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable
from typing import TypeVar

from .server import SimServer, bind, serve, url_of
from .session import Session

T = TypeVar("T")


class BackgroundServer:
    """Serves a session on 127.0.0.1 from a daemon thread; `call` runs code on its loop, where
    the session may be read and changed safely."""

    def __init__(self, session: Session, port: int = 0) -> None:
        self.server = SimServer(session)
        self.session = session
        self._sock = bind(port)
        self.url = url_of(self._sock)
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._task: asyncio.Task[None] | None = None
        self._thread = threading.Thread(target=self._run, name="blinkc-sim", daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._task = self._loop.create_task(serve(self.server, self._sock, self._ready.set))
        try:
            self._loop.run_until_complete(self._task)
        except asyncio.CancelledError:  # stopped
            pass
        finally:
            self._ready.set()
            self._loop.close()

    def start(self, timeout: float = 20.0) -> BackgroundServer:
        self._thread.start()
        if not self._ready.wait(timeout):
            raise RuntimeError("the simulator's server did not start")
        return self

    def call(self, fn: Callable[[], T], timeout: float = 60.0) -> T:
        """Run `fn()` on the server's loop (between two ticks) and return what it returns."""
        async def run() -> T:
            return fn()
        future: concurrent.futures.Future[T] = asyncio.run_coroutine_threadsafe(run(), self._loop)
        return future.result(timeout)

    def stop(self) -> None:
        if self._task is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._task.cancel)
        self._thread.join(timeout=10)

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
