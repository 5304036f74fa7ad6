"""The cutthroat variant: worked examples of every rule step, then seeded random playouts with
invariants, replay, copies, illegal actions, information sets and the observation encoder."""

from __future__ import annotations

import json
import pickle
from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pinochle_env import rules as R
from pinochle_env.cards import (
    COPIES,
    COUNTING_VALUES,
    NUM_TYPES,
    SUITS,
    card_from_str,
    card_to_str,
    cards_from_counts,
    counts_from_cards,
    parse_cards,
)
from pinochle_env.engine import IllegalActionError
from pinochle_env.games.cutthroat.encoding import SEAT_NAMES, CutthroatSpec
from pinochle_env.games.cutthroat.game import NUM_SEATS, NUM_TRICKS, CutthroatGame, Phase, game_winner, score_hand
from pinochle_env.games.cutthroat.replay import RECORD_KEYS, decisions, replay
from pinochle_env.games.kit import margins
from pinochle_env.rules.switches import Rules
from tests.helpers import play_random

CUTTHROAT = Rules(variant="cutthroat")
DECK = [card_to_str(c) for c in range(NUM_TYPES) for _ in range(COPIES)]

#: Rule sets the random playouts cycle through (every cutthroat switch away from its default once).
RULE_SETS = [
    CUTTHROAT,
    CUTTHROAT.replace(bid_raises="any", max_bid=400),
    CUTTHROAT.replace(all_pass="redeal"),
    CUTTHROAT.replace(throw_in="always"),
    CUTTHROAT.replace(throw_in="never", save_meld="trick"),
    CUTTHROAT.replace(head_rule="highest_led", must_overtrump=False),
    CUTTHROAT.replace(head_rule="led_card", counting="classic"),
    CUTTHROAT.replace(head_rule="trump_lead_only", counting="ak10_kq5", save_meld="none"),
    CUTTHROAT.replace(head_rule="none", save_meld_applies_to="both", run_extras="reuse"),
    CUTTHROAT.replace(run_extras="royal_in_run", target_score=500),
]


def fill_deal(fixed: dict[int, str], widow: str) -> list[list[str]]:
    """Hands holding the ``fixed`` cards (space-separated strings per seat), the widow exactly
    ``widow``, and the rest of the deck handed out in deck order to fill every hand to 15."""
    rest = Counter(DECK) - Counter(widow.split())
    hands = []
    for seat in range(NUM_SEATS):
        cards = fixed.get(seat, "").split()
        rest -= Counter(cards)
        hands.append(cards)
    spare = sorted(rest.elements(), key=card_from_str)
    for cards in hands:
        need = 15 - len(cards)
        cards += spare[:need]
        spare = spare[need:]
    assert not spare and all(len(cards) == 15 for cards in hands)
    return hands


def card_action(game: CutthroatGame, text: str) -> int:
    return game.layout.card_action(card_from_str(text))


def legal_cards(game: CutthroatGame) -> set[str]:
    return {card_to_str(a - game.layout.card0) for a in game.legal_actions()}


def auction_to(game: CutthroatGame, bid: int) -> None:
    """Dealer 0: player 1 bids ``bid``, players 2 and 0 pass, so player 1 declares."""
    assert game.dealer == 0 and game.to_act == 1
    game.apply(game.layout.bid_action(bid))
    game.apply(game.layout.passing)
    game.apply(game.layout.passing)
    assert game.declarer == 1 and game.contract == bid


def to_play(deal, trump: str, bury: str, rules: Rules = CUTTHROAT) -> CutthroatGame:
    """Player 1 declares at 250, names ``trump``, buries ``bury`` and plays on if asked to throw in."""
    game = CutthroatGame(rules, np.random.default_rng(0), dealer=0, deal=deal)
    auction_to(game, 250)
    game.apply(game.layout.trump0 + SUITS.index(trump))
    for text in bury.split():
        game.apply(card_action(game, text))
    if game.phase == Phase.THROW_IN:
        game.apply(game.layout.play_on)
    assert game.phase == Phase.PLAY and game.to_act == 1
    return game


# ---------------------------------------------------------------------------------------------
# Auction


def new_game(rules: Rules = CUTTHROAT, seed: int = 0) -> CutthroatGame:
    return CutthroatGame(rules, np.random.default_rng(seed), dealer=0)


