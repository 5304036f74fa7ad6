"""Scenario tests of the game state machine, driven through ``Game.apply`` with preset deals."""

from __future__ import annotations

import json
import pickle
from collections import Counter

import numpy as np
import pytest

from pinochle_env import rules as R
from pinochle_env.cards import (
    COPIES,
    NUM_TYPES,
    RANK_OF,
    SUIT_OF,
    SUITS,
    card_from_str,
    counts_from_cards,
    parse_cards,
    suit_from_str,
)
from pinochle_env.engine import IllegalActionError
from pinochle_env.games.partnership.game import Game, Phase
from pinochle_env.rules.switches import Rules
from tests.helpers import S8_DEAL

ALL_CARDS = [c for c in range(NUM_TYPES) for _ in range(COPIES)]

#: Rule switches and their values as the rules spec spells them (default first).
SPEC_SWITCHES = {
    "variant": ["partnership"],
    "bid_raises": ["seed", "any"],
    "pass_with_help": [True, False],
    "all_pass": ["dealer_stuck", "redeal"],
    "pass_count": [4, 3, 0],
    "pass_mode": ["sequential", "simultaneous"],
    "throw_in": ["seed", "always", "never"],
    "run_extras": ["consume", "reuse", "royal_in_run"],
    "head_rule": ["winner", "highest_led", "led_card", "trump_lead_only", "none"],
    "must_overtrump": [True, False],
    "counting": ["counters", "ak10_kq5", "classic"],
    "save_meld": ["points", "trick", "none"],
    "save_meld_applies_to": ["defenders", "both"],
}
#: Trick points per rank letter, our own transcription of the counting tables.
COUNTING = {
    "counters": {"A": 10, "T": 10, "K": 10, "Q": 0, "J": 0, "9": 0},
    "ak10_kq5": {"A": 10, "T": 10, "K": 5, "Q": 5, "J": 0, "9": 0},
    "classic": {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0},
}


def new_game(rules: Rules | None = None, dealer: int = 3, deal=S8_DEAL, seed: int = 0, **kwargs) -> Game:
    return Game(rules or Rules(), rng=np.random.default_rng(seed), dealer=dealer, deal=deal, **kwargs)


def action(game: Game, call) -> int:
    """Action id of a call: a bid value, "pass", "help", "trump X", "throw in", "play on", or a card."""
    layout = game.layout
    if isinstance(call, int):
        return layout.bid_action(call)
    named = {"pass": layout.passing, "help": layout.help, "throw in": layout.throw_in, "play on": layout.play_on}
    if call in named:
        return named[call]
    if call.startswith("trump "):
        return layout.trump_action(suit_from_str(call[6:]))
    return layout.card_action(card_from_str(call))


def play(game: Game, *calls) -> None:
    for call in calls:
        game.apply(action(game, call))


def random_finish(game: Game, rng: np.random.Generator) -> None:
    while not game.hand_over:
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])


def counts(text: str) -> list[int]:
    return counts_from_cards(parse_cards(text.split()))


def bids(game: Game) -> list[int]:
    return [game.layout.bid_value(a) for a in game.legal_actions() if a < game.layout.num_bids]


def snapshot(game: Game):
    return (
        pickle.dumps(game),
        [list(h) for h in game.hands],
        list(game.events),
        game.phase,
        game.to_act,
        list(game.auction),
        list(game.trick),
        list(game.passed_to_declarer),
        list(game.passed_back),
    )


def card_census(game: Game) -> Counter:
    """Every card the hand holds somewhere: hands, completed tricks, trick in progress, in flight."""
    census: Counter = Counter()
    for hand in game.hands:
        for c, k in enumerate(hand):
            census[c] += k
    for _, cards, _ in game.tricks:
        census.update(cards)
    census.update(game.trick)
    in_flight = game.rules.pass_mode == "simultaneous" and game.phase in (Phase.PASS_TO_DECLARER, Phase.PASS_BACK)
    if in_flight:
        census.update(game.passed_to_declarer)
        census.update(game.passed_back)
    return census


def reference_winner(cards: list[int], trump: int) -> int:
    led = SUIT_OF[cards[0]]

    def strength(c):
        return (2, RANK_OF[c]) if SUIT_OF[c] == trump else (1, RANK_OF[c]) if SUIT_OF[c] == led else (0, 0)

    best = max(map(strength, cards))
    return next(i for i, c in enumerate(cards) if strength(c) == best)


