"""The batched API's array-based trick play against the engine's rule functions, situation by situation.

The decision-for-decision tests in ``tests/env/test_batched_games.py`` compare whole games; random
play reaches some legality branches rarely (a void hand that must over-trump, a trick headed by a
trump under ``head_rule="highest_led"``). Here the lockstep legality meets ``rules.legal_card_bits``
on thousands of random situations under every trick switch, and the trick winner meets
``rules.trick_winner``.
"""

from __future__ import annotations

import numpy as np
import pytest

from pinochle_env import Rules
from pinochle_env import rules as R
from pinochle_env.cards import NUM_TYPES
from pinochle_env.games.partnership.encoding import PartnershipSpec
from pinochle_env.games.partnership.lockstep import (
    HEADING,
    LEADER,
    NO_CARD,
    POINTS,
    TO_ACT,
    TRICK,
    TRICK_LEN,
    TRUMP,
    WINNER,
    WON,
    LockstepPlay,
)
from pinochle_env.games.partnership.lockstep_hands import LockstepHands
from pinochle_env.rules.switches import CHOICES

SITUATIONS = 3000


def random_situations(rng: np.random.Generator, count: int):
    """(held bits, trick cards, trump) of ``count`` random moments of a trick: a hand of 1 to 12
    cards and 0 to 3 cards already played, drawn from one shuffled deck."""
    for _ in range(count):
        deck = rng.permutation(np.repeat(np.arange(NUM_TYPES), 2))
        hand_size, trick_size = int(rng.integers(1, 13)), int(rng.integers(0, 4))
        held = sum(1 << int(c) for c in set(deck[:hand_size].tolist()))
        yield held, deck[hand_size : hand_size + trick_size].tolist(), int(rng.integers(4))


@pytest.mark.parametrize("must_overtrump", [True, False])
@pytest.mark.parametrize("head_rule", CHOICES["head_rule"])
def test_lockstep_legality_matches_the_rules(head_rule, must_overtrump):
    play = lockstep(Rules(head_rule=head_rule, must_overtrump=must_overtrump))
    situations = list(random_situations(np.random.default_rng(7), SITUATIONS))
    for i, (held, trick, trump) in enumerate(situations):
        seat = i % 4
        play.held[i * 4 + seat] = held
        row = play.state[i]
        row[TO_ACT], row[TRICK_LEN], row[TRUMP] = seat, len(trick), trump
        row[TRICK : TRICK + len(trick)] = trick
        row[HEADING] = trick[R.trick_winner(trick, trump)] if trick else NO_CARD
    legal = play.legal(np.arange(SITUATIONS), play.state)  # one 0/1 flag per card type
    expected = [R.legal_card_bits(held, trick, trump, head_rule, must_overtrump) for held, trick, trump in situations]
    assert legal.tolist() == [[bits >> card & 1 for card in range(NUM_TYPES)] for bits in expected]
    assert len(set(expected)) > SITUATIONS // 6  # varied situations, not one answer over and over


def test_lockstep_trick_winner_matches_the_rules():
    """Four cards played through the lockstep step: the winner it records is ``rules.trick_winner``'s."""
    rng = np.random.default_rng(11)
    play = lockstep(Rules())
    tricks = [rng.permutation(np.repeat(np.arange(NUM_TYPES), 2))[:4].tolist() for _ in range(SITUATIONS)]
    trumps = rng.integers(4, size=SITUATIONS).tolist()
    leaders = rng.integers(4, size=SITUATIONS).tolist()
    for i, (trick, trump, leader) in enumerate(zip(tricks, trumps, leaders, strict=True)):
        row = play.state[i]
        row[TO_ACT] = row[LEADER] = leader
        row[HEADING], row[TRUMP] = NO_CARD, trump
        for k, card in enumerate(trick):
            play.hands[(i * 4 + (leader + k) % 4) * NUM_TYPES + card] += 1
    rows = np.arange(SITUATIONS)
    for k in range(4):
        play.play(rows, np.array([trick[k] for trick in tricks]))
    recorded = play.history[rows * 12, WINNER - TRICK]  # each game's first trick
    situations = zip(tricks, trumps, leaders, strict=True)
    expected = [(leader + R.trick_winner(trick, trump)) % 4 for trick, trump, leader in situations]
    assert recorded.tolist() == expected
    assert (play.state[:, TO_ACT] == recorded).all()  # the winner leads next


def lockstep(rules: Rules) -> LockstepPlay:
    """A lockstep play phase for ``SITUATIONS`` games, writing into a scratch observation buffer."""
    spec = PartnershipSpec(rules)
    return LockstepPlay(SITUATIONS, spec, np.zeros((SITUATIONS, 4, spec.size), dtype=np.float32))


@pytest.mark.parametrize("applies_to", CHOICES["save_meld_applies_to"])
@pytest.mark.parametrize("save_meld", CHOICES["save_meld"])
def test_hands_scored_in_the_arrays_as_by_the_rules(save_meld, applies_to):
    """A hand scored in the arrays (one-hand episodes without records) is ``rules.score_hand`` of
    its declarer, contract, meld, trick points and tricks under the save-meld switches. Random play
    seldom leaves a team without a point or a trick, so the batched-versus-env tests alone would
    not show a switch ignored."""
    rules = Rules(save_meld=save_meld, save_meld_applies_to=applies_to, target_score=500)
    spec = PartnershipSpec(rules)
    hands = LockstepHands(SITUATIONS, spec, np.zeros((SITUATIONS, 4, spec.size), dtype=np.float32))
    rng = np.random.default_rng(12)
    outcomes = set()
    for i in range(SITUATIONS):
        declarer, contract, thrown = int(rng.integers(4)), int(rng.choice([250, 300, 400])), bool(rng.random() < 0.2)
        meld = rng.choice([0, 20, 40, 150], size=4)
        points = [0, 250] if rng.random() < 0.5 else sorted([int(rng.integers(251)), 250])  # one team may take none
        tricks = [0 if p == 0 else int(rng.integers(1, 12)) for p in points]
        if rng.random() < 0.5:
            points, tricks = points[::-1], tricks[::-1]
        hands.declarer[i], hands.contract[i], hands.thrown[i], hands.meld[i] = declarer, contract, thrown, meld
        hands.state[i, POINTS : POINTS + 2], hands.state[i, WON : WON + 2] = points, tricks
        team = declarer & 1
        team_meld = [int(meld[0] + meld[2]), int(meld[1] + meld[3])]
        expected = R.score_hand(team, contract, team_meld, points, tricks, thrown, save_meld, applies_to).score
        winner = R.game_winner(list(expected), team, 500)
        assert hands.score(i) == (list(expected), winner), i
        outcomes.add((tuple(expected), winner))
    assert len(outcomes) > 100  # varied situations
