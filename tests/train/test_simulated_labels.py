"""The learned bidding's labels: each auction call valued by playing the true deal out on the kernel
(pinochle_train.simulated), their place in the imitation labels, and the regression that fits them."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

from agents.base import decide
from agents.heuristic import HeuristicAgent
from agents.search.kernel import simulate_hands
from pinochle_env import Game, Rules
from pinochle_env.games.partnership.search import partnership_scores
from pinochle_env.rules.switches import MIN_BID
from pinochle_train.config import build_config
from pinochle_train.simulated import HELP_PREFERENCE, auction_values

pytestmark = pytest.mark.usefixtures("search_kernel")


def _auction_positions(rules: Rules, deals: int, seed: int):
    """Engines at every auction decision with a choice of heuristic-bid deals (copies)."""
    rng = np.random.default_rng(seed)
    bots = [HeuristicAgent(seat) for seat in range(4)]
    for _ in range(deals):
        game = Game(rules, np.random.default_rng(int(rng.integers(2**31))))
        while game.phase.decision == "auction":
            if len(game.legal_actions()) > 1:
                yield game.clone()
            game.apply(decide(bots[game.to_act], game))


def _team_margin(rules: Rules, declarer: int, contract: int, team: int, played, thrown=None) -> float:
    thrown = played.thrown if thrown is None else thrown
    scores = partnership_scores(rules, declarer, contract, played.meld, played.points, played.tricks, thrown)
    return float(scores[0, team] - scores[0, 1 - team])


@pytest.mark.parametrize("rest_of_auction", [False, True], ids=["high_bidder", "rest_of_auction"])
def test_every_legal_call_is_valued_by_a_play_out_of_the_true_deal(rest_of_auction: bool) -> None:
    """Bids: the seat declaring, played out once and scored at each contract (thrown in where even
    every trick point cannot make it); pass and help: the high bidder (before any bid, the stuck
    dealer) declaring at the high bid, or with ``rest_of_auction`` wherever the heuristic's calls
    for the other seats end the auction; the heuristic's own call of the two preferred by
    HELP_PREFERENCE; the values are the seat's team margin, never rising with the contract."""
    rules = Rules()
    heuristic = HeuristicAgent(7)
    order = heuristic.tie_break_order
    positions = list(_auction_positions(rules, 6, seed=3))
    assert len(positions) > 20
    continued = 0
    for index, game in enumerate(positions):
        values = auction_values(game, heuristic, np.random.default_rng(index), rest_of_auction)
        layout, seat = game.layout, game.to_act
        assert sorted(values) == sorted(game.legal_actions())
        seeds = np.random.default_rng(index).integers(0, 2**63, size=2, dtype=np.uint64)
        dealt = np.array([list(hand) for hand in game.hands], dtype=np.int8)[None]
        bids = [a for a in game.legal_actions() if a < layout.num_bids]
        if bids:
            low = layout.bid_value(bids[0])
            played = simulate_hands(rules, dealt, seat, low, throw_in="play", order=order, seeds=seeds[:1])
            team_meld = played.meld[0, seat] + played.meld[0, (seat + 2) % 4]
            for bid in bids:
                contract = layout.bid_value(bid)
                thrown = np.array([contract - team_meld > 250])
                assert values[bid] == _team_margin(rules, seat, contract, seat % 2, played, thrown)
            assert all(values[a] >= values[b] for a, b in itertools.pairwise(bids))  # a higher contract never pays more
        if layout.passing in values:
            helps = layout.help in values and heuristic.helps(game.view(seat).hand, rules.run_extras)
            preferred, other = (layout.help, layout.passing) if helps else (layout.passing, layout.help)
            if rest_of_auction:
                declarer, contract = _auction_end(game, preferred, heuristic)
                continued += (declarer, contract) != (game.high_bidder, game.high_bid)
            else:
                declarer = game.high_bidder if game.high_bidder >= 0 else game.dealer
                contract = max(game.high_bid, MIN_BID)
            played = simulate_hands(rules, dealt, declarer, contract, order=order, seeds=seeds[1:])
            assert values[preferred] == _team_margin(rules, declarer, contract, seat % 2, played)
            if layout.help in values:
                assert values[preferred] - values[other] == HELP_PREFERENCE
    assert continued > 0 or not rest_of_auction  # the later calls changed the outcome somewhere


def _auction_end(game, call: int, heuristic: HeuristicAgent) -> tuple[int, int] | None:
    """Declarer and contract after ``call`` where the heuristic calls the rest of the auction
    (None: passed round, the deal redealt)."""
    rest = game.clone()
    rest.apply(call)
    while rest.phase.decision == "auction" and rest.auction:
        rest.apply(decide(heuristic, rest))
    if not rest.auction:
        return None
    assert len(rest.auction) > len(game.auction) and rest.contract >= max(game.high_bid, MIN_BID)
    return rest.declarer, rest.contract


def test_passing_before_any_bid_is_worth_nothing_where_all_passes_redeal() -> None:
    rules = Rules(all_pass="redeal")
    game = next(g for g in _auction_positions(rules, 3, seed=1) if g.high_bidder < 0)
    values = auction_values(game, HeuristicAgent(0), np.random.default_rng(0))
    assert values[game.layout.passing] in (0.0, -HELP_PREFERENCE)