# ============================================================================================
# Auction


def test_all_pass_dealer_stuck():
    game = new_game(dealer=3)
    assert game.to_act == 0
    play(game, "pass", "help", "pass")
    assert game.phase == Phase.TRUMP
    assert (game.declarer, game.contract, game.to_act) == (3, 250, 3)
    assert game.auction == [(0, "pass"), (1, "help"), (2, "pass")]
    play(game, "trump C")
    random_finish(game, np.random.default_rng(1))
    record = game.record()
    assert record["auction"] == [[0, "pass"], [1, "help"], [2, "pass"]]
    assert all(seat != 3 for seat, _ in record["auction"])
    assert (record["declarer"], record["bid"]) == (3, 250)


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_all_pass_dealer_stuck_any_dealer(dealer):
    game = new_game(dealer=dealer)
    seats = []
    for _ in range(3):
        seats.append(game.to_act)
        play(game, "pass")
    assert seats == [(dealer + 1) % 4, (dealer + 2) % 4, (dealer + 3) % 4]
    assert (game.declarer, game.contract, game.phase) == (dealer, 250, Phase.TRUMP)


def test_all_pass_redeal():
    game = new_game(Rules(all_pass="redeal"), dealer=3)
    old_deal = [list(h) for h in game.deal]
    play(game, "pass", "pass", "help")
    assert game.phase == Phase.AUCTION
    assert game.dealer == 3
    assert game.to_act == 0
    assert game.auction == [] and game.high_bid == 0 and game.declarer == -1
    assert game.deal != old_deal  # a new shuffle
    assert sorted(c for h in game.deal for c in h) == ALL_CARDS
    assert [sum(h) for h in game.hands] == [12] * 4
    assert game.events[0][:3] == (0, 3, (0, 0))  # HAND_START by the same dealer, events restarted
    assert len(game.events) == 5  # the start and four deals: the abandoned auction is gone
    assert all(view.auction == [] for view in map(game.view, range(4)))
    with pytest.raises(RuntimeError):
        game.record()  # the abandoned deal produces no hand record
    # and the auction runs again from dealer + 1
    play(game, 250, "pass", "pass", "pass")
    assert (game.declarer, game.contract) == (0, 250)


def test_redeal_twice_keeps_dealer():
    game = new_game(Rules(all_pass="redeal"), dealer=1)
    deals = [game.deal]
    for _ in range(2):
        play(game, "pass", "pass", "pass")
        assert (game.dealer, game.to_act, game.phase) == (1, 2, Phase.AUCTION)
        deals.append(game.deal)
    assert deals[0] != deals[1] != deals[2]


def test_bid_raises_seed():
    game = new_game(dealer=3)
    assert bids(game) == [250, 260]
    play(game, 260)
    assert bids(game) == [270, 280]
    play(game, "pass", 280)
    assert bids(game) == [290, 300]
    with pytest.raises(IllegalActionError):
        game.apply(action(game, 310))
    with pytest.raises(IllegalActionError):
        game.apply(action(game, 280))


def test_bid_raises_any():
    game = new_game(Rules(bid_raises="any"), dealer=3)
    assert bids(game) == list(range(250, 1001, 10))
    play(game, 250)
    assert bids(game) == list(range(260, 1001, 10))
    play(game, 700)
    assert bids(game) == list(range(710, 1001, 10))
    play(game, "pass", "pass", 1000)
    assert bids(game) == []
    assert game.legal_actions() == [game.layout.passing, game.layout.help]


@pytest.mark.parametrize("bid_raises", ["seed", "any"])
def test_max_bid_caps(bid_raises):
    game = new_game(Rules(bid_raises=bid_raises, max_bid=300), dealer=3)
    assert game.layout.num_bids == 6
    assert bids(game) == ([250, 260] if bid_raises == "seed" else [250, 260, 270, 280, 290, 300])
    play(game, 260, 280)
    assert bids(game) == [290, 300]
    play(game, 290)
    assert bids(game) == [300]
    play(game, 300)
    assert bids(game) == []
    play(game, "pass", "pass", "pass")
    assert (game.declarer, game.contract) == (3, 300)


