"""Interoperability with other libraries: the action types they send (Stable-Baselines3's
``predict`` returns a 0-d array), copies and pickles of the environments mid-hand, registration,
observation bounds and the edges of the AEC and Gymnasium protocols."""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest

import pinochle_env
from agents.gym_env import SingleSeatEnv
from pinochle_env import ActionTypeError, IllegalActionError

pytestmark = [
    pytest.mark.filterwarnings("ignore:.*[Ii]llegal move"),
]

VARIANTS = ("partnership", "cutthroat", "two_hand")


# ---------------------------------------------------------------------------------------------- action types


def accepted_forms(action: int) -> list:
    """The forms of a legal action id that ``Discrete.contains`` takes (other libraries send them),
    and last, one it does not take although it is an integer (a uint64 cannot be cast to the
    space's int64): the environments take it too."""
    return [
        action,
        np.int64(action),
        np.int32(action),
        np.uint8(action),
        np.array(action),  # what Stable-Baselines3's predict returns for one observation
        np.array(action, dtype=np.int16),
        np.array(action, dtype=np.uint64),
    ]


def refused_forms(action: int) -> list:
    """Forms of the same id that are no integer: each must be refused naming its type."""
    return [
        float(action),
        np.float32(action),
        np.array(float(action)),
        True,
        np.bool_(True),
        str(action),
        [action],
        np.array([action]),
        None,
    ]


TYPE_NAMES = ("float", "float32", "dtype float64", "bool", "bool", "str", "list", "shape (1,)", "NoneType")


class AECStepper:
    """One seat's decision in the AEC env (its action space, mask and step) behind one interface."""

    def __init__(self, **options):
        self.env = pinochle_env.env(**options)
        self.env.reset(seed=3)

    def mask(self):
        return self.env.last()[0]["action_mask"]

    def space(self):
        return self.env.action_space(self.env.agent_selection)

    def step(self, action):
        self.env.step(action)

    def moment(self):
        return self.env.agent_selection, self.env.unwrapped.observe(self.env.agent_selection)["observation"].tobytes()


class SingleSeatStepper(AECStepper):
    def __init__(self, **options):
        self.env = SingleSeatEnv(**options)
        _, self.info = self.env.reset(seed=3)

    def mask(self):
        return self.env.action_masks()

    def space(self):
        return self.env.action_space

    def step(self, action):
        self.env.step(action)

    def moment(self):
        return len(self.env.game.events), self.env.action_masks().tobytes(), len(self.env.hand_records)


class EngineStepper(AECStepper):
    def __init__(self, **options):
        self.env = pinochle_env.new_game(pinochle_env.Rules(**options), np.random.default_rng(3))

    def mask(self):
        mask = np.zeros(self.env.layout.size, np.int8)
        mask[self.env.legal_actions()] = 1
        return mask

    def space(self):
        import gymnasium

        return gymnasium.spaces.Discrete(self.env.layout.size)

    def step(self, action):
        self.env.apply(action)

    def moment(self):
        return self.env.to_act, repr(self.env.legal_actions()), self.env.hand_number


STEPPERS = {
    **{f"aec-{v}": (AECStepper, {"variant": v}) for v in VARIANTS},
    "aec-penalty": (AECStepper, {"illegal_action": "penalty"}),
    "single-seat": (SingleSeatStepper, {}),
    "single-seat-penalty": (SingleSeatStepper, {"illegal_action": "penalty"}),
    **{f"engine-{v}": (EngineStepper, {"variant": v}) for v in VARIANTS},
}


@pytest.mark.parametrize("name", STEPPERS)
def test_every_integer_form_the_action_space_contains_is_accepted(name):
    make, options = STEPPERS[name]
    plain, other = make(**options), make(**options)
    rng = np.random.default_rng(0)
    for step in range(12):
        action = int(rng.choice(np.flatnonzero(plain.mask())))
        form = accepted_forms(action)[step % 7]
        assert plain.space().contains(form) or step % 7 == 6, repr(form)
        plain.step(action)
        other.step(form)
        assert other.moment() == plain.moment(), f"{form!r} did not act as {action}"


