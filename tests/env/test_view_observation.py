"""An observation built from a seat's information-set view equals the environment's observation.

Agents act on views (the arena's interface); a network trained on the environment's observations
needs exactly the same vector from a view, at every decision, for every seat, under every rule.
"""

import numpy as np
import pytest

from pinochle_env.encoding import observation_from_view
from pinochle_env.games.partnership.encoding import GameEncoder, PartnershipSpec
from pinochle_env.games.partnership.game import NUM_SEATS, Game
from pinochle_env.rules.switches import Rules

RULE_SETS = [
    {},
    {"pass_mode": "simultaneous"},
    {"pass_count": 0, "all_pass": "redeal", "counting": "classic"},
    {"pass_count": 3, "throw_in": "always", "bid_raises": "any", "max_bid": 400},
]


@pytest.mark.parametrize("switches", RULE_SETS, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()) or "default")
def test_view_observation_equals_environment_observation(switches):
    rules = Rules(**switches)
    spec = PartnershipSpec(rules)
    rng = np.random.default_rng(11)
    checked = 0
    for hand in range(12):
        game = Game(rules, np.random.default_rng(hand), totals=(hand * 30, -hand * 20))
        encoder = GameEncoder(spec)
        while not game.hand_over:
            for seat in range(NUM_SEATS):
                expected = encoder.observation(game, seat)
                actual = observation_from_view(spec, game.view(seat))
                differ = np.flatnonzero(actual != expected)
                assert differ.size == 0, [spec.describe(int(i)) for i in differ[:5]]
                checked += 1
            legal = game.legal_actions()
            game.apply(legal[int(rng.integers(len(legal)))])
    assert checked > 1000  # about 12 hands x 30-50 decisions x 4 seats
