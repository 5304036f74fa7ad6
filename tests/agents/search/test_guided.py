"""``guided``: the search bot's card values plus a policy's log-prior, bidding with the policy's
calls or the search's (agents.search.guided)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import check_plays, decide, legal_mask
from agents.registry import checkpoint_files, load_agent
from agents.search.guided import DECLARING_DECISIONS, GuidedSearchAgent
from agents.search.parameters import GUIDED_SEARCH_PARAMETERS
from agents.search.pimc import PLAY_PHASES
from pinochle_env import Rules, new_game
from pinochle_env.games.kit import variant_kit

pytestmark = pytest.mark.usefixtures("search_kernel")


def _first_card_choice(rules: Rules, seed: int = 5):
    """A game at its first card decision with more than one legal card, auction and the rest
    played by the heuristic."""
    heuristic = load_agent("heuristic", 0)
    game = new_game(rules, np.random.default_rng(seed))
    while not (game.phase.name in PLAY_PHASES and legal_mask(game).sum() > 1):
        game.apply(decide(heuristic, game))
    return game


def test_the_card_played_maximises_the_searched_value_plus_the_weighted_log_prior(monkeypatch):
    """With made-up search values and policy probabilities: no prior plays the best value, a large
    one the network's favourite, and in between the sum decides; every other decision is pimc's."""
    agent = load_agent("guided:prior=10,samples=4", seed=0)
    game = _first_card_choice(Rules())
    view, mask = game.view(game.to_act), legal_mask(game)
    legal = np.flatnonzero(mask).tolist()
    card0 = variant_kit(view.rules).layout.card0
    first, second = legal[0], legal[1]
    values = {action - card0: 0.0 for action in legal} | {first - card0: 30.0, second - card0: 20.0}
    probabilities = np.zeros(len(mask))
    probabilities[legal] = 0.01
    probabilities[second] = 1 - 0.01 * (len(legal) - 1)
    monkeypatch.setattr(agent.search, "card_values", lambda view, cards: values)
    monkeypatch.setattr(agent.policy, "probabilities", lambda view, mask: probabilities)
    assert agent.act(view, mask) == second  # 20 + 10 log(0.99...) beats 30 + 10 log(0.01)
    agent.prior = 0.0
    assert agent.act(view, mask) == first
    agent.prior = 1.0
    assert agent.act(view, mask) == first  # 30 - 4.6 still beats 20
    # The values it chose by, the soft targets of imitation labels: the searched value plus the prior term.
    action, guided = agent.act_with_values(view, mask)
    assert action == first and set(guided) == set(legal)
    assert guided[first] == pytest.approx(30.0 + np.log(0.01)) and guided[second] == pytest.approx(
        20.0 + np.log(0.99 - 0.01 * (len(legal) - 2))
    )
    monkeypatch.setattr(agent.search, "card_values", lambda view, cards: None)  # no deal: pimc's own
    monkeypatch.setattr(agent.search, "act", lambda view, mask: legal[-1])
    assert agent.act(view, mask) == legal[-1]
    assert agent.act_with_values(view, mask) == (legal[-1], None)


def _auction_decision(rules: Rules, seed: int = 3):
    """A game at an auction decision with a choice."""
    game = new_game(rules, np.random.default_rng(seed))
    assert game.phase.decision == "auction" and legal_mask(game).sum() > 1
    return game


def _answer(asked: list[str], who: str, action: int):
    """An ``act`` that notes ``who`` was asked and plays ``action``."""
    return lambda view, mask: asked.append(who) or action


@pytest.mark.parametrize("bidding", ["network", "search"])
def test_the_auction_calls_are_the_policys_or_the_searchs(monkeypatch, bidding):
    """``bidding=network`` makes the policy's call and never asks the search; ``bidding=search``
    the other way round; both leave the card play to the search plus the prior."""
    agent = load_agent(f"guided:bidding={bidding},samples=2,budget=0.2", seed=0)
    game = _auction_decision(Rules())
    view, mask = game.view(game.to_act), legal_mask(game)
    legal = np.flatnonzero(mask).tolist()
    asked: list[str] = []
    monkeypatch.setattr(agent.policy, "act", _answer(asked, "network", legal[0]))
    monkeypatch.setattr(agent.search, "act", _answer(asked, "search", legal[-1]))
    assert agent.act(view, mask) == (legal[0] if bidding == "network" else legal[-1])
    assert asked == [bidding]


def _declaring_decisions(rules: Rules, seed: int = 4) -> dict[str, tuple]:
    """The first (view, mask) of each declaring-side decision with a choice (trump, passing,
    throw-in) in one hand that the heuristic plays."""
    heuristic = load_agent("heuristic", 0)
    game = new_game(rules, np.random.default_rng(seed))
    found: dict[str, tuple] = {}
    while game.phase.name not in PLAY_PHASES:
        decision, mask = game.phase.decision, legal_mask(game)
        if decision in DECLARING_DECISIONS and mask.sum() > 1:
            found.setdefault(decision, (game.view(game.to_act), mask))
        game.apply(decide(heuristic, game))
    return found


@pytest.mark.parametrize("declaring", ["network", "search"])
def test_the_declaring_sides_decisions_are_the_searchs_or_the_policys(monkeypatch, declaring):
    """``declaring=network`` makes the policy choose trump, the passes and throw-in and never asks
    the search; ``declaring=search`` (the default) the other way round."""
    agent = load_agent(f"guided:declaring={declaring},samples=2,budget=0.2", seed=0)
    assert load_agent("guided", seed=0).declaring == "search"
    decisions = _declaring_decisions(Rules(throw_in="always"))
    assert set(decisions) == set(DECLARING_DECISIONS)
    asked: list[str] = []
    for view, mask in decisions.values():
        legal = np.flatnonzero(mask).tolist()
        monkeypatch.setattr(agent.policy, "act", _answer(asked, "network", legal[0]))
        monkeypatch.setattr(agent.search, "act", _answer(asked, "search", legal[-1]))
        assert agent.act(view, mask) == (legal[0] if declaring == "network" else legal[-1])
    assert asked == [declaring] * len(DECLARING_DECISIONS)
    assert GuidedSearchAgent(0, declaring=declaring).name.endswith(",declaring=network") == (declaring == "network")


def test_the_searchs_parameters_reach_it():
    """Every ``pimc`` parameter ``guided`` takes is the search's; left out, it is ``pimc``'s default.
    ``pimc``'s others are refused, in a spec and in a call."""
    given = {"samples": 5, "budget": 0.5, "nodes": 1000, "solve": 6, "leaf": 5, "infer": 0.5, "infer_play": 1.0}
    assert sorted(given) == sorted(GUIDED_SEARCH_PARAMETERS)
    agent = load_agent("guided:" + ",".join(f"{name}={value}" for name, value in given.items()), seed=0)
    assert {name: getattr(agent.search, name) for name in given} == given
    default, pimc = load_agent("guided", seed=0), load_agent("pimc", seed=0)
    assert {name: getattr(default.search, name) for name in given} == {name: getattr(pimc, name) for name in given}
    with pytest.raises(ValueError, match="unknown parameter 'pool=2' for agent 'guided'"):
        load_agent("guided:pool=2")
    with pytest.raises(TypeError, match=r"unexpected keyword.* pool; of pimc's it takes samples, budget"):
        GuidedSearchAgent(0, pool=2)


