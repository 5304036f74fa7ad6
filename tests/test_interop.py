"""Interoperability with other libraries: the action types they send (Stable-Baselines3's
``predict`` returns a 0-d array), copies and pickles of the environments mid-hand, registration,
observation bounds and the edges of the AEC and Gymnasium protocols."""

from __future__ import annotations

import numpy as np
import pytest

import pinochle_env
from agents.gym_env import SingleSeatEnv
from pinochle_env import ActionTypeError, IllegalActionError

pytestmark = [
    pytest.mark.filterwarnings("ignore:.*[Ii]llegal move"),
    pytest.mark.filterwarnings("ignore:.*Box observation space m.*:UserWarning"),
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
