"""Seeded random playouts over a pairwise covering set of rule configurations.

Every value of every rule switch is played, and every pair of values of two different switches
(including a few bid caps and target scores) is played together in at least one configuration.
Each configuration plays whole games (``Game.next_hand``) with random legal actions, and the
invariants of the rules are checked at every decision and at the end of every hand. The checks
use small reference computations written here from the rules (legality, trick winner, counting,
game end), not the engine's own helpers, except where noted.
"""

from __future__ import annotations

import functools
import json
import random
from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from pinochle_env import records
from pinochle_env import rules as R
from pinochle_env.cards import RANK_OF, SUIT_OF, SUITS, card_from_str, counts_from_cards, parse_cards
from pinochle_env.engine import IllegalActionError
from pinochle_env.games.partnership.game import Game, Phase
from pinochle_env.rules.switches import CHOICES, PRESETS, Rules

# --------------------------------------------------------------------------------------------
# The configurations: a greedy pairwise covering array over every switch value.

#: Values each switch takes in the playouts (the rule switches' full choice lists, some integers);
#: the partnership game only (the variants have their own playouts in their test files).
SWITCH_VALUES: dict[str, tuple] = {
    **CHOICES,
    "variant": ("partnership",),
    "max_bid": (1000, 260, 400),
    "target_score": (1500, 10, 300),
}


def pairwise_configs(values: dict[str, tuple]) -> list[dict]:
    """A small set of configurations holding every pair of values of two different switches.

    Greedy: each new configuration starts from the first pair not yet covered and fills the other
    switches one by one with the value that covers the most uncovered pairs so far.
    """
    names = sorted(values, key=lambda name: (-len(values[name]), name))
    order = {name: i for i, name in enumerate(names)}

    def pair(a: str, i: int, b: str, j: int) -> tuple:
        return (a, i, b, j) if order[a] < order[b] else (b, j, a, i)

    uncovered = {
        (a, i, b, j) for a, b in combinations(names, 2) for i in range(len(values[a])) for j in range(len(values[b]))
    }
    rows: list[dict[str, int]] = []
    while uncovered:
        a, i, b, j = min(uncovered)
        row = {a: i, b: j}
        for name in names:
            if name not in row:
                row[name] = max(
                    range(len(values[name])),
                    key=lambda v, name=name: (sum(pair(n, row[n], name, v) in uncovered for n in row), -v),
                )
        uncovered -= {pair(x, row[x], y, row[y]) for x, y in combinations(names, 2)}
        rows.append(row)
    return [{name: values[name][row[name]] for name in values} for row in rows]


CONFIGS = pairwise_configs(SWITCH_VALUES)
#: The named presets are played too (their switches are covered by the pairs already).
ALL_CONFIGS = CONFIGS + [PRESETS[name].to_dict() for name in sorted(PRESETS)]
HANDS_PER_CONFIG = 40


def test_configurations_cover_every_pair():
    def same(x, y) -> bool:  # True == 1 in Python: compare types too
        return type(x) is type(y) and x == y

    for config in CONFIGS:
        assert set(config) == set(SWITCH_VALUES)
        Rules(**config)  # every configuration is a valid rule set
    for a, b in combinations(SWITCH_VALUES, 2):
        for x in SWITCH_VALUES[a]:
            for y in SWITCH_VALUES[b]:
                assert any(same(c[a], x) and same(c[b], y) for c in CONFIGS), f"{a}={x!r} with {b}={y!r} never played"
    # Far fewer configurations than the full product (the two largest switches give the floor: 5 x 3).
    assert 15 <= len(CONFIGS) <= 30


# --------------------------------------------------------------------------------------------
# Reference computations from the rules text.

COUNTING = {  # trick points per rank letter
    "counters": {"A": 10, "T": 10, "K": 10, "Q": 0, "J": 0, "9": 0},
    "ak10_kq5": {"A": 10, "T": 10, "K": 5, "Q": 5, "J": 0, "9": 0},
    "classic": {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0},
}
RANK_LETTER = "9JQKTA"


def ref_winner(trick: list[int], trump: int) -> int:
    """Position of the winning card: scan in order, replace on a higher card of the winner's suit
    or on a trump over a non-trump (so the first of two equal cards wins)."""
    best = 0
    for i in range(1, len(trick)):
        c, w = trick[i], trick[best]
        if (SUIT_OF[c] == SUIT_OF[w] and RANK_OF[c] > RANK_OF[w]) or (SUIT_OF[c] == trump != SUIT_OF[w]):
            best = i
    return best


