"""The partnership game's search adapter (``pinochle_env.games.partnership.search``): its vectorised
hand scores, which the search kernel's simulations use, equal the rules' ``score_hand`` under every
save-meld switch."""

from __future__ import annotations

import itertools

import numpy as np

from pinochle_env import Rules
from pinochle_env import rules as R
from pinochle_env.games.partnership.search import partnership_scores
from pinochle_env.rules.switches import CHOICES


def test_vectorised_partnership_scores_equal_the_rules():
    rng = np.random.default_rng(5)
    for save_meld, applies in itertools.product(CHOICES["save_meld"], CHOICES["save_meld_applies_to"]):
        rules = Rules(save_meld=save_meld, save_meld_applies_to=applies)
        count = 400
        meld = rng.integers(0, 30, (count, 4)) * 10
        points = np.zeros((count, 4), dtype=np.int64)
        tricks = np.zeros((count, 4), dtype=np.int64)
        team_points = rng.choice([0, 0, 10, 120, 240, 250], count)
        points[:, 0], points[:, 1] = team_points, 250 - team_points
        tricks[:, 0] = rng.integers(0, 13, count)
        tricks[:, 1] = 12 - tricks[:, 0]
        thrown = rng.random(count) < 0.2
        declarer = int(rng.integers(4))
        contract = rng.integers(25, 40, count) * 10
        got = partnership_scores(rules, declarer, contract, meld, points, tricks, thrown)
        for i in range(count):
            team = [meld[i, 0] + meld[i, 2], meld[i, 1] + meld[i, 3]]
            expected = R.score_hand(declarer % 2, contract[i], team, points[i, :2], tricks[i, :2], thrown[i],
                                    save_meld, applies)  # fmt: skip
            assert tuple(got[i]) == expected.score, (save_meld, applies, i)
