"""The card-location model (agents.neural.location), how one is made (agents.neural.location_fit)
and ``guided:locate=`` (agents.search.guided)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from agents.base import check_plays, decide
from agents.neural import location_fit
from agents.neural.location import LOCATION_DIR, LocationModel, bundled_location_models
from agents.registry import checkpoint_files, load_agent
from pinochle_env import Rules, new_game
from pinochle_env.cards import NUM_TYPES
from pinochle_env.games.kit import variant_kit
from tests.helpers import play_views


@pytest.fixture(scope="module")
def small_model(tmp_path_factory):
    """A model made by the command line from 24 deals (one epoch): its file and its record."""
    path = tmp_path_factory.mktemp("location") / "small.pt"
    assert location_fit.main(["--out", str(path), "--deals", "24", "--epochs", "1", "--workers", "1"]) == 0
    return path, json.loads(path.with_suffix(".json").read_text())


def test_recorded_positions_are_two_views_of_every_card_play_with_the_other_seats_hands():
    """Each position is the observation the environment gives a seat, with the hands the seats
    after it hold at that card play: their cards and the seat's own are all not yet played."""
    observations, hands, deal_of = location_fit.record_positions("bundled", 7, range(3, 5))
    kit = variant_kit(Rules())
    assert observations.dtype == np.float16 and observations.shape[1] == kit.spec.size
    assert hands.shape == (len(observations), 3, NUM_TYPES)
    for deal in (3, 4):
        plays = int((deal_of == deal).sum())
        assert plays in (0, 2 * 48)  # a hand thrown in has no card play
    held = hands.sum(axis=(1, 2))
    assert held.max() == 36 and held.min() >= 0  # three full hands at the first trick; fewer later
    assert set(np.unique(deal_of)) <= {3, 4}


def test_fit_learns_where_the_cards_are_from_the_observation():
    """Synthetic positions whose first input says which of two other seats holds every copy: the
    fitted network's held-out loss falls epoch by epoch to below 40% of a uniform guess (log 3 per
    copy), and its probabilities over the seats sum to 1 for each card type."""
    rng = np.random.default_rng(0)
    count = 20_000
    observations = rng.normal(size=(count, 8)).astype(np.float16)
    holder = (observations[:, 0] > 0).astype(int) * 2  # seat 0 or seat 2 of the three others
    hands = np.zeros((count, 3, NUM_TYPES), dtype=np.int8)
    hands[np.arange(count), holder, :] = 1
    network, history = location_fit.fit(observations, hands, np.arange(count) // 20, epochs=3, seed=0)
    assert history[-1]["held_out"] < 0.4 * np.log(3) < history[0]["held_out"]
    with torch.no_grad():
        log_probabilities = network(torch.from_numpy(observations[:4]).float())
    assert torch.allclose(log_probabilities.exp().sum(dim=2), torch.ones(4, NUM_TYPES))


def test_the_command_writes_a_model_guided_search_plays_and_the_arena_records(small_model):
    path, record = small_model
    assert record["deals"] == 24 and record["positions"] > 0 and record["file"] == "small.pt"
    assert len(record["epochs"]) == 1 and record["kept_epoch"] == 1
    spec = f"guided:locate={path},locate_weight=3,samples=2,budget=0.2"
    assert path in checkpoint_files(spec, "partnership")
    agent = load_agent(spec, seed=1)
    check_plays(agent, Rules())
    _, view = next(iter(play_views(Rules(), range(1))))
    model = LocationModel(str(path))
    assert model(view).shape == (3, NUM_TYPES)
    assert np.allclose(np.exp(model(view)).sum(axis=0), 1.0)
    assert np.allclose(agent.search.locations(view), 3 * model(view))
    game = new_game(Rules(), np.random.default_rng(4))
    while not game.hand_over:
        game.apply(decide(agent, game))


def test_the_bundled_model_is_recorded_and_better_than_a_guess_by_hand_size():
    files = bundled_location_models()
    assert set(files) == {"partnership"} and files["partnership"].is_file()
    record = json.loads((LOCATION_DIR / "partnership.json").read_text())
    assert record["held_out_cross_entropy"] < record["by_hand_size_cross_entropy"] - 0.2
    assert files["partnership"] in checkpoint_files("mix:play=guided:locate=bundled,default=pimc", "partnership")
    assert load_agent("guided:locate=bundled", seed=0).search.locations is not None
    assert load_agent("guided", seed=0).search.locations is None


def test_bad_location_models_are_refused_by_name(tmp_path):
    with pytest.raises(ValueError, match=r"location model file not found: 'nosuch\.pt'"):
        load_agent("guided:locate=nosuch.pt")
    with pytest.raises(ValueError, match="locate_weight weights a location model: give locate=bundled"):
        load_agent("guided:locate_weight=2")
    with pytest.raises(ValueError, match="locate_weight must be a number > 0"):
        load_agent("guided:locate=bundled,locate_weight=0")
    policy = checkpoint_files("checkpoint:bundled", "partnership")[0]
    with pytest.raises(ValueError, match="is not a pinochle-rl location model"):
        load_agent(f"guided:locate={policy}")
    (tmp_path / "empty.pt").write_bytes(b"")
    with pytest.raises(ValueError, match="is not a readable location model"):
        load_agent(f"guided:locate={tmp_path / 'empty.pt'}")
    agent = load_agent("guided:locate=bundled")
    with pytest.raises(ValueError, match="has a location model for the partnership game only"):
        agent.check_rules(Rules(variant="cutthroat"))


def test_the_command_refuses_bad_arguments(capsys, tmp_path):
    for arguments, message in (
        (["--deals", "5"], "--deals must be at least 20"),
        (["--epochs", "0"], "--epochs must be at least 1"),
        (["--policy", "nosuch.pt"], "checkpoint file not found"),
    ):
        out = tmp_path / "m.pt"
        try:
            code = location_fit.main(["--out", str(out), *arguments])
        except SystemExit as exit_:
            code = exit_.code
        assert code in (1, 2)
        assert message in capsys.readouterr().err
        assert not out.exists()