def test_auction_goes_clockwise_from_the_dealers_left_and_ends_after_two_passes():
    game = new_game()
    layout = game.layout
    assert game.legal_actions() == [layout.bid_action(250), layout.bid_action(260), layout.passing]
    order = []
    for action in (layout.bid_action(250), layout.bid_action(260), layout.passing, layout.passing):
        order.append(game.to_act)
        game.apply(action)
    assert order == [1, 2, 0, 1]
    assert (game.declarer, game.contract, game.stuck) == (2, 260, False)
    assert game.phase == Phase.TRUMP and game.to_act == 2
    assert game.auction == [(1, 250), (2, 260), (0, "pass"), (1, "pass")]


def test_help_is_never_legal():
    game = new_game()
    assert game.layout.help not in game.legal_actions()
    with pytest.raises(IllegalActionError, match="help"):
        game.apply(game.layout.help)


def test_dealer_stuck_at_250_when_both_others_pass():
    game = new_game()
    dealt = sum(game.hands[0])
    game.apply(game.layout.passing)
    game.apply(game.layout.passing)
    assert (game.declarer, game.contract, game.stuck) == (0, 250, True)
    assert game.auction == [(1, "pass"), (2, "pass")]  # the stuck dealer makes no call
    assert sum(game.hands[0]) == dealt + 3  # and takes the widow


def test_all_pass_redeal_deals_again_by_the_same_dealer():
    game = new_game(CUTTHROAT.replace(all_pass="redeal"))
    first_deal = [list(cards) for cards in game.deal]
    game.apply(game.layout.passing)
    game.apply(game.layout.passing)
    assert game.phase == Phase.AUCTION and game.dealer == 0 and game.to_act == 1
    assert game.auction == [] and game.declarer == -1 and game.hand_number == 0
    assert game.deal != first_deal
    assert Counter(c for hand in game.deal for c in hand) + Counter(game.widow) == Counter(
        c for c in range(NUM_TYPES) for _ in range(COPIES)
    )


def test_bid_cap_leaves_only_pass():
    game = new_game(CUTTHROAT.replace(max_bid=260))
    game.apply(game.layout.bid_action(260))
    assert game.legal_actions() == [game.layout.passing]


# ---------------------------------------------------------------------------------------------
# Widow, meld, burying

#: Player 1's 18 cards (15 dealt + the widow) with hearts trump: royal marriage 40, dix 10,
#: pinochle 40 = 90 (no around: AS AD only, KH KC only; 9S and 9D are no dix).
PLAIN = "AS TS KH QH 9H JD QS KC 9C JC TD AD 9S 9S 9D"
PLAIN_WIDOW = "9D TC TH"


def test_widow_is_shown_to_everyone_and_taken_by_the_declarer():
    game = CutthroatGame(CUTTHROAT, np.random.default_rng(0), dealer=0, deal=fill_deal({1: PLAIN}, PLAIN_WIDOW))
    widow = sorted(parse_cards(PLAIN_WIDOW.split()))
    assert game.widow == widow
    assert all(game.view(seat).widow == [] for seat in range(NUM_SEATS))
    auction_to(game, 250)
    assert all(game.view(seat).widow == widow for seat in range(NUM_SEATS))
    assert game.hands[1] == counts_from_cards(parse_cards(PLAIN.split()) + widow)


def test_every_seat_melds_and_the_declarer_melds_its_18_cards():
    deal = fill_deal({1: PLAIN}, PLAIN_WIDOW)
    game = CutthroatGame(CUTTHROAT, np.random.default_rng(0), dealer=0, deal=deal)
    auction_to(game, 250)
    game.apply(game.layout.trump0 + SUITS.index("H"))
    assert game.phase == Phase.BURY and game.to_act == 1
    assert game.melds[1].points == 90
    for seat in (0, 2):
        assert game.melds[seat] == R.meld(counts_from_cards(parse_cards(deal[seat])), SUITS.index("H"))


def declarer_at_bury(cards18: str, trump: str) -> CutthroatGame:
    """Player 1 holds ``cards18`` (the last 3 are the widow), declares at 250 and names ``trump``."""
    cards = cards18.split()
    game = CutthroatGame(
        CUTTHROAT, np.random.default_rng(0), dealer=0, deal=fill_deal({1: " ".join(cards[:15])}, " ".join(cards[15:]))
    )
    auction_to(game, 250)
    game.apply(game.layout.trump0 + SUITS.index(trump))
    assert game.phase == Phase.BURY
    return game


