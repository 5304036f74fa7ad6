"""Two-handed Pinochle: worked examples of melding, the dix, drawing, both phases of play and
scoring, then seeded random playouts with invariants, replay, copies, illegal actions, views and the
observation encoder."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pinochle_env.cards import (
    COPIES,
    COUNTING_VALUES,
    HEARTS,
    NUM_TYPES,
    SUITS,
    card_from_str,
    card_to_str,
    counts_from_cards,
    format_cards,
    parse_cards,
)
from pinochle_env.engine import IllegalActionError
from pinochle_env.games.kit import margins
from pinochle_env.games.two_hand.actions import LAYOUT
from pinochle_env.games.two_hand.encoding import TwoHandSpec
from pinochle_env.games.two_hand.game import Phase, TwoHandGame, game_winner
from pinochle_env.games.two_hand.replay import decisions, replay
from pinochle_env.rules import trick_points
from pinochle_env.rules.switches import Rules
from tests.helpers import play_random

RULES = Rules(variant="two_hand")
SPEC = TwoHandSpec(RULES)


def make_deal(hand0: str, hand1: str, turn_up: str, top: str = "") -> dict:
    """A whole preset deal: the two hands, the turn-up, the stock's top cards as given and the rest of
    the deck below them in card-type order."""
    hands = [hand0.split(), hand1.split()]
    used = counts_from_cards(parse_cards([*hands[0], *hands[1], turn_up, *top.split()]))
    assert all(n <= COPIES for n in used), "the example deal uses a card three times"
    rest = format_cards([c for c in range(NUM_TYPES) for _ in range(COPIES - used[c])])
    return {"hands": hands, "turn_up": turn_up, "stock": [*top.split(), *rest]}


def new_game(deal: dict, dealer: int = 1, totals=None) -> TwoHandGame:
    """Seat 0 leads first (the dealer is seat 1 unless said otherwise)."""
    return TwoHandGame(RULES, np.random.default_rng(0), dealer=dealer, deal=deal, totals=totals)


def act(game: TwoHandGame, *names: str) -> None:
    for name in names:
        game.apply(LAYOUT.from_string(name))


def legal_names(game: TwoHandGame) -> set[str]:
    return {LAYOUT.to_string(a) for a in game.legal_actions()}


def count(game: TwoHandGame, seat: int, text: str, where: str = "hand") -> int:
    """Copies of a card ``seat`` holds in its hand, concealed part or on the table."""
    c = card_from_str(text)
    return {"hand": game.hand_of(seat), "concealed": game.concealed[seat], "table": game.table_counts(seat)}[where][c]


# ------------------------------------------------------------------------------------------------
# Melding: one meld per trick won, a new card each time, and the reuse rules

# Trump hearts. Seat 0 holds a run, kings and a pinochle; it leads junk and seat 1 throws off-suit
# cards, so seat 0 wins every trick. Seat 0 draws QC, AC, TC, AD; seat 1 AS, AS, KS, QS.
MELD_DEAL = make_deal(
    "AH TH KH QH JH KS QS KD KC QD JD 9C", "9S 9S 9D 9D JS JS JC JC TS TS TD TD", "TH", "QC AS AC AS TC KS AD QS"
)


def test_royal_marriage_extended_to_run_and_reuse_in_other_classes():
    game = new_game(MELD_DEAL)
    act(game, "9C", "9S")
    assert game.phase == Phase.MELD and game.to_act == 0
    assert legal_names(game) == {
        "run",
        "marriage S",
        "marriage H",
        "marriage D",
        "pinochle",
        "kings around",
        "no meld",
    }
    act(game, "marriage H")  # the royal marriage
    assert game.meld_points == [40, 0]
    assert game.phase == Phase.PLAY1 and game.to_act == 0  # one meld per trick: the turn ended by itself
    assert count(game, 0, "KH", "table") == 1 and count(game, 0, "QC", "concealed") == 1  # drew QC

    act(game, "QC", "9S")
    assert "marriage H" not in legal_names(game)  # its K and Q already married, no fresh pair
    assert "run" in legal_names(game)
    act(game, "run")
    assert game.meld_points == [190, 0]  # 40 + the run's full 150
    assert game.melds[1] == [
        {"seat": 0, "meld": "run", "points": 150, "cards": ["AH", "TH", "KH", "QH", "JH"], "new": ["AH", "TH", "JH"]}
    ]

    act(game, "AC", "9D")
    assert "run" not in legal_names(game) and "marriage H" not in legal_names(game)
    act(game, "kings around")  # KH serves again, in another class
    assert game.meld_points == [270, 0]
    assert game.melds[2][0]["cards"] == ["KS", "KH", "KD", "KC"] and game.melds[2][0]["new"] == ["KS", "KD", "KC"]

    act(game, "TC", "9D", "marriage S")  # KS from the table (kings around), QS new
    act(game, "AD", "JS", "pinochle")  # QS from the table (a marriage), JD new
    assert game.meld_points == [330, 0]
    assert game.melds[4][0]["new"] == ["JD"]
    assert game.table_counts(0)[card_from_str("QS")] == 1


def test_every_meld_needs_a_new_card_from_the_hand():
    # Trump diamonds. Kings around, then queens around: every K and Q lies on the table, unused in class A.
    deal = make_deal("KS KH KD KC QS QH QD QC JD 9S AS AH", "9H 9H 9C 9C JH JH JC JC TH TH TC TC", "TD", "JS JS AC AC")
    game = new_game(deal)
    act(game, "9S", "9H", "kings around", "AS", "9H", "queens around", "AH", "9C")
    # Every marriage (the royal one too) is on the table, but none has a new card; the pinochle has JD.
    assert legal_names(game) == {"pinochle", "no meld"}
    act(game, "pinochle")
    assert game.meld_points == [180, 0]


DOUBLE_PINOCHLE_DEAL = make_deal("QS QS JD JD 9H 9H 9D 9D JS JS TH TH", "9S 9S TS TS AS AS KS KS JC JC QC QC", "AC")
ABOUND_DEAL = make_deal("AS AS AH AH AD AD AC AC 9H 9H 9C 9C", "9S 9S JS JS QS QS KS KS TS TS JD JD", "TD", "QD QD")


@pytest.mark.parametrize(
    ("deal", "single", "double", "points"),
    [
        (DOUBLE_PINOCHLE_DEAL, "pinochle", "double pinochle", (40, 300)),
        (ABOUND_DEAL, "aces around", "aces abound", (100, 1000)),
    ],
    ids=["pinochle", "aces"],
)
def test_double_melds_score_double_only_when_melded_at_once(deal, single, double, points):
    at_once = new_game(deal)
    act(at_once, "9H", "9S")
    assert {single, double} <= legal_names(at_once)
    act(at_once, double)
    assert at_once.meld_points == [points[1], 0]

    one_by_one = new_game(deal)
    act(one_by_one, "9H", "9S", single, "9H", "9S")
    assert single in legal_names(one_by_one) and double not in legal_names(one_by_one)
    act(one_by_one, single)
    assert one_by_one.meld_points == [2 * points[0], 0]  # two singles


def test_melded_cards_can_be_played_from_the_table_first():
    game = new_game(MELD_DEAL)
    act(game, "9C", "9S", "marriage H")
    assert game.legal_actions() == sorted(LAYOUT.card_action(c) for c in range(NUM_TYPES) if game.hand_of(0)[c])
    act(game, "KH")
    assert count(game, 0, "KH", "table") == 0 and count(game, 0, "KH") == 0
    assert count(game, 0, "QH", "table") == 1
    game = new_game(ABOUND_DEAL)
    act(game, "9H", "9S", "aces around", "AS")  # one AS on the table, one concealed: the table's is played
    assert count(game, 0, "AS", "table") == 0 and count(game, 0, "AS", "concealed") == 1
    assert game.view(1).known[0][card_from_str("AS")] == 0


# ------------------------------------------------------------------------------------------------
# The dix

# Trump hearts, turn-up AH; seat 0 holds both dixes (9H) and no other meld.
DIX_DEAL = make_deal("9H 9H 9C 9C 9D 9D JC JC JD JD TC TD", "9S 9S JS JS TS TS AS AS KS KS QS QS", "AH")


def test_dix_exchange_and_show():
    game = new_game(DIX_DEAL)
    assert game.meld_points == [0, 0]
    act(game, "9C", "9S")
    assert legal_names(game) == {"dix exchange", "dix show", "no meld"}
    act(game, "dix exchange")
    assert game.meld_points == [10, 0]
    assert game.turn_up == card_from_str("9H") and count(game, 0, "AH", "concealed") == 1
    assert game.view(1).known[0][card_from_str("AH")] == 1  # the other player saw it taken
    assert game.phase == Phase.MELD  # besides the meld: the turn goes on
    assert legal_names(game) == {"dix show", "no meld"}  # the turn-up is a dix now: no second exchange
    act(game, "dix show")
    assert game.meld_points == [20, 0] and count(game, 0, "9H", "table") == 1
    assert game.phase == Phase.PLAY1
    assert [entry["meld"] for entry in game.melds[0]] == ["dix exchange", "dix show"]
    assert game.melds[0][0]["took"] == "AH"
    play_random(game, np.random.default_rng(1), lambda g: g.phase == Phase.PLAY2)
    winner = game.tricks[11][2]
    assert game.draws[-1][1] == (1 - winner, card_from_str("9H"))  # the loser of trick 12 takes it
    assert game.view(winner).known[1 - winner][card_from_str("9H")] >= 1  # in view of the winner


def test_turned_up_dix_scores_the_dealer():
    deal = make_deal("9H 9C 9C 9D 9D JC JC JD JD TC TD TH", "9S 9S JS JS TS TS AS AS KS KS QS QS", "9H")
    for dealer in (0, 1):
        game = new_game(deal, dealer=dealer)
        assert game.meld_points[dealer] == 10 and game.meld_points[1 - dealer] == 0
    game = new_game(deal, dealer=1)
    act(game, "9C", "9S")
    assert legal_names(game) == {"dix show", "no meld"}  # nothing to exchange for: the turn-up is the dix
    act(game, "no meld")
    play_random(game, np.random.default_rng(2))
    assert game.record()["turn_up_dix"] is True and game.record()["meld"][1] >= 10


# ------------------------------------------------------------------------------------------------
# Drawing and phase 1 play


def test_winner_draws_first_and_the_loser_takes_the_turn_up():
    game = TwoHandGame(RULES, np.random.default_rng(5))
    stock, turn_up = list(game.stock), game.turn_up_dealt
    play_random(game, np.random.default_rng(6), lambda g: g.phase == Phase.PLAY2)
    taken = turn_up
    for trick, ((winner, first), (loser, second)) in enumerate(game.draws):
        assert winner == game.tricks[trick][2] and loser == 1 - winner
        assert first == stock[2 * trick]
        if trick < 11:
            assert second == stock[2 * trick + 1]
    exchanged = [e["took"] for es in game.melds for e in es if e["meld"] == "dix exchange"]
    if exchanged:
        taken = card_from_str("9" + SUITS[game.trump])
    assert game.draws[-1][1][1] == taken
    assert game.turn_up == -1 and game.stock_left == [] and game.table_counts(0) == [0] * NUM_TYPES


def test_phase_one_equal_cards_go_to_the_leader_and_any_card_may_follow():
    deal = make_deal("AS KS 9C 9C 9D 9D JC JC JD JD TC TD", "AS 9S 9H JS TS TS 9S JS KS QS QS QH", "AH")
    game = new_game(deal)
    act(game, "AS")
    # Seat 1 holds spades but may play anything, hearts (trump) included.
    assert legal_names(game) == {card_to_str(c) for c in range(NUM_TYPES) if game.hand_of(1)[c]}
    act(game, "AS")
    assert game.tricks[0][2] == 0  # equal cards: the leader wins
    assert game.phase == Phase.PLAY1  # seat 0 had nothing to meld
    act(game, "KS", "9H")
    assert game.tricks[1][2] == 1  # a trump takes a plain-suit lead


# ------------------------------------------------------------------------------------------------
# Phase 2 legality: follow and beat, else trump, else any card


def phase_two_position(trick: str, hand: str) -> TwoHandGame:
    """A phase-2 position with trump hearts: the follower (seat 1) holds ``hand`` and ``trick`` is led."""
    game = TwoHandGame(RULES, np.random.default_rng(3))
    play_random(game, np.random.default_rng(4), lambda g: g.phase == Phase.PLAY2)
    game.trump = HEARTS
    game.concealed[1] = counts_from_cards(parse_cards(hand.split()))
    game.trick, game.trick_leader, game.to_act = parse_cards(trick.split()), 0, 1
    return game


@pytest.mark.parametrize(
    ("trick", "hand", "legal"),
    [
        ("KS", "AS 9S TH QC", "AS"),  # must beat
        ("AS", "AS TS 9S KH", "AS TS 9S"),  # a second AS cannot beat the first: any spade
        ("TC", "9H QH AD KS", "9H QH"),  # void: must trump
        ("9D", "AS KC", "AS KC"),  # void, no trump: any card
        ("QH", "AH JH TS", "AH"),  # trump lead: beat it
        ("QH", "JH 9H TS", "JH 9H"),  # cannot beat: any trump
    ],
)
def test_phase_two_legality(trick, hand, legal):
    game = phase_two_position(trick, hand)
    assert legal_names(game) == set(legal.split())


def test_last_trick_scores_ten():
    game = TwoHandGame(RULES, np.random.default_rng(8))
    play_random(game, np.random.default_rng(9))
    values = COUNTING_VALUES["counters"]
    cards_only = [0, 0]
    for _, cards, winner in game.tricks:
        cards_only[winner] += trick_points(cards, values, last=False)
    last_winner = game.tricks[-1][2]
    assert game.trick_points[last_winner] == cards_only[last_winner] + 10
    assert sum(game.trick_points) == 250


# ------------------------------------------------------------------------------------------------
# Scoring and the end of the game


@pytest.mark.parametrize(
    ("totals", "winner"),
    [
        ([1000, 900], 0),
        ([990, 1000], 1),
        ([1010, 1050], 1),
        ([1200, 1100], 0),
        ([1000, 1000], None),
        ([990, 500], None),
    ],
)
def test_game_winner(totals, winner):
    assert game_winner(totals, 1000) == winner


def test_hand_score_totals_and_game_end():
    game = TwoHandGame(RULES, np.random.default_rng(10), dealer=0, totals=[995, 995])
    play_random(game, np.random.default_rng(11))
    assert game.score == [game.meld_points[s] + game.trick_points[s] for s in (0, 1)]
    assert game.totals == [995 + game.score[0], 995 + game.score[1]]
    assert margins(game.score, game.rules.teams) == [game.score[0] - game.score[1], game.score[1] - game.score[0]]
    assert game.winner == (None if game.score[0] == game.score[1] else int(game.score[1] > game.score[0]))
    if game.winner is not None:
        with pytest.raises(RuntimeError, match="game is over"):
            game.next_hand()
    fresh = TwoHandGame(RULES, np.random.default_rng(10), dealer=0)
    with pytest.raises(RuntimeError, match="before the hand is over"):
        fresh.next_hand()
    play_random(fresh, np.random.default_rng(11))
    fresh.next_hand()
    assert fresh.dealer == 1 and fresh.hand_number == 1 and fresh.to_act == 0


def test_target_score_switch():
    game = TwoHandGame(Rules(variant="two_hand", target_score=100), np.random.default_rng(12))
    play_random(game, np.random.default_rng(13))
    assert game.winner is not None or game.totals[0] == game.totals[1]


# ------------------------------------------------------------------------------------------------
# Seeded random playouts


def check_cards(game: TwoHandGame) -> None:
    """All 48 cards are somewhere: hands (concealed and table), stock, turn-up, tricks, trick."""
    counts = [0] * NUM_TYPES
    for seat in (0, 1):
        counts = [a + b for a, b in zip(counts, game.hand_of(seat), strict=True)]
    for c in [*game.stock_left, *game.trick, *(c for _, cards, _ in game.tricks for c in cards)]:
        counts[c] += 1
    if game.turn_up >= 0:
        counts[game.turn_up] += 1
    assert counts == [COPIES] * NUM_TYPES
    assert game.legal_actions()
    if game.phase == Phase.PLAY1 and not game.trick:
        assert sum(game.hand_of(0)) == sum(game.hand_of(1)) == 12


def check_record(record: dict) -> None:
    """A finished hand's record: 24 tricks in two phases, 250 trick points, scores, and exact replay."""
    assert len(record["tricks"]) == 24 and [t["phase"] for t in record["tricks"]] == [1] * 12 + [2] * 12
    assert len(record["melds"]) == 12 and len(record["draws"]) == 12
    assert sum(record["points"]) == 250
    assert record["score"] == [record["meld"][s] + record["points"][s] for s in (0, 1)]
    for seat in (0, 1):
        declared = sum(entry["points"] for entries in record["melds"] for entry in entries if entry["seat"] == seat)
        turned_up = 10 if record["turn_up_dix"] and record["dealer"] == seat else 0
        assert declared + turned_up == record["meld"][seat]
    for trick, following in zip(record["tricks"], record["tricks"][1:], strict=False):
        assert following["leader"] == trick["winner"]
    assert replay(record).record() == record


