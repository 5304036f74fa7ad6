"""Write ``pimc_heuristic_golden.json``: decisions of the original ``pimc`` bot on seeded positions.

The file was written by running this script at commit 9cb0729, before the search kernel, with
``SPEC = "pimc:samples=16,budget=60"`` (the original agent at its default sample count, with a
budget it never reaches, so that time cannot change a decision). ``tests/test_pimc.py`` replays
every position and checks that ``pimc:evaluate=heuristic`` (which keeps that agent) decides the
same. Running it again today with ``python tests/data/make_pimc_golden.py
"pimc:evaluate=heuristic,samples=16,budget=60"`` must rewrite the same file.

Positions: hands of heuristic self-play under three rule sets; from each hand a few decisions of
every kind (auction, trump, passing, throw-in where the hand has one, and card play, most of them)
are kept, each with the whole deal and the actions before it, so the test needs no heuristic
self-play to rebuild it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from agents.base import decide
from agents.heuristic import HeuristicAgent
from agents.registry import load_agent
from pinochle_env import Game, Rules
from pinochle_env.cards import format_cards

SPEC = "pimc:samples=16,budget=60"
OUT = Path(__file__).with_name("pimc_heuristic_golden.json")
RULE_SETS = (
    Rules(),
    Rules(pass_mode="simultaneous", head_rule="highest_led", throw_in="always"),
    Rules(counting="classic", pass_count=3, must_overtrump=False, save_meld="trick"),
)
HANDS_PER_RULES = 4
#: Decisions with a choice kept per hand, by kind (fewer where the hand has fewer).
POINTS = {"auction": 2, "trump": 1, "passing": 2, "throw_in": 1, "play": 5}


def positions(rules: Rules, seed: int) -> list[dict]:
    """Some decisions of one heuristic self-play hand: deal, dealer, actions before, agent seed."""
    game = Game(rules, np.random.default_rng(seed))
    dealer, deal = game.dealer, [format_cards(hand) for hand in game.deal]
    agents = [HeuristicAgent(seed + s) for s in range(4)]
    actions: list[int] = []
    by_kind: dict[str, list[int]] = {kind: [] for kind in POINTS}
    while not game.hand_over:
        if len(game.legal_actions()) > 1:
            by_kind[game.phase.decision].append(len(actions))
        action = decide(agents[game.to_act], game)
        actions.append(action)
        game.apply(action)
    rng = np.random.default_rng(seed)
    picked = sorted(
        int(k) for kind, ks in by_kind.items() if ks for k in rng.choice(ks, min(POINTS[kind], len(ks)), replace=False)
    )
    layout = game.layout
    return [
        {
            "rules": rules.to_dict(),
            "dealer": dealer,
            "deal": deal,
            "actions": [layout.to_string(a) for a in actions[:k]],
            "agent_seed": seed * 100 + k,
        }
        for k in picked
    ]


def main(spec: str = SPEC) -> None:
    entries = []
    for index, rules in enumerate(RULE_SETS):
        for hand in range(HANDS_PER_RULES):
            for entry in positions(rules, 1000 * index + hand):
                rules_here = Rules.from_mapping(entry["rules"])
                game = Game(rules_here, np.random.default_rng(0), dealer=entry["dealer"], deal=entry["deal"])
                for text in entry["actions"]:
                    game.apply(game.layout.from_string(text))
                entry["phase"] = game.phase.decision
                entry["decision"] = game.layout.to_string(decide(load_agent(spec, entry["agent_seed"]), game))
                entries.append(entry)
    OUT.write_text(json.dumps({"spec": spec, "positions": entries}, indent=1) + "\n", encoding="utf-8")
    print(f"{len(entries)} positions written to {OUT}")


if __name__ == "__main__":
    main(*sys.argv[1:])
