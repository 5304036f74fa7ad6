"""Kernel sweep: the exact solver against a plain reference under every combination of the switches
that decide trick play and its value, in every game.

The test suite checks the solver on nine rule sets (``tests/kernel/test_solver.py``); this sweep checks
every combination of ``head_rule`` x ``must_overtrump`` x ``counting`` x ``save_meld`` x
``save_meld_applies_to`` that a game accepts (a switch that means nothing in a game is refused
there, and that combination is skipped), or with ``--default-rules`` each game's default rules
only. For each rule set, ``--positions`` random end positions with ``--least-tricks`` to
``--tricks`` tricks left (a random number of cards in the trick, reached by random legal play) are
solved with and without the pruning of equivalent cards: the position's value and every legal
card's value, each compared with the reference's. The reference is plain minimax up to 4 tricks
left, and plain alpha-beta beyond (``pinochle_env.kernel.solver.minimax_value`` with ``prune``: no
table, no move ordering, no merged cards, no bounds; exact, where minimax from 6 tricks would
need about 10^11 nodes a position). Any difference is listed and the exit status is 1.

Usage::

    python benchmarks/kernel_sweep.py                        # 20 positions per rule set, up to 3 tricks
    python benchmarks/kernel_sweep.py --positions 100 --tricks 4 --record          # issue 32's sweep
    python benchmarks/kernel_sweep.py --default-rules --variant partnership --positions 2000 \\
        --least-tricks 5 --tricks 6 --record                                       # deeper positions
    python benchmarks/kernel_sweep.py --positions 5 --variant two_hand             # a quick look

``--record`` writes the figures to ``benchmarks/results/kernel_sweep.json`` (``kernel_sweep_deep.json``
beyond 4 tricks), from which ``docs/benchmarks.md`` quotes them.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time

from figures import command_line, record

from pinochle_env.kernel import compile_kernel, solver
from pinochle_env.kernel.state import PlayState
from pinochle_env.rules.switches import CHOICES, Rules

#: The switches that change which card may be played, who wins a trick or what the tricks are worth.
SWEPT = ("head_rule", "must_overtrump", "counting", "save_meld", "save_meld_applies_to")
VARIANTS = ("partnership", "cutthroat", "two_hand")
#: Beyond this many tricks left the reference is alpha-beta, not minimax.
MINIMAX_TRICKS = 4
#: The most tricks left the sweep takes (the reference's time grows fast beyond).
MOST_TRICKS = 6


def rule_sets(variant: str, default_only: bool = False) -> list[Rules]:
    """Every combination of the swept switches that ``variant`` accepts (or its default rules only)."""
    if default_only:
        return [Rules(variant=variant)]
    found = []
    for values in itertools.product(*(CHOICES[name] for name in SWEPT)):
        try:
            found.append(Rules(variant=variant, **dict(zip(SWEPT, values, strict=True))))
        except ValueError:  # a switch this game does not have
            continue
    return list({rules: None for rules in found})  # the same rules reached twice count once


def check(rules: Rules, positions: int, tricks: tuple[int, int], seed: int) -> dict[str, int]:
    """Mismatches of position values and of card values, cards compared and nodes with and without
    the pruning of equivalent cards, over ``positions`` end positions with ``tricks`` (least, most) left."""
    least, most = tricks
    prune = most > MINIMAX_TRICKS
    counts = {"positions": 0, "value_mismatches": 0, "card_mismatches": 0, "cards": 0, "nodes": 0, "nodes_unpruned": 0}
    games = solver.end_positions(rules, positions, seed, most_tricks=most, least_tricks=least)
    for game in games:
        state = PlayState.from_game(game)
        expected = solver.minimax_value(state, prune)
        expected_cards = solver.minimax_card_values(game, prune)
        counts["positions"] += 1
        counts["cards"] += len(expected_cards)
        for equivalent in (True, False):
            solver.clear_table()
            counts["value_mismatches"] += solver.solve_value(state, equivalent) != expected
            cards, scores = solver.solve_side_values(state, equivalent)
            counts["card_mismatches"] += sum(int(scores[c]) != value for c, value in expected_cards.items())
            counts["card_mismatches"] += len(set(cards) ^ set(expected_cards))
            counts["nodes" if equivalent else "nodes_unpruned"] += solver.take_nodes()
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=20, help="end positions per rule set")
    parser.add_argument("--tricks", type=int, default=3, help=f"at most this many tricks left (1 to {MOST_TRICKS})")
    parser.add_argument("--least-tricks", type=int, default=1, help="at least this many tricks left")
    parser.add_argument("--variant", choices=VARIANTS, action="append", help="only these games (repeatable)")
    parser.add_argument("--default-rules", action="store_true", help="each game's default rules only")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--record", action="store_true", help="write the figures to benchmarks/results/")
    args = parser.parse_args(argv)
    if args.positions < 1 or not 1 <= args.least_tricks <= args.tricks <= MOST_TRICKS or args.seed < 0:
        parser.error(f"need --positions >= 1, 1 <= --least-tricks <= --tricks <= {MOST_TRICKS} and --seed >= 0")
    compile_kernel()
    reference = "alpha-beta" if args.tricks > MINIMAX_TRICKS else "minimax"
    print(f"the solver against plain {reference}, {args.least_tricks} to {args.tricks} tricks left, seed {args.seed}")
    print(f"{'game':<12} {'rule sets':>9} {'positions':>9} {'cards':>9} {'value diff':>10} {'card diff':>9} "
          f"{'nodes pruned':>13} {'unpruned':>12}")  # fmt: skip
    failed, rows = [], []
    for variant in args.variant or VARIANTS:
        start = time.perf_counter()
        sets = rule_sets(variant, args.default_rules)
        totals: dict[str, int] = {}
        for index, rules in enumerate(sets):
            result = check(rules, args.positions, (args.least_tricks, args.tricks), args.seed + index)
            totals = {key: totals.get(key, 0) + value for key, value in result.items()}
            if result["value_mismatches"] or result["card_mismatches"]:
                failed.append(f"{variant}: " + ", ".join(f"{name}={getattr(rules, name)}" for name in SWEPT))
        seconds = time.perf_counter() - start
        rows.append({"variant": variant, "rule_sets": len(sets), **totals, "seconds": round(seconds, 1)})
        print(
            f"{variant:<12} {len(sets):>9} {totals['positions']:>9} {totals['cards']:>9} "
            f"{totals['value_mismatches']:>10} {totals['card_mismatches']:>9} {totals['nodes']:>13,} "
            f"{totals['nodes_unpruned']:>12,}   ({seconds:.0f} s)",
            flush=True,
        )
    for line in failed:
        print(f"solver differs from {reference} under {line}", file=sys.stderr)
    if args.record:
        name = "kernel_sweep_deep" if args.tricks > MINIMAX_TRICKS else "kernel_sweep"
        figures = {"reference": reference, "least_tricks": args.least_tricks, "most_tricks": args.tricks,
                   "positions_per_rule_set": args.positions, "seed": args.seed, "rows": rows}  # fmt: skip
        record(name, figures, command_line())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