def test_pass_with_help_false():
    game = new_game(Rules(pass_with_help=False), dealer=3)
    assert game.layout.help not in game.legal_actions()
    assert game.layout.passing in game.legal_actions()
    with pytest.raises(IllegalActionError):
        game.apply(game.layout.help)
    assert new_game(dealer=3).layout.help in new_game(dealer=3).legal_actions()


def test_auction_skips_passed_players():
    game = new_game(dealer=3)
    play(game, 250, "pass", "pass", 260)
    assert game.to_act == 0
    play(game, 270)
    assert game.to_act == 3  # seats 1 and 2 passed
    play(game, "pass")
    assert (game.declarer, game.contract, game.phase) == (0, 270, Phase.TRUMP)


def test_help_flag_visible_to_all():
    game = new_game(dealer=3)
    play(game, 250, "help", "pass")
    for seat in range(4):
        view = game.view(seat)
        assert view.auction == [(0, 250), (1, "help"), (2, "pass")]
        assert (view.high_bid, view.high_bidder) == (250, 0)


# ============================================================================================
# Throw-in


def throw_in_game(throw_in: str, contract: int) -> Game:
    """S8 deal, dealer 3, no passing: seat 0 declares ``contract`` in clubs; team 0 melds 80, team 1 60."""
    game = new_game(Rules(throw_in=throw_in, pass_count=0, bid_raises="any"), dealer=3)
    play(game, contract, "pass", "pass", "pass", "trump C")
    return game


def test_throw_in_deal_meld():
    clubs = SUITS.index("C")
    melds = [R.meld(counts(" ".join(hand)), clubs).points for hand in S8_DEAL]
    assert melds == [80, 40, 0, 20]
    game = throw_in_game("never", 250)
    assert [m.points for m in game.melds] == melds


@pytest.mark.parametrize("throw_in", ["seed", "always", "never"])
@pytest.mark.parametrize("contract", [340, 330, 320, 250])  # short 260, 250, 240, 170
def test_throw_in_branches(throw_in, contract):
    game = throw_in_game(throw_in, contract)
    short = contract - 80
    if throw_in == "always" or (throw_in == "seed" and short == 250):
        assert game.phase == Phase.THROW_IN
        assert game.to_act == 0
        assert game.legal_actions() == [game.layout.throw_in, game.layout.play_on]
        assert game.thrown_in is None
    elif throw_in == "seed" and short > 250:
        assert game.phase == Phase.HAND_OVER
        assert game.thrown_in is True
        assert game.score == (-contract, 60)
        record = game.record()
        assert record["tricks"] == [] and record["points"] == [0, 0]
        assert record["score"] == [-contract, 60]
    else:
        assert game.phase == Phase.PLAY
        assert game.thrown_in is False
        assert (game.to_act, game.trick_leader) == (0, 0)


@pytest.mark.parametrize("throw_in", ["seed", "always"])
def test_throw_in_choice(throw_in):
    contract = 330  # short == 250: a choice under both
    game = throw_in_game(throw_in, contract)
    play(game, "throw in")
    assert game.phase == Phase.HAND_OVER
    assert game.score == (-contract, 60)
    assert game.totals == [-contract, 60]
    assert game.record()["thrown_in"] is True

    game = throw_in_game(throw_in, contract)
    play(game, "play on")
    assert game.phase == Phase.PLAY and game.thrown_in is False and game.to_act == 0
    random_finish(game, np.random.default_rng(3))
    assert len(game.record()["tricks"]) == 12


def test_throw_in_always_with_small_short():
    game = throw_in_game("always", 250)
    play(game, "throw in")
    assert game.score == (-250, 60)


def test_never_plays_hopeless_hand():
    game = throw_in_game("never", 340)
    random_finish(game, np.random.default_rng(4))
    record = game.record()
    assert record["thrown_in"] is False
    assert len(record["tricks"]) == 12
    assert sum(record["points"]) == 250
    assert record["score"][0] == -340  # 80 meld + at most 250 points < 340


# ============================================================================================
# Passing


def declare_seat0(rules: Rules) -> Game:
    game = new_game(rules, dealer=3)
    play(game, 250, "pass", "pass", "pass", "trump C")
    return game