def test_with_the_rest_of_the_auction_a_pass_before_any_bid_under_redeal_is_worth_the_bid_that_follows() -> None:
    """Before any bid under all_pass = redeal, with rest_of_auction, a pass is worth nothing only
    where every later seat passes too; where a later seat bids, it is worth that seat's hand played
    out at its contract."""
    rules = Rules(all_pass="redeal")
    heuristic = HeuristicAgent(0, aggression=0.7)  # cautious enough that some deals are passed round
    openings = [g for g in _auction_positions(rules, 40, seed=1) if g.high_bidder < 0]
    redealt = bid_later = 0
    for index, game in enumerate(openings):
        values = auction_values(game, heuristic, np.random.default_rng(index), rest_of_auction=True)
        seeds = np.random.default_rng(index).integers(0, 2**63, size=2, dtype=np.uint64)
        dealt = np.array([list(hand) for hand in game.hands], dtype=np.int8)[None]
        helps = game.layout.help in values and heuristic.helps(game.view(game.to_act).hand, rules.run_extras)
        preferred = game.layout.help if helps else game.layout.passing
        end = _auction_end(game, preferred, heuristic)
        if end is None:
            redealt += 1
            assert values[preferred] == 0.0
        else:
            bid_later += 1
            played = simulate_hands(rules, dealt, *end, order=heuristic.tie_break_order, seeds=seeds[1:])
            assert values[preferred] == _team_margin(rules, *end, game.to_act % 2, played)
    assert redealt > 0 and bid_later > 0


def test_simulated_rest_labels_differ_from_simulated_only_in_the_passes() -> None:
    """auction_labels = simulated_rest reaches the labels: the same hands and bid values as
    simulated, pass values changed where the rest of the auction changed the outcome."""
    from pinochle_train.imitation import chunk_arrays
    from pinochle_train.labels import labels_identity

    base = {"workers": 0, "imitate": "heuristic", "imitation_hands": 20, "hidden": [64], "critic_hidden": [16]}
    plain = chunk_arrays((build_config({**base, "auction_labels": "simulated"}), 0, 20, None))
    config = build_config({**base, "auction_labels": "simulated_rest"})
    rest = chunk_arrays((config, 0, 20, None))
    np.testing.assert_array_equal(rest["action"], plain["action"])
    layout = Game(Rules(), np.random.default_rng(0)).layout
    bids = slice(0, layout.num_bids)
    np.testing.assert_array_equal(rest["call_values"][:, bids], plain["call_values"][:, bids])
    passes = rest["call_values"][:, layout.passing], plain["call_values"][:, layout.passing]
    np.testing.assert_array_equal(np.isnan(passes[0]), np.isnan(passes[1]))
    assert (passes[0] != passes[1])[~np.isnan(passes[0])].any()
    assert labels_identity(config)["auction_labels"] == "simulated_rest"


def test_simulated_labels_sit_on_the_auction_decisions_and_the_regression_fits_them() -> None:
    """auction_labels = simulated: call_values on exactly the auction decisions (the same hands as
    without them), recorded in labels.json's identity; fitting them brings the policy's call
    logits toward the values (the regression loss falls)."""
    from agents.neural.network import masked_logits
    from pinochle_train.cloning import cloning_loss
    from pinochle_train.imitation import chunk_arrays, fit_imitation
    from pinochle_train.labels import labels_identity
    from pinochle_train.trainer import Trainer

    base = {"workers": 0, "imitate": "heuristic", "imitation_hands": 30, "hidden": [64], "critic_hidden": [16]}
    fitting = {"imitation_epochs": 30, "minibatch_size": 64, "learning_rate": 3e-3}
    config = build_config({**base, **fitting, "auction_labels": "simulated"})
    data = chunk_arrays((config, 0, 30, None))
    plain = chunk_arrays((build_config(base), 0, 30, None))
    np.testing.assert_array_equal(data["action"], plain["action"])  # the same hands and labels
    assert np.isnan(plain["call_values"]).all()
    layout = Game(Rules(), np.random.default_rng(0)).layout
    valued = ~np.isnan(data["call_values"]).all(axis=1)
    auction = data["action_mask"][:, : layout.trump0].any(axis=1)
    np.testing.assert_array_equal(valued, auction)
    assert valued.sum() > 100
    assert labels_identity(config)["auction_labels"] == "simulated"

    trainer = Trainer(config, __import__("pathlib").Path("unused"))
    rows = {key: torch.from_numpy(value[valued]) for key, value in data.items()}

    def call_loss() -> float:
        with torch.no_grad():
            logits = masked_logits(trainer.policy(rows["observation"].float()), rows["action_mask"])
            return float(cloning_loss(logits, rows, layout.card0, 0.0, config.value_temperature))

    before = call_loss()
    fit_imitation(trainer.policy, trainer.critic, trainer.optimizer, data, config, trainer.device)
    assert call_loss() < 0.8 * before


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"auction_labels": "bidding"}, r"auction_labels='bidding'; allowed: teacher, simulated, simulated_rest"),
        ({"auction_labels": "simulated"}, r"auction_labels='simulated' needs an agent to imitate"),
        (
            {
                "auction_labels": "simulated",
                "imitate": "heuristic",
                "imitation_hands": 1,
                "rules": {"variant": "cutthroat"},
            },
            r"in the partnership game \(variant='cutthroat'\)",
        ),
        ({"value_temperature": 0.0}, r"value_temperature=0.0 must be > 0"),
    ],
)
def test_bad_auction_label_settings_are_refused(values: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build_config(values)