def test_random_playouts():
    rng = np.random.default_rng(2024)
    hands = 0
    game = None
    while hands < 300:
        if game is None or game.game_over or game.hand_number == 3:
            game = TwoHandGame(RULES, np.random.default_rng(hands))
        else:
            dealer = game.dealer
            game.next_hand()
            assert game.dealer == 1 - dealer and game.to_act == 1 - game.dealer
        totals = list(game.totals)
        play_random(game, rng, check=check_cards)
        record = game.record()
        check_record(record)
        assert game.totals == [totals[s] + game.score[s] for s in (0, 1)]
        assert game.winner == game_winner(game.totals, 1000)
        hands += 1


# ------------------------------------------------------------------------------------------------
# Replay, copies, illegal actions


def finished(seed: int) -> TwoHandGame:
    game = TwoHandGame(RULES, np.random.default_rng(seed))
    play_random(game, np.random.default_rng(seed + 1000))
    return game


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), fraction=st.floats(0, 1))
def test_replay_upto_reaches_the_state_before_that_decision(seed, fraction):
    record = finished(seed).record()
    steps = [(game.clone(), seat, action) for game, seat, action in decisions(record)]
    upto = int(fraction * (len(steps) - 1))
    game = replay(record, upto=upto)
    expected, seat, action = steps[upto]
    assert (game.view(0), game.view(1), game.stock_left) == (expected.view(0), expected.view(1), expected.stock_left)
    assert game.to_act == seat and action in game.legal_actions()