def test_simultaneous_passing_hides_partner_cards():
    game = declare_seat0(Rules(pass_mode="simultaneous"))
    dealt0, dealt2 = counts(" ".join(S8_DEAL[0])), counts(" ".join(S8_DEAL[2]))
    assert game.phase == Phase.PASS_TO_DECLARER and game.to_act == 2
    to_declarer = ["AS", "AH", "KD", "KD"]  # cards seat 0 was not dealt
    for c in to_declarer:
        play(game, c)
        assert game.view(0).hand == dealt0
        assert game.view(0).cards_received == []
    assert game.phase == Phase.PASS_BACK and game.to_act == 0
    back = ["9H", "9H", "JH", "TH"]
    for i, c in enumerate(back):
        view = game.view(0)
        assert view.cards_received == []
        expected = list(dealt0)
        for p in back[:i]:
            expected[card_from_str(p)] -= 1
        assert view.hand == expected
        # the declarer passes only from the 12 it was dealt
        assert sorted(a - game.layout.card0 for a in view.legal_actions) == [t for t in range(NUM_TYPES) if expected[t]]
        with pytest.raises(IllegalActionError):
            game.apply(action(game, "AS"))
        # the partner has not seen the declarer's cards either
        assert game.view(2).cards_received == []
        assert game.view(2).hand == [a - b for a, b in zip(dealt2, counts(" ".join(to_declarer)), strict=True)]
        play(game, c)
    assert game.phase not in (Phase.PASS_TO_DECLARER, Phase.PASS_BACK)
    assert game.view(0).cards_received == parse_cards(to_declarer)
    assert game.view(2).cards_received == parse_cards(back)
    assert game.view(0).cards_passed == parse_cards(back)
    assert game.hands[0] == [
        d - b + t for d, b, t in zip(dealt0, counts(" ".join(back)), counts(" ".join(to_declarer)), strict=True)
    ]
    for seat in (1, 3):  # the defenders see nothing of it
        assert game.view(seat).cards_received == [] and game.view(seat).cards_passed == []
        assert game.view(seat).hand == counts(" ".join(S8_DEAL[seat]))


def test_simultaneous_declarer_cannot_pass_received_card():
    game = declare_seat0(Rules(pass_mode="simultaneous"))
    play(game, "AS", "AH", "KD", "KD")
    assert card_from_str("AS") not in [a - game.layout.card0 for a in game.legal_actions()]


def test_sequential_passing_declarer_passes_back_received_cards():
    game = declare_seat0(Rules())
    dealt0 = counts(" ".join(S8_DEAL[0]))
    received = ["AS", "AH", "KD", "KD"]
    play(game, *received)
    view = game.view(0)
    assert view.cards_received == parse_cards(received)
    assert view.hand == [d + r for d, r in zip(dealt0, counts(" ".join(received)), strict=True)]
    assert game.layout.card_action(card_from_str("AS")) in game.legal_actions()
    play(game, "AS", "KD", "KD", "AH")
    assert game.passed_back == parse_cards(["AS", "KD", "KD", "AH"])
    assert game.hands[0] == dealt0
    assert game.view(2).cards_received == parse_cards(["AS", "KD", "KD", "AH"])
    assert game.view(1).cards_received == [] and game.view(3).cards_received == []


def test_pass_count_three():
    game = declare_seat0(Rules(pass_count=3))
    play(game, "AS", "AH", "KD")
    assert game.phase == Phase.PASS_BACK and game.to_act == 0
    assert [sum(h) for h in game.hands] == [15, 12, 9, 12]
    play(game, "9H", "9H", "JH")
    assert game.phase not in (Phase.PASS_TO_DECLARER, Phase.PASS_BACK)
    assert [sum(h) for h in game.hands] == [12] * 4
    random_finish(game, np.random.default_rng(0))
    record = game.record()
    assert record["passed_to_declarer"] == ["AS", "AH", "KD"]
    assert record["passed_back"] == ["9H", "9H", "JH"]


def test_pass_count_zero():
    game = declare_seat0(Rules(pass_count=0))
    assert game.phase == Phase.PLAY  # meld 80, contract 250: played
    assert game.melds[0].points == 80
    random_finish(game, np.random.default_rng(0))
    record = game.record()
    assert record["passed_to_declarer"] == [] and record["passed_back"] == []


# ============================================================================================
# Game end