def ref_legal_cards(hand: set[int], trick: list[int], trump: int, head_rule: str, must_overtrump: bool) -> set[int]:
    """Card types a hand (set of types held) may play to a trick, by the legality rules."""
    if not trick:
        return set(hand)
    led = SUIT_OF[trick[0]]
    winning = trick[ref_winner(trick, trump)]
    follow = {c for c in hand if SUIT_OF[c] == led}
    if follow:
        if head_rule == "none" or (head_rule == "trump_lead_only" and led != trump):
            to_beat = None
        elif head_rule == "led_card":
            to_beat = trick[0]
        elif head_rule == "highest_led":
            to_beat = max((c for c in trick if SUIT_OF[c] == led), key=lambda c: RANK_OF[c])
        else:  # winner (and trump_lead_only on a trump lead)
            to_beat = winning if SUIT_OF[winning] == led else None
        higher = {c for c in follow if to_beat is not None and RANK_OF[c] > RANK_OF[to_beat]}
        return higher or follow
    trumps = {c for c in hand if SUIT_OF[c] == trump}
    if not trumps:
        return set(hand)
    if must_overtrump and SUIT_OF[winning] == trump:
        return {c for c in trumps if RANK_OF[c] > RANK_OF[winning]} or trumps
    return trumps


def ref_legal_bids(game: Game) -> list[int]:
    rules = game.rules
    previous = max(game.high_bid, 240)
    if rules.bid_raises == "seed":
        values = [previous + 10, previous + 20]
    else:
        values = list(range(previous + 10, rules.max_bid + 1, 10))
    return [v for v in values if v <= rules.max_bid]


def ref_played_score(rules: Rules, declaring: int, bid: int, meld: list[int], points: list[int], tricks: list[int]):
    """Score of a played hand per team, and whether the declaring team made its bid."""

    def saved_meld(team: int) -> int:
        if rules.save_meld == "none" or (team == declaring and rules.save_meld_applies_to == "defenders"):
            return meld[team]
        took = points[team] >= 1 if rules.save_meld == "points" else tricks[team] >= 1
        return meld[team] if took else 0

    score = [saved_meld(team) + points[team] for team in (0, 1)]
    made = score[declaring] >= bid
    if not made:
        score[declaring] = -bid
    return score, made


def ref_game_winner(totals: list[int], declaring_team: int, target: int) -> int | None:
    reached = [team for team in (0, 1) if totals[team] >= target]
    if len(reached) == 2:
        return declaring_team
    return reached[0] if reached else None


# --------------------------------------------------------------------------------------------
# Invariants at every decision.


def card_census(game: Game) -> Counter:
    """Every card of the deck, wherever it is: hands, completed tricks, the trick in progress, and
    cards passed but not yet delivered (simultaneous passing hands them over only at the end)."""
    census: Counter = Counter()
    for hand in game.hands:
        assert min(hand) >= 0
        census.update({c: k for c, k in enumerate(hand) if k})
    for _, cards, _ in game.tricks:
        census.update(cards)
    census.update(game.trick)
    if game.rules.pass_mode == "simultaneous" and game.phase in (Phase.PASS_TO_DECLARER, Phase.PASS_BACK):
        census.update(game.passed_to_declarer)
        census.update(game.passed_back)
    return census


def expected_hand_sizes(game: Game) -> list[int]:
    sizes = [12] * 4
    if game.declarer >= 0:
        declarer, partner = game.declarer, (game.declarer + 2) % 4
        sizes[partner] -= len(game.passed_to_declarer)
        sizes[declarer] -= len(game.passed_back)
        in_flight = game.rules.pass_mode == "simultaneous" and game.phase in (Phase.PASS_TO_DECLARER, Phase.PASS_BACK)
        if not in_flight:
            sizes[declarer] += len(game.passed_to_declarer)
            sizes[partner] += len(game.passed_back)
    for leader, cards, _ in game.tricks:
        for position in range(len(cards)):
            sizes[(leader + position) % 4] -= 1
    for position in range(len(game.trick)):
        sizes[(game.trick_leader + position) % 4] -= 1
    return sizes