def test_bury_never_a_melded_copy():
    # Run in spades (one of each card) and a second AS: one AS is free, the second is shown.
    game = declarer_at_bury("AS AS TS KS QS JS 9H 9H JH JH TD TD 9D 9D JC JC 9C 9C", "S")
    assert game.melds[1].points == 150
    assert legal_cards(game) == {"AS", "9H", "JH", "TD", "9D", "JC", "9C"}
    game.apply(card_action(game, "AS"))
    assert "AS" not in legal_cards(game)
    with pytest.raises(IllegalActionError):
        game.apply(card_action(game, "TS"))


def test_bury_when_every_card_is_melded_allows_any_card():
    # Double run 1500, dix x2 20, aces around 100, kings around 80: all 18 cards shown.
    game = declarer_at_bury("AS AS TS TS KS KS QS QS JS JS 9S 9S AH AD AC KH KD KC", "S")
    assert game.melds[1].points == 1700 and sum(game.melds[1].shown) == 18
    assert legal_cards(game) == {"AS", "TS", "KS", "QS", "JS", "9S", "AH", "AD", "AC", "KH", "KD", "KC"}


def test_bury_with_fewer_than_three_free_cards_buries_the_free_ones_first():
    # Double run, dix x2, aces around, marriage in hearts: 17 cards shown, only 9D is free.
    game = declarer_at_bury("AS AS TS TS KS KS QS QS JS JS 9S 9S AH AD AC KH QH 9D", "S")
    assert game.melds[1].points == 1640
    assert legal_cards(game) == {"9D"}
    game.apply(card_action(game, "9D"))
    assert legal_cards(game) == {"AS", "TS", "KS", "QS", "JS", "9S", "AH", "AD", "AC", "KH", "QH"}
    game.apply(card_action(game, "AS"))
    game.apply(card_action(game, "KH"))
    assert game.buried == parse_cards(["9D", "AS", "KH"])
    assert game.melds[1].points == 1640  # the meld was shown before burying: it stands
    assert game.phase == Phase.PLAY


# ---------------------------------------------------------------------------------------------
# Throw-in


def thrown_in_game(rules: Rules, bid: int) -> CutthroatGame:
    """Player 1 (meld 90 with hearts trump) declares at ``bid`` and buries 9S 9S 9D."""
    game = CutthroatGame(rules, np.random.default_rng(0), dealer=0, deal=fill_deal({1: PLAIN}, PLAIN_WIDOW))
    auction_to(game, bid)
    game.apply(game.layout.trump0 + SUITS.index("H"))
    for text in ("9S", "9S", "9D"):
        game.apply(card_action(game, text))
    return game


def test_throw_in_automatic_when_short_more_than_250():
    game = thrown_in_game(CUTTHROAT.replace(bid_raises="any"), 350)  # short 260
    assert game.hand_over and game.thrown_in
    assert game.score == [game.melds[0].points, -350, game.melds[2].points]
    record = game.record()
    assert record["tricks"] == [] and record["points"] == [0, 0, 0] and record["made"] is False


@pytest.mark.parametrize(
    ("rules", "bid"),
    [(CUTTHROAT.replace(bid_raises="any"), 340), (CUTTHROAT.replace(throw_in="always"), 250)],
    ids=["seed-short-250", "always"],
)
def test_throw_in_is_the_declarers_choice(rules, bid):
    game = thrown_in_game(rules, bid)
    assert game.phase == Phase.THROW_IN and game.to_act == 1
    assert game.legal_actions() == [game.layout.throw_in, game.layout.play_on]
    played = game.clone()
    game.apply(game.layout.throw_in)
    assert game.score == [game.melds[0].points, -bid, game.melds[2].points]
    played.apply(played.layout.play_on)
    assert played.phase == Phase.PLAY and played.to_act == 1 and played.thrown_in is False


def test_throw_in_never_plays_every_hand():
    game = thrown_in_game(CUTTHROAT.replace(bid_raises="any", throw_in="never"), 350)
    assert game.phase == Phase.PLAY and game.thrown_in is False


# ---------------------------------------------------------------------------------------------
# Trick play: the head rule and over-trumping apply against the other opponent too

# Every spade placed: player 1 leads QS; player 2 holds TS JS; player 0 holds AS KS 9S.
SPADES_DEAL = {1: "QS QS JS 9S AS TS KS", 2: "TS JS", 0: "AS KS 9S"}