def big_meld_deal(declarer: int) -> list[list[str]]:
    """Declarer: double pinochle (300 with trump D); left of it: aces abound (1000)."""
    d_hand = ["QS", "QS", "JD", "JD", "9S", "9S", "9H", "9H", "9C", "9C", "JS", "JH"]
    o_hand = ["AS", "AS", "AH", "AH", "AD", "AD", "AC", "AC"]
    rest = Counter(ALL_CARDS) - Counter(parse_cards(d_hand + o_hand))
    rest_cards = [f"{'9JQKTA'[RANK_OF[c]]}{SUITS[SUIT_OF[c]]}" for c in sorted(rest.elements())]
    o_hand += rest_cards[:4]
    deal = [None] * 4
    deal[declarer] = d_hand
    deal[(declarer + 1) % 4] = o_hand
    deal[(declarer + 2) % 4] = rest_cards[4:16]
    deal[(declarer + 3) % 4] = rest_cards[16:28]
    return deal


@pytest.mark.parametrize("declarer", [0, 1])
def test_both_teams_cross_declaring_team_wins(declarer):
    team = declarer % 2
    totals = (1400, 1450) if team == 0 else (1450, 1400)
    game = new_game(
        Rules(pass_count=0, save_meld="none"), dealer=(declarer + 3) % 4, deal=big_meld_deal(declarer), totals=totals
    )
    play(game, 250, "pass", "pass", "pass", "trump D")
    assert game.declarer == declarer
    team_meld = [game.melds[team].points + game.melds[team + 2].points for team in (0, 1)]
    assert team_meld[team] >= 300 and team_meld[1 - team] >= 1000
    random_finish(game, np.random.default_rng(7))
    assert game.made is True
    assert min(game.totals) >= 1500
    assert game.totals[1 - team] > game.totals[team]  # the defenders are ahead, yet
    assert game.winner == team
    assert game.game_over
    assert game.record()["game_winner"] == team
    with pytest.raises(RuntimeError):
        game.next_hand()


def test_defenders_cross_after_throw_in():
    # The spec's example hand: team 1 throws in at 270, team 0 melds 80.
    game = new_game(dealer=3, totals=(1450, 1180))
    play(game, 250, 270, "pass", "help", "pass", "trump C", "9D", "AS", "KH", "AD", "QS", "AC", "9S", "AD")
    assert game.totals == [1530, 910]
    assert game.winner == 0


def test_no_winner_below_target():
    game = new_game(dealer=3, totals=(1400, 0))
    play(game, 250, 270, "pass", "help", "pass", "trump C", "9D", "AS", "KH", "AD", "QS", "AC", "9S", "AD")
    assert game.totals == [1480, -270]
    assert game.winner is None and not game.game_over
    game.next_hand()
    assert game.dealer == 0 and game.to_act == 1 and game.phase == Phase.AUCTION
    assert game.view(0).totals == [1480, -270]


# ============================================================================================
# Errors


def test_illegal_action_raises_and_leaves_state():
    game = new_game(dealer=3)
    assert issubclass(IllegalActionError, ValueError)
    checkpoints = [
        (300, "bid 300"),  # auction: not a legal raise
        ("trump H", "trump hearts"),
        ("AS", "AS"),
    ]
    for call, name in checkpoints:
        before = snapshot(game)
        legal_names = [game.layout.to_string(a) for a in game.legal_actions()]
        with pytest.raises(IllegalActionError) as info:
            game.apply(action(game, call))
        message = str(info.value)
        assert name in message
        assert "legal" in message
        for legal_name in legal_names:
            assert legal_name in message
        assert snapshot(game) == before
    # move on to the play phase and try again there
    play(game, 250, "pass", "pass", "pass", "trump C", "AS", "AH", "KD", "KD", "AS", "AH", "KD", "KD")
    assert game.phase == Phase.PLAY
    illegal = next(a for a in range(game.layout.card0, game.layout.throw_in) if a not in game.legal_actions())
    before = snapshot(game)
    with pytest.raises(IllegalActionError) as info:
        game.apply(illegal)
    assert game.layout.to_string(illegal) in str(info.value)
    assert snapshot(game) == before
    # out-of-range ids
    for bad in (-1, game.layout.size, 10_000):
        with pytest.raises(IllegalActionError) as info:
            game.apply(bad)
        assert str(bad) in str(info.value)
        assert snapshot(game) == before