def test_replay_refuses_other_variants_and_edited_records():
    record = finished(1).record()
    with pytest.raises(ValueError, match="two_hand"):
        replay({**record, "variant": "partnership"})
    with pytest.raises(ValueError, match="score"):
        replay({**record, "score": [record["score"][0] + 10, record["score"][1]], "totals": record["totals"]})
    swapped = [dict(t) for t in record["tricks"]]
    swapped[0]["cards"] = swapped[0]["cards"][::-1]
    with pytest.raises(ValueError):
        replay({**record, "tricks": swapped})


def test_clone_and_pickle_are_independent():
    game = TwoHandGame(RULES, np.random.default_rng(20))
    play_random(game, np.random.default_rng(21), lambda g: len(g.tricks) == 5)
    snapshot = pickle.dumps(game)
    for copy_ in (game.clone(), pickle.loads(snapshot)):
        play_random(copy_, np.random.default_rng(22))
        assert copy_.hand_over
    assert pickle.dumps(game) == snapshot
    a, b = game.clone(), pickle.loads(snapshot)
    play_random(a, np.random.default_rng(23))
    play_random(b, np.random.default_rng(23))
    assert a.record() == b.record()


@pytest.mark.parametrize("action", [-1, LAYOUT.size, 999, "3", True, 2.5, None])
def test_bad_actions_raise_and_change_nothing(action):
    game = TwoHandGame(RULES, np.random.default_rng(30))
    play_random(game, np.random.default_rng(31), lambda g: len(g.tricks) == 3)
    snapshot = pickle.dumps(game)
    with pytest.raises(IllegalActionError, match=r"legal actions|must be an integer"):
        game.apply(action)
    assert pickle.dumps(game) == snapshot


