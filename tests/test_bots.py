"""The bundled bots: legal play under every rule switch, no reading of hidden cards, the heuristic's
club-player habits on preset deals, agent specs, PIMC's deal sampling, and the heuristic's edge
over random play in duplicate (same deal, teams swapped)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from agents.base import RandomAgent, decide, legal_mask
from agents.heuristic import HeuristicAgent
from agents.registry import load_agent
from agents.search.original.bot import playout_view
from agents.search.original.sampling import DealSampler
from agents.search.pimc import PIMCAgent
from pinochle_env import Game, Rules
from pinochle_env.cards import SUIT_OF, parse_cards
from pinochle_env.games.partnership.game import Phase

#: Rule sets covering every head_rule, simultaneous passing, 3 and 0 cards passed, every
#: throw-in mode, free raises, a low bid cap, and the other switches at least once.
CONFIGS = {
    "default": Rules(),
    "highest_led-simultaneous": Rules(head_rule="highest_led", pass_mode="simultaneous"),
    "led_card-3-always": Rules(head_rule="led_card", pass_count=3, throw_in="always", counting="ak10_kq5"),
    "trump_lead_only-0-never": Rules(head_rule="trump_lead_only", pass_count=0, throw_in="never", must_overtrump=False),
    "none-any-300": Rules(
        head_rule="none", bid_raises="any", max_bid=300, pass_with_help=False, all_pass="redeal", run_extras="reuse"
    ),
    "classic-simultaneous-3": Rules(
        counting="classic",
        pass_mode="simultaneous",
        pass_count=3,
        save_meld="trick",
        save_meld_applies_to="both",
        run_extras="royal_in_run",
        target_score=500,
    ),
}
FAST_PIMC = {"samples": 2, "budget": 60.0}  # a budget never reached: decisions depend on the seed only


def play_hand(game: Game, agents: list) -> list[int]:
    """Play the hand in progress to its end with ``decide`` (which checks legality); the actions taken."""
    actions = []
    while not game.hand_over:
        action = decide(agents[game.to_act], game)
        game.apply(action)
        actions.append(action)
    return actions


# --------------------------------------------------------------------------------------------
# Legality


@pytest.mark.parametrize("rules", CONFIGS.values(), ids=CONFIGS.keys())
def test_heuristic_plays_only_legal_actions(rules):
    for seed in range(12):
        tables = ([HeuristicAgent(seed + s) for s in range(4)], [HeuristicAgent(seed), RandomAgent(seed)] * 2)
        game = Game(rules, np.random.default_rng(seed))
        for hand in range(3):  # a few hands of a game: dealers and running totals move on
            play_hand(game, tables[hand % 2])
            if game.game_over:
                break
            game.next_hand()


@pytest.mark.parametrize("rules", CONFIGS.values(), ids=CONFIGS.keys())
def test_pimc_plays_only_legal_actions(rules):
    for seed in range(2):
        agents = [PIMCAgent(seed, **FAST_PIMC), RandomAgent(seed), PIMCAgent(seed + 1, **FAST_PIMC), HeuristicAgent()]
        play_hand(Game(rules, np.random.default_rng(seed)), agents)


# --------------------------------------------------------------------------------------------
# No hidden state: a deal that differs only in cards the seat cannot see gets the same decision


def recorded_hand(rules: Rules, seed: int) -> tuple[Game, list[int], list[Phase]]:
    """A heuristic hand: the finished game, its actions and the phase of each."""
    game = Game(rules, np.random.default_rng(seed))
    agents = [HeuristicAgent(seed + s) for s in range(4)]
    actions, phases = [], []
    while not game.hand_over:
        phases.append(game.phase)
        actions.append(decide(agents[game.to_act], game))
        game.apply(actions[-1])
    return game, actions, phases


def replay(rules: Rules, dealer: int, deal: list[list[int]], actions: list[int]) -> Game | None:
    """The game after ``actions`` on ``deal``, or None if one of them is illegal there."""
    game = Game(rules, np.random.default_rng(0), dealer=dealer, deal=deal)
    try:
        for action in actions:
            game.apply(action)
    except ValueError:
        return None
    return game


def hidden_swap(original: Game, at: Game, rng: np.random.Generator) -> list[list[int]] | None:
    """The deal with one card swapped between two seats other than the one to act (cards they still hold)."""
    others = [s for s in range(4) if s != at.to_act]
    a, b = (int(s) for s in rng.choice(others, 2, replace=False))
    deal = [list(hand) for hand in original.deal]
    held_a = [c for c in set(deal[a]) if at.hands[a][c]]
    held_b = [c for c in set(deal[b]) if at.hands[b][c] and c not in held_a]
    if not held_a or not held_b:
        return None
    x, y = int(rng.choice(held_a)), int(rng.choice(held_b))
    deal[a][deal[a].index(x)], deal[b][deal[b].index(y)] = y, x
    return deal


def check_same_decisions(make_agent, rules: Rules, seeds: range, points: int, phases=None) -> int:
    """Decisions at random points of recorded hands are unchanged by hidden swaps; how many were compared."""
    compared = 0
    for seed in seeds:
        rng = np.random.default_rng(seed)
        original, actions, decided_in = recorded_hand(rules, seed)
        candidates = [k for k, phase in enumerate(decided_in) if phases is None or phase in phases]
        for k in rng.choice(candidates, min(points, len(candidates)), replace=False):
            at = replay(rules, original.dealer, original.deal, actions[:k])
            for _ in range(6):
                deal = hidden_swap(original, at, rng)
                alt = replay(rules, original.dealer, deal, actions[:k]) if deal else None
                if alt is None or alt.view(at.to_act) != at.view(at.to_act) or alt.hands == at.hands:
                    continue
                first, second = make_agent(seed), make_agent(seed)
                assert decide(first, at) == decide(second, alt), f"seed {seed}, decision {k}"
                compared += 1
    return compared


@pytest.mark.parametrize("rules", [Rules(), CONFIGS["highest_led-simultaneous"]], ids=["default", "simultaneous"])
def test_heuristic_never_reads_hidden_cards(rules):
    assert check_same_decisions(HeuristicAgent, rules, range(10), points=8) >= 100


def test_pimc_never_reads_hidden_cards():
    def make(seed):
        return PIMCAgent(seed, **FAST_PIMC)

    assert check_same_decisions(make, Rules(), range(3), points=3, phases={Phase.PLAY}) >= 5


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
# Specs


def test_load_agent_specs_and_parameters(tmp_path, monkeypatch):
    heuristic = load_agent("heuristic:aggression=1.2,help_meld=80", seed=1)
    assert isinstance(heuristic, HeuristicAgent) and heuristic.aggression == 1.2 and heuristic.help_meld == 80
    pimc = load_agent("pimc:samples=8,budget=0.5")
    assert isinstance(pimc, PIMCAgent) and (pimc.samples, pimc.budget) == (8, 0.5)
    with pytest.raises(ValueError, match="parameters: aggression, help_meld"):
        load_agent("heuristic:boldness=2")
    with pytest.raises(ValueError, match="parameters: evaluate, samples, budget"):
        load_agent("pimc:samples=8,depth=2")
    with pytest.raises(ValueError, match="not found"):
        load_agent(f"checkpoint:{tmp_path / 'missing.pt'}")
    saved = tmp_path / "policy.pt"
    saved.write_bytes(b"")  # an empty file: refused as unreadable, naming the file
    with pytest.raises(ValueError, match=r"policy\.pt is not a readable checkpoint"):
        load_agent(f"checkpoint:{saved},sample=true")
    with pytest.raises(ValueError, match="parameters: sample"):
        load_agent(f"checkpoint:{saved},greedy=true")
    assert load_agent("checkpoint:bundled,sample=true", seed=1).sample
    monkeypatch.setitem(sys.modules, "torch", None)  # PyTorch missing: said plainly
    with pytest.raises(ImportError, match="needs PyTorch"):
        load_agent(f"checkpoint:{saved}")


def test_checkpoint_warns_of_rule_switches_it_never_trained_under():
    """The bundled agent trained on the default rules: other switches warn (naming them), the
    default rules and a game-level switch do not, and a policy trained on sampled rule sets never does."""
    import warnings

    from agents.neural.agent import UntrainedRulesWarning, untrained_switches

    agent = load_agent("checkpoint:bundled", seed=0)
    with pytest.warns(UntrainedRulesWarning, match=r"never played bid_raises='any', throw_in='always'"):
        agent.check_rules(Rules(throw_in="always", bid_raises="any"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        agent.check_rules(Rules())
        agent.check_rules(Rules(target_score=500))
    assert untrained_switches(agent.meta, Rules(head_rule="none")) == {"head_rule": "none"}
    assert untrained_switches({**agent.meta, "sample_rules": True}, Rules(head_rule="none")) == {}


def test_bundled_any_rules_agent_plays_drawn_rule_sets_without_a_warning():
    """``checkpoint:bundled-any-rules`` trained on sampled rule sets: it plays hands of drawn rule sets
    legally (the driver checks every action) and is not warned about any of them."""
    import warnings

    from pinochle_env.rules.switches import random_rules

    agent = load_agent("checkpoint:bundled-any-rules", seed=0)
    assert agent.meta["sample_rules"] is True
    rng = np.random.default_rng(7)
    for _ in range(3):
        rules = random_rules(rng)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            agent.check_rules(rules)
        game = Game(rules, rng)
        while not game.hand_over:
            game.apply(decide(agent, game))


def test_checkpoint_probabilities_cover_the_legal_actions_and_match_its_play():
    """``NeuralAgent.probabilities``: zero off the mask, summing to one, greedy play takes the most
    probable action, and sampling draws from exactly these probabilities."""
    greedy = load_agent("checkpoint:bundled", seed=0)
    game = Game(Rules(), np.random.default_rng(3))
    seen_phases = set()
    while not game.hand_over:
        view, mask = game.view(game.to_act), legal_mask(game)
        probabilities = greedy.probabilities(view, mask)
        assert probabilities.shape == mask.shape and probabilities.dtype == np.float64
        assert np.all(probabilities[mask == 0] == 0) and abs(probabilities.sum() - 1) < 1e-9
        action = decide(greedy, game)
        assert probabilities[action] == probabilities.max()
        seen_phases.add(game.phase.decision)
        game.apply(action)
    assert {"auction", "play"} <= seen_phases
    sampler = load_agent("checkpoint:bundled,sample=true", seed=5)
    game = Game(Rules(), np.random.default_rng(3))
    view, mask = game.view(game.to_act), legal_mask(game)
    expected = np.random.default_rng(5).choice(len(mask), p=sampler.probabilities(view, mask))
    assert sampler.act(view, mask) == expected


# --------------------------------------------------------------------------------------------
# PIMC internals


@pytest.mark.parametrize("rules", [Rules(), CONFIGS["classic-simultaneous-3"], CONFIGS["trump_lead_only-0-never"]])
def test_sampled_deals_agree_with_everything_the_seat_knows(rules):
    """A sampled deal replays to the seat's exact view (the meld too, but for rare fallback draws)."""
    rng = np.random.default_rng(0)
    positions = moved = meld_differs = 0
    for seed in range(4):
        game = Game(rules, np.random.default_rng(seed))
        agents = [HeuristicAgent(seed + s) for s in range(4)]
        while not game.hand_over:
            if game.phase == Phase.PLAY:
                view = game.view(game.to_act)
                assert playout_view(game) == view
                sampled = DealSampler(view).sample(rng)
                assert sampled is not None
                sampled_view = sampled.view(game.to_act)
                meld_differs += sampled_view.meld != view.meld
                sampled_view.meld = view.meld
                assert sampled_view == view
                moved += sampled.hands != game.hands
                positions += 1
            game.apply(decide(agents[game.to_act], game))
    assert moved >= positions // 2
    assert meld_differs <= positions // 50


def test_pimc_decisions_are_reproducible_for_a_seed():
    game, actions, _ = recorded_hand(Rules(), 5)
    at = Game(Rules(), np.random.default_rng(0), dealer=game.dealer, deal=game.deal)
    for action in actions:
        if len(at.tricks) == 2:  # the lead to the third trick
            break
        at.apply(action)
    assert at.phase == Phase.PLAY
    first, second = PIMCAgent(3, samples=4, budget=60.0), PIMCAgent(3, samples=4, budget=60.0)
    view, mask = at.view(at.to_act), legal_mask(at)
    assert first.act(view, mask) == second.act(view, mask)
    assert mask[first.act(view, mask)]


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