def test_illegal_action_after_hand_over():
    game = throw_in_game("seed", 340)
    assert game.hand_over
    before = snapshot(game)
    with pytest.raises(IllegalActionError):
        game.apply(game.layout.passing)
    assert snapshot(game) == before


@pytest.mark.parametrize(
    ("make", "switch", "allowed"),
    [
        (lambda: Rules(head_rule="x"), "head_rule", SPEC_SWITCHES["head_rule"]),
        (lambda: Rules(pass_count=True), "pass_count", ["4", "3", "0"]),
        (lambda: Rules(counting="pinochle"), "counting", SPEC_SWITCHES["counting"]),
        (lambda: Rules(throw_in="sometimes"), "throw_in", SPEC_SWITCHES["throw_in"]),
        (lambda: Rules(must_overtrump="yes"), "must_overtrump", ["true", "false"]),
        (lambda: Rules(max_bid=255), "max_bid", []),
        (lambda: Rules(must_overtrump=1), "must_overtrump", ["true", "false"]),  # not a bool
        (lambda: Rules(pass_with_help=0), "pass_with_help", ["true", "false"]),
        (lambda: Rules(pass_count=4.0), "pass_count", ["4", "3", "0"]),  # not an int
        (lambda: Rules(pass_count="4"), "pass_count", ["4", "3", "0"]),
        (lambda: Rules(target_score=1505), "target_score", []),
        (lambda: Rules.from_mapping({"nope": 1}), "nope", ["head_rule", "counting", "pass_mode"]),
        (lambda: Rules().replace(all_pass="shuffle"), "all_pass", SPEC_SWITCHES["all_pass"]),
    ],
)
def test_bad_rule_switch(make, switch, allowed):
    with pytest.raises(ValueError) as info:
        make()
    message = str(info.value)
    assert switch in message
    for value in allowed:
        assert str(value) in message


def test_rules_accept_every_spec_value():
    for switch, values in SPEC_SWITCHES.items():
        assert getattr(Rules(), switch) == values[0]
        for value in values:
            assert getattr(Rules.from_mapping({switch: value}), switch) == value


@pytest.mark.parametrize(
    "deal",
    [
        [h[:11] for h in S8_DEAL],  # 11 cards each
        [S8_DEAL[0][:11], S8_DEAL[1] + [S8_DEAL[0][11]], S8_DEAL[2], S8_DEAL[3]],  # 11 and 13
        [[*S8_DEAL[0][:11], "AS"], S8_DEAL[1], S8_DEAL[2], S8_DEAL[3]],  # three AS, one 9C
        [[*S8_DEAL[0][:11], "XX"], S8_DEAL[1], S8_DEAL[2], S8_DEAL[3]],  # not a card
        [[*S8_DEAL[0][:11], "1S"], S8_DEAL[1], S8_DEAL[2], S8_DEAL[3]],
        S8_DEAL[:3],  # three hands
        [*S8_DEAL, S8_DEAL[0]],  # five hands
    ],
)
def test_bad_preset_deal(deal):
    with pytest.raises(ValueError):
        new_game(deal=deal)


def test_bad_dealer():
    with pytest.raises(ValueError):
        new_game(dealer=4)


# ============================================================================================
# Hand record


def test_record_spec_example():
    game = new_game(dealer=3)
    play(game, 250, 270, "pass", "help", "pass")
    assert (game.declarer, game.contract) == (1, 270)
    play(game, "trump C")
    assert game.to_act == 3  # the declarer's partner passes first
    play(game, "9D", "AS", "KH", "AD")
    assert game.to_act == 1
    play(game, "QS", "AC", "9S", "AD")  # AD was just received
    record = game.record()
    assert record["variant"] == "partnership"
    assert record["dealer"] == 3
    assert [sorted(h) for h in record["deal"]] == [sorted(h) for h in S8_DEAL]
    assert record["auction"] == [[0, 250], [1, 270], [2, "pass"], [3, "help"], [0, "pass"]]
    assert record["declarer"] == 1 and record["bid"] == 270 and record["trump"] == "C"
    assert record["passed_to_declarer"] == ["9D", "AS", "KH", "AD"]
    assert record["passed_back"] == ["QS", "AC", "9S", "AD"]
    assert record["meld"] == [80, 0, 0, 0]
    assert record["thrown_in"] is True
    assert record["tricks"] == []
    assert record["points"] == [0, 0]
    assert record["score"] == [80, -270]
    assert record["totals"] == [80, -270]
    assert {k: v for k, v in record["options"].items() if k in SPEC_SWITCHES} == {
        k: v[0] for k, v in SPEC_SWITCHES.items()
    }


