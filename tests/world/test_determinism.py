"""Same seed and scenario → byte-identical trace; faults act only through the seed."""

from blinkc.programs import ClickCounter, HopDistance
from blinkc.world import Faults, Trace, World


def run(seed, faults=None, idle_skip=True):
    w = World(seed=seed, faults=faults, trace=Trace(), idle_skip=idle_skip)
    w.add_tile("src", HopDistance(source=True), (0, 0), 1)
    for i in range(1, 6):
        w.add_tile(f"t{i}", HopDistance(), (0, i), i % 6)
    w.add_tile("c", ClickCounter(), (1, 0), 3)
    w.run_for(500)
    w.button("c", True)
    w.run_for(70)
    w.button("c", False)
    w.call_at(1500, lambda: w.place("t5", (2, 2), 4))
    w.run_for(2500)
    return w.trace.text()


def test_same_seed_same_trace():
    assert run(11) == run(11)


def test_same_seed_same_trace_with_faults():
    faults = Faults(drop=0.1, jitter_ms=2, skew=0.1)
    a, b = run(11, faults), run(11, faults)
    assert a == b
    assert '"ev":"drop"' in a


def test_different_seeds_differ():
    assert run(11) != run(12)


def test_faults_change_outcomes():
    assert run(11) != run(11, Faults(drop=0.1))


def test_idle_skipping_keeps_game_outcome():
    # Skipping idle passes must not change what the program ends up computing.
    import json

    def final_states(text):
        states = {}
        for line in text.splitlines():
            rec = json.loads(line)
            if rec["ev"] == "state":
                states[rec["tile"]] = {k: v for k, v in rec.items() if k not in ("t", "tile", "ev")}
        return states

    assert final_states(run(5, idle_skip=True)) == final_states(run(5, idle_skip=False))
