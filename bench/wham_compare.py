"""Play many random games of WHAM! on the port and on Move38's original, and compare.

    BLINKS_SDK=/path/to/sdk python bench/wham_compare.py [--games 40] [--seed 1]

Each game is a random cluster (1 to 7 tiles) and a random plan: in each round the player
whacks every mole it sees (after 150-650 ms), or holds the button down to whack (a long
press), or also presses a tile before any mole is up (a strike), or lets the moles be.
The same plan is played on both; a player that watches only the LEDs
(tests/games/wham_play.py) writes down what it saw. A game agrees when both tell the
story the rules predict from the plan: the same end (victory after 30 rounds, or death),
in the same round, after the same strikes (yellow, then orange), with the death on the
right tile (the last miss, or a tile whose mole got away), and every round as long on
both (within ROUND_SLACK_MS). Every difference is printed with what it is; docs/wham.md
explains them.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.games.wham_play import (  # noqa: E402
    LET_GO,
    LONG,
    MISS,
    PORT,
    ROUNDS,
    Plan,
    Story,
    original_sketch,
    play,
)

ROUND_SLACK_MS = 150  # the player looks every 20 ms; a round start crosses the cluster
NEIGHBOURS = [(0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0)]


def random_layout(rng: random.Random) -> str:
    spots = [(0, 0)]
    for _ in range(rng.randint(0, 6)):
        while True:
            q, r = rng.choice(spots)
            dq, dr = rng.choice(NEIGHBOURS)
            if (q + dq, r + dr) not in spots:
                spots.append((q + dq, r + dr))
                break
    return "\n".join(f"tile t{i} at {q},{r}" for i, (q, r) in enumerate(spots))


def random_plan(rng: random.Random, seed: int) -> Plan:
    rounds = {}
    for r in range(1, ROUNDS + 1):
        x = rng.random()
        if x < 0.02:
            rounds[r] = LET_GO
        elif x < 0.07:
            rounds[r] = MISS
        elif x < 0.12:
            rounds[r] = LONG
    return Plan(rounds, seed=seed)


def problems(story: Story, plan: Plan) -> list[str]:
    """What in one game's story breaks the rules its plan predicts."""
    out = []
    end, end_round, strikes = plan.expected()
    if (story.end, story.end_round) != (end, end_round):
        out.append(f"ended {story.end} in round {story.end_round}, "
                   f"the plan says {end} in round {end_round}")
    seen = [n for n, _, _ in story.strikes]
    if seen != strikes:
        out.append(f"strikes shown {seen}, the plan says {strikes}")
    if story.end == "death":
        misses = [t for t, _, why in story.presses if why == "miss"]
        sources = sorted(story.death_sources)
        if plan.of(story.end_round) == MISS and len(misses) == 3:
            if sources != [misses[-1]]:
                out.append(f"death shown on {sources}, the 3rd miss was on {misses[-1]}")
        elif not sources or not set(sources) <= {t for r, t, _ in story.moles
                                                 if r == story.end_round}:
            out.append(f"death shown on {sources}, not a tile whose mole got away")
    with_moles = {r for r, _, _ in story.moles}
    played = ROUNDS if story.end == "victory" else story.end_round - 1  # (a 3rd miss can
    for r in range(1, min(len(story.rounds), played) + 1):  # end a round before its moles)
        if r not in with_moles:
            out.append(f"round {r} raised no mole")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    original = original_sketch()
    if original is None:
        print("set BLINKS_SDK to a Blinks SDK checkout (WHAM.ino is compared with the port)")
        return 2
    rng = random.Random(args.seed)
    agreed = 0
    moles: dict[str, Counter] = {"port": Counter(), "original": Counter()}
    lengths: dict[str, list[float]] = {"port": [], "original": []}
    started = time.time()
    for g in range(args.games):
        layout = random_layout(rng)
        plan = random_plan(rng, seed=rng.randrange(1 << 30))
        seed = rng.randrange(1 << 30)
        stories = {"port": play(PORT, layout, plan, seed=seed),
                   "original": play(original, layout, plan, seed=seed)}
        notes = []
        for who, story in stories.items():
            notes += [f"{who}: {p}" for p in problems(story, plan)]
            per_round = Counter(r for r, _, _ in story.moles)
            moles[who].update(per_round.values())
        port, orig = stories["port"], stories["original"]
        if port.summary() != orig.summary():
            notes.append(f"the stories differ: port {port.summary()}, original {orig.summary()}")
        for r, (a, b) in enumerate(zip(port.round_lengths(), orig.round_lengths()), start=1):
            lengths["port"].append(a)
            lengths["original"].append(b)
            if abs(a - b) > ROUND_SLACK_MS:
                notes.append(f"round {r} lasted {a:.0f} ms on the port, {b:.0f} on the original")
        tiles = layout.count("\n") + 1
        head = (f"game {g + 1:3d}: {tiles} tile{'s' if tiles > 1 else ''}, "
                f"{plan.expected()[0]} in round {plan.expected()[1]}")
        if notes:
            print(head + ": DIFFERENT")
            for n in notes:
                print("    " + n)
        else:
            agreed += 1
            print(head + ": same")
    print(f"\n{agreed} of {args.games} games agreed ({time.time() - started:.0f} s)")
    for who in ("port", "original"):
        dist = ", ".join(f"{k}: {v}" for k, v in sorted(moles[who].items()))
        print(f"moles per round on the {who}: {dist}")
    if lengths["port"]:
        worst = max(abs(a - b) for a, b in zip(lengths["port"], lengths["original"]))
        print(f"rounds compared: {len(lengths['port'])}; the largest difference in a round's "
              f"length: {worst:.0f} ms")
    return 0 if agreed == args.games else 1


if __name__ == "__main__":
    sys.exit(main())
