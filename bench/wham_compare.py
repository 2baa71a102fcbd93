"""Play many random games of WHAM! on the port and on Move38's original, and compare.

    BLINKS_SDK=/path/to/sdk python bench/wham_compare.py [--games 40] [--seed 1] [--jobs N]
                                                         [--ray auto|local|ADDRESS]

Each game is a random cluster (1 to 7 tiles) and a random plan: in each round the player
whacks every mole it sees (after 150-650 ms), or holds the button down to whack (a long
press), or also presses a tile before any mole is up (a strike), or lets the moles be.
The same plan is played on both; a player that watches only the LEDs
(tests/games/wham_play.py) writes down what it saw. A game agrees when both tell the
story the rules predict from the plan: the same end (victory after 30 rounds, or death),
in the same round, after the same strikes (yellow, then orange), with the death on the
right tile (the last miss, or a tile whose mole got away), and every round as long on
both (within ROUND_SLACK_MS). Every difference is printed with what it is; docs/wham.md
explains them. The games are drawn first, from --seed, and played on blinkc's runner
(docs/runner.md: every core, or Ray); the report is in the order of the games.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from blinkc.runner import Job, Options, run  # noqa: E402
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


def _setup(_: None) -> object:
    return original_sketch()


def _game(original: object, spec: tuple[str, Plan, int]) -> dict:
    """One game on the port and on the original: what differs, and the figures."""
    layout, plan, seed = spec
    stories = {"port": play(PORT, layout, plan, seed=seed),
               "original": play(original, layout, plan, seed=seed)}
    notes = []
    moles = {}
    for who, story in stories.items():
        notes += [f"{who}: {p}" for p in problems(story, plan)]
        moles[who] = list(Counter(r for r, _, _ in story.moles).values())
    port, orig = stories["port"], stories["original"]
    if port.summary() != orig.summary():
        notes.append(f"the stories differ: port {port.summary()}, original {orig.summary()}")
    lengths = list(zip(port.round_lengths(), orig.round_lengths()))
    for r, (a, b) in enumerate(lengths, start=1):
        if abs(a - b) > ROUND_SLACK_MS:
            notes.append(f"round {r} lasted {a:.0f} ms on the port, {b:.0f} on the original")
    return {"seed": seed, "notes": notes, "moles": moles, "lengths": lengths}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=None, help="local processes (default: one a core)")
    ap.add_argument("--ray", default=None, help="auto, local or a Ray cluster's address")
    args = ap.parse_args()
    if original_sketch() is None:
        print("set BLINKS_SDK to a Blinks SDK checkout (WHAM.ino is compared with the port)")
        return 2
    rng = random.Random(args.seed)
    games = []
    for _ in range(args.games):       # drawn in the order the serial loop drew them
        layout = random_layout(rng)
        plan = random_plan(rng, seed=rng.randrange(1 << 30))
        games.append((layout, plan, rng.randrange(1 << 30)))
    job = Job("wham compare", {"games": args.games, "seed": args.seed}, _setup, None, _game,
              games, failed=lambda r: bool(r["notes"]))
    outcome = run(job, Options(jobs=args.jobs, ray=args.ray, progress=sys.stderr.isatty()))
    agreed = 0
    moles: dict[str, Counter] = {"port": Counter(), "original": Counter()}
    lengths: list[tuple[float, float]] = []
    for g, result in outcome.ordered():
        layout, plan, _ = games[g]
        for who in moles:
            moles[who].update(result["moles"][who])
        lengths += [tuple(x) for x in result["lengths"]]
        tiles = layout.count("\n") + 1
        head = (f"game {g + 1:3d}: {tiles} tile{'s' if tiles > 1 else ''}, "
                f"{plan.expected()[0]} in round {plan.expected()[1]}")
        if result["notes"]:
            print(head + ": DIFFERENT")
            for n in result["notes"]:
                print("    " + n)
        else:
            agreed += 1
            print(head + ": same")
    print(f"\n{agreed} of {args.games} games agreed ({outcome.wall_s:.0f} s on {outcome.engine})")
    for who in ("port", "original"):
        dist = ", ".join(f"{k}: {v}" for k, v in sorted(moles[who].items()))
        print(f"moles per round on the {who}: {dist}")
    if lengths:
        worst = max(abs(a - b) for a, b in lengths)
        print(f"rounds compared: {len(lengths)}; the largest difference in a round's "
              f"length: {worst:.0f} ms")
    return 0 if agreed == args.games else 1


if __name__ == "__main__":
    sys.exit(main())
