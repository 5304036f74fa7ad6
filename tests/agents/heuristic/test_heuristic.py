"""The heuristic bot: legal play under every rule switch, no reading of hidden cards, its
club-player habits on preset deals, and its edge over random play in duplicate (same deal, teams
swapped), in the partnership game and, through the arena, in the others."""

from __future__ import annotations

import numpy as np
import pytest

from agents.arena import ArenaConfig, run_arena
from agents.base import RandomAgent, check_plays, decide
from agents.heuristic import HeuristicAgent
from agents.registry import load_agent
from pinochle_env import Game, Rules
from pinochle_env.cards import SUIT_OF, parse_cards
from pinochle_env.games.partnership.game import Phase
from tests.helpers import BOT_RULES, OTHER_GAMES, check_same_decisions, play_hand

# --------------------------------------------------------------------------------------------
# Legality


@pytest.mark.parametrize("rules", BOT_RULES.values(), ids=BOT_RULES.keys())
def test_heuristic_plays_only_legal_actions(rules):
    for seed in range(12):
        tables = ([HeuristicAgent(seed + s) for s in range(4)], [HeuristicAgent(seed), RandomAgent(seed)] * 2)
        game = Game(rules, np.random.default_rng(seed))
        for hand in range(3):  # a few hands of a game: dealers and running totals move on
            play_hand(game, tables[hand % 2])
            if game.game_over:
                break
            game.next_hand()


# --------------------------------------------------------------------------------------------
# No hidden state (helpers.check_same_decisions): a deal that differs only in cards the seat
# cannot see gets the same decision


@pytest.mark.parametrize("rules", [Rules(), BOT_RULES["highest_led-simultaneous"]], ids=["default", "simultaneous"])
def test_heuristic_never_reads_hidden_cards(rules):
    assert check_same_decisions(HeuristicAgent, rules, range(10), points=8) >= 100


# --------------------------------------------------------------------------------------------
# Parameters: the cutthroat rules read only aggression, the two-handed none


@pytest.mark.parametrize(
    ("variant", "spec", "refused"),
    [
        ("cutthroat", "heuristic:help_meld=80,aggression=1.2", "parameter help_meld means"),
        ("cutthroat", "heuristic:partner_value=0,help_value=0", "parameters partner_value, help_value mean"),
        ("two_hand", "heuristic:aggression=1.2", "parameter aggression means"),
    ],
)
def test_a_parameter_the_games_rules_never_read_is_refused_not_ignored(variant, spec, refused):
    with pytest.raises(ValueError, match=f"heuristic {refused} nothing in the {variant} game"):
        check_plays(load_agent(spec), Rules(variant=variant))
    check_plays(load_agent(spec), Rules())  # the partnership rules read every one
    check_plays(load_agent("heuristic:aggression=1.2"), Rules(variant="cutthroat"))
    check_plays(load_agent("heuristic:help_meld=60"), Rules(variant="two_hand"))  # its default: nothing changed


# --------------------------------------------------------------------------------------------
# The heuristic on preset deals


def preset_deal(fixed: dict[int, str], voids: dict[int, str] | None = None) -> list[list[int]]:
    """A full deal: the ``fixed`` cards per seat, the rest of the pack dealt in order, avoiding ``voids`` suits."""
    deal = {seat: parse_cards(cards.split()) for seat, cards in fixed.items()}
    rest = [c for c in range(24) for _ in range(2)]
    for cards in deal.values():
        for c in cards:
            rest.remove(c)
    hands = []
    for seat in range(4):
        hand = list(deal.get(seat, []))
        banned = {"SHDC".index(s) for s in (voids or {}).get(seat, "")}
        for c in list(rest):
            if len(hand) == 12:
                break
            if SUIT_OF[c] not in banned:
                hand.append(c)
                rest.remove(c)
        hands.append(hand)
    assert all(len(hand) == 12 for hand in hands) and not rest
    return hands


def position(rules: Rules, deal: list[list[int]], *calls: str, dealer: int = 3) -> Game:
    """The game after the given calls (``250``, ``pass``, ``trump H``, a card...), "play on" when asked."""
    game = Game(rules, np.random.default_rng(0), dealer=dealer, deal=deal)
    for call in calls:
        game.apply(game.layout.from_string(call))
    return game


def heuristic_choice(game: Game) -> str:
    return game.layout.to_string(decide(HeuristicAgent(0), game))