def test_illegal_actions_raise_in_every_phase():
    game = new_game(MELD_DEAL)
    with pytest.raises(IllegalActionError, match="9S"):
        act(game, "9S")  # seat 0 holds no 9S
    act(game, "9C", "9S")
    snapshot = pickle.dumps(game)
    for name in ("double run", "marriage C", "dix show", "AH"):
        with pytest.raises(IllegalActionError):
            act(game, name)
    assert pickle.dumps(game) == snapshot
    play_random(game, np.random.default_rng(0))
    with pytest.raises(IllegalActionError, match="hand is over"):
        game.apply(0)


def test_rules_and_deals_are_validated():
    with pytest.raises(ValueError, match="two_hand"):
        TwoHandGame(Rules())
    with pytest.raises(ValueError, match="dealer"):
        TwoHandGame(RULES, dealer=2)
    deal = make_deal("AS AS AH AH AD AD AC AC 9H 9H 9C 9C", "9S 9S JS JS QS QS KS KS TS TS JD JD", "TD")
    with pytest.raises(ValueError, match="exactly twice"):
        TwoHandGame(RULES, deal={**deal, "turn_up": "AS"})
    with pytest.raises(ValueError, match="23"):
        TwoHandGame(RULES, deal={**deal, "stock": deal["stock"][1:]})
    with pytest.raises(ValueError, match="12"):
        TwoHandGame(RULES, deal=[deal["hands"][0][1:], deal["hands"][1]])
    with pytest.raises(ValueError, match="both or neither"):
        TwoHandGame(RULES, deal={"hands": deal["hands"], "turn_up": "TD"})
    game = TwoHandGame(RULES, np.random.default_rng(1), deal=deal["hands"])  # the rng shuffles turn-up and stock
    check_cards(game)
    assert game.deal == [sorted(parse_cards(h)) for h in deal["hands"]]


