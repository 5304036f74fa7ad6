"""The card-location model (agents.neural.location), how one is made (agents.neural.location_fit)
and ``guided:locate=`` (agents.search.guided)."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import torch

from agents.base import check_plays, decide
from agents.neural import location, location_fit
from agents.neural.agent import BUNDLED_DIR, UntrainedRulesWarning
from agents.neural.location import BUNDLED_LOCATION_MODELS, LOCATION_DIR, LocationModel, load_location_model
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


def test_the_bundled_model_places_cards_better_than_a_guess_by_hand_size():
    """On positions of deals it never saw (another seed), the shipped network's cross-entropy is far
    below the hand-size guess, as its record says; the arena records its file."""
    path = BUNDLED_LOCATION_MODELS["partnership"]
    record = json.loads((LOCATION_DIR / "partnership.json").read_text())
    assert record["file"] == path.name and record["held_out_cross_entropy"] < record["by_hand_size_cross_entropy"]
    _, network = load_location_model(path)
    observations, hands, _ = location_fit.record_positions("bundled", 77, range(6))
    with torch.no_grad():
        loss = location_fit.cross_entropy(network, torch.from_numpy(observations), torch.from_numpy(hands)).item()
    assert loss < location_fit.by_hand_size(hands) - 0.2
    assert path in checkpoint_files("mix:play=guided:locate=bundled,default=pimc", "partnership")
    assert load_agent("guided:locate=bundled", seed=0).search.locations is not None
    assert load_agent("guided", seed=0).search.locations is None


@pytest.mark.usefixtures("search_kernel")
def test_the_deal_played_scores_higher_than_drawn_deals_under_the_bundled_model():
    """The model's rows and the drawn deals' seats line up: the hands actually held get a higher
    location evidence than deals drawn for the same view, on average over views."""
    from agents.heuristic import HeuristicAgent
    from agents.search.inference import location_evidence, weighted_deals

    model = LocationModel("bundled")
    order = HeuristicAgent(0).tie_break_order
    true_minus_drawn = []
    for game, view in play_views(Rules(), range(4)):
        locations = model(view)
        drawn = weighted_deals(view, 16, 1, 1.0, 1.0, np.random.default_rng(0), order)
        truth = location_evidence(np.asarray(game.hands)[None], view.seat, locations)[0]
        true_minus_drawn.append(truth - location_evidence(drawn.hands, view.seat, locations).mean())
    assert len(true_minus_drawn) > 20 and np.mean(true_minus_drawn) > 1.0


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
    with pytest.raises(ValueError, match="locate needs a model"):
        load_agent("guided:locate=")
    agent = load_agent("guided:locate=bundled")
    with pytest.raises(ValueError, match="has a location model for the partnership game only"):
        agent.check_rules(Rules(variant="cutthroat"))
    with pytest.warns(UntrainedRulesWarning, match="fitted under other rules"):
        agent.check_rules(Rules(pass_with_help=False))
    payload = torch.load(BUNDLED_LOCATION_MODELS["partnership"], weights_only=True)
    torch.save({**payload, "variant": "cutthroat"}, tmp_path / "other_game.pt")
    with pytest.raises(ValueError, match="reads the cutthroat game"):
        load_agent(f"guided:locate={tmp_path / 'other_game.pt'}")
    torch.save({**payload, "observation_size": 50}, tmp_path / "other_size.pt")
    with pytest.raises(ValueError, match="the weights do not fit the sizes the file records"):
        load_agent(f"guided:locate={tmp_path / 'other_size.pt'}")


def test_two_bundled_records_for_one_game_are_refused(tmp_path, monkeypatch):
    for name in ("a", "b"):
        (tmp_path / f"{name}.json").write_text(json.dumps({"variant": "partnership", "file": f"{name}.pt"}))
    monkeypatch.setattr(location, "LOCATION_DIR", tmp_path)
    with pytest.raises(RuntimeError, match="another bundled location model is already the partnership game's"):
        location._bundled_location_models()


def test_the_command_refuses_bad_arguments(capsys, tmp_path):
    for arguments, message in (
        (["--deals", "5"], "--deals must be at least 20"),
        (["--epochs", "0"], "--epochs must be at least 1"),
        (["--policy", "nosuch.pt"], "checkpoint file not found"),
        (["--policy", "bundled,sample=true"], "checkpoint file not found"),
    ):
        out = tmp_path / "m.pt"
        try:
            code = location_fit.main(["--out", str(out), *arguments])
        except SystemExit as exit_:
            code = exit_.code
        assert code in (1, 2)
        assert message in capsys.readouterr().err
        assert not out.exists()


def test_the_command_refuses_a_folder_as_out(capsys, tmp_path):
    with pytest.raises(SystemExit):
        location_fit.main(["--out", str(tmp_path)])
    assert "--out is the model file to write" in capsys.readouterr().err


def test_the_command_replaces_only_a_location_model(capsys, tmp_path, small_model):
    """--out agents/bundled/partnership.pt wrote a record among the bundled agents' and every
    checkpoint agent then failed to load (KeyError: 'spec'); --out on a policy overwrote it."""
    policy = tmp_path / "policy.pt"
    policy.write_bytes((BUNDLED_DIR / "pinochle_ppo.pt").read_bytes())
    lone_record = tmp_path / "m.json"
    lone_record.write_text("{}")
    for out, message in (
        (BUNDLED_DIR / "partnership.pt", "holds the bundled agents' records"),
        (policy, "it exists and is not a location model"),
        (tmp_path / "m.pt", "exists without its model"),
    ):
        with pytest.raises(SystemExit):
            location_fit.main(["--out", str(out), "--deals", "24"])
        assert message in capsys.readouterr().err
    assert location_fit.out_problem(small_model[0]) == ""  # a location model may be made again
    assert not (BUNDLED_DIR / "partnership.json").exists()


def test_a_stray_record_among_the_bundled_agents_is_named(tmp_path, monkeypatch):
    from agents.neural import agent

    shutil.copytree(BUNDLED_DIR, tmp_path / "bundled", ignore=shutil.ignore_patterns("*.pt"))
    (tmp_path / "bundled" / "partnership.json").write_text(json.dumps({"variant": "partnership"}))
    monkeypatch.setattr(agent, "BUNDLED_DIR", tmp_path / "bundled")
    with pytest.raises(RuntimeError, match=r"partnership\.json is not a bundled agent's record"):
        agent._bundled_files()