@pytest.mark.parametrize(
    ("head_rule", "third_seat_legal"),
    [("winner", {"AS"}), ("led_card", {"AS", "KS"}), ("none", {"AS", "KS", "9S"})],
)
def test_an_opponent_must_head_the_other_opponent(head_rule, third_seat_legal):
    deal = fill_deal(SPADES_DEAL, "9C 9C JC")
    game = to_play(deal, "H", "9C 9C JC", CUTTHROAT.replace(head_rule=head_rule))
    game.apply(card_action(game, "QS"))
    assert legal_cards(game) == ({"TS"} if head_rule != "none" else {"TS", "JS"})
    game.apply(card_action(game, "TS"))
    assert game.to_act == 0 and legal_cards(game) == third_seat_legal
    game.apply(card_action(game, "AS"))
    assert game.tricks[0] == (1, parse_cards(["QS", "TS", "AS"]), 0)
    assert game.to_act == 0 and game.trick_points == [20, 0, 0]  # TS + AS; QS counts 0


# Every heart and club placed: the declarer holds all clubs, players 2 and 0 are void in clubs.
TRUMP_DEAL = {1: "AC AC TC TC KC KC QC QC JC AH TH TH KH QH JH", 2: "QH JH 9H", 0: "AH KH 9H"}


@pytest.mark.parametrize(("must_overtrump", "third_seat_legal"), [(True, {"AH", "KH"}), (False, {"AH", "KH", "9H"})])
def test_an_opponent_must_overtrump_the_other_opponent(must_overtrump, third_seat_legal):
    deal = fill_deal(TRUMP_DEAL, "JC 9C 9C")
    game = to_play(deal, "H", "9C 9C JC", CUTTHROAT.replace(must_overtrump=must_overtrump))
    assert game.melds[1].points == 150 + 40  # run in hearts, two marriages in clubs
    game.apply(card_action(game, "AC"))
    assert legal_cards(game) == {"QH", "JH", "9H"}  # void in clubs: must trump
    game.apply(card_action(game, "QH"))
    assert legal_cards(game) == third_seat_legal
    game.apply(card_action(game, "KH"))
    assert game.tricks[0][2] == 0


# ---------------------------------------------------------------------------------------------
# Scoring and the end of the game


@pytest.mark.parametrize(
    ("bid", "meld", "points", "tricks", "thrown_in", "switches", "expected"),
    [
        # made: declarer meld + points; an opponent without a trick point loses its meld
        (300, [190, 60, 40], [130, 120, 0], [9, 6, 0], False, {}, ([320, 180, 0], True)),
        # set: declarer -bid; opponents keep meld + points
        (350, [120, 80, 30], [200, 30, 20], [10, 3, 2], False, {}, ([-350, 110, 50], False)),
        # thrown in: declarer -bid, each opponent its meld
        (400, [140, 70, 20], [0, 0, 0], [0, 0, 0], True, {}, ([-400, 70, 20], False)),
        # save_meld=trick: a pointless trick saves the meld
        (300, [190, 60, 40], [130, 120, 0], [9, 5, 1], False, {"save_meld": "trick"}, ([320, 180, 40], True)),
        # save_meld=none: meld always kept
        (300, [190, 60, 40], [130, 120, 0], [9, 6, 0], False, {"save_meld": "none"}, ([320, 180, 40], True)),
        # applies to both: a declarer without a trick point loses its meld, so 300 meld does not make 250
        (
            250,
            [300, 0, 0],
            [0, 130, 120],
            [0, 8, 7],
            False,
            {"save_meld_applies_to": "both"},
            ([-250, 130, 120], False),
        ),
        (250, [300, 0, 0], [0, 130, 120], [0, 8, 7], False, {}, ([300, 130, 120], True)),
    ],
)
def test_score_hand(bid, meld, points, tricks, thrown_in, switches, expected):
    result = score_hand(0, bid, meld, points, tricks, thrown_in, **switches)
    assert (list(result.score), result.made) == expected


def test_score_hand_for_another_declarer_seat():
    result = score_hand(2, 300, [60, 40, 190], [120, 0, 130], [6, 0, 9], False)
    assert list(result.score) == [180, 0, 320] and result.made


@pytest.mark.parametrize(
    ("totals", "declarer", "winner"),
    [
        ([1490, 1200, 1400], 0, None),  # nobody over
        ([1600, 1510, 900], 1, 1),  # several cross: the declarer among them wins, though lower
        ([1600, 1510, 1550], 1, 1),
        ([1600, 1510, 900], 2, 0),  # declarer not among them: the higher total
        ([1550, 200, 1550], 1, None),  # an exact tie: play another hand
        ([1500, 200, 300], 1, 0),  # exactly the target counts
    ],
)
def test_game_winner(totals, declarer, winner):
    assert game_winner(totals, declarer, 1500) == winner