FULL_DECK = Counter({c: 2 for c in range(24)})


def check_step(game: Game) -> list[int]:
    """Invariants of the current state; returns the legal actions."""
    layout = game.layout
    assert card_census(game) == FULL_DECK
    assert [sum(hand) for hand in game.hands] == expected_hand_sizes(game)
    assert game.held == [R.held_bits(hand) for hand in game.hands]
    legal = game.legal_actions()
    bits = game.legal_bits()
    assert legal == [a for a in range(bits.bit_length()) if bits >> a & 1]
    assert bits >> layout.size == 0
    assert bool(legal) == (game.to_act >= 0) == (game.phase != Phase.HAND_OVER)
    if game.phase == Phase.HAND_OVER:
        return legal
    seat = game.to_act
    held = {c for c in range(24) if game.hands[seat][c]}
    cards = {a - layout.card0 for a in legal}
    if game.phase == Phase.AUCTION:
        assert not game.passed[seat]
        calls = [layout.passing] + ([layout.help] if game.rules.pass_with_help else [])
        assert legal == [layout.bid_action(v) for v in ref_legal_bids(game)] + calls
    elif game.phase == Phase.TRUMP:
        assert seat == game.declarer and legal == [layout.trump_action(s) for s in range(4)]
    elif game.phase == Phase.PASS_TO_DECLARER:
        assert seat == (game.declarer + 2) % 4 and cards == held
    elif game.phase == Phase.PASS_BACK:
        assert seat == game.declarer and cards == held
    elif game.phase == Phase.THROW_IN:
        assert seat == game.declarer and legal == [layout.throw_in, layout.play_on]
    else:
        assert game.phase == Phase.PLAY
        assert seat == (game.trick_leader + len(game.trick)) % 4
        rules = game.rules
        assert cards == ref_legal_cards(held, game.trick, game.trump, rules.head_rule, rules.must_overtrump)
    return legal


# --------------------------------------------------------------------------------------------
# Checks of a finished hand.


def check_auction(record: dict, rules: Rules) -> None:
    auction, dealer = record["auction"], record["dealer"]
    passed: set[int] = set()
    high, high_bidder = 0, -1
    seat = (dealer + 1) % 4
    for number, (who, call) in enumerate(auction):
        if number:
            seat = (seat + 1) % 4
            while seat in passed:
                seat = (seat + 1) % 4
        assert who == seat
        if call in ("pass", "help"):
            assert call == "pass" or rules.pass_with_help
            passed.add(who)
        else:
            assert type(call) is int and call % 10 == 0 and 250 <= call <= rules.max_bid
            previous = max(high, 240)
            assert call - previous in ((10, 20) if rules.bid_raises == "seed" else range(10, 10_000))
            high, high_bidder = call, who
    assert len(passed) == 3
    if high_bidder >= 0:
        assert (record["declarer"], record["bid"]) == (high_bidder, high)
        assert set(range(4)) - passed == {high_bidder}
    else:
        # Nobody bid: the dealer is stuck at 250 without a call (a redeal leaves no record).
        assert rules.all_pass == "dealer_stuck"
        assert (record["declarer"], record["bid"]) == (dealer, 250)
        assert [who for who, _ in auction] == [(dealer + k) % 4 for k in (1, 2, 3)]


def hands_after_passing(record: dict) -> list[list[int]]:
    hands = [parse_cards(cards) for cards in record["deal"]]
    declarer = record["declarer"]
    partner = (declarer + 2) % 4
    for c in parse_cards(record["passed_to_declarer"]):
        hands[partner].remove(c)
        hands[declarer].append(c)
    for c in parse_cards(record["passed_back"]):
        hands[declarer].remove(c)
        hands[partner].append(c)
    return hands