@pytest.mark.parametrize("variant", ["partnership", "two_hand"])
def test_guided_search_plays_legal_hands_and_records_its_checkpoint(variant):
    """A whole hand of each game (the driver checks every action), with the bundled policy of that
    game; the arena's provenance names the policy file the spec plays."""
    rules = Rules(variant=variant)
    agent = load_agent("guided:prior=10,samples=2,budget=0.2", seed=1)
    check_plays(agent, rules)
    game = new_game(rules, np.random.default_rng(2))
    while not game.hand_over:
        game.apply(decide(agent, game))
    assert agent.search_counts() == agent.search.search_counts() and agent.search_counts()[0] > 0
    assert [path.name for path in checkpoint_files("guided:prior=5", variant)] == [
        {"partnership": "pinochle_ppo.pt"}.get(variant, f"pinochle_ppo_{variant}.pt")
    ]


def test_bad_guided_parameters_are_refused_by_name():
    with pytest.raises(ValueError, match="prior must be a number >= 0"):
        load_agent("guided:prior=-1")
    with pytest.raises(ValueError, match="checkpoint file not found"):
        load_agent("guided:checkpoint=nosuch.pt")
    with pytest.raises(ValueError, match="bidding must be one of network, search, got 'heuristic'"):
        load_agent("guided:bidding=heuristic")
    with pytest.raises(ValueError, match="declaring must be one of network, search, got 'pimc'"):
        load_agent("guided:declaring=pimc")
    with pytest.raises(ValueError, match="infer_play must be in"):
        load_agent("guided:infer_play=0")
    with pytest.raises(ValueError, match=r"leaf must be 0\.\.15 tricks"):
        load_agent("guided:leaf=16")
    with pytest.raises(ValueError, match="nodes must be at least 1, got 0"):
        load_agent("guided:nodes=0")
    with pytest.raises(ValueError, match="unknown parameter 'depth=2' for agent 'guided'"):
        load_agent("guided:depth=2")