@given(st.lists(st.integers(-2000, 3000), min_size=3, max_size=3), st.integers(0, 2))
def test_game_winner_is_over_the_target_and_prefers_the_declarer(totals, declarer):
    winner = game_winner(totals, declarer, 1500)
    over = [seat for seat in range(3) if totals[seat] >= 1500]
    if winner is None:
        assert declarer not in over
        assert not over or Counter(totals[s] for s in over)[max(totals[s] for s in over)] > 1
    else:
        assert totals[winner] >= 1500
        assert winner == declarer or (declarer not in over and totals[winner] == max(totals))


def test_exact_tie_of_the_opponents_plays_another_hand():
    deal = fill_deal({1: PLAIN}, PLAIN_WIDOW)
    melds = [R.meld(counts_from_cards(parse_cards(deal[s])), SUITS.index("H")).points for s in range(NUM_SEATS)]
    totals = [1600 - melds[0], 0, 1600 - melds[2]]
    rules = CUTTHROAT.replace(bid_raises="any")
    game = CutthroatGame(rules, np.random.default_rng(0), dealer=0, deal=deal, totals=totals)
    auction_to(game, 350)
    game.apply(game.layout.trump0 + SUITS.index("H"))
    for text in ("9S", "9S", "9D"):
        game.apply(card_action(game, text))
    assert game.thrown_in and game.totals == [1600, -350, 1600]
    assert game.winner is None and not game.game_over
    game.next_hand()
    assert game.dealer == 1 and game.hand_number == 1 and game.phase == Phase.AUCTION and game.to_act == 2


def test_declarer_among_the_crossers_wins_and_the_game_ends():
    game = declarer_at_bury("AS AS TS TS KS KS QS QS JS JS 9S 9S AH AD AC KH KD KC", "S")
    game.totals = [0, 0, 5000]  # player 2 is far over the target already
    for action in game.legal_actions()[:3]:
        game.apply(action)
    play_random(game, np.random.default_rng(1))
    assert game.made and game.totals[1] >= 1700
    assert game.winner == 1 and game.game_over
    with pytest.raises(RuntimeError, match="game is over"):
        game.next_hand()


def test_buried_counters_count_for_the_declarer():
    deal = fill_deal({1: "AS AS TS KS QS JS 9H 9H JH JH TD TD 9D 9D JC"}, "JC 9C 9C")
    for counting, buried_points in (("counters", 20), ("classic", 21)):
        game = to_play(deal, "S", "AS TD 9H", CUTTHROAT.replace(counting=counting))
        play_random(game, np.random.default_rng(2))
        record = game.record()
        assert record["buried_points"] == buried_points
        values = COUNTING_VALUES[counting]
        from_tricks = [0] * NUM_SEATS
        for index, trick in enumerate(record["tricks"]):
            cards = parse_cards(trick["cards"])
            from_tricks[trick["winner"]] += R.trick_points(cards, values, index == NUM_TRICKS - 1)
        assert record["points"][1] == from_tricks[1] + buried_points
        assert [record["points"][s] for s in (0, 2)] == [from_tricks[0], from_tricks[2]]
        assert sum(record["points"]) == 250


def test_rewards_are_own_score_minus_the_mean_of_the_others():
    game = thrown_in_game(CUTTHROAT.replace(bid_raises="any"), 350)
    a, b, c = game.score
    assert margins(game.score, game.rules.teams) == [a - (b + c) / 2, b - (a + c) / 2, c - (a + b) / 2]


# ---------------------------------------------------------------------------------------------
# Construction


def test_construction_refuses_bad_input():
    with pytest.raises(ValueError, match="cutthroat"):
        CutthroatGame(Rules())
    with pytest.raises(ValueError, match="cutthroat"):
        CutthroatSpec(Rules())
    deal = fill_deal({}, "9C 9C JC")
    with pytest.raises(ValueError, match="3 hands"):
        CutthroatGame(CUTTHROAT, deal=deal[:2])
    with pytest.raises(ValueError, match="15"):
        CutthroatGame(CUTTHROAT, deal=[deal[0][:14], deal[1], deal[2]])
    with pytest.raises(ValueError, match="at most twice"):
        CutthroatGame(CUTTHROAT, deal=[deal[0], deal[1], ["AS"] * 15])
    with pytest.raises(ValueError, match="totals"):
        CutthroatGame(CUTTHROAT, totals=[0, 0])
    with pytest.raises(ValueError, match="dealer"):
        CutthroatGame(CUTTHROAT, dealer=3)


# ---------------------------------------------------------------------------------------------
# Random playouts