#: Eight nines, a jack and a queen: dix in every suit and nothing else, no trick-taking power.
JUNK = "9S 9S JS 9H 9H JH 9D 9D QD 9C 9C QC"


def test_a_run_opens_the_bidding_and_junk_passes():
    run = preset_deal({0: "AH TH KH QH JH 9S JS 9D JD 9C JC QC", 1: "9H 9H JH"})
    assert heuristic_choice(position(Rules(), run)) == "bid 250"
    junk = preset_deal({0: JUNK})
    assert heuristic_choice(position(Rules(), junk)) == "pass"


PLAY_RULES = Rules(pass_count=0, throw_in="never", must_overtrump=False)


def test_void_in_the_led_suit_trumps_low():
    """Seat 3, out of spades, trumps the opponents' counters with its lowest trump."""
    deal = preset_deal({0: "AS AS", 1: "9S", 2: "TS", 3: "9H AH"}, voids={3: "S"})
    game = position(PLAY_RULES, deal, "250", "pass", "pass", "pass", "trump H", "AS", "9S", "TS")
    assert heuristic_choice(game) == "9H"


def test_partner_winning_at_the_last_seat_gets_a_counter():
    """Seat 1 holds the trick with AS and seat 3 plays last: it adds a counter, not the nine."""
    deal = preset_deal({0: "9S", 1: "AS", 2: "JS", 3: "KS 9S QH AC"})
    game = position(PLAY_RULES, deal, "250", "pass", "pass", "pass", "trump H", "9S", "AS", "JS")
    assert game.to_act == 3
    assert heuristic_choice(game) == "KS"


def test_declarer_who_cannot_make_it_throws_in():
    rules = Rules(throw_in="always", bid_raises="any", pass_count=0)
    junk = preset_deal({0: JUNK})
    game = position(rules, junk, "400", "pass", "pass", "pass", "trump S")
    assert game.phase == Phase.THROW_IN
    assert heuristic_choice(game) == "throw in"
    strong = preset_deal({0: "AD AD TD TD KD KD QD QD JD JD QS QS"})  # double run: 1500 meld
    game = position(rules, strong, "400", "pass", "pass", "pass", "trump D")
    assert heuristic_choice(game) == "play on"


def test_partner_passes_trump_and_aces_and_declarer_keeps_them():
    deal = preset_deal({0: "AH TH KH QH JH 9S JS 9D JD 9C JC QC", 2: "AH 9H AS AD KC QC JS QS 9S 9D TC 9C"})
    game = position(Rules(), deal, "250", "pass", "pass", "pass", "trump H")
    passed = []
    for _ in range(4):
        action = decide(HeuristicAgent(0), game)
        passed.append(game.layout.to_string(action))
        game.apply(action)
    assert sorted(passed) == sorted(["AH", "9H", "AS", "AD"])
    back = decide(HeuristicAgent(0), game) - game.layout.card0  # the declarer returns neither trump nor an ace
    assert back not in parse_cards(["AH", "TH", "KH", "QH", "JH", "9H", "AS", "AD"])


# --------------------------------------------------------------------------------------------
# Strength


def duplicate_margin(make_a, make_b, pairs: int, rules: Rules | None = None) -> float:
    """Average hand-score margin of agent A's team over B's: each deal played twice, teams swapped."""
    total = 0.0
    for seed in range(pairs):
        for a_team in (0, 1):
            a, b = make_a(seed), make_b(seed)
            agents = [a, b, a, b] if a_team == 0 else [b, a, b, a]
            game = Game(rules or Rules(), np.random.default_rng(seed), dealer=seed % 4)
            play_hand(game, agents)
            total += game.score[a_team] - game.score[1 - a_team]
    return total / (2 * pairs)


def test_heuristic_beats_random_in_duplicate():
    margin = duplicate_margin(HeuristicAgent, RandomAgent, pairs=100)
    assert margin > 150, margin


@pytest.mark.parametrize("variant", OTHER_GAMES)
def test_heuristic_beats_random(variant, tmp_path):
    config = ArenaConfig(("heuristic", "random"), rules=Rules(variant=variant), deals=40, seed=11)
    margin = run_arena(config, tmp_path, workers=1, progress_every=0)["pairings"][0]["margin"]
    assert margin["low"] > 0, margin