def check_hand(game: Game, before: list[int], decided: bool, stats: Counter) -> dict:
    """Checks of a finished hand; ``decided``: whether the declarer had a throw-in decision."""
    rules = game.rules
    record = game.record()
    assert game.to_act == -1 and game.legal_actions() == []
    assert record["options"] == rules.to_dict() and record["variant"] == "partnership"
    check_auction(record, rules)
    declarer, bid = record["declarer"], record["bid"]
    declaring = declarer % 2
    defending = 1 - declaring
    # A passed card may be one the declarer just received (sequential), never one it lacks.
    assert len(record["passed_to_declarer"]) == len(record["passed_back"]) == rules.pass_count
    hands = hands_after_passing(record)
    assert all(len(h) == 12 for h in hands)
    trump = SUITS.index(record["trump"])
    assert record["meld"] == [R.meld(counts_from_cards(h), trump, rules.run_extras).points for h in hands]
    team_meld = [record["meld"][0] + record["meld"][2], record["meld"][1] + record["meld"][3]]
    short = bid - team_meld[declaring]

    # Throw-in rule.
    if rules.throw_in == "never":
        assert not decided and record["thrown_in"] is False
    elif rules.throw_in == "always":
        assert decided
    elif short > 250:
        assert not decided and record["thrown_in"] is True
    elif short == 250:
        assert decided
    else:
        assert not decided and record["thrown_in"] is False

    if record["thrown_in"]:
        stats["thrown_in_decided" if decided else "thrown_in_automatic"] += 1
        assert record["tricks"] == [] and record["points"] == [0, 0]
        expected = [0, 0]
        expected[declaring], expected[defending] = -bid, team_meld[defending]
        assert record["score"] == expected
    else:
        stats["played"] += 1
        tricks = record["tricks"]
        assert len(tricks) == 12
        points, won = [0, 0], [0, 0]
        leader = declarer
        played: list[list[int]] = [[], [], [], []]
        for number, trick in enumerate(tricks):
            cards = parse_cards(trick["cards"])
            assert trick["leader"] == leader and len(cards) == 4
            for position, c in enumerate(cards):
                played[(leader + position) % 4].append(c)
            winner = (leader + ref_winner(cards, trump)) % 4
            assert trick["winner"] == winner
            value = sum(COUNTING[rules.counting][card[0]] for card in trick["cards"]) + (10 if number == 11 else 0)
            points[winner % 2] += value
            won[winner % 2] += 1
            leader = winner
        assert [sorted(p) for p in played] == [sorted(h) for h in hands]  # each seat played its own hand
        assert record["points"] == points and sum(points) == 250
        assert game.tricks_won == won
        result = R.score_hand(
            declaring, bid, team_meld, points, won, False, rules.save_meld, rules.save_meld_applies_to
        )
        assert record["score"] == list(result.score) and record["made"] == result.made
        assert (record["score"], record["made"]) == ref_played_score(rules, declaring, bid, team_meld, points, won)
        # The declaring team scores at least its bid, or loses exactly the bid.
        assert record["score"][declaring] >= bid if result.made else record["score"][declaring] == -bid
        stats["made" if result.made else "set"] += 1
    if record["thrown_in"]:
        assert record["made"] is False
    assert record["score"] == list(
        R.score_hand(
            declaring,
            bid,
            team_meld,
            record["points"],
            game.tricks_won,
            record["thrown_in"],
            rules.save_meld,
            rules.save_meld_applies_to,
        ).score
    )
    assert record["totals"] == [before[0] + record["score"][0], before[1] + record["score"][1]]
    winner = ref_game_winner(record["totals"], declaring, rules.target_score)
    assert record["game_winner"] == game.winner == winner
    if winner is not None and min(record["totals"]) >= rules.target_score:
        stats["both_reached_target"] += 1

    # The record replays exactly, also after a JSON round trip.
    assert records.replay(record).record() == record
    text = json.dumps(record)
    again = json.loads(text)
    assert again == record
    assert records.replay(again).record() == record
    return record


# --------------------------------------------------------------------------------------------
# The playouts.


def choose(game: Game, legal: list[int], rnd: random.Random) -> int:
    """A random legal action, with the auction tilted towards passes and low bids so that stuck
    dealers, redeals, throw-ins and played hands all happen."""
    layout = game.layout
    if game.phase == Phase.AUCTION:
        bids = [a for a in legal if a < layout.num_bids]
        if not bids or rnd.random() < 0.55:
            return rnd.choice([a for a in legal if a >= layout.num_bids])
        return rnd.choice(bids[:3] if rnd.random() < 0.8 else bids)
    return rnd.choice(legal)