def check_record_format(record: dict) -> None:
    assert isinstance(record["variant"], str)
    assert set(SPEC_SWITCHES) | {"target_score"} <= set(record["options"])
    assert record["dealer"] in range(4)
    assert len(record["deal"]) == 4 and all(len(h) == 12 for h in record["deal"])
    assert sorted(card_from_str(c) for h in record["deal"] for c in h) == ALL_CARDS
    assert all(isinstance(c, str) and len(c) == 2 for h in record["deal"] for c in h)
    for entry in record["auction"]:
        seat, call = entry
        assert seat in range(4)
        assert call in ("pass", "help") or (isinstance(call, int) and call % 10 == 0 and call >= 250)
    assert record["declarer"] in range(4) and isinstance(record["bid"], int)
    assert record["trump"] in list(SUITS)
    assert isinstance(record["passed_to_declarer"], list) and isinstance(record["passed_back"], list)
    assert all(isinstance(c, str) for c in record["passed_to_declarer"] + record["passed_back"])
    assert len(record["meld"]) == 4 and all(isinstance(m, int) for m in record["meld"])
    assert isinstance(record["thrown_in"], bool)
    if record["thrown_in"]:
        assert record["tricks"] == [] and record["points"] == [0, 0]
    else:
        assert len(record["tricks"]) == 12
        for trick in record["tricks"]:
            assert set(trick) >= {"leader", "cards", "winner"}
            assert len(trick["cards"]) == 4 and trick["leader"] in range(4) and trick["winner"] in range(4)
    for key in ("points", "score", "totals"):
        assert len(record[key]) == 2 and all(isinstance(v, int) for v in record[key])
    assert json.loads(json.dumps(record)) == record


def replay(record: dict) -> Game:
    """Rebuild a hand from its record alone."""
    game = Game(
        Rules.from_mapping(record["options"]),
        rng=np.random.default_rng(0),
        dealer=record["dealer"],
        deal=record["deal"],
    )
    for _, call in record["auction"]:
        play(game, call)
    play(game, "trump " + record["trump"], *record["passed_to_declarer"], *record["passed_back"])
    if game.phase == Phase.THROW_IN:
        play(game, "throw in" if record["thrown_in"] else "play on")
    for trick in record["tricks"]:
        play(game, *trick["cards"])
    return game


def test_record_format_and_replay():
    rng = np.random.default_rng(11)
    seen_played = seen_thrown = 0
    for i in range(40):
        rules = Rules(throw_in=["seed", "always", "never"][i % 3], pass_mode=["sequential", "simultaneous"][i % 2])
        game = Game(rules, rng=np.random.default_rng(i))
        random_finish(game, rng)
        record = game.record()
        check_record_format(record)
        seen_played += not record["thrown_in"]
        seen_thrown += record["thrown_in"]
        again = replay(json.loads(json.dumps(record)))
        assert again.record() == record
    assert seen_played and seen_thrown


# ============================================================================================
# Trick play: random playouts


def check_hand_record(record: dict, counting: str) -> None:
    tricks = record["tricks"]
    assert len(tricks) == 12
    assert tricks[0]["leader"] == record["declarer"]
    trump = SUITS.index(record["trump"])
    points = [0, 0]
    table = COUNTING[counting]
    for i, trick in enumerate(tricks):
        if i:
            assert trick["leader"] == tricks[i - 1]["winner"]
        cards = parse_cards(trick["cards"])
        assert trick["winner"] == (trick["leader"] + reference_winner(cards, trump)) % 4
        points[trick["winner"] % 2] += sum(table[c[0]] for c in trick["cards"]) + (10 if i == 11 else 0)
    assert points == record["points"]
    assert sum(points) == 250
    played = sorted(card_from_str(c) for t in tricks for c in t["cards"])
    assert played == ALL_CARDS


