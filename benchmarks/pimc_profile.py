"""Where the search bot's time goes: decisions per second by kind, and how often the budget bites.

Plays deal pairs in this process (the arena's duplicate scheme: the deal twice, teams swapped)
between a ``pimc`` spec and an opponent, timing every decision of the spec (the view and mask
built, as the arena counts them) by decision kind, with and without a choice, and counting the
card decisions whose time budget stopped the sampling before ``samples`` deals. With
``--profile`` the run goes through cProfile and the functions taking the most time are listed.

Usage::

    python benchmarks/pimc_profile.py                          # pimc vs heuristic, 20 deal pairs
    python benchmarks/pimc_profile.py --spec pimc:budget=0.005 --pairs 10   # a budget that bites
    python benchmarks/pimc_profile.py --rule variant=cutthroat --profile
    python benchmarks/pimc_profile.py --pairs 50 --record   # the table of docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import pstats
import sys
import time

import numpy as np
from figures import command_line, record

from agents.arena import parse_rules
from agents.base import Agent, check_plays, decide, prepare, total_search_counts
from agents.registry import load_agent
from pinochle_env.games.kit import new_game


def play(spec: str, opponent: str, pairs: int, rules, seed: int) -> tuple[dict, dict, list[Agent], float]:
    """(seconds by kind, decisions by kind, the spec's agents, mean margin per hand) of the run."""
    seconds: dict[str, float] = collections.Counter()
    counts: dict[str, int] = collections.Counter()
    agents_seen: list[Agent] = []
    margins = []
    teams = rules.teams
    for deal in range(pairs):
        for a_team in range(max(teams) + 1):
            agents = [
                load_agent(spec if teams[s] == a_team else opponent, seed * 1000 + deal * 10 + s)
                for s in range(rules.num_seats)
            ]
            agents_seen += [a for a, t in zip(agents, teams, strict=True) if t == a_team]
            game = new_game(rules, np.random.default_rng([seed, deal]))
            while not game.hand_over:
                seat = game.to_act
                kind = game.phase.decision + ("" if len(game.legal_actions()) > 1 else " (forced)")
                start = time.perf_counter()
                action = decide(agents[seat], game)
                if teams[seat] == a_team:
                    seconds[kind] += time.perf_counter() - start
                    counts[kind] += 1
                game.apply(action)
            score = game.score
            mine = score[a_team]
            others = [score[t] for t in range(len(score)) if t != a_team]
            margins.append(mine - sum(others) / len(others))
    return seconds, counts, agents_seen, float(np.mean(margins))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", default="pimc")
    parser.add_argument("--opponent", default="heuristic")
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", action="store_true", help="list the functions taking the most time")
    parser.add_argument("--record", action="store_true", help="write benchmarks/results/pimc_profile.json")
    args = parser.parse_args(argv)
    if args.pairs < 1 or args.seed < 0:
        parser.error(f"--pairs must be at least 1 and --seed at least 0, got {args.pairs} and {args.seed}")
    try:
        rules = parse_rules(args.rule)
        for spec in (args.spec, args.opponent):
            check_plays(load_agent(spec, 0), rules)
    except (ValueError, OSError, ImportError) as error:  # ArenaError included
        parser.error(str(error))
    prepare(load_agent(args.spec, 0), rules)
    profiler = cProfile.Profile() if args.profile else None
    if profiler is not None:
        profiler.enable()
    seconds, counts, agents, margin = play(args.spec, args.opponent, args.pairs, rules, args.seed)
    if profiler is not None:
        profiler.disable()
    total = sum(counts.values())
    print(f"{args.spec} vs {args.opponent}, {args.pairs} deal pairs ({rules.variant}): margin {margin:+.1f} per hand")
    print(f"{'decision':<20} {'count':>7} {'ms each':>9} {'share of time':>14}")
    elapsed = sum(seconds.values())
    for kind in sorted(counts):
        print(
            f"{kind:<20} {counts[kind]:>7} {1e3 * seconds[kind] / counts[kind]:>9.2f} {seconds[kind] / elapsed:>14.0%}"
        )
    print(f"{'all':<20} {total:>7} {1e3 * elapsed / total:>9.2f}   {total / elapsed:,.0f} decisions/s")
    searched, cut, on_time = total_search_counts(agents)
    if searched:
        print(f"card decisions searched: {searched}; the node or time budget cut sampling short in {cut} "
              f"({cut / searched:.1%}), {on_time} of them on time")  # fmt: skip
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(20)
    if args.record:
        kinds = {kind: {"count": counts[kind], "seconds": seconds[kind]} for kind in sorted(counts)}
        figures = {"spec": args.spec, "opponent": args.opponent, "pairs": args.pairs, "rules": rules.to_dict(),
                   "margin": margin, "kinds": kinds, "searched": searched, "cut_short": cut,
                   "cut_on_time": on_time}  # fmt: skip
        record("pimc_profile", figures, command_line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