@pytest.mark.parametrize("name", STEPPERS)
def test_other_types_are_refused_naming_the_type(name):
    make, options = STEPPERS[name]
    stepper = make(**options)
    action = int(np.flatnonzero(stepper.mask())[0])  # legal: the refusal is about the type only
    before = stepper.moment()
    for form, type_name in zip(refused_forms(action), TYPE_NAMES, strict=True):
        with pytest.raises(ActionTypeError) as error:
            stepper.step(form)
        assert isinstance(error.value, IllegalActionError | ValueError | TypeError)
        message = str(error.value)
        assert type_name in message and "must be an integer" in message, message
        assert "not legal" not in message, message
        assert stepper.moment() == before
    stepper.step(action)  # still playable


class MaskablePredictor:
    """A stand-in for sb3-contrib's ``MaskablePPO``: ``predict`` returns what SB3's does for one
    observation, a 0-d int64 array, and ``None`` for the recurrent state."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def predict(self, observation, action_masks=None, deterministic=False):
        assert isinstance(observation, np.ndarray)
        actions = self.rng.choice(np.flatnonzero(action_masks), size=(1,))  # a batch of one ...
        return actions.reshape((-1,)).squeeze(axis=0), None  # ... squeezed, as BasePolicy.predict does


def test_sb3_style_predict_then_step_single_seat():
    env = SingleSeatEnv(episode="game", max_hands=2)
    model = MaskablePredictor(0)
    obs, _ = env.reset(seed=1)
    steps = 0
    while True:
        action, _ = model.predict(obs, action_masks=env.action_masks())
        assert isinstance(action, np.ndarray) and action.shape == () and env.action_space.contains(action)
        obs, _, terminated, truncated, _ = env.step(action)
        steps += 1
        if terminated or truncated:
            break
    assert steps > 10 and len(env.hand_records) == 2


@pytest.mark.parametrize("variant", VARIANTS)
def test_sb3_style_predict_then_step_aec(variant):
    env = pinochle_env.env(variant=variant)
    model = MaskablePredictor(1)
    env.reset(seed=2)
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action, _ = model.predict(obs["observation"], action_masks=obs["action_mask"])
        env.step(action)
    assert len(env.unwrapped.hand_records) == 1


def test_batched_games_refuse_non_integer_actions_naming_the_dtype():
    batch = pinochle_env.BatchedGames(3, seed=0)
    step = batch.reset()
    actions = step.action_masks.argmax(axis=1)
    for bad in (actions.astype(np.float64), actions.astype(bool)):
        with pytest.raises(ActionTypeError, match=f"integers, got an array of {bad.dtype}"):
            batch.step(bad)
    batch.step(actions.astype(np.int16))


# ---------------------------------------------------------------------------------------------- copies


COPIES = {"pickle": lambda thing: pickle.loads(pickle.dumps(thing)), "deepcopy": copy.deepcopy}


def assert_same(a, b, where="") -> None:
    """Equal nested results: dicts, lists and tuples of arrays, numbers and strings."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), where
        for key in a:
            assert_same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, list | tuple):
        assert type(a) is type(b) and len(a) == len(b), where
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{where}[{k}]")
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype, where
        np.testing.assert_array_equal(a, b, err_msg=where)
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def aec_run(e, seed: int, hands: int) -> list:
    """What the AEC env shows from now on under random legal play (the actions drawn from ``seed``):
    every ``last()``, the rewards and the hand records; after the episode, ``hands - 1`` more
    episodes from ``reset()`` without a seed (the env's own generator deals them)."""
    rng = np.random.default_rng(seed)
    seen: list = []
    for episode in range(hands):
        if episode:
            e.reset()
        for agent in e.agent_iter():
            result = e.last()
            seen.append((agent, result, dict(e.rewards)))
            if result[2] or result[3]:
                e.step(None)
            else:
                e.step(int(rng.choice(np.flatnonzero(result[0]["action_mask"]))))
        seen.append(e.unwrapped.hand_records)
    return seen


AEC_COPIED = {
    **{f"{v}-{kind}": ({"variant": v}, kind) for v in VARIANTS for kind in ("wrapped", "raw")},
    "partnership-game-penalty": ({"episode": "game", "max_hands": 2, "illegal_action": "penalty"}, "wrapped"),
    "cutthroat-game": ({"variant": "cutthroat", "episode": "game", "max_hands": 2}, "wrapped"),
}


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("name", AEC_COPIED)
def test_aec_env_copies_mid_hand_continue_identically(name, how):
    options, kind = AEC_COPIED[name]
    e = pinochle_env.env(**options) if kind == "wrapped" else pinochle_env.raw_env(**options)
    e.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(9):  # into the hand
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    copied = COPIES[how](e)
    assert type(copied) is type(e) and copied.unwrapped is not e.unwrapped
    from_copy = aec_run(copied, seed=6, hands=2)  # the copy first: the original must not notice
    assert_same(aec_run(e, seed=6, hands=2), from_copy)


