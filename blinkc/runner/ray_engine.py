"""Playing a job's runs on a Ray cluster: one actor a CPU, each set up once.

`shared` goes into Ray's object store once (`ray.put`) and every actor is built from that
reference, so the game's compiled program crosses the network once per node, not once per
run; the runs go to the actors in batches. `--ray local` starts a cluster on this machine,
and stops it at the end; `--ray auto`
joins the cluster `ray start` made here, `--ray ADDRESS` the one at that address.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

from .job import Job, Result
from .local import Batch, batches, play_batch

INSTALL_HINT = ("Ray is not installed here. Install blinkc with its Ray extra, "
                "pip install 'blinkc[ray]', or run without --ray (local processes, --jobs N).")


class RayMissing(Exception):
    """--ray was asked for and Ray cannot be imported; str() says how to install it."""


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayMissing(INSTALL_HINT) from None
    return ray


def connect(address: str) -> tuple[Any, bool]:
    """Ray, connected to the cluster `address` names; and whether we started it."""
    ray = import_ray()
    if ray.is_initialized():
        return ray, False
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")   # no report home from a test run
    quiet = {"log_to_driver": False, "logging_level": "ERROR", "configure_logging": True}
    if address == "local":
        # (Ray takes 127.0.0.1 for the host's own address, and its servers listen on every
        # interface: docs/runner.md says how to keep them off the network.)
        ray.init(address="local", _node_ip_address="127.0.0.1", include_dashboard=False,
                 **quiet)
        return ray, True
    ray.init(address=address, **quiet)
    return ray, False


class _Worker:
    """The actor: the job set up once, then batch after batch of its runs."""

    def __init__(self, setup: Callable[[Any], Any], shared: Any) -> None:
        self.context = setup(shared)

    def play(self, play: Callable[[Any, Any], Result], batch: Batch) -> list[tuple[int, Result]]:
        return play_batch(play, self.context, batch)


def on_ray(job: Job, todo: list[int], address: str, jobs: int | None,
           stop_before: Callable[[int], bool]) -> Iterator[list[tuple[int, Result]]]:
    ray, started = connect(address)
    actors: list[Any] = []
    try:
        # (an actor holds a CPU: more actors than CPUs would never start, and their batches
        # would wait for ever)
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        count = min(jobs or cpus, cpus)
        worker = ray.remote(num_cpus=1)(_Worker)
        shared = ray.put(job.shared)
        actors = [worker.remote(job.setup, shared) for _ in range(count)]
        pending = batches(job, todo)
        in_flight: dict[Any, Any] = {}    # object ref -> the actor playing it

        def submit(actor: Any) -> None:
            batch = next(pending, None)
            if batch is not None and not stop_before(batch[0][0]):
                in_flight[actor.play.remote(job.play, batch)] = actor

        for actor in actors:
            submit(actor)
            submit(actor)
        while in_flight:
            ready, _ = ray.wait(list(in_flight), num_returns=1, timeout=0.2)
            for ref in ready:
                actor = in_flight.pop(ref)
                yield ray.get(ref)
                submit(actor)
    finally:
        for actor in actors:
            ray.kill(actor)
        if started:
            ray.shutdown()
