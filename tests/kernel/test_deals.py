"""Deal drawing (``pinochle_env.kernel.sample_deals``): every deal drawn for a seat's view is one the
view could come from (replayed through the engine, it reaches the same view), in the partnership and
the cutthroat game, at card play and before the meld.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import decide
from agents.search.original.sampling import DealSampler
from pinochle_env import Rules
from pinochle_env.cards import NUM_TYPES
from pinochle_env.kernel import sample_deals
from pinochle_env.kernel.compiled import tricks as T
from pinochle_env.kernel.state import card_values
from tests.helpers import after_auction, play_views

pytestmark = pytest.mark.usefixtures("search_kernel")


@pytest.mark.parametrize(
    "rules",
    [
        Rules(),
        Rules(pass_mode="simultaneous", head_rule="highest_led", counting="classic"),
        Rules(pass_count=0, head_rule="led_card", must_overtrump=False),
    ],
    ids=["default", "simultaneous-highest_led", "0-led_card"],
)
def test_drawn_deals_replay_to_the_view(rules):
    """Every drawn deal is a deal the seat's view could come from: replayed through the engine
    (agents.search.original.sampling.DealSampler.build_game, the reference), it reaches the same view, the meld
    included but for the draws made without the meld condition."""
    rng = np.random.default_rng(0)
    deals_seen = moved = fallback = 0
    for game, view in play_views(rules, range(6)):
        deals = sample_deals(view, 12, seed=deals_seen)
        reference = DealSampler(view)
        for d in range(len(deals)):
            hands = [[int(n) for n in hand] for hand in deals.hands[d]]
            replayed = reference.build_game(hands, rng)
            assert replayed is not None, "a drawn deal breaks the play"
            seen = replayed.view(view.seat)
            if deals.modes[d] == 2:
                fallback += 1
                seen.meld = view.meld
            assert seen == view
            moved += hands != [list(hand) for hand in game.hands]
            deals_seen += 1
    assert moved >= deals_seen // 2
    assert fallback <= deals_seen // 50


def test_cutthroat_deals_keep_the_cards_the_plays_and_the_meld():
    for game, view in play_views(Rules(variant="cutthroat"), range(6)):
        deals = sample_deals(view, 10, seed=1)
        played_by = np.zeros((3, NUM_TYPES), dtype=np.int64)
        for leader, cards, _ in [*view.tricks, (view.trick_leader, view.trick, -1)]:
            for position, c in enumerate(cards):
                played_by[(leader + position) % 3, c] += 1
        for d in range(len(deals)):
            hands = deals.hands[d].astype(np.int64)
            assert (hands[view.seat] == view.hand).all()
            assert (hands.sum(axis=1) == np.array([sum(h) for h in game.hands])).all()
            buried = 2 - hands.sum(axis=0) - played_by.sum(axis=0)
            assert (buried >= 0).all() and buried.sum() == 3
            values = card_values(view.rules)
            assert deals.bonus[d] == (buried * values).sum()
            shown = np.zeros(NUM_TYPES, dtype=np.int64)
            for p in range(3):
                at_meld = hands[p] + played_by[p] + (buried if p == view.declarer else 0)
                if p != view.seat and deals.modes[d] < 2:
                    points = T.meld(at_meld, view.trump, 0, shown)
                    assert (points, tuple(shown)) == (view.meld[p].points, view.meld[p].shown)


def test_deals_before_meld_keep_the_seat_hand_and_every_card():
    rules = Rules(pass_mode="sequential")
    game, agents = after_auction(rules, 3)
    game.apply(decide(agents[game.to_act], game))  # trump
    for _ in range(4):  # the partner passes to the declarer
        game.apply(decide(agents[game.to_act], game))
    view = game.view(game.to_act)  # the declarer, holding its partner's four cards
    deals = sample_deals(view, 20, seed=2)
    assert deals.dealt and len(deals) == 20
    dealt = np.array([np.bincount(hand, minlength=NUM_TYPES) for hand in game.deal])
    received = np.bincount(view.cards_received, minlength=NUM_TYPES)
    for d in range(len(deals)):
        hands = deals.hands[d].astype(np.int64)
        assert (hands[view.seat] == dealt[view.seat]).all()
        assert (hands.sum(axis=0) == 2).all() and (hands.sum(axis=1) == 12).all()
        assert (hands[(view.seat + 2) % 4] >= received).all()


def test_partner_deals_during_the_pass_back_allow_a_returned_card():
    """The declarer may pass back a card its partner just gave it: the partner's view then shows
    that card received, and its deals must not put it in the declarer's dealt hand as well (here
    the partner was dealt both copies, so the declarer was dealt none)."""
    rules = Rules(pass_mode="sequential")
    games = (after_auction(rules, seed)[0] for seed in range(100))
    game = next(g for g in games if 2 in g.hands[(g.declarer + 2) % 4])
    partner = (game.declarer + 2) % 4
    pair = game.hands[partner].index(2)
    game.apply(game.layout.trump0)
    others = [c for c in range(NUM_TYPES) if game.hands[partner][c] and c != pair]
    for c in [pair, *others[:3]]:  # the partner passes one copy of its pair
        game.apply(game.layout.card0 + c)
    game.apply(game.layout.card0 + pair)  # the declarer gives it straight back
    view = game.view(partner)
    deals = sample_deals(view, 20, seed=2)
    assert deals.dealt and len(deals) == 20
    dealt = np.array([np.bincount(hand, minlength=NUM_TYPES) for hand in game.deal])
    for d in range(len(deals)):
        hands = deals.hands[d].astype(np.int64)
        assert (hands[partner] == dealt[partner]).all() and hands[game.declarer][pair] == 0
        assert (hands.sum(axis=0) == 2).all() and (hands.sum(axis=1) == 12).all()
