"""Write the ``pimc`` bot's decisions on seeded positions, for the tests that keep them from changing.

Two files are written by this script, each replayed by ``tests/agents/search/test_pimc.py``:

- ``pimc_heuristic_golden.json``: the original ``pimc`` bot (before the search kernel), written at
  commit 9cb0729 with the spec ``pimc:samples=16,budget=60`` (its default sample count, with a
  budget it never reaches, so that time cannot change a decision); ``pimc:evaluate=heuristic``
  keeps that agent. ``python tests/data/make_pimc_golden.py original`` must rewrite the same file.
- ``pimc_search_golden.json``: the search bot on the compiled kernel at its defaults
  (``pimc:budget=1000``, a budget it never reaches), in every game, written at commit 8673063
  before the kernel and the search moved between packages (issue 31), so that moving code cannot
  change a decision. ``python tests/data/make_pimc_golden.py search`` must rewrite the same file.

Positions: hands of heuristic self-play under several rule sets; from each hand a few decisions of
every kind (auction, trump, passing, throw-in and meld where the game has them, and card play, most
of them) are kept, each with the whole deal and the actions before it, so the test needs no
heuristic self-play to rebuild it.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agents.base import decide
from agents.heuristic import HeuristicAgent
from agents.registry import load_agent
from pinochle_env import Rules, new_game
from pinochle_env.cards import card_to_str, format_cards


@dataclass(frozen=True)
class GoldenSet:
    """One golden file: the agent spec, the rule sets, hands per rule set and decisions per hand."""

    spec: str
    file: str
    rule_sets: tuple[Rules, ...]
    hands_per_rules: int
    #: Decisions with a choice kept per hand, by kind (fewer where the hand has fewer).
    points: dict[str, int]
    #: The spec the file names, where the agent had another spec when the file was written.
    recorded_as: str | None = None


PARTNERSHIP_RULE_SETS = (
    Rules(),
    Rules(pass_mode="simultaneous", head_rule="highest_led", throw_in="always"),
    Rules(counting="classic", pass_count=3, must_overtrump=False, save_meld="trick"),
)
SETS = {
    "original": GoldenSet(
        "pimc:evaluate=heuristic,samples=16,budget=60",
        "pimc_heuristic_golden.json",
        PARTNERSHIP_RULE_SETS,
        hands_per_rules=4,
        points={"auction": 2, "trump": 1, "passing": 2, "throw_in": 1, "play": 5},
        recorded_as="pimc:samples=16,budget=60",
    ),
    "search": GoldenSet(
        "pimc:budget=1000",
        "pimc_search_golden.json",
        (*PARTNERSHIP_RULE_SETS, Rules(variant="cutthroat"), Rules(variant="two_hand", counting="classic")),
        hands_per_rules=6,
        points={"auction": 3, "trump": 1, "passing": 2, "throw_in": 1, "meld": 2, "play": 8},
    ),
}


def positions(rules: Rules, seed: int, points: dict[str, int]) -> list[dict]:
    """Some decisions of one heuristic self-play hand: deal, dealer, actions before, agent seed."""
    game = new_game(rules, np.random.default_rng(seed))
    dealer, deal = game.dealer, [format_cards(hand) for hand in game.deal]
    if hasattr(game, "stock"):  # the two-handed game: the turn-up and the stock in draw order too
        deal = {"hands": deal, "turn_up": card_to_str(game.turn_up_dealt), "stock": format_cards(game.stock)}
    agents = [HeuristicAgent(seed + s) for s in range(rules.num_seats)]
    actions: list[int] = []
    by_kind: dict[str, list[int]] = {kind: [] for kind in points}
    while not game.hand_over:
        if len(game.legal_actions()) > 1:
            by_kind[game.phase.decision].append(len(actions))
        action = decide(agents[game.to_act], game)
        actions.append(action)
        game.apply(action)
    rng = np.random.default_rng(seed)
    picked = sorted(
        int(k) for kind, ks in by_kind.items() if ks for k in rng.choice(ks, min(points[kind], len(ks)), replace=False)
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


def replay(entry: dict) -> object:
    """The game at a golden position: its deal, then the actions before the decision."""
    game = new_game(Rules.from_mapping(entry["rules"]), np.random.default_rng(0), dealer=entry["dealer"],
                    deal=entry["deal"])  # fmt: skip
    for text in entry["actions"]:
        game.apply(game.layout.from_string(text))
    return game


def main(which: str = "search") -> None:
    golden = SETS[which]
    entries = []
    for index, rules in enumerate(golden.rule_sets):
        for hand in range(golden.hands_per_rules):
            for entry in positions(rules, 1000 * index + hand, golden.points):
                game = replay(entry)
                entry["phase"] = game.phase.decision
                entry["decision"] = game.layout.to_string(decide(load_agent(golden.spec, entry["agent_seed"]), game))
                entries.append(entry)
    out = Path(__file__).with_name(golden.file)
    recorded = {"spec": golden.recorded_as or golden.spec, "positions": entries}
    out.write_text(json.dumps(recorded, indent=1) + "\n", encoding="utf-8")
    print(f"{len(entries)} positions written to {out}")


if __name__ == "__main__":
    main(*sys.argv[1:])
