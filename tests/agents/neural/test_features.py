"""The network's derived features against the truth of the game they describe.

At every decision of seeded hands (the heuristic bot in every seat, so that meld, passing and
play look like real hands), the features computed from the acting seat's observation must agree
with the whole game state, which the observation does not hold: cards ``known`` in a hand are
really there, ``unseen`` copies are exactly those in other hands and not known, a ``master`` has
no higher card of its suit in another hand, a seat the observation shows void in a suit holds none
of it, and the trick winner, the points left and what the declaring team still needs are the
rules' own.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.base import decide
from agents.neural.features import CARD_GROUPS, CARD_SIZE, GROUPS, SIZE, PartnershipFeatures
from agents.registry import load_agent
from pinochle_env import Game, Phase, Rules
from pinochle_env import rules as R
from pinochle_env.cards import COUNTING_VALUES, NUM_TYPES, RANK_OF, SUIT_OF, counts_from_cards
from pinochle_env.games.kit import variant_kit

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
    checked = {"known": 0, "master": 0, "winning": 0, "voids": 0, "beats": 0, "does_not_beat": 0}
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
            voids = observation[kit.spec.piece("voids").slice].reshape(SEATS, 4)  # the encoder's, me first
            shown = np.zeros((SEATS, 4))  # what the play so far shows, relative seats
            for leader, cards in [*((lead, c) for lead, c, _ in game.tricks), (game.trick_leader, game.trick)]:
                for position, card in enumerate(cards[1:], start=1):
                    rel, led = (leader + position - seat) % SEATS, SUIT_OF[cards[0]]
                    if SUIT_OF[card] != led:
                        shown[rel, led] = 1
                        if SUIT_OF[card] != game.trump and led != game.trump:
                            shown[rel, game.trump] = 1
            assert (voids == shown).all()
            for rel, s in enumerate([seat, *others]):
                for suit in np.flatnonzero(voids[rel]):
                    assert not any(game.hands[s][t] for t in range(NUM_TYPES) if SUIT_OF[t] == suit), (s, suit)
                    checked["voids"] += 1
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
            check_card_features(layer, observation, game, seat, checked)
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


def check_card_features(
    layer: PartnershipFeatures, observation: np.ndarray, game: Game, seat: int, checked: dict
) -> None:
    """The card-centred head's input for each card type: my copies, the master flag and the suit
    flags are the game's, and a card of my hand "beats" exactly when playing it would win the
    trick in progress as it stands (never when leading)."""
    x = torch.from_numpy(observation)[None]
    parts = layer.parts(x)
    cards = layer.card_features(parts)[0].numpy()
    assert cards.shape == (NUM_TYPES, CARD_SIZE)
    column = {name: k for k, name in enumerate(CARD_GROUPS)}
    assert (cards[:, column["mine"]] * 2 == np.array(game.hands[seat])).all()
    assert (cards[:, column["master"]] == _split(layer(x)[0, len(observation) :].numpy())["master"]).all()
    led = SUIT_OF[game.trick[0]] if game.trick else None
    for t in range(NUM_TYPES):
        assert cards[t, column["trump"]] == float(SUIT_OF[t] == game.trump)  # trump is -1 until named
        assert cards[t, column["led_suit"]] == float(SUIT_OF[t] == led)
        if game.phase != Phase.PLAY or not game.hands[seat][t]:
            continue
        beats = bool(game.trick) and R.trick_winner([*game.trick, t], game.trump) == len(game.trick)
        assert cards[t, column["beats"]] == float(beats), (game.trick, t)
        checked["beats" if beats else "does_not_beat"] += 1


def test_hand_value_holds_the_meld_of_every_trump() -> None:
    """The ``hand_value`` group's meld per trump is ``rules.meld``'s (run_extras="consume") on random
    hands of 12, 18 and 24 cards."""
    from pinochle_env.cards import counts_from_cards
    from pinochle_env.engine import shuffled_deck

    kit = variant_kit(Rules())
    layer = PartnershipFeatures(kit.spec.offsets, kit.spec.num_bids)
    rng = np.random.default_rng(5)
    hands = [counts_from_cards(shuffled_deck(rng)[: 12 + 6 * (k % 3)]) for k in range(3000)]
    got = layer.hand_value(torch.tensor(hands, dtype=torch.float32))[:, :4].numpy() * 1000
    want = np.array([[R.meld(hand, trump, "consume").points for trump in range(4)] for hand in hands])
    assert (got.round() == want).all()
    assert (want >= 150).any()  # runs and better were among them
