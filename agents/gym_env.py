"""``SingleSeatEnv``: a Gymnasium environment in which one seat learns and three agents play along.

The learner sits at ``seat`` (default 0); its partner (``seat + 2``) and the opponents on its left
(``seat + 1``) and right (``seat + 3``) are agents built from spec strings (see
:func:`agents.registry.load_agent`) or agent objects. They default to ``"random"``: pass
``partner="heuristic"``, ``opponents="heuristic"`` (or ``["heuristic", "pimc"]`` for left, right)
for stronger company. Between two decisions of the learner the other seats act automatically,
each through :func:`agents.base.decide`, which shows it only its own view and mask.

Usage::

    import gymnasium

    # Gymnasium's "module:Env-v0" form imports this module, which registers the id (``import
    # agents.gym_env`` first does the same, after which the bare id works).
    env = gymnasium.make("agents.gym_env:Pinochle-SingleSeat-v0", opponents="random", head_rule="led_card")
    observation, info = env.reset(seed=0)
    while True:
        action = env.action_space.sample(mask=info["action_mask"])
        observation, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break

Spaces
    ``observation_space`` is ``Box(float32, (size,))``: exactly the vector the PettingZoo env
    (:mod:`pinochle_env.env`) shows the learner's seat (``env.unwrapped.describe(i)`` names entry
    ``i``). ``action_space`` is ``Discrete(num_actions)``, the PettingZoo env's flat action ids.
    The legal-action mask (int8) is returned by :meth:`SingleSeatEnv.action_masks` (what
    sb3-contrib's ``MaskablePPO`` calls) and is in ``info["action_mask"]``; it is all zeros once
    the episode is over. Sample legal actions with ``action_space.sample(mask=info["action_mask"])``.

Options
    ``episode="hand"`` (one hand) or ``"game"`` (hands until a team reaches the target score,
    ``max_hands=N`` truncates), ``reward="margin"`` or ``"win"`` and ``reward_scale``, exactly as in
    the PettingZoo env; ``render_mode="ansi"|"human"|"rgb_array"`` renders the whole table (as
    text, printed, or as an image: :mod:`pinochle_env.table_image`); every rule switch of
    ``docs/rules.md`` as a keyword argument.

Rewards
    ``reward="margin"`` (default): at each hand end, the learner's team's hand score minus the
    other team's, divided by ``reward_scale`` (default 1000). A hand ends either on the learner's
    own action or while the others play on, so its reward comes with the learner's step during
    which it ended (in a game, the observation is then already that of the next hand's first
    decision); ``info["hand_record"]`` of that step holds the finished hand.

Illegal actions
    An action is what ``action_space.contains`` takes as an integer (a Python or numpy integer, or
    the 0-d integer array Stable-Baselines3's ``predict`` returns), booleans excepted; anything else
    raises :class:`pinochle_env.engine.ActionTypeError` (an ``IllegalActionError`` and a
    ``TypeError``) naming its type, in either mode. ``illegal_action="raise"`` (default): an
    illegal or out-of-range action raises :class:`pinochle_env.IllegalActionError` (a
    ``ValueError``) naming the action and the legal ones, and changes nothing.
    ``illegal_action="penalty"``: the learner gets -1 and the episode terminates
    (``info["illegal_action"]`` holds the action), as in the PettingZoo env, and as there an id out
    of range still raises ``IllegalActionError`` (it is no action to penalise); this is the mode for
    Gymnasium's ``check_env``, whose step checks send unmasked random actions (one of them sampled
    before the reset it is applied after, so no mask can make it legal). ``step`` before
    ``reset`` or after the end of an episode raises ``RuntimeError``.

``reset(seed=...)`` seeds the deals and the three agents; ``reset(options={"dealer": k, "deal":
[[12 cards] x 4]})`` presets the first hand as in the PettingZoo env, and as there an unknown key
is ignored with a ``UserWarning`` and ``options`` that are not a dict raise ``TypeError``
(:func:`pinochle_env.episode.reset_options`).
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from pinochle_env.actions import ActionLayout
from pinochle_env.engine import ActionTypeError, IllegalActionError, is_integer
from pinochle_env.episode import EpisodeConfig, reset_options
from pinochle_env.games.kit import variant_kit
from pinochle_env.games.partnership.encoding import GameEncoder, PartnershipSpec
from pinochle_env.games.partnership.game import NUM_SEATS, Game
from pinochle_env.render import RENDER_MODES, check_render_mode, render_for_mode
from pinochle_env.rules.switches import Rules, check_env_options

from .base import Agent, close, decide, legal_mask, tell_hand_over
from .registry import load_agent

ENV_ID = "Pinochle-SingleSeat-v0"
ILLEGAL_ACTION_MODES = ("raise", "penalty")
ILLEGAL_REWARD = -1.0
AgentSpec = str | Agent


class SingleSeatEnv(gymnasium.Env):
    """One learned seat against agent seats (see the module documentation)."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}  # noqa: RUF012 (gymnasium's own type)

    def __init__(
        self,
        seat: int = 0,
        partner: AgentSpec = "random",
        opponents: AgentSpec | Sequence[AgentSpec] = "random",
        episode: str = "hand",
        max_hands: int | None = None,
        reward: str = "margin",
        reward_scale: float = 1000.0,
        render_mode: str | None = None,
        illegal_action: str = "raise",
        **switches: Any,
    ) -> None:
        if not is_integer(seat) or seat not in range(NUM_SEATS):  # True and 1.0 are in range(4)
            raise ValueError(f"seat must be an integer 0..3, got {seat!r}")
        check_render_mode(render_mode)
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action={illegal_action!r} is not allowed; allowed values: 'raise', 'penalty'")
        self.seat = seat
        self.illegal_action = illegal_action
        check_env_options(switches, OPTIONS)
        self.rules = Rules.from_mapping(switches)
        if variant_kit(self.rules).game_class is not Game:
            raise ValueError(f"the single-seat env plays the partnership game only, not variant={self.rules.variant!r}")
        self.config = EpisodeConfig(episode, max_hands, reward, reward_scale)
        self.render_mode = render_mode
        self.layout = ActionLayout(self.rules.max_bid)
        self.observation_spec = PartnershipSpec(self.rules)
        self._encoder = GameEncoder(self.observation_spec)
        self.agents = _seat_agents(seat, partner, opponents)
        self.observation_space = spaces.Box(*self.observation_spec.bounds(self.config.most_hands), dtype=np.float32)
        self.action_space = spaces.Discrete(self.layout.size)
        self.game: Game | None = None
        self.hand_records: list[dict[str, Any]] = []
        self._done = True

    # ------------------------------------------------------------------ Gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal a new episode and play the other seats up to the learner's first decision."""
        super().reset(seed=seed)
        options = reset_options(options)  # an unknown key warns, as in the PettingZoo env
        for agent in self.agents.values():
            agent.reset(int(self.np_random.integers(2**63)))
        self.game = Game(self.rules, self.np_random, dealer=options.get("dealer"), deal=options.get("deal"))
        self.hand_records = []
        self._done = False
        # The learner calls in every auction (or, stuck as dealer, names trump), so no hand can end
        # before its first decision: the reward of this advance is always zero.
        self._advance()
        return self._observation(), {"action_mask": self.action_masks()}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Apply the learner's action, then let the others play until its next decision or the end."""
        if self.game is None or self._done:
            raise RuntimeError("step() called before reset() or after the episode ended; call reset()")
        try:
            self.game.apply(action)
        except IllegalActionError as error:
            # Not penalised: an action that is no integer, or an id out of range (no action at all).
            if self.illegal_action == "raise" or isinstance(error, ActionTypeError) or not self._in_range(action):
                raise type(error)(f"player {self.seat} (learner): {error}") from None
            return self._penalise(action)
        reward, terminated, truncated, records = self._advance()
        self._done = terminated or truncated
        info: dict[str, Any] = {"action_mask": self.action_masks()}
        if records:
            info["hand_record"] = records[-1]
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's (num_actions,) int8 legal mask; all zeros when no decision is pending."""
        if self.game is None or self._done or self.game.to_act != self.seat:
            return np.zeros(self.layout.size, dtype=np.int8)
        return legal_mask(self.game)

    def render(self) -> str | np.ndarray | None:
        """The whole table (all four hands): returned for ``"ansi"``, printed for ``"human"``, drawn
        as a uint8 RGB image for ``"rgb_array"`` (what Stable-Baselines3's ``make_vec_env`` asks for)."""
        return render_for_mode(self.game, self.render_mode)

    def close(self) -> None:
        """End the other seats' matches (a bot program's process stops)."""
        for agent in self.agents.values():
            close(agent)
        super().close()

    # ------------------------------------------------------------------ helpers

    def describe(self, index: int | None = None) -> str:
        """What observation entry ``index`` means, or the table of pieces."""
        return self.observation_spec.describe(index)

    def action_to_string(self, action: int) -> str:
        """Readable name of an action id (``bid 260``, ``pass``, ``trump hearts``, ``TS``, ...)."""
        return self.layout.to_string(action)

    def _in_range(self, action: Any) -> bool:
        """Whether ``action`` (an integer: ``apply`` has refused anything else) is an id of the action space."""
        return 0 <= int(action) < self.layout.size

    def _penalise(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """End the episode on an illegal action (``illegal_action="penalty"``)."""
        self._done = True
        info = {"action_mask": self.action_masks(), "illegal_action": action}
        return self._observation(), ILLEGAL_REWARD, True, False, info

    def _observation(self) -> np.ndarray:
        assert self.game is not None, "called after reset()"
        return self._encoder.observation(self.game, self.seat)

    def _advance(self) -> tuple[float, bool, bool, list[dict[str, Any]]]:
        """Let the agent seats act until the learner is to act or the episode ends.

        Returns the learner's reward from the hands that ended meanwhile, ``terminated``,
        ``truncated`` and the records of those hands.
        """
        game = self.game
        assert game is not None, "called after reset()"
        reward, records = 0.0, []
        while True:
            if game.hand_over:
                tell_hand_over(self.agents, game)
                record = game.record()
                records.append(record)
                self.hand_records.append(record)
                rewards, terminated, truncated = self.config.hand_end(game, self.rules.teams)
                reward += rewards[self.seat]
                if terminated or truncated:
                    return reward, terminated, truncated, records
                game.next_hand()
            elif game.to_act == self.seat:
                return reward, False, False, records
            else:
                game.apply(decide(self.agents[game.to_act], game))


def _plays(agent: Any) -> bool:
    """Whether ``agent`` is an agent object: any object with ``act`` and ``reset`` (docs/agents.md)."""
    return callable(getattr(agent, "act", None)) and callable(getattr(agent, "reset", None))


def _seat_agents(seat: int, partner: AgentSpec, opponents: AgentSpec | Sequence[AgentSpec]) -> dict[int, Agent]:
    """The agents of the three other seats: partner opposite, opponents ``[left, right]``."""
    one = isinstance(opponents, str) or _plays(opponents)  # one spec or agent for both seats
    pair: Any = [opponents, opponents] if one else opponents
    if not isinstance(pair, Sequence) or len(pair) != 2:
        raise ValueError(f"opponents must be one spec or a list of two (left, right), got {opponents!r}")
    left, right = pair
    specs = {(seat + 1) % NUM_SEATS: left, (seat + 2) % NUM_SEATS: partner, (seat + 3) % NUM_SEATS: right}
    for name, spec in (("partner", partner), ("opponents", left), ("opponents", right)):
        if not isinstance(spec, str) and not _plays(spec):
            raise ValueError(f"{name}: each must be an agent spec or an agent (with act and reset), got {spec!r:.60}")
    return {other: load_agent(spec) if isinstance(spec, str) else spec for other, spec in specs.items()}


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="agents.gym_env:SingleSeatEnv")


#: The keyword arguments of :class:`SingleSeatEnv` besides the rule switches (its signature's).
OPTIONS = tuple(
    name for name in inspect.signature(SingleSeatEnv.__init__).parameters if name not in ("self", "switches")
)
