"""Kernel sweep: the exact solver against plain minimax under every combination of the switches
that decide trick play and its value, in every game.

The test suite checks the solver on nine rule sets (``tests/kernel/test_solver.py``); this sweep checks
every combination of ``head_rule`` x ``must_overtrump`` x ``counting`` x ``save_meld`` x
``save_meld_applies_to`` that a game accepts (a switch that means nothing in a game is refused
there, and that combination is skipped). For each, ``--positions`` random end positions with 1 to
``--tricks`` tricks left are solved with and without the pruning of equivalent cards and compared
with plain minimax (``pinochle_env.kernel.solver.minimax_value``). Any difference is listed and
the exit status is 1.

Usage::

    python benchmarks/kernel_sweep.py                        # 20 positions per combination
    python benchmarks/kernel_sweep.py --positions 5 --variant two_hand   # a quick look
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time

from pinochle_env.kernel import compile_kernel, solver
from pinochle_env.kernel.state import PlayState
from pinochle_env.rules.switches import CHOICES, Rules

#: The switches that change which card may be played, who wins a trick or what the tricks are worth.
SWEPT = ("head_rule", "must_overtrump", "counting", "save_meld", "save_meld_applies_to")
VARIANTS = ("partnership", "cutthroat", "two_hand")


def rule_sets(variant: str) -> list[Rules]:
    """Every combination of the swept switches that ``variant`` accepts."""
    found = []
    for values in itertools.product(*(CHOICES[name] for name in SWEPT)):
        try:
            found.append(Rules(variant=variant, **dict(zip(SWEPT, values, strict=True))))
        except ValueError:  # a switch this game does not have
            continue
    return list({rules: None for rules in found})  # the same rules reached twice count once


def check(rules: Rules, positions: int, tricks: int, seed: int) -> tuple[int, int, int]:
    """(mismatches, nodes with pruning, nodes without) over ``positions`` end positions."""
    mismatches, nodes = 0, {True: 0, False: 0}
    for game in solver.end_positions(rules, positions, seed, most_tricks=tricks):
        state = PlayState.from_game(game)
        expected = solver.minimax_value(state)
        for equivalent in (True, False):
            solver.clear_table()
            mismatches += solver.solve_value(state, equivalent) != expected
            nodes[equivalent] += solver.take_nodes()
    return mismatches, nodes[True], nodes[False]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=20, help="end positions per combination")
    parser.add_argument("--tricks", type=int, default=3, help="at most this many tricks left (plain minimax is slow)")
    parser.add_argument("--variant", choices=VARIANTS, action="append", help="only these games (repeatable)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.positions < 1 or not 1 <= args.tricks <= 4 or args.seed < 0:
        parser.error("need --positions >= 1, --tricks between 1 and 4 and --seed >= 0")
    compile_kernel()
    failed = []
    print(f"{'game':<12} {'rule sets':>9} {'positions':>9} {'mismatches':>10} {'nodes pruned':>13} {'unpruned':>10}")
    for variant in args.variant or VARIANTS:
        start = time.perf_counter()
        sets = rule_sets(variant)
        totals = [0, 0, 0]
        for index, rules in enumerate(sets):
            result = check(rules, args.positions, args.tricks, args.seed + index)
            totals = [a + b for a, b in zip(totals, result, strict=True)]
            if result[0]:
                failed.append(f"{variant}: " + ", ".join(f"{name}={getattr(rules, name)}" for name in SWEPT))
        positions = len(sets) * args.positions
        print(
            f"{variant:<12} {len(sets):>9} {positions:>9} {totals[0]:>10} {totals[1]:>13,} {totals[2]:>10,}"
            f"   ({time.perf_counter() - start:.0f} s)",
            flush=True,
        )
    for line in failed:
        print(f"solver differs from minimax under {line}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