def batch_run(batch, masks: np.ndarray, seed: int, steps: int) -> tuple[list, np.ndarray]:
    """Every field of ``steps`` steps of random legal play from the acting seats' action ``masks``
    (actions drawn from ``seed``), the states and the hand records; and the last step's masks."""
    rng = np.random.default_rng(seed)
    seen: list = []
    for _ in range(steps):
        noise = rng.random(masks.shape) + masks
        step = batch.step(noise.argmax(axis=1))
        masks = step.action_masks
        seen.append(tuple(field.copy() if isinstance(field, np.ndarray) else field for field in step))
        seen.append(batch.states())
    seen.append([game.to_act for game in batch.games])
    return seen, masks


BATCH_COPIED = {
    "arrays-128": ({"num_games": 128, "arrays": True}, 60),
    "arrays-128-records-game": ({"num_games": 128, "arrays": True, "record": True, "episode": "game"}, 60),
    **{
        f"engines-{v}": ({"num_games": 6, "rules": {"variant": v}, "arrays": False, "record": True}, 80)
        for v in VARIANTS
    },
}


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("name", BATCH_COPIED)
def test_batched_games_copies_mid_hand_continue_identically(name, how):
    options, steps = BATCH_COPIED[name]
    batch = pinochle_env.BatchedGames(**options, seed=7)
    _, masks = batch_run(batch, batch.reset().action_masks, seed=7, steps=steps // 2)  # mid-hand, some hands over
    copied = COPIES[how](batch)
    assert copied.arrays == batch.arrays
    from_copy, _ = batch_run(copied, masks, seed=8, steps=steps)
    assert_same(batch_run(batch, masks, seed=8, steps=steps)[0], from_copy)


def single_seat_run(env, seed: int, episodes: int) -> list:
    rng = np.random.default_rng(seed)
    seen: list = []
    for episode in range(episodes):
        if episode:
            seen.append(env.reset())
        while True:
            result = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            seen.append(result)
            if result[2] or result[3]:
                break
    return seen


@pytest.mark.parametrize("how", COPIES)
def test_single_seat_env_copies_mid_hand_continue_identically(how):
    env = SingleSeatEnv(seat=1, partner="heuristic", opponents=["random", "heuristic"], episode="game", max_hands=2)
    env.reset(seed=9)
    rng = np.random.default_rng(9)
    for _ in range(4):
        env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    copied = COPIES[how](env)
    from_copy = single_seat_run(copied, seed=10, episodes=2)
    assert_same(single_seat_run(env, seed=10, episodes=2), from_copy)
    assert copied.hand_records == env.hand_records


# ---------------------------------------------------------------------------------------------- observation bounds


BOUNDED = {
    **{f"{v}-hand": {"variant": v} for v in VARIANTS},
    **{f"{v}-game-3": {"variant": v, "episode": "game", "max_hands": 3} for v in VARIANTS},
    "partnership-classic-royal": {"counting": "classic", "run_extras": "royal_in_run", "pass_count": 3},
    "cutthroat-reuse-400": {"variant": "cutthroat", "run_extras": "reuse", "max_bid": 400, "target_score": 500},
    "two-hand-game-300": {"variant": "two_hand", "episode": "game", "target_score": 300, "max_hands": 4},
}


@pytest.mark.parametrize("name", BOUNDED)
def test_no_observation_of_random_play_leaves_the_bounds(name):
    options = dict(BOUNDED[name])
    env = pinochle_env.env(**options)
    space = env.observation_space(env.possible_agents[0])["observation"]
    low, high = space.low, space.high
    assert np.isfinite(low).all() and np.isfinite(high).all()
    assert np.isfinite(env.unwrapped.state_space.low).all()
    episode = {key: options.pop(key) for key in ("episode", "max_hands") if key in options}
    batch = pinochle_env.BatchedGames(48, rules=options, seed=1, arrays=False, **episode)
    step = batch.reset()
    rng = np.random.default_rng(1)
    hands = 0
    seen_low, seen_high = np.full(low.shape, np.inf), np.full(low.shape, -np.inf)
    while hands < 150:
        for observation in (step.observations, batch.states()[:, : low.size]):
            assert (observation >= low).all() and (observation <= high).all(), name
            seen_low, seen_high = (
                np.minimum(seen_low, observation.min(axis=0)),
                np.maximum(seen_high, observation.max(axis=0)),
            )
        step = batch.step((rng.random(step.action_masks.shape) + step.action_masks).argmax(axis=1))
        hands += int(step.hand_over.sum())
    scores = env.unwrapped.spec.piece("scores").slice
    if episode and options.get("variant") != "two_hand":  # (a hand's final totals are seen in a game only)
        assert seen_low[scores].min() < 0
    assert seen_high[env.unwrapped.spec.piece("meld_points").slice].max() > 0.1


def test_every_seat_observation_is_in_the_space_in_the_aec_env():
    for variant in VARIANTS:
        env = pinochle_env.env(variant=variant, episode="game", max_hands=2)
        env.reset(seed=4)
        rng = np.random.default_rng(4)
        for _ in env.agent_iter():
            for other in env.possible_agents:
                assert env.observation_space(other).contains(env.observe(other)), (variant, other)
            assert env.unwrapped.state_space.contains(env.state())
            obs, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_bounds_are_finite_but_for_a_game_without_a_hand_limit():
    for variant in VARIANTS:
        spec = pinochle_env.env(variant=variant).unwrapped.spec
        for hands in (1, 5):
            assert all(np.isfinite(bound).all() for bound in spec.bounds(hands))
        low, high = spec.bounds(None)  # a side may be set hand after hand: no lower score bound ...
        assert np.isfinite(high).all()
        assert np.isneginf(low).any() == (variant != "two_hand")  # ... except where no hand loses points
    game_space = pinochle_env.env(episode="game").observation_space("player_0")["observation"]
    assert np.isneginf(game_space.low).sum() == 2  # the two running scores, nothing else


def test_check_env_gives_no_bounds_warning():
    from gymnasium.utils.env_checker import check_env

    for options in ({}, {"episode": "game", "max_hands": 3}):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(SingleSeatEnv(illegal_action="penalty", **options), skip_render_check=True)
        assert not [str(w.message) for w in caught], options


@pytest.mark.parametrize("run_extras", ["consume", "reuse", "royal_in_run"])
def test_meld_grows_with_cards_and_two_hands_meld_no_more_than_their_union(run_extras):
    """What the meld bounds rest on (``ObservationSpec.max_meld_points`` and ``max_hand_score``)."""
    from pinochle_env.engine import shuffled_deck
    from pinochle_env.rules import meld

    rng = np.random.default_rng(2)
    for _ in range(300):
        deck = shuffled_deck(rng)
        a, b = np.bincount(deck[:12], minlength=24), np.bincount(deck[12:27], minlength=24)
        for trump in range(4):
            points = [meld(list(counts), trump, run_extras).points for counts in (a, b, a + b)]
            assert points[0] + points[1] <= points[2]
            grown = a.copy()
            grown[deck[30]] += 1
            assert meld(list(grown), trump, run_extras).points >= points[0]


# ---------------------------------------------------------------------------------------------- protocol edges


def play_to_the_end(e, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    for _ in e.agent_iter():
        obs, _, terminated, truncated, _ = e.last()
        e.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


LAST_AFTER_THE_END = {
    "hand": {},
    "game-truncated": {"episode": "game", "max_hands": 1},
    "penalty": {"illegal_action": "penalty"},
    "cutthroat": {"variant": "cutthroat"},
    "two-hand": {"variant": "two_hand"},
}


@pytest.mark.parametrize("kind", ["wrapped", "raw"])
@pytest.mark.parametrize("name", LAST_AFTER_THE_END)
def test_last_after_the_episode_reports_the_end(name, kind):
    options = LAST_AFTER_THE_END[name]
    e = pinochle_env.env(**options) if kind == "wrapped" else pinochle_env.raw_env(**options)
    e.reset(seed=1)
    play_to_the_end(e)
    assert e.agents == []
    obs, reward, terminated, truncated, info = e.last()
    assert (reward, terminated, truncated, info) == (0.0, name != "game-truncated", name == "game-truncated", {})
    assert not obs["action_mask"].any() and e.observation_space(e.agent_selection).contains(obs)
    assert e.last(observe=False)[0] is None
    if kind == "raw":
        with pytest.raises(RuntimeError, match=r"episode ended.*call reset"):
            e.step(None)
    e.reset(seed=2)  # and the next episode is as usual
    assert e.last()[1:] == (0.0, False, False, {})


def test_last_after_an_illegal_move_ended_the_episode():
    e = pinochle_env.env(illegal_action="penalty")
    e.reset(seed=3)
    e.step(int(np.flatnonzero(e.last()[0]["action_mask"] == 0)[0]))
    for _ in e.agent_iter():
        e.step(None)
    assert e.last()[1:] == (0.0, True, True, {})  # PettingZoo's wrapper ends it as both


RESET_MAKERS = {
    "aec": lambda: pinochle_env.env(),
    "aec-raw": lambda: pinochle_env.raw_env(variant="cutthroat"),
    "single-seat": lambda: SingleSeatEnv(),
}


@pytest.mark.parametrize("name", RESET_MAKERS)
def test_unknown_reset_options_warn_alike_in_both_envs(name):
    e = RESET_MAKERS[name]()
    with pytest.warns(UserWarning, match=r"ignoring unknown reset option bogus, dealr; known: dealer, deal") as caught:
        e.reset(seed=0, options={"dealr": 2, "bogus": 1})
    assert len(caught) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e.reset(seed=0, options={})
        e.reset(seed=0, options=None)
        e.reset(seed=0, options={"dealer": 1})
    assert e.unwrapped.game.dealer == 1


@pytest.mark.parametrize("name", RESET_MAKERS)
@pytest.mark.parametrize("options", ["x", 3, [("dealer", 1)]])
def test_reset_options_that_are_no_dict_get_a_clear_message(name, options):
    e = RESET_MAKERS[name]()
    with pytest.raises(TypeError, match=r"reset\(options=\.\.\.\) takes a dict such as \{'dealer': 2.*or None, got"):
        e.reset(seed=0, options=options)


# ---------------------------------------------------------------------------------------------- registration

#: What a fresh interpreter can make without importing the project first, and after: the ways the
#: environment reference documents (docs/environment.md, "Registries"). Prints one line per check.
FRESH_INTERPRETER = """
import importlib, sys, warnings
import gymnasium, pettingzoo

def outcome(make):
    try:
        made = make()
    except Exception as error:
        return type(error).__name__
    return type(made.unwrapped).__name__

print("gym id", outcome(lambda: gymnasium.make("Pinochle-SingleSeat-v0")))
print("pz id", outcome(lambda: pettingzoo.make("aec", "pinochle_v0")))
print("imported", "pinochle_env" in sys.modules, "agents" in sys.modules)
spec = pettingzoo.EnvSpec("pinochle_v0", entry_point="pinochle_env:env")
print("pz spec", outcome(lambda: pettingzoo.make("aec", spec)))
print("gym module:id", outcome(lambda: gymnasium.make("agents.gym_env:Pinochle-SingleSeat-v0", opponents="heuristic")))
print("gym id now", outcome(lambda: gymnasium.make("Pinochle-SingleSeat-v0")))
import pinochle_env
print("listed", sorted(k for k in pettingzoo.aec_registry if "pinochle" in k))
for name in ("pinochle_v0", "pinochle-v0"):
    print("pz", name, outcome(lambda: pettingzoo.make("aec", name, variant="two_hand")))
with warnings.catch_warnings():
    warnings.simplefilter("error")
    importlib.reload(pinochle_env)  # registers the id again: no "Overriding environment" warning
print("registered again quietly")
"""


def test_registration_the_documented_ways_from_a_fresh_interpreter():
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-c", FRESH_INTERPRETER], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "gym id NameNotFound",  # Gymnasium (since 1.0) and PettingZoo load no plugins: import first
        "pz id NameNotFound",
        "imported False False",
        "pz spec raw_env",  # a spec with an entry point imports the package itself
        "gym module:id SingleSeatEnv",  # Gymnasium's "module:Env-v0" form imports the module
        "gym id now SingleSeatEnv",
        "listed ['pinochle-v0']",  # PettingZoo spells every id with -vN
        "pz pinochle_v0 raw_env",
        "pz pinochle-v0 raw_env",
        "registered again quietly",
    ]
    assert pinochle_env.PETTINGZOO_ID == pinochle_env.env().metadata["name"] == "pinochle_v0"