def play_config(index: int, config: dict, hands: int) -> Counter:
    rules = Rules(**config)
    rnd = random.Random(1000 + index)
    stats: Counter = Counter()
    seed = 0
    game = Game(rules, np.random.default_rng([index, seed]))
    while stats["hands"] < hands:
        before = list(game.totals)
        assert game.events[0][2] == tuple(before)  # HAND_START holds the running totals
        dealer, hand_number = game.dealer, game.hand_number
        decided = False
        # An out-of-range action is refused and changes nothing.
        events = len(game.events)
        with pytest.raises(IllegalActionError):
            game.apply(game.layout.size)
        assert len(game.events) == events
        while True:
            legal = check_step(game)
            if not legal:
                break
            decided |= game.phase == Phase.THROW_IN
            phase = game.phase
            game.apply(choose(game, legal, rnd))
            if phase == Phase.AUCTION and game.phase == Phase.AUCTION and not game.auction:
                # Everybody but the dealer passed without a bid: same dealer deals again.
                assert rules.all_pass == "redeal"
                assert game.dealer == dealer and game.hand_number == hand_number
                stats["redeal"] += 1
        record = check_hand(game, before, decided, stats)
        stats["hands"] += 1
        stats["stuck"] += not any(type(call) is int for _, call in record["auction"])
        if game.winner is not None:
            stats["games_won"] += 1
            with pytest.raises(RuntimeError):
                game.next_hand()
            seed += 1
            game = Game(rules, np.random.default_rng([index, seed]))
        else:
            game.next_hand()
            assert game.dealer == (dealer + 1) % 4  # clockwise
            assert game.hand_number == hand_number + 1
            assert game.totals == record["totals"]
            stats["next_hand"] += 1
    return stats


@functools.cache
def playout_stats(index: int) -> Counter:
    return play_config(index, ALL_CONFIGS[index], HANDS_PER_CONFIG)


def config_id(index: int) -> str:
    config = ALL_CONFIGS[index]
    changed = [f"{k}={v}" for k, v in config.items() if v != getattr(Rules(), k)]
    return f"{index:02d}:" + (",".join(changed) or "default")


@pytest.mark.parametrize("index", range(len(ALL_CONFIGS)), ids=config_id)
def test_random_playouts(index):
    stats = playout_stats(index)
    assert stats["hands"] == HANDS_PER_CONFIG


def test_playouts_reach_every_outcome():
    """Across all configurations the playouts saw every kind of hand and game end."""
    total: Counter = Counter()
    for index in range(len(ALL_CONFIGS)):
        total.update(playout_stats(index))
    assert total["hands"] >= 800
    for outcome in (
        "played",
        "made",
        "set",
        "thrown_in_automatic",
        "thrown_in_decided",
        "stuck",
        "redeal",
        "games_won",
        "both_reached_target",
        "next_hand",
    ):
        assert total[outcome] > 0, f"no playout reached {outcome}: {dict(total)}"


def test_reference_legality_agrees_with_spec_positions():
    """The reference legality above reproduces a few spec positions (trump hearts), so the
    playouts compare the engine against a trustworthy oracle."""
    hearts = SUITS.index("H")

    def legal(trick: str, hand: str, head_rule: str = "winner", must_overtrump: bool = True) -> set[str]:
        held = {card_from_str(c) for c in hand.split()}
        out = ref_legal_cards(held, parse_cards(trick.split()), hearts, head_rule, must_overtrump)
        return {RANK_LETTER[RANK_OF[c]] + SUITS[SUIT_OF[c]] for c in out}

    assert legal("KS", "AS 9S TH QC") == {"AS"}
    assert legal("KS QS 9H", "AS TS JS KC") == {"AS", "TS", "JS"}
    assert legal("KS QS 9H", "AS TS JS KC", "highest_led") == {"AS", "TS"}
    assert legal("TC KH", "QH 9H AS") == {"QH", "9H"}
    assert legal("TC QH", "KH 9H AS") == {"KH"}
    assert legal("TC QH", "KH 9H AS", must_overtrump=False) == {"KH", "9H"}
    assert legal("KC JC", "AC 9C") == {"AC"}
    assert legal("KC JC", "AC 9C", "trump_lead_only") == {"AC", "9C"}
    assert legal("KS AS", "TS 9S", "led_card") == {"TS"}
    assert legal("QH", "AH JH TS", "none") == {"AH", "JH"}
    assert ref_winner(parse_cards(["TC", "AH", "AH"]), hearts) == 1