def check_invariants(game: CutthroatGame) -> None:
    """Cards are conserved and the seat to act has a legal action."""
    assert game.legal_actions() and 0 <= game.to_act < NUM_SEATS
    places = Counter()
    for counts in game.hands:
        places.update(cards_from_counts(counts))
    places.update(game.buried if game.widow_shown else game.widow)
    places.update(c for _, cards, _ in game.tricks for c in cards)
    places.update(game.trick)
    assert places == Counter({c: COPIES for c in range(NUM_TYPES)})
    if game.phase == Phase.PLAY:
        in_trick = [(seat - game.trick_leader) % 3 < len(game.trick) for seat in range(NUM_SEATS)]
        assert [sum(counts) for counts in game.hands] == [15 - len(game.tricks) - now for now in in_trick]


def random_hands(count: int):
    """``count`` finished hands over :data:`RULE_SETS`, each with its game and record (seeded)."""
    rng = np.random.default_rng(2024)
    for index in range(count):
        rules = RULE_SETS[index % len(RULE_SETS)]
        game = CutthroatGame(rules, np.random.default_rng(index))
        play_random(game, rng, check=check_invariants)
        yield game, game.record()


def test_random_playouts_keep_the_invariants_and_replay_exactly():
    seen = Counter()
    for game, record in random_hands(300):
        assert game.legal_actions() == [] and game.to_act == -1
        assert set(RECORD_KEYS) <= set(record)
        assert [len(hand) for hand in record["deal"]] == [15, 15, 15] and len(record["widow"]) == 3
        assert len(record["buried"]) == 3
        if record["thrown_in"]:
            assert record["tricks"] == [] and record["points"] == [0, 0, 0]
        else:
            assert len(record["tricks"]) == NUM_TRICKS and all(len(t["cards"]) == 3 for t in record["tricks"])
            assert sum(record["points"]) == 250
            assert record["tricks"][0]["leader"] == record["declarer"]
        assert abs(sum(margins(game.score, game.rules.teams))) < 1e-9
        copy = json.loads(json.dumps(record))
        assert replay(copy).record() == record
        seen[("thrown in" if record["thrown_in"] else "made" if record["made"] else "set")] += 1
        seen["stuck"] += not any(isinstance(call, int) for _, call in record["auction"])
    assert all(seen[kind] > 0 for kind in ("thrown in", "made", "set", "stuck")), seen