def test_layout_names_round_trip():
    assert LAYOUT.size == 43
    for action, name in LAYOUT.table():
        assert LAYOUT.from_string(name) == action
    assert LAYOUT.from_string("done") == LAYOUT.no_meld
    assert LAYOUT.from_string("Marriage hearts") == LAYOUT.from_string("marriage H")
    with pytest.raises(ValueError, match="not an action"):
        LAYOUT.from_string("royal flush")


# ------------------------------------------------------------------------------------------------
# Views and observations


def position(seed: int, tricks: int) -> TwoHandGame:
    """A random hand stopped at the lead after ``tricks`` tricks."""
    game = TwoHandGame(RULES, np.random.default_rng(seed))
    at_lead = (Phase.PLAY1, Phase.PLAY2)
    play_random(game, np.random.default_rng(seed + 1), lambda g: len(g.tricks) == tricks and g.phase in at_lead)
    return game


@pytest.mark.parametrize("seed", range(5))
def test_view_hides_the_opponents_concealed_cards_and_the_stock(seed):
    game = position(seed, 3)
    seat, other = 0, 1
    before = game.view(seat)
    observation = SPEC.encode_view(before)
    state = SPEC.encode_state(game, seat, observation)
    other_view = game.view(other)
    # Swap a concealed card of the opponent with a different stock card.
    mine = next(c for c in range(NUM_TYPES) if game.concealed[other][c] > game.known_concealed[other][c])
    index = next(i for i, c in enumerate(game.stock_left) if c != mine)
    theirs = game.stock_left[index]
    game.concealed[other][mine] -= 1
    game.concealed[other][theirs] += 1
    game.stock[game.drawn + index] = mine
    check_cards(game)
    assert game.view(seat) == before
    assert np.array_equal(SPEC.encode_view(game.view(seat)), observation)
    assert game.view(other) != other_view  # positive control: the change is real
    assert not np.array_equal(SPEC.encode_state(game, seat, observation), state)


