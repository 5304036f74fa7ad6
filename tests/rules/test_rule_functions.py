"""Table-driven tests of the pure rule functions, with the tables of the rules spec written out here.

Every table below is our own transcription of the project's rules (meld test hands, trick
positions, scoring cases, counting tables); nothing is read from outside the repository at test
time. The hypothesis tests compare the engine with small reference implementations written from
the rules text, independently of ``pinochle_env.rules``.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pinochle_env import rules as R
from pinochle_env.cards import (
    COPIES,
    COUNTING_VALUES,
    LAST_TRICK_BONUS,
    NUM_SUITS,
    NUM_TYPES,
    RANK_OF,
    SUIT_OF,
    SUITS,
    counts_from_cards,
    parse_cards,
)


def cards(text: str) -> list[int]:
    return parse_cards(text.split())


def counts(text: str) -> list[int]:
    return counts_from_cards(cards(text))


def suit(letter: str) -> int:
    return SUITS.index(letter)


# ============================================================================================
# Meld: test hands E1-E17 (trump, 12 cards, components by category, total under "consume").
# Component keys: "run", "royal", "marriage <suit>", "dix", "aces", "kings", "queens", "jacks",
# "pinochle"; values are the points of that category.

MELD_HANDS = {
    "E1": ("H", "AS TS KH QH 9H JD QS KC 9C JC TD AD", {"royal": 40, "dix": 10, "pinochle": 40}, 90),
    "E2": ("H", "AH TH KH KH QH QH JH 9H AS AD AC QS", {"run": 150, "royal": 40, "dix": 10, "aces": 100}, 300),
    "E3": (
        "S",
        "AS TS KS KS QS JS JD KH KC KD 9S QD",
        {"run": 150, "marriage D": 20, "dix": 10, "kings": 80, "pinochle": 40},
        300,
    ),
    "E4": ("D", "AD AD TD TD KD KD QD QD JD JD QS QS", {"run": 1500, "pinochle": 300}, 1800),
    "E5": (
        "C",
        "JD JD QS QS JS JH JC KS 9C 9C AH TH",
        {"marriage S": 20, "dix": 20, "jacks": 40, "pinochle": 300},
        380,
    ),
    "E6": ("H", "AS AS AH AH AD AD AC AC TH KH QH JH", {"run": 150, "aces": 1000}, 1150),
    "E7": (
        "S",
        "KS QS KH QH KD QD KC QC JD 9S AH TC",
        {
            "royal": 40,
            "marriage H": 20,
            "marriage D": 20,
            "marriage C": 20,
            "kings": 80,
            "queens": 60,
            "dix": 10,
            "pinochle": 40,
        },
        290,
    ),
    "E8": (
        "H",
        "AH TH KH QH JH KS QS KD QD KC QC 9H",
        {"run": 150, "marriage S": 20, "marriage D": 20, "marriage C": 20, "kings": 80, "queens": 60, "dix": 10},
        360,
    ),
    "E9": ("D", "9D 9D 9S 9H 9C JS JH JC QH TS AC KD", {"dix": 20}, 20),
    "E10": ("C", "KS KS QS QS KH KH KD KD KC KC JD JD", {"kings": 800, "marriage S": 40, "pinochle": 300}, 1140),
    "E11": ("S", "AH TH KH QH JH 9H AS AD AC KS QD 9S", {"marriage H": 20, "dix": 10, "aces": 100}, 130),
    "E12": ("H", "AH TH KH QH JH 9H AS AD AC KS QD 9S", {"run": 150, "dix": 10, "aces": 100}, 260),
    "E13": ("S", "AS TS KS QS QS JS JD JD KH KD KC 9S", {"run": 150, "dix": 10, "kings": 80, "pinochle": 300}, 540),
    "E14": ("D", "JS JS JH JH JD JD JC JC QS QS AD TD", {"jacks": 400, "pinochle": 300}, 700),
    "E15": ("C", "AS AS AH AH AD AD AC KC QC KH QH 9D", {"royal": 40, "marriage H": 20, "aces": 100}, 160),
    "E16": ("S", "AS AS TS TS KS KS QS QS JS JS 9S 9S", {"run": 1500, "dix": 20}, 1520),
    "E17": (
        "H",
        "KH QH KH QH 9H AS AD AC TS KS JD QS",
        {"royal": 80, "marriage S": 20, "dix": 10, "pinochle": 40},
        150,
    ),
}

#: Totals that differ from "consume" under the other run_extras values (all others unchanged).
RUN_EXTRAS_TOTALS = {
    "consume": {},
    "reuse": {"E2": 340, "E3": 340, "E13": 580},
    "royal_in_run": {"E2": 340, "E3": 340, "E4": 1880, "E6": 1190, "E8": 400, "E12": 300, "E13": 580, "E16": 1600},
}

MELD_CASES = [(name, extras) for extras in RUN_EXTRAS_TOTALS for name in MELD_HANDS]


def meld_components(melds: tuple[tuple[str, int], ...]) -> dict[str, int]:
    """Engine meld names grouped into the categories of the tables above."""
    out: dict[str, int] = {}
    for name, points in melds:
        if "royal" in name:
            key = "royal"
        elif name.startswith("marriage"):
            key = "marriage " + name.split()[1]
        elif "run" in name:
            key = "run"
        elif "pinochle" in name:
            key = "pinochle"
        elif name.startswith("dix"):
            key = "dix"
        else:
            key = next(k for k in ("aces", "kings", "queens", "jacks") if name.startswith(k))
        assert key not in out, f"category {key} listed twice in {melds}"
        out[key] = points
    return out


def test_meld_table_is_self_consistent():
    for name, (_, hand, parts, total) in MELD_HANDS.items():
        assert len(hand.split()) == 12, name
        assert sum(parts.values()) == total, name


@pytest.mark.parametrize(("name", "run_extras"), MELD_CASES)
def test_meld_hand_total(name, run_extras):
    trump, hand, _, total = MELD_HANDS[name]
    expected = RUN_EXTRAS_TOTALS[run_extras].get(name, total)
    result = R.meld(counts(hand), suit(trump), run_extras)
    assert result.points == expected
    assert sum(points for _, points in result.melds) == result.points


@pytest.mark.parametrize(("name", "run_extras"), MELD_CASES)
def test_meld_hand_components(name, run_extras):
    trump, hand, parts, total = MELD_HANDS[name]
    expected = dict(parts)
    extra = RUN_EXTRAS_TOTALS[run_extras].get(name, total) - total
    if extra:  # the variants only change the royal marriages counted next to a run
        expected["royal"] = expected.get("royal", 0) + extra
    assert meld_components(R.meld(counts(hand), suit(trump), run_extras).melds) == expected


def test_meld_names():
    names = {name for name, _ in R.meld(counts(MELD_HANDS["E3"][1]), suit("S")).melds}
    assert any(n.startswith("marriage D") for n in names)
    assert "run" in names
    assert "double run" in {name for name, _ in R.meld(counts(MELD_HANDS["E4"][1]), suit("D")).melds}
    assert "double pinochle" in {name for name, _ in R.meld(counts(MELD_HANDS["E4"][1]), suit("D")).melds}
    assert "aces abound" in {name for name, _ in R.meld(counts(MELD_HANDS["E6"][1]), suit("H")).melds}
    assert "kings abound" in {name for name, _ in R.meld(counts(MELD_HANDS["E10"][1]), suit("C")).melds}


#: Cards shown for some hands (default rules): per card type, the most copies any single class uses.
SHOWN = {
    "E1": "KH QH 9H QS JD",
    "E2": "AH TH KH KH QH QH JH 9H AS AD AC",
    "E4": "AD AD TD TD KD KD QD QD JD JD QS QS",
    "E7": "KS QS KH QH KD QD KC QC JD 9S",
    "E9": "9D 9D",
    "E10": "KS KS QS QS KH KH KD KD KC KC JD JD",
    "E12": "AH TH KH QH JH 9H AS AD AC",
    "E13": "AS TS KS QS QS JS JD JD KH KD KC 9S",
    "E17": "KH KH QH QH 9H KS QS JD",
}


@pytest.mark.parametrize("name", sorted(SHOWN))
def test_meld_shown_cards(name):
    trump, hand, _, _ = MELD_HANDS[name]
    assert list(R.meld(counts(hand), suit(trump)).shown) == counts(SHOWN[name])


def test_meld_shown_run_extras():
    # A run plus a lone extra trump K: reuse scores the royal with the spare K, so both kings show;
    # under consume the extra K is no meld and stays hidden.
    hand = counts("AH TH KH KH QH JH 9S 9S 9D 9D 9C 9C")
    consume = R.meld(hand, suit("H"), "consume")
    reuse = R.meld(hand, suit("H"), "reuse")
    assert consume.points == 150 and reuse.points == 190
    assert consume.shown == tuple(counts("AH TH KH QH JH"))
    assert reuse.shown == tuple(counts("AH TH KH KH QH JH"))
    assert R.meld(hand, suit("H"), "royal_in_run").points == 190


def test_meld_run_extras_small_cases():
    # run + spare trump K + Q = 190 (consume); reuse 230; bare run royal_in_run 190.
    run_kq = counts("AS TS KS KS QS QS JS 9H 9H 9D 9D 9C")
    assert R.meld(run_kq, suit("S"), "consume").points == 190
    assert R.meld(run_kq, suit("S"), "reuse").points == 230
    assert R.meld(run_kq, suit("S"), "royal_in_run").points == 230
    bare = counts("AC TC KC QC JC 9H 9H 9D 9D 9S 9S JH")
    assert R.meld(bare, suit("C"), "consume").points == 150
    assert R.meld(bare, suit("C"), "reuse").points == 150
    assert R.meld(bare, suit("C"), "royal_in_run").points == 190


# ============================================================================================
# Trick legality: positions T1-T13 (trump hearts), default head rule and the other switches.

TRICKS = {
    "T1": ("KS", "AS 9S TH QC", "AS"),
    "T2": ("KS QS 9H", "AS TS JS KC", "AS TS JS"),
    "T3": ("AS", "AS TS 9S KH", "AS TS 9S"),
    "T4": ("TC", "9H QH AD KS", "9H QH"),
    "T5": ("TC KH", "QH 9H AS", "QH 9H"),
    "T6": ("TC QH", "KH 9H AS", "KH"),
    "T7": ("TC AH", "AH 9H KS", "AH 9H"),
    "T8": ("QH", "AH JH TS", "AH"),
    "T9": ("QH AH", "AH KH 9C", "AH KH"),
    "T10": ("9D", "AS KC", "AS KC"),
    "T11": ("KC JC", "AC 9C", "AC"),
    "T12": ("KS AS", "TS 9S", "TS 9S"),
    "T13": ("TC 9C", "9H AS", "9H"),
}

#: (position, head_rule) -> legal cards where that head rule differs from the default.
HEAD_OVERRIDES = {
    ("T1", "trump_lead_only"): "AS 9S",
    ("T1", "none"): "AS 9S",
    ("T2", "highest_led"): "AS TS",
    ("T2", "led_card"): "AS TS",
    ("T11", "trump_lead_only"): "AC 9C",
    ("T11", "none"): "AC 9C",
    ("T12", "led_card"): "TS",
    ("T8", "none"): "AH JH",
}
#: position -> legal cards with must_overtrump=false where they differ from the default.
OVERTRUMP_OVERRIDES = {"T6": "KH 9H"}
HEAD_RULES = ("winner", "highest_led", "led_card", "trump_lead_only", "none")
HEARTS = suit("H")


def expected_legal(name: str, head_rule: str, must_overtrump: bool) -> list[int]:
    legal = HEAD_OVERRIDES.get((name, head_rule))
    if legal is None and not must_overtrump:
        legal = OVERTRUMP_OVERRIDES.get(name)
    return sorted(cards(legal if legal is not None else TRICKS[name][2]))


@pytest.mark.parametrize("name", sorted(TRICKS))
def test_trick_positions_default(name):
    trick, hand, legal = TRICKS[name]
    assert sorted(R.legal_cards(counts(hand), cards(trick), HEARTS)) == sorted(cards(legal))


@pytest.mark.parametrize("must_overtrump", [True, False])
@pytest.mark.parametrize("head_rule", HEAD_RULES)
@pytest.mark.parametrize("name", sorted(TRICKS))
def test_trick_positions_all_switches(name, head_rule, must_overtrump):
    trick, hand, _ = TRICKS[name]
    got = R.legal_cards(counts(hand), cards(trick), HEARTS, head_rule, must_overtrump)
    assert sorted(got) == expected_legal(name, head_rule, must_overtrump)


#: (position, refused card) -> the rule the refusal names (default switches).
REFUSALS = {
    ("T1", "9S"): "must beat",
    ("T1", "TH"): "must follow suit (spades)",
    ("T4", "AD"): "no clubs, so you must trump",
    ("T6", "9H"): "higher trump",
    ("T13", "AS"): "must trump",
}


def test_play_refusal_names_the_rule_each_refused_card_breaks():
    for (name, refused), reason in REFUSALS.items():
        trick, hand, legal = TRICKS[name]
        assert refused in hand.split() and refused not in legal.split()
        assert reason in R.play_refusal(counts(hand), cards(trick), HEARTS, cards(refused)[0])


def test_trick_overrides_differ_from_default():
    for name, head_rule in HEAD_OVERRIDES:
        assert expected_legal(name, head_rule, True) != sorted(cards(TRICKS[name][2]))
    for name in OVERTRUMP_OVERRIDES:
        assert expected_legal(name, "winner", False) != sorted(cards(TRICKS[name][2]))


#: (cards in play order, trump) -> position of the winning card.
WINNERS = [
    ("AS AS", "H", 0),  # T3 played out: the first of two identical cards wins
    ("TC AH AH", "H", 1),  # T7: the first AH
    ("KS QS 9H", "H", 2),  # trumped
    ("KS QS 9H TH", "H", 3),  # over-trumped
    ("KS AS TS AS", "H", 1),  # highest of the led suit, first ace
    ("9D AS KC QH", "H", 3),  # only trump wins
    ("9D AS KC JC", "H", 0),  # off-suit cards never win: the lead holds
    ("9H AH AS AS", "H", 1),  # trump led, highest trump
    ("QC KC 9C AC", "C", 3),  # trump lead, all trumps
    ("JS 9S 9S 9S", "D", 0),
    ("TD AD AC AC", "C", 2),  # first of two identical trumps
    ("AH TH 9S 9S", "S", 2),  # first of two nines of trump beats the aces
    ("KD", "D", 0),  # a trick of one card
]


@pytest.mark.parametrize(("played", "trump", "position"), WINNERS)
def test_trick_winner_cases(played, trump, position):
    assert R.trick_winner(cards(played), suit(trump)) == position


# ============================================================================================
# Scoring cases S1-S6 (team D declares). We check them with D = team 0 and with D = team 1.


def by_team(declaring: int, d: int, o: int) -> tuple[int, int]:
    return (d, o) if declaring == 0 else (o, d)


@pytest.mark.parametrize("declaring", [0, 1])
def test_scoring_s1_made(declaring):
    result = R.score_hand(
        declaring, 300, by_team(declaring, 190, 60), by_team(declaring, 130, 120), by_team(declaring, 7, 5), False
    )
    assert result.score == by_team(declaring, 320, 180)
    assert result.made is True


@pytest.mark.parametrize("declaring", [0, 1])
def test_scoring_s2_set(declaring):
    result = R.score_hand(
        declaring, 350, by_team(declaring, 120, 80), by_team(declaring, 200, 50), by_team(declaring, 9, 3), False
    )
    assert result.score == by_team(declaring, -350, 130)
    assert result.made is False


@pytest.mark.parametrize("declaring", [0, 1])
def test_scoring_s3_thrown_in(declaring):
    result = R.score_hand(declaring, 400, by_team(declaring, 140, 70), (0, 0), (0, 0), True)
    assert result.score == by_team(declaring, -400, 70)
    assert result.made is False


@pytest.mark.parametrize("declaring", [0, 1])
def test_scoring_s4_meld_not_saved(declaring):
    result = R.score_hand(
        declaring, 260, by_team(declaring, 60, 100), by_team(declaring, 250, 0), by_team(declaring, 12, 0), False
    )
    assert result.score == by_team(declaring, 310, 0)


@pytest.mark.parametrize("declaring", [0, 1])
def test_scoring_s5_both_cross_declarer_wins(declaring):
    totals = by_team(declaring, 1400 + 260, 1450 + 60)
    assert totals == by_team(declaring, 1660, 1510)
    assert R.game_winner(totals, declaring, 1500) == declaring


@pytest.mark.parametrize("declaring", [0, 1])
def test_scoring_s6_defenders_cross(declaring):
    totals = by_team(declaring, 1180 - 300, 1450 + 60)
    assert R.game_winner(totals, declaring, 1500) == 1 - declaring


def test_game_winner_edges():
    assert R.game_winner((1490, 1499), 0, 1500) is None
    assert R.game_winner((1500, 0), 1, 1500) == 0  # exactly the target is enough
    assert R.game_winner((1500, 1500), 1, 1500) == 1
    assert R.game_winner((-200, 1000), 0, 1000) == 1  # target_score switch


@pytest.mark.parametrize(
    ("save_meld", "applies_to", "meld", "points", "tricks", "score"),
    [
        # defenders take a pointless trick: "trick" saves their meld, "points" does not
        ("points", "defenders", (100, 60), (250, 0), (11, 1), (350, 0)),
        ("trick", "defenders", (100, 60), (250, 0), (11, 1), (350, 60)),
        ("trick", "defenders", (100, 60), (250, 0), (12, 0), (350, 0)),
        ("none", "defenders", (100, 60), (250, 0), (12, 0), (350, 60)),
        # the declaring team's meld must be saved too under "both"
        ("points", "both", (300, 60), (0, 250), (0, 12), (-250, 310)),
        ("points", "defenders", (300, 60), (0, 250), (0, 12), (300, 310)),
        ("trick", "both", (300, 60), (0, 250), (1, 11), (300, 310)),
        ("none", "both", (300, 60), (0, 250), (0, 12), (300, 310)),
    ],
)
def test_save_meld_switches(save_meld, applies_to, meld, points, tricks, score):
    result = R.score_hand(0, 250, meld, points, tricks, False, save_meld, applies_to)
    assert result.score == score


def test_contract_made_exactly():
    assert R.score_hand(1, 300, (0, 100), (50, 200), (3, 9), False).score == (50, 300)
    assert R.score_hand(1, 310, (0, 100), (50, 200), (3, 9), False).score == (50, -310)


# ============================================================================================
# Counting tables: rank -> points, our own transcription; each sums to 250 with the last trick.

COUNTING = {
    "counters": {"A": 10, "T": 10, "K": 10, "Q": 0, "J": 0, "9": 0},
    "ak10_kq5": {"A": 10, "T": 10, "K": 5, "Q": 5, "J": 0, "9": 0},
    "classic": {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0},
}


@pytest.mark.parametrize("counting", sorted(COUNTING))
def test_counting_table_totals_250(counting):
    table = COUNTING[counting]
    assert 2 * NUM_SUITS * sum(table.values()) + 10 == 250
    values = COUNTING_VALUES[counting]
    for c in range(NUM_TYPES):
        rank_letter = "9JQKTA"[RANK_OF[c]]
        assert values[RANK_OF[c]] == table[rank_letter]
    deck = [c for c in range(NUM_TYPES) for _ in range(COPIES)]
    tricks = [deck[i : i + 4] for i in range(0, len(deck), 4)]
    total = sum(R.trick_points(t, values, last=i == len(tricks) - 1) for i, t in enumerate(tricks))
    assert total == 250
    assert LAST_TRICK_BONUS == 10
    assert R.trick_points(cards("AS TS KS QS"), values, last=True) == sum(table[r] for r in "ATKQ") + 10


# ============================================================================================
# Property tests against reference implementations written from the rules text.

RANK_LETTERS = "9JQKTA"


def n(hand: list[int], rank: str, s: int) -> int:
    return hand[s * 6 + RANK_LETTERS.index(rank)]


def reference_meld(hand: list[int], t: int, run_extras: str) -> int:
    r = min(n(hand, x, t) for x in "ATKQJ")
    run = {0: 0, 1: 150, 2: 1500}[r]
    if run_extras == "royal_in_run":
        royal = 40 * min(n(hand, "K", t), n(hand, "Q", t))
    elif run_extras == "reuse" and r == 1:
        royal = 40 * ((n(hand, "K", t) - 1) + (n(hand, "Q", t) - 1))
    else:
        royal = 40 * (min(n(hand, "K", t), n(hand, "Q", t)) - r)
    marriages = sum(20 * min(n(hand, "K", s), n(hand, "Q", s)) for s in range(4) if s != t)
    dix = 10 * n(hand, "9", t)
    around = 0
    for rank, base in (("A", 100), ("K", 80), ("Q", 60), ("J", 40)):
        c = min(n(hand, rank, s) for s in range(4))
        around += {0: 0, 1: base, 2: 10 * base}[c]
    p = min(n(hand, "Q", 0), n(hand, "J", 2))
    pinochle = {0: 0, 1: 40, 2: 300}[p]
    return run + royal + marriages + dix + around + pinochle


DECK = [c for c in range(NUM_TYPES) for _ in range(COPIES)]
shuffled_decks = st.permutations(DECK)


@st.composite
def rich_hands(draw) -> tuple[list[int], int]:
    """(12 cards, trump) biased towards meld: trump cards, kings, queens, QS and JD come often."""
    trump = draw(st.integers(0, NUM_SUITS - 1))
    pool = list(range(NUM_TYPES))
    pool += [c for c in range(NUM_TYPES) if SUIT_OF[c] == trump] * 4
    pool += [c for c in range(NUM_TYPES) if RANK_LETTERS[RANK_OF[c]] in "KQ"] * 2 + cards("QS JD") * 3
    picks = draw(st.lists(st.sampled_from(pool), min_size=30, max_size=60))
    hand: list[int] = []
    for c in picks:
        if hand.count(c) < COPIES and len(hand) < 12:
            hand.append(c)
    for c in DECK:  # top up to 12 cards if the picks ran short
        if len(hand) < 12 and hand.count(c) < COPIES:
            hand.append(c)
    return hand, trump


trumps = st.integers(0, NUM_SUITS - 1)
RUN_EXTRAS = ("consume", "reuse", "royal_in_run")


@settings(max_examples=150, deadline=None)
@given(deck=shuffled_decks, trump=trumps, data=st.data())
def test_meld_matches_reference_and_is_order_free(deck, trump, data):
    hand_cards = deck[:12]
    permuted = data.draw(st.permutations(hand_cards))
    for extras in RUN_EXTRAS:
        result = R.meld(counts_from_cards(hand_cards), trump, extras)
        assert R.meld(counts_from_cards(permuted), trump, extras) == result
        assert result.points == reference_meld(counts_from_cards(hand_cards), trump, extras)


@settings(max_examples=200, deadline=None)
@given(drawn=rich_hands())
def test_meld_variants_dominate_consume(drawn):
    hand_cards, trump = drawn
    hand = counts_from_cards(hand_cards)
    assert len(hand_cards) == 12
    consume = R.meld(hand, trump, "consume")
    for extras in ("reuse", "royal_in_run"):
        other = R.meld(hand, trump, extras)
        assert other.points >= consume.points
        assert other.points == reference_meld(hand, trump, extras)
    # the shown cards are always cards of the hand
    assert all(0 <= s <= h for s, h in zip(consume.shown, hand, strict=True))


@settings(max_examples=100, deadline=None)
@given(deck=shuffled_decks, trump=trumps)
def test_meld_invariant_under_nontrump_suit_swap(deck, trump):
    # Relabelling two non-trump suits changes nothing but the pinochle (Q spades + J diamonds).
    hand = counts_from_cards(deck[:12])
    others = [s for s in range(4) if s != trump]
    a, b = others[0], others[1]
    mapping = {a: b, b: a}
    swapped = counts_from_cards(mapping.get(SUIT_OF[c], SUIT_OF[c]) * 6 + RANK_OF[c] for c in deck[:12])

    def without_pinochle(h):
        m = R.meld(h, trump)
        return m.points - sum(p for name, p in m.melds if "pinochle" in name)

    assert without_pinochle(swapped) == without_pinochle(hand)


def reference_shown(hand: list[int], t: int, run_extras: str) -> list[int]:
    """Per card type, the most copies any single class uses (meld classes A, B, C)."""
    class_a = [0] * NUM_TYPES
    class_b = [0] * NUM_TYPES
    class_c = [0] * NUM_TYPES

    def idx(rank: str, s: int) -> int:
        return s * 6 + RANK_LETTERS.index(rank)

    r = min(n(hand, x, t) for x in "ATKQJ")
    kings, queens = n(hand, "K", t), n(hand, "Q", t)
    for x in "ATJ":
        class_a[idx(x, t)] = r
    if run_extras == "reuse" and r == 1:
        used_k, used_q = kings, queens  # each spare K or Q marries the run's Q or K (or each other)
    else:  # consume: royals outside the run; royal_in_run: the run's own K and Q are a royal too
        used_k = used_q = max(r, min(kings, queens))
    class_a[idx("K", t)], class_a[idx("Q", t)] = used_k, used_q
    for s in range(4):
        if s != t:
            class_a[idx("K", s)] = class_a[idx("Q", s)] = min(n(hand, "K", s), n(hand, "Q", s))
    class_a[idx("9", t)] = n(hand, "9", t)
    for rank in "AKQJ":
        c = min(n(hand, rank, s) for s in range(4))
        for s in range(4):
            class_b[idx(rank, s)] = c
    p = min(n(hand, "Q", 0), n(hand, "J", 2))
    class_c[idx("Q", 0)] = class_c[idx("J", 2)] = p
    return [max(a, b, c) for a, b, c in zip(class_a, class_b, class_c, strict=True)]


@settings(max_examples=300, deadline=None)
@given(drawn=rich_hands())
def test_meld_shown_matches_reference(drawn):
    hand_cards, trump = drawn
    hand = counts_from_cards(hand_cards)
    for extras in RUN_EXTRAS:
        assert list(R.meld(hand, trump, extras).shown) == reference_shown(hand, trump, extras), extras


@pytest.mark.parametrize("hand", ["AH TH KH KH QH JH 9S 9S 9D 9D 9C 9C", "AH TH KH QH QH JH 9S 9S 9D 9D 9C 9C"])
def test_meld_shown_royal_in_run_spare_card(hand):
    result = R.meld(counts(hand), HEARTS, "royal_in_run")
    assert result.points == 190
    assert list(result.shown) == counts("AH TH KH QH JH")


def reference_winner(played: list[int], trump: int) -> int:
    """Highest trump if any trump was played, else highest card of the led suit; first of equals."""
    led = SUIT_OF[played[0]]

    def strength(c: int) -> tuple[int, int]:
        if SUIT_OF[c] == trump:
            return (2, RANK_OF[c])
        if SUIT_OF[c] == led:
            return (1, RANK_OF[c])
        return (0, 0)

    best = max(strength(c) for c in played)
    return next(i for i, c in enumerate(played) if strength(c) == best)


def spec_beats(c: int, w: int, trump: int) -> bool:
    return (SUIT_OF[c] == SUIT_OF[w] and RANK_OF[c] > RANK_OF[w]) or (SUIT_OF[c] == trump and SUIT_OF[w] != trump)


def reference_legal(hand: list[int], trick: list[int], trump: int, head_rule: str, must_overtrump: bool) -> set[int]:
    held = {c for c in range(NUM_TYPES) if hand[c]}
    if not trick:
        return held
    led = SUIT_OF[trick[0]]
    winning = trick[reference_winner(trick, trump)]
    follow = {c for c in held if SUIT_OF[c] == led}
    if follow:
        if head_rule == "winner" or (head_rule == "trump_lead_only" and led == trump):
            target = winning if SUIT_OF[winning] == led else None
        elif head_rule == "highest_led":
            target = max((c for c in trick if SUIT_OF[c] == led), key=lambda c: RANK_OF[c])
        elif head_rule == "led_card":
            target = trick[0]
        else:
            target = None
        if target is None:
            return follow
        return {c for c in follow if RANK_OF[c] > RANK_OF[target]} or follow
    trump_cards = {c for c in held if SUIT_OF[c] == trump}
    if trump_cards:
        if must_overtrump and SUIT_OF[winning] == trump:
            return {c for c in trump_cards if RANK_OF[c] > RANK_OF[winning]} or trump_cards
        return trump_cards
    return held


@settings(max_examples=300, deadline=None)
@given(
    deck=shuffled_decks,
    hand_size=st.integers(1, 12),
    trick_size=st.integers(0, 3),
    trump=trumps,
    head_rule=st.sampled_from(HEAD_RULES),
    must_overtrump=st.booleans(),
)
def test_legal_cards_properties(deck, hand_size, trick_size, trump, head_rule, must_overtrump):
    hand = counts_from_cards(deck[:hand_size])
    trick = deck[hand_size : hand_size + trick_size]
    legal = R.legal_cards(hand, trick, trump, head_rule, must_overtrump)
    assert legal, "never empty for a non-empty hand"
    assert len(set(legal)) == len(legal)
    assert all(hand[c] > 0 for c in legal), "a subset of the hand"
    if trick:
        led = SUIT_OF[trick[0]]
        if any(hand[c] and SUIT_OF[c] == led for c in range(NUM_TYPES)):
            assert all(SUIT_OF[c] == led for c in legal), "must follow suit"
        elif any(hand[c] and SUIT_OF[c] == trump for c in range(NUM_TYPES)):
            assert all(SUIT_OF[c] == trump for c in legal), "must trump when void"
    else:
        assert sorted(legal) == sorted(c for c in range(NUM_TYPES) if hand[c])
    assert set(legal) == reference_legal(hand, trick, trump, head_rule, must_overtrump)


@settings(max_examples=300, deadline=None)
@given(deck=shuffled_decks, size=st.integers(1, 4), trump=trumps)
def test_trick_winner_matches_brute_force(deck, size, trump):
    played = deck[:size]
    position = R.trick_winner(played, trump)
    assert position == reference_winner(played, trump)
    # No later card beats the winning card.
    assert not any(spec_beats(c, played[position], trump) for c in played[position + 1 :])


@settings(max_examples=100, deadline=None)
@given(deck=shuffled_decks, trump=trumps)
def test_trick_winner_first_of_identical_cards(deck, trump):
    # Replay a trick with a duplicate of the winning card appended: the earlier copy still wins.
    played = deck[:3]
    position = R.trick_winner(played, trump)
    assert R.trick_winner([*played, played[position]], trump) == position
