"""The network's derived features against the truth of the game they describe.

At every decision of seeded hands (the heuristic bot in every seat, so that meld, passing and
play look like real hands), the features computed from the acting seat's observation must agree
with the whole game state, which the observation does not hold: cards ``known`` in a hand are
really there, ``unseen`` copies are exactly those in other hands and not known, a ``master`` has
no higher card of its suit in another hand, and the trick winner, the points left and what the
declaring team still needs are the rules' own.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.base import decide
from agents.neural.features import GROUPS, SIZE, PartnershipFeatures
from agents.registry import load_agent
from pinochle_env import Game, Phase, Rules
from pinochle_env import rules as R
from pinochle_env.cards import COUNTING_VALUES, NUM_TYPES, RANK_OF, SUIT_OF, counts_from_cards
from pinochle_env.variants import variant_kit

SEATS = 4


def _split(features: np.ndarray) -> dict[str, np.ndarray]:
    out, start = {}, 0
    for name, size in GROUPS.items():
        out[name] = features[start : start + size]
        start += size
    return out


def played_by(game: Game, seat: int) -> np.ndarray:
    """Copies of each card ``seat`` has played this hand (the trick in progress included)."""
    cards = [c[(seat - leader) % SEATS] for leader, c, _ in game.tricks]
    cards += [c for k, c in enumerate(game.trick) if (game.trick_leader + k) % SEATS == seat]
    return np.array(counts_from_cards(cards))


def _counts(thermometer: np.ndarray) -> np.ndarray:
    return thermometer[..., :NUM_TYPES] + thermometer[..., NUM_TYPES:]


@pytest.mark.parametrize(
    "switches", [{}, {"pass_mode": "simultaneous", "counting": "classic"}, {"pass_count": 0}], ids=["default", "b", "c"]
)
def test_features_agree_with_the_whole_game_state(switches: dict) -> None:
    rules = Rules(**switches)
    kit = variant_kit(rules)
    layer = PartnershipFeatures(kit.spec.offsets, kit.spec.num_bids, rules.counting)
    values = COUNTING_VALUES[rules.counting]
    bots = [load_agent("heuristic", seed=seat) for seat in range(SEATS)]
    checked = {"known": 0, "master": 0, "winning": 0}
    for seed in range(6):
        game = Game(rules, np.random.default_rng(seed))
        encoder = kit.make_encoder()
        while not game.hand_over:
            seat = game.to_act
            observation = encoder.observation(game, seat)
            features = layer(torch.from_numpy(observation)[None])[0, len(observation) :].numpy()
            assert features.shape == (SIZE,)
            f = _split(features)
            others = [(seat + rel) % SEATS for rel in (1, 2, 3)]
            held = np.array([game.hands[s] for s in others])  # the truth: (3, 24)
            known = _counts(f["known"].reshape(3, 48))
            assert (known <= held).all(), "a card is 'known' in a hand that does not hold it"
            # Unseen: copies outside this hand and not played (in other hands, or passed
            # simultaneously and in no hand until the passing ends), less those whose place the
            # seat knows (meld the others showed, cards it passed), not played since.
            transit = np.zeros(NUM_TYPES, int)
            if rules.pass_mode == "simultaneous" and game.phase in (Phase.PASS_TO_DECLARER, Phase.PASS_BACK):
                for card in [*game.passed_to_declarer, *game.passed_back]:
                    transit[card] += 1
            view = game.view(seat)
            passed, received = counts_from_cards(view.cards_passed), counts_from_cards(view.cards_received)
            placed = []
            for rel, s in zip((1, 2, 3), others, strict=True):
                shown = np.array(game.meld_of(s).shown if game.melds[s] is not None else [0] * NUM_TYPES)
                gave = np.clip(np.array(passed) - np.array(received), 0, None) if rel == 2 else 0
                placed.append(np.clip(np.maximum(shown, gave) - played_by(game, s), 0, None))
            unseen = held.sum(axis=0) + transit - np.sum(placed, axis=0)
            assert (_counts(f["unseen"]) == unseen).all()
            checked["known"] += int(known.sum())
            out = held.sum(axis=0) + transit  # still to be played, wherever it is now
            for t in range(NUM_TYPES):
                higher_out = sum(
                    out[u] for u in range(NUM_TYPES) if SUIT_OF[u] == SUIT_OF[t] and RANK_OF[u] > RANK_OF[t]
                )
                assert f["master"][t] == float(higher_out == 0), t
                checked["master"] += int(higher_out == 0 and game.hands[seat][t] > 0)
            winner = f["winning"][:SEATS]
            if game.trick:
                position = R.trick_winner(game.trick, game.trump)
                relative = (game.trick_leader + position - seat) % SEATS
                assert winner.tolist() == [float(rel == relative) for rel in range(SEATS)]
                assert f["winning"][4] == float(relative % 2 == 0) and f["winning"][5] == float(relative == 2)
                checked["winning"] += 1
            else:
                assert not winner.any()
            taken = sum(game.trick_points) / 250
            assert f["points"][0] == pytest.approx(1 - taken, abs=1e-6)
            assert f["points"][1] == pytest.approx(R.trick_points(game.trick, values, False) / 250, abs=1e-6)
            if game.declarer >= 0 and all(m is not None for m in game.melds):
                team = game.declarer % 2
                meld = game.meld_of(game.declarer).points + game.meld_of((game.declarer + 2) % SEATS).points
                need = np.clip((game.contract - meld - game.trick_points[team]) / 250, -1, 2)
                assert f["contract"][0] == pytest.approx(need, abs=1e-5)
                assert f["contract"][1] == float(team == seat % 2)
            game.apply(decide(bots[seat], game))
    assert min(checked.values()) > 20, checked  # the checks were not vacuous