def labels_set(observation: np.ndarray, piece: str) -> set[str]:
    p = SPEC.piece(piece)
    return {SPEC.describe(i) for i in range(p.offset, p.offset + p.size) if observation[i]}


@pytest.mark.parametrize("tricks", [0, 5, 12, 18])
def test_encode_view_matches_describe(tricks):
    game = position(40 + tricks, tricks)
    for seat in (0, 1):
        view = game.view(seat)
        observation = SPEC.encode_view(view)
        hand = view.hand
        assert labels_set(observation, "hand") == {
            f"hand[{card_to_str(c)} {copies}]" for c in range(NUM_TYPES) for copies in ("x>=1", "x2")[: hand[c]]
        }
        assert labels_set(observation, "trump") == {f"trump[{SUITS[game.trump]}]"}
        assert labels_set(observation, "phase") == {f"phase[{game.phase.name.lower()}]"}
        assert labels_set(observation, "acting") == {"acting[me]" if game.to_act == seat else "acting[opponent]"}
        assert labels_set(observation, "dealer") == {"dealer[me]" if game.dealer == seat else "dealer[opponent]"}
        turn_up = {f"turn_up[{card_to_str(game.turn_up)}]"} if game.turn_up >= 0 else set()
        assert labels_set(observation, "turn_up") == turn_up
        assert observation[SPEC.offsets["stock"]] == pytest.approx(len(game.stock_left) / 23)
        assert observation[SPEC.offsets["meld_points"] + 1] == pytest.approx(game.meld_points[1 - seat] / 1000)
        table = {f"table[opponent: {card_to_str(c)} x>=1]" for c in range(NUM_TYPES) if game.table_counts(1 - seat)[c]}
        assert {label for label in labels_set(observation, "table") if "opponent" in label and "x>=1" in label} == table
        if game.phase == Phase.PLAY2:  # by elimination the opponent's hand is known exactly
            known = {label for label in labels_set(observation, "known") if label.startswith("known[opponent")}
            expected = {
                f"known[opponent: {card_to_str(c)} {copies}]"
                for c in range(NUM_TYPES)
                for copies in ("x>=1", "x2")[: game.concealed[1 - seat][c]]
            }
            assert known == expected
        low, high = SPEC.bounds()
        assert observation.shape == (SPEC.size,) and np.all(observation >= low) and np.all(observation <= high)
        assert SPEC.encode_state(game, seat, observation).shape == (SPEC.state_size,)


def test_running_scores_are_relative_and_scaled_by_the_target():
    game = TwoHandGame(Rules(variant="two_hand", target_score=500), np.random.default_rng(50), totals=[300, 100])
    for seat, expected in ((0, [0.6, 0.2]), (1, [0.2, 0.6])):
        observation = SPEC.encode_view(game.view(seat))
        assert observation[SPEC.piece("scores").slice].tolist() == pytest.approx(expected)