def playout(rules: Rules, seed: int, hands: int) -> int:
    """Play ``hands`` hands (games chained) with random legal actions, checking invariants each step."""
    rng = np.random.default_rng(seed)
    game = Game(rules, rng=np.random.default_rng(seed + 1))
    played = 0
    for _ in range(hands):
        while not game.hand_over:
            census = card_census(game)
            assert all(census[c] == COPIES for c in range(NUM_TYPES)) and sum(census.values()) == 48
            legal = game.legal_actions()
            assert legal and len(set(legal)) == len(legal)
            if game.phase in (Phase.PASS_TO_DECLARER, Phase.PASS_BACK, Phase.PLAY):
                legal_cards = [a - game.layout.card0 for a in legal]
                hand = game.hands[game.to_act]
                assert all(hand[c] for c in legal_cards)  # only cards the seat holds
                assert legal_cards == R.legal_cards(hand, game.trick, game.trump, rules.head_rule, rules.must_overtrump)
                if game.phase != Phase.PLAY:
                    assert legal_cards == [c for c in range(NUM_TYPES) if hand[c]]
                assert game.view(game.to_act).hand == hand
            if game.phase == Phase.PLAY:
                assert game.to_act == (game.trick_leader + len(game.trick)) % 4
                if not game.tricks and not game.trick:
                    assert game.to_act == game.declarer
            game.apply(legal[rng.integers(len(legal))])
        census = card_census(game)
        assert all(census[c] == COPIES for c in range(NUM_TYPES))
        record = game.record()
        if not record["thrown_in"]:
            played += 1
            check_hand_record(record, rules.counting)
        if game.game_over:
            game = Game(rules, rng=np.random.default_rng(int(rng.integers(1 << 30))))
        else:
            dealer = game.dealer
            game.next_hand()
            assert game.dealer == (dealer + 1) % 4
    return played


@pytest.mark.parametrize("counting", ["counters", "ak10_kq5", "classic"])
def test_random_playouts_counting(counting):
    seed = {"counters": 100, "ak10_kq5": 110, "classic": 120}[counting]
    played = playout(Rules(counting=counting), seed=seed, hands=300)
    assert played >= 100


def test_random_playouts_mixed_rules():
    rng = np.random.default_rng(5)
    played = 0
    for i in range(12):
        switches = {name: values[rng.integers(len(values))] for name, values in SPEC_SWITCHES.items()}
        played += playout(Rules(**switches), seed=200 + i, hands=25)
    assert played >= 60


# ============================================================================================
# Copies


def test_clone_is_independent():
    game = new_game(dealer=3)
    play(game, 250, "pass", "pass", "pass", "trump C", "AS", "AH", "KD", "KD", "9H", "9H", "JH", "TH")
    rng = np.random.default_rng(2)
    for _ in range(9):  # into the third trick
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
    before = snapshot(game)
    rng_state = game.rng.bit_generator.state
    copy = game.clone()
    assert snapshot(copy)[1:] == before[1:]
    random_finish(copy, rng)
    copy.hands[1][0] += 5
    copy.totals[0] += 1000
    copy.next_hand()
    copy.rng.random(10)
    assert snapshot(game) == before
    assert game.rng.bit_generator.state == rng_state
    # and the original plays on by itself
    random_finish(game, np.random.default_rng(3))
    assert len(game.record()["tricks"]) == 12


def test_pickle_round_trip():
    game = Game(Rules(pass_mode="simultaneous"), rng=np.random.default_rng(21), dealer=0)
    rng = np.random.default_rng(22)
    for _ in range(7):  # into the passing phase or beyond
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
    copy = pickle.loads(pickle.dumps(game))
    assert snapshot(copy)[1:] == snapshot(game)[1:]
    for _ in range(3):  # three hands: the generator state travels too
        while not game.hand_over:
            assert copy.legal_actions() == game.legal_actions()
            assert copy.view(game.to_act) == game.view(game.to_act)
            legal = game.legal_actions()
            chosen = legal[rng.integers(len(legal))]
            game.apply(chosen)
            copy.apply(chosen)
        assert copy.record() == game.record()
        if game.game_over:
            break
        game.next_hand()
        copy.next_hand()
        assert copy.deal == game.deal


@pytest.mark.parametrize("action", [True, False, np.bool_(True)])
def test_booleans_are_not_actions(action):
    game = Game(Rules(), np.random.default_rng(3))
    before = len(game.events)
    with pytest.raises(IllegalActionError, match=r"must be an integer.*got .*bool"):
        game.apply(action)
    assert len(game.events) == before