def test_decisions_and_partial_replay_match_the_game():
    rng = np.random.default_rng(5)
    game = CutthroatGame(CUTTHROAT.replace(throw_in="always"), np.random.default_rng(7))
    states = []
    while not game.hand_over:
        states.append(game.clone())
        game.apply(int(rng.choice(game.legal_actions())))
    record = game.record()
    steps = list((g.clone(), seat, action) for g, seat, action in decisions(record))
    assert len(steps) == len(states)
    for (replayed, seat, action), state in zip(steps, states, strict=True):
        assert seat == state.to_act and action in state.legal_actions()
        assert [replayed.view(s) for s in range(3)] == [state.view(s) for s in range(3)]
    for upto in (0, 3, len(states) // 2, len(states) - 1):
        assert replay(record, upto=upto).view(states[upto].to_act) == states[upto].view(states[upto].to_act)


def test_replay_refuses_other_and_edited_records():
    _, record = next(random_hands(1))
    with pytest.raises(ValueError, match="cutthroat"):
        replay({**record, "variant": "partnership"})
    with pytest.raises(ValueError, match="score"):
        replay({**record, "score": [s + 10 for s in record["score"]], "totals": [t + 10 for t in record["totals"]]})
    with pytest.raises(ValueError, match="widow"):
        replay({**record, "widow": ["AS", "AS", "AS"]})
    with pytest.raises(ValueError, match="no valid decision"):
        replay({**record, "auction": record["auction"][:1]})
    with pytest.raises(ValueError, match="no valid decision"):
        replay({**record, "trump": "X"})


# ---------------------------------------------------------------------------------------------
# Copies and illegal actions


def mid_play_game(seed: int = 11, plays: int = 10) -> CutthroatGame:
    """A game with ``plays`` cards played (random legal actions; throw-in never, so it is played)."""
    rng = np.random.default_rng(seed)
    game = CutthroatGame(CUTTHROAT.replace(throw_in="never"), np.random.default_rng(seed))
    while game.phase != Phase.PLAY or len(game.tricks) * 3 + len(game.trick) < plays:
        game.apply(int(rng.choice(game.legal_actions())))
    return game


def test_clone_and_pickle_are_independent():
    game = mid_play_game()
    before = pickle.dumps(game)
    copy = game.clone()
    play_random(copy, np.random.default_rng(3))
    assert pickle.dumps(game) == before
    restored = pickle.loads(before)
    play_random(game, np.random.default_rng(4))
    play_random(restored, np.random.default_rng(4))
    assert restored.record() == game.record()


@pytest.mark.parametrize("plays", [0, 7])
def test_illegal_actions_raise_and_leave_the_state_unchanged(plays):
    game = mid_play_game(plays=plays)
    before = pickle.dumps(game)
    illegal = next(a for a in range(game.layout.size) if a not in game.legal_actions())
    for action in (illegal, np.int64(illegal), -1, game.layout.size, 1.5, True, "3", None):
        with pytest.raises(IllegalActionError, match=r"not legal|must be an integer"):
            game.apply(action)
        assert pickle.dumps(game) == before
    for phase_game in (new_game(), thrown_in_game(CUTTHROAT.replace(bid_raises="any"), 350)):
        with pytest.raises(IllegalActionError):
            phase_game.apply(phase_game.layout.trump0)
    with pytest.raises(RuntimeError):
        game.record()
    with pytest.raises(RuntimeError):
        game.next_hand()


# ---------------------------------------------------------------------------------------------
# Information sets and the observation


def swap_hidden(game: CutthroatGame, place_a, place_b) -> None:
    """Exchange one card between two places (a seat, ``"widow"`` or ``"buried"``), different cards."""

    def cards(place) -> list[int]:
        return list(getattr(game, place)) if isinstance(place, str) else cards_from_counts(game.hands[place])

    a, b = next((x, y) for x in cards(place_a) for y in cards(place_b) if x != y)
    for place, out, into in ((place_a, a, b), (place_b, b, a)):
        if isinstance(place, str):
            held = getattr(game, place)
            held[held.index(out)] = into
        else:
            game.hands[place][out] -= 1
            game.hands[place][into] += 1
            game.held[place] = R.held_bits(game.hands[place])


@pytest.mark.parametrize(
    ("plays", "place_a", "place_b", "blind"),
    [
        (-1, 0, "widow", (1, 2)),  # the widow before the auction ends: only seat 0 sees a change
        (4, "opponent", "buried", ("other",)),  # the buried cards: hidden from both opponents
        (4, "opponent", "declarer", ("other",)),  # one seat's hand: hidden from the others
    ],
)
def test_views_and_observations_hide_what_a_seat_may_not_see(plays, place_a, place_b, blind):
    game = new_game(seed=3) if plays < 0 else mid_play_game(plays=plays)
    first, other = (game.declarer + 1) % 3, (game.declarer + 2) % 3
    names = {"opponent": first, "other": other, "declarer": game.declarer}
    a, b = names.get(place_a, place_a), names.get(place_b, place_b)
    observers = [names.get(seat, seat) for seat in blind]
    spec = CutthroatSpec(game.rules)
    changed = game.clone()
    swap_hidden(changed, a, b)
    for seat in observers:
        assert changed.view(seat) == game.view(seat)
        assert np.array_equal(spec.encode_view(changed.view(seat)), spec.encode_view(game.view(seat)))
    assert changed.view(a) != game.view(a)  # the control: the swap is visible where it should be
    assert not np.array_equal(spec.encode_view(changed.view(a)), spec.encode_view(game.view(a)))


def test_buried_cards_are_the_declarers_alone():
    game = mid_play_game()
    for seat in range(NUM_SEATS):
        assert game.view(seat).buried == (game.buried if seat == game.declarer else [])
        assert game.view(seat).hand == game.hands[seat]
        assert game.view(seat).legal_actions == (game.legal_actions() if seat == game.to_act else [])


def labelled(spec: CutthroatSpec, obs: np.ndarray) -> dict[str, float]:
    return {spec.describe(int(i)): float(obs[i]) for i in np.flatnonzero(obs)}


def thermo_labels(piece: str, counts: list[int], block: str = "") -> set[str]:
    prefix = f"{piece}[{block}: " if block else f"{piece}["
    labels = {f"{prefix}{card_to_str(c)} x>=1]" for c in range(NUM_TYPES) if counts[c] >= 1}
    return labels | {f"{prefix}{card_to_str(c)} x2]" for c in range(NUM_TYPES) if counts[c] >= 2}


def test_encode_view_matches_the_described_labels():
    game = mid_play_game(plays=7)
    spec = CutthroatSpec(game.rules)
    for seat in range(NUM_SEATS):
        view = game.view(seat)
        values = labelled(spec, spec.encode_view(view))

        def rel(who: int, seat: int = seat) -> str:
            return SEAT_NAMES[(who - seat) % 3]

        def piece(name: str, values: dict[str, float] = values) -> set[str]:
            prefix = name if "[" in name else name + "["  # a piece, or one seat's block of it
            return {label for label in values if label.startswith(prefix)}

        assert piece("hand") == thermo_labels("hand", game.hands[seat])
        assert piece("widow") == thermo_labels("widow", counts_from_cards(game.widow))
        buried = counts_from_cards(game.buried) if seat == game.declarer else [0] * NUM_TYPES
        assert piece("buried") == thermo_labels("buried", buried)
        assert piece("phase") == {"phase[play]"}
        assert piece("acting") == {f"acting[{rel(game.to_act)}]"}
        assert piece("declarer") == {f"declarer[{rel(game.declarer)}]"}
        assert piece("dealer") == {f"dealer[{rel(game.dealer)}]"}
        assert piece("trump") == {f"trump[{SUITS[game.trump]}]"}
        assert piece("high_bid") == {f"high_bid[{game.contract}]"}
        assert piece("trick_leader") == {f"trick_leader[{rel(game.trick_leader)}]"}
        assert piece("trick") == {
            f"trick[{rel(game.trick_leader + k)}: {card_to_str(c)}]" for k, c in enumerate(game.trick)
        }
        for who in range(NUM_SEATS):
            assert values.get(f"meld_points[{rel(who)}]", 0.0) == pytest.approx(game.melds[who].points / 1000)
            assert piece(f"meld_shown[{rel(who)}:") == thermo_labels("meld_shown", game.melds[who].shown, rel(who))
            assert values.get(f"tricks_won[{rel(who)}]", 0.0) == pytest.approx(game.tricks_won[who] / 15)
            assert values.get(f"trick_points[{rel(who)}]", 0.0) == pytest.approx(game.trick_points[who] / 250)
        played = [0] * NUM_TYPES
        for leader, cards, _ in game.tricks:
            played[cards[(seat - leader) % 3]] += 1
        played_now = [c for k, c in enumerate(game.trick) if (game.trick_leader + k) % 3 == seat]
        for c in played_now:
            played[c] += 1
        assert piece("played[me:") == thermo_labels("played", played, "me")


def test_encode_view_auction_pieces():
    game = new_game()
    layout = game.layout
    game.apply(layout.bid_action(260))  # player 1
    game.apply(layout.passing)  # player 2
    spec = CutthroatSpec(game.rules)
    values = labelled(spec, spec.encode_view(game.view(0)))
    assert {"bids[left: 260]", "auction_passed[right]", "high_bid[260]", "acting[me]", "dealer[me]"} <= set(values)
    assert not any(label.startswith(("widow", "declarer", "trump", "buried")) for label in values)
    stuck = new_game()
    stuck.apply(layout.passing)
    stuck.apply(layout.passing)
    values = labelled(spec, spec.encode_view(stuck.view(1)))
    assert {"dealer_stuck[stuck]", "declarer[right]", "high_bid[250]", "acting[right]"} <= set(values)
    assert thermo_labels("widow", counts_from_cards(stuck.widow)) <= set(values)


def test_observation_bounds_and_state():
    spec = CutthroatSpec(CUTTHROAT)
    low, high = spec.bounds()
    assert low.shape == high.shape == (spec.size,)
    for game, _ in random_hands(10):
        for seat in range(NUM_SEATS):
            obs = spec.encode_view(game.view(seat))
            assert obs.dtype == np.float32 and np.all(low <= obs) and np.all(obs <= high)
    game = mid_play_game()
    for seat in range(NUM_SEATS):
        obs = spec.encode_view(game.view(seat))
        state = spec.encode_state(game, seat, obs)
        assert state.shape == (spec.state_size,) and np.array_equal(state[: spec.size], obs)
        hidden = state[spec.size :].reshape(3, 2, NUM_TYPES)
        expected = [game.hands[(seat + 1) % 3], game.hands[(seat + 2) % 3], counts_from_cards(game.buried)]
        for block, counts in zip(hidden, expected, strict=True):
            assert np.array_equal(block, [np.asarray(counts) >= 1, np.asarray(counts) >= 2])


def test_render_shows_the_table():
    game, _ = next(random_hands(1))
    text = str(game)
    assert "widow (shown" in text and "hand result" in text and "declarer: player" in text
    assert all(f"player {seat}:" in text for seat in range(NUM_SEATS))
