"""The kernel's entry points (and the agents' ``decide``) refuse what they cannot take, saying what
they take: a finished hand, a seat's view where a game is expected (and the other way round), a
seed out of range."""

from __future__ import annotations

import re

import numpy as np
import pytest

from agents.base import decide
from agents.heuristic import HeuristicAgent
from agents.search.kernel.playouts import play_out
from pinochle_env import Rules, new_game
from pinochle_env.kernel import card_values, sample_deals, solve


def _played_until(done) -> object:
    game, agent = new_game(Rules(), np.random.default_rng(1)), HeuristicAgent(1)
    while not done(game):
        game.apply(decide(agent, game))
    return game


@pytest.mark.parametrize("entry", [solve, card_values, play_out])
def test_a_finished_hand_is_refused_as_over(entry):
    """It said "negative shift count"."""
    with pytest.raises(ValueError, match="the hand is over: the kernel needs a position of trick play"):
        entry(_played_until(lambda game: game.hand_over))


def test_a_view_where_a_game_is_expected_and_a_game_where_a_view_is_are_named():
    """It said "'PlayerView' object has no attribute 'view'"."""
    game = _played_until(lambda game: game.phase.decision == "play")
    with pytest.raises(TypeError, match="not a PlayerView; a seat's view shows one hand"):
        solve(game.view(game.to_act))
    with pytest.raises(TypeError, match=r"sample_deals takes a seat's view \(game.view\(seat\)\), not a game"):
        sample_deals(game, 2)
    with pytest.raises(TypeError, match=r"decide takes a game \(an engine\), not a PlayerView"):
        decide(HeuristicAgent(1), game.view(game.to_act))


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5])
def test_seeds_outside_the_kernels_range_are_refused_naming_it(seed):
    """It said "Python integer -1 out of bounds for uint64"."""
    game = _played_until(lambda game: game.phase.decision == "play")
    with pytest.raises(ValueError, match=rf"seed must be an integer 0\.\.{2**64 - 1}, got {seed!r}"):
        sample_deals(game.view(game.to_act), 2, seed)
    with pytest.raises(ValueError, match=r"seed must be an integer 0\.\."):
        play_out(game, count=2, seed=seed)


@pytest.mark.parametrize("count", [0, 1.5, 2.0, True, "2"])
def test_a_play_out_count_that_is_no_whole_number_above_0_is_refused_naming_it(count):
    """1.5 and 2.0 failed inside numpy's broadcast_to; True played once; "2" failed comparing."""
    game = _played_until(lambda game: game.phase.decision == "play")
    with pytest.raises(ValueError, match=rf"count must be an integer >= 1, got {re.escape(repr(count))}"):
        play_out(game, count=count)
