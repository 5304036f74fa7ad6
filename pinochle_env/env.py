"""PettingZoo AEC environment ``pinochle_v0``: 4-player partnership auction Pinochle, and with
``variant="cutthroat"`` or ``"two_hand"`` the three- and two-handed games.

{summary}

Usage::

    import pinochle_env
    env = pinochle_env.env(render_mode="ansi")          # rule switches as keyword arguments
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else policy(observation)   # use observation["action_mask"]
        env.step(action)

Agents
------
``player_0`` .. ``player_3``, seats 0-3 clockwise; partners sit opposite (team 0 = players 0 and 2).
The agent to act is the engine's (the auction goes clockwise from the dealer's left, the declarer
names trump, passes cards and leads, trick winners lead), not a fixed rotation. ``variant="cutthroat"``
has ``player_0`` .. ``player_2``, each playing for itself, and ``variant="two_hand"`` ``player_0``
and ``player_1``; their actions, observations and records are documented in ``docs/cutthroat.md``
and ``docs/two_hand.md`` (the tables below are the partnership game's).

Options
-------
Every rule switch of the rules documentation (``docs/rules.md``) as a keyword with its exact name
and values, plus:

{options}

Action space
------------
One flat ``Discrete({num_actions})`` space (default ``max_bid``), identical for every agent. The
action mask marks the legal ones; rule switches change the mask, never the layout.

{actions}

Observation space
-----------------
``{{"observation": Box(float32, ({obs_size},)), "action_mask": Box(int8, ({num_actions},))}}``.
The mask is all zeros for an agent not on turn. The vector is from the observing seat's point of
view (seat-indexed pieces ordered *me, left, partner, right*; card pieces of 48 are thermometers:
``t`` = at least one copy of card type ``t``, ``24 + t`` = both copies). It holds everything the
seat may know and nothing else. ``env.unwrapped.describe(i)`` names entry ``i``.

{observation}

The ``Box`` bounds are [0, 1] except for two pieces, derived from the rules
(``env.unwrapped.spec.ranges(hands)``, bounds that change no value): ``meld_points`` from 0 to the
meld of the whole deck (no hand melds more), and ``scores`` from minus ``max_bid`` per hand of the
episode (the most a set or thrown-in contract loses; 0 in the two-handed game, which has no
contract) to the target plus the most a hand can score (meld and every trick point), over the
target. With the default rules:

{bounds}

A game without ``max_hands`` has no lower bound on the scores (nothing in the rules stops a side
being set hand after hand), so its ``scores`` go down to ``-inf``, the only infinite bound.

``state()`` (``state_space``, {state_size} floats) is the perfect-information state for centralised
critics: the acting seat's observation followed by the current hands of its left, partner and
right (thermometers).

Rewards
-------
Team-shared and zero-sum between the teams, delivered through ``last()``:
``reward="margin"`` (default): at each hand end, own team's hand score minus the other team's,
divided by ``reward_scale`` (default 1000); ``reward="win"`` (with ``episode="game"``): +1 / -1 at
the end of a won game, 0 if ``max_hands`` cut it short. Without partners every seat is its own
team: two-handed, own minus the opponent's; cutthroat, own minus the mean of the other two (a win
pays +1 and -0.5 each).

Hand records
------------
At the step that ends a hand, ``infos[agent]["hand_record"]`` of every agent holds the hand in the
hand-record format (``docs/rules.md``); each agent sees it in its next ``last()``.
``env.unwrapped.hand_records`` lists the records of the episode.

Reset and the end of an episode
-------------------------------
``reset(seed, options={{"dealer": k, "deal": hands}})`` presets the first hand; an unknown option
key is ignored with a ``UserWarning`` naming it (PettingZoo's ``api_test`` resets with an arbitrary
one), and ``options`` that are not a dict raise ``TypeError``; the single-seat Gymnasium env does
the same. Once every agent has stepped ``None``, ``last()`` returns the end as the last agent saw
it (its observation, reward 0, the episode's ``terminated`` and ``truncated``, ``{{}}``) instead of
raising ``KeyError``.

Illegal actions
---------------
An action is an integer: what the action space's ``contains`` takes (a Python or numpy integer,
or a 0-d integer array, as Stable-Baselines3's ``predict`` returns), except ``True`` and ``False``.
Anything else (a float, a bool, a string, a 1-element list or array) raises
:class:`~pinochle_env.engine.ActionTypeError` (an :class:`IllegalActionError` and a ``TypeError``)
naming its type, in either mode below.

By default an illegal or out-of-range action raises :class:`IllegalActionError` (a
``ValueError``) naming the action and the legal ones, and changes nothing.
``illegal_action="penalty"`` selects PettingZoo's behaviour instead: the offending agent gets -1,
the episode ends. An out-of-range id is no action to penalise but a caller's error: it raises
:class:`IllegalActionError` naming the valid range in this mode too (not the bare
``AssertionError`` of PettingZoo's ``AssertOutOfBoundsWrapper``), and changes nothing.

Version history
---------------
* v0: initial release.
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .actions import ActionLayout, mask_from_bits
from .engine import IllegalActionError, action_id, checked_seed
from .episode import EpisodeConfig, reset_options
from .games.kit import variant_kit
from .protocol import Engine
from .render import RENDER_MODES, check_render_mode, format_table, render_for_mode
from .rules.switches import (
    CHOICES,
    DEFAULT_TARGET,
    INTEGER_LIMITS,
    INTEGER_SWITCHES,
    VARIANT_SWITCHES,
    Rules,
    check_env_options,
    spell,
)

ILLEGAL_ACTION_MODES = ("raise", "penalty")
ENV_OPTIONS = {
    "render_mode": (
        '``None`` | ``"ansi"`` (``render()`` returns the table) | ``"human"`` (prints it) | '
        '``"rgb_array"`` (returns the table drawn as a uint8 RGB image)'
    ),
    "episode": '``"hand"`` (default: one hand) | ``"game"`` (hands until a team wins)',
    "max_hands": "truncate a game after this many hands (``episode='game'`` only; default no limit)",
    "reward": '``"margin"`` (default) | ``"win"``',
    "reward_scale": "divisor of the margin reward (default 1000)",
    "illegal_action": '``"raise"`` (default) | ``"penalty"``',
}


def env(**kwargs: Any) -> AECEnv:
    """The ``pinochle_v0`` environment, wrapped as PettingZoo recommends (see the module docs)."""
    environment: AECEnv = raw_env(**kwargs)
    if environment.illegal_action == "penalty":
        environment = wrappers.TerminateIllegalWrapper(environment, illegal_reward=-1)
        environment = _AssertActionType(environment)
    return _OrderEnforcing(environment)


class _AssertActionType(wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's out-of-bounds assertion, given the action as a Python int after refusing one
    that is no integer at all (an ``ActionTypeError``, as without the penalty; ``None`` only for a
    finished agent): ``Discrete.contains`` takes ``True``, which the illegal-move wrapper would
    then use as an index, and refuses a numpy ``uint64``. An id out of range is refused here too,
    as an :class:`IllegalActionError` naming the range, as without the penalty, rather than the
    inherited bare ``AssertionError``."""

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if action is not None or not (self.terminations[agent] or self.truncations[agent]):
            action = action_id(action)
            size = self.action_space(agent).n
            if not 0 <= action < size:
                raise IllegalActionError(
                    f"{agent}: action {action} is out of range 0..{size - 1} "
                    "(illegal_action='penalty' penalises illegal actions, not ids that are no action)"
                )
        super().step(action)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last()`` through the wrappers; after the episode, the unwrapped env's."""
        environment: raw_env = self.unwrapped
        if environment.agents:
            result: tuple[Any, float, bool, bool, dict[str, Any]] = super().last(observe)
            return result
        return environment.last(observe)


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order-enforcing wrapper with its hot paths forwarded directly.

    The inherited ``last()`` runs on the wrapper and reads eight attributes through the wrappers'
    ``__getattr__`` forwarding, a fifth of the time of a decision; here it is handed to the wrapped
    env in one call. ``agents`` and ``agent_selection``, read by ``agent_iter`` and ``step`` at
    every decision, are properties for the same reason. The results and the errors before
    ``reset()`` are the inherited ones.
    """

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise AttributeError("last cannot be called before reset")
        result: tuple[Any, float, bool, bool, dict[str, Any]] = self.env.last(observe)
        return result

    @property
    def agents(self) -> list[str]:
        if not self._has_reset:
            raise AttributeError("agents cannot be accessed before reset")
        agents: list[str] = self.env.agents
        return agents

    @property
    def agent_selection(self) -> str:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        selection: str = self.env.agent_selection
        return selection


class raw_env(AECEnv):
    """The unwrapped environment; prefer :func:`env`."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "pinochle_v0",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        render_mode: str | None = None,
        episode: str = "hand",
        max_hands: int | None = None,
        reward: str = "margin",
        reward_scale: float = 1000.0,
        illegal_action: str = "raise",
        **switches: Any,
    ) -> None:
        super().__init__()
        check_env_options(switches, ENV_OPTIONS)
        check_render_mode(render_mode)
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action={illegal_action!r} is not allowed; allowed values: 'raise', 'penalty'")
        self.rules = Rules.from_mapping(switches)
        self.config = EpisodeConfig(episode, max_hands, reward, reward_scale)
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.kit = kit = variant_kit(self.rules)
        self.layout = kit.layout
        self.spec = kit.spec
        self._encoder = kit.make_encoder()
        self.possible_agents = [f"player_{seat}" for seat in range(kit.num_seats)]
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self.agents: list[str] = []
        low, high = kit.spec.bounds(self.config.most_hands)
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(low, high, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (self.layout.size,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(self.layout.size) for agent in self.possible_agents}
        size = kit.state_size
        self.state_space = spaces.Box(
            np.concatenate([low, np.zeros(size - self.spec.size, np.float32)]),
            np.concatenate([high, np.ones(size - self.spec.size, np.float32)]),
            dtype=np.float32,
        )
        self._rng: np.random.Generator | None = None
        self._game: Engine | None = None
        self.hand_records: list[dict[str, Any]] = []

    @property
    def game(self) -> Engine:
        """The rules engine of the episode (``RuntimeError`` before ``reset()``)."""
        if self._game is None:
            raise RuntimeError("the environment has no game before reset(); call env.reset() first")
        return self._game

    # ------------------------------------------------------------------ PettingZoo API

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start an episode; ``options={"dealer": k, "deal": [...]}`` presets the first hand (the deal as
        the variant's engine takes it: ``[[12 cards] x 4]`` in the partnership game). An unknown key
        is ignored with a ``UserWarning``; ``options`` that are not a dict raise ``TypeError``."""
        options = reset_options(options)  # an unknown key warns (PettingZoo's api_test passes one)
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(checked_seed(seed))
        self._game = game = self.kit.new_game(self._rng, dealer=options.get("dealer"), deal=options.get("deal"))
        self.hand_records = []
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._paid = False  # ``rewards`` hold a hand's payout (cleared at the next step)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._ended = (False, False)  # how the episode ended, once it has (for ``last()``)
        self.agent_selection = self.possible_agents[game.to_act]

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last()``, and after the episode (every agent stepped ``None`` and left
        ``agents``) the end as the last agent saw it, instead of a ``KeyError``: its observation
        (an all-zero mask), reward 0 (every reward was paid), the episode's ``terminated`` and
        ``truncated``, and no info. Wrappers that call ``last()`` after each ``step`` then see
        the episode over."""
        agent = self.agent_selection
        observation = self.observe(agent) if observe else None
        if agent in self._cumulative_rewards:
            return (
                observation,
                self._cumulative_rewards[agent],
                self.terminations[agent],
                self.truncations[agent],
                self.infos[agent],
            )
        terminated, truncated = self._ended
        return observation, 0.0, terminated, truncated, {}

    def _was_dead_step(self, action: Any) -> None:
        """PettingZoo's step of a finished agent, noting how the episode ended for :meth:`last`."""
        agent = self.agent_selection
        self._ended = (self.terminations[agent], self.truncations[agent])
        super()._was_dead_step(action)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if agent not in self._seat_of:
            raise KeyError(f"no agent {agent!r} in this game; its agents: {', '.join(self.possible_agents)}")
        seat = self._seat_of[agent]
        game = self.game
        if seat == game.to_act:
            mask = mask_from_bits(game.legal_bits(), self.layout.size)
        else:
            mask = np.zeros(self.layout.size, dtype=np.int8)
        return {"observation": self._encoder.observation(game, seat), "action_mask": mask}

    def state(self) -> np.ndarray:
        """Perfect-information state from the acting seat's point of view (seat 0's once the hand is over)."""
        game = self.game
        seat = max(game.to_act, 0)
        return self.kit.encode_state(game, seat, self._encoder.observation(game, seat))

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if not self.agents:  # (env() warns instead, as PettingZoo's order-enforcing wrapper does)
            raise RuntimeError("step() after the episode ended (every agent has stepped None); call reset()")
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        try:
            game.apply(action)
        except IllegalActionError as error:  # an ActionTypeError stays one
            raise type(error)(f"{agent}: {error}") from None
        self._cumulative_rewards[agent] = 0.0
        if self._paid:  # rewards are only ever non-zero from the step that ends a hand to the next
            self._clear_rewards()
            self._paid = False
        self.infos[agent] = {}
        if game.hand_over:
            self._finish_hand(game)
            self._accumulate_rewards()
            self._paid = True
        else:
            self.agent_selection = self.possible_agents[game.to_act]
        if self.render_mode == "human":
            self.render()

    def _finish_hand(self, game: Any) -> None:
        record = game.record()
        self.hand_records.append(record)
        rewards, terminated, truncated = self.config.hand_end(game, self.kit.teams)
        for agent, reward in zip(self.possible_agents, rewards, strict=True):
            self.rewards[agent] = reward
            self.infos[agent] = {"hand_record": record}
            self.terminations[agent] = terminated
            self.truncations[agent] = truncated
        if terminated or truncated:
            self.agent_selection = self.possible_agents[(game.dealer + 1) % self.kit.num_seats]
        else:
            game.next_hand()
            self.agent_selection = self.possible_agents[game.to_act]

    def render(self) -> str | np.ndarray | None:
        return render_for_mode(self._game, self.render_mode)

    def close(self) -> None:
        """Nothing to release (no window, no files)."""

    # ------------------------------------------------------------------ helpers

    def action_to_string(self, action: int) -> str:
        """Readable name of an action id (``bid 260``, ``pass``, ``help``, ``trump hearts``, ``TS``, ...)."""
        name: str = self.layout.to_string(action)
        return name

    def describe(self, index: int | None = None) -> str:
        """What observation entry ``index`` means, or the table of pieces."""
        return self.spec.describe(index)


def action_to_string(action: int, max_bid: int = 1000) -> str:
    """Readable name of an action id for a bid cap (default 1000)."""
    return ActionLayout(max_bid).to_string(action)


def action_table(max_bid: int = 1000) -> str:
    """The id ranges of the action space, generated from :class:`ActionLayout`."""
    layout = ActionLayout(max_bid)
    ranges = [
        (f"0 .. {layout.num_bids - 1}", f"bid 250, 260, ... {max_bid}"),
        (str(layout.passing), "pass"),
        (str(layout.help), "pass with help"),
        (f"{layout.trump0} .. {layout.trump0 + 3}", "trump spades, hearts, diamonds, clubs"),
        (f"{layout.card0} .. {layout.card0 + 23}", "card type 9S JS QS KS TS AS 9H ... AC (passing and play)"),
        (str(layout.throw_in), "throw in"),
        (str(layout.play_on), "play on"),
    ]
    return format_table(("ids", "action"), ranges, left=2, ruled=True)


def observation_table(rules: Rules | None = None) -> str:
    """The pieces of the observation vector of a rule set (default: the default rules), generated
    from its game's observation layout."""
    spec = variant_kit(rules or Rules()).spec
    return format_table(
        ("piece", "indices", "meaning"),
        [(p.name, f"{p.offset} .. {p.offset + p.size - 1}", p.description) for p in spec.pieces],
        left=3,
        ruled=True,
    )


def bounds_table(rules: Rules | None = None) -> str:
    """The pieces of the observation whose bounds are not [0, 1], per kind of episode, generated
    from ``ObservationSpec.ranges`` (default: the default rules)."""
    spec = variant_kit(rules or Rules()).spec
    episodes = {"one hand": 1, "a game, max_hands=10": 10, "a game, no max_hands": None}
    rows = []
    for name in spec.ranges():
        ranges = {episode: spec.ranges(hands)[name] for episode, hands in episodes.items()}
        if len(set(ranges.values())) == 1:
            ranges = {"every episode": ranges["one hand"]}
        rows += [(name, episode, f"{low:.4g} .. {high:.4g}") for episode, (low, high) in ranges.items()]
    return format_table(("piece", "episode", "bounds"), rows, left=3, ruled=True)


def switch_table() -> str:
    """Every rule switch with its allowed values, default first, generated from :mod:`~pinochle_env.rules.switches`."""

    def variants(name: str) -> str:
        return "all" if name == "variant" else ", ".join(v for v, names in VARIANT_SWITCHES.items() if name in names)

    rows = [
        (name, " | ".join(spell(v, quoted=False) for v in values), variants(name)) for name, values in CHOICES.items()
    ]
    defaults = {"max_bid": "1000", "target_score": " / ".join(f"{v} {t}" for v, t in DEFAULT_TARGET.items())}
    rows += [
        (
            name,
            f"integer {low}..{INTEGER_LIMITS[name][0]}, multiple of {step} (default {defaults[name]})",
            variants(name),
        )
        for name, (low, step) in INTEGER_SWITCHES.items()
    ]
    return format_table(("switch", "values (default first)", "variants"), rows, left=3, ruled=True)


def _documentation() -> str:
    """The module docstring with its tables generated from the code that defines them."""
    kit = variant_kit(Rules())
    return __doc__.format(
        summary="A PettingZoo AEC environment over the pinochle-rl rules engine, with masked actions.",
        options="\n".join(f"* ``{name}``: {text}" for name, text in ENV_OPTIONS.items()),
        num_actions=ActionLayout().size,
        actions=action_table(),
        obs_size=kit.spec.size,
        observation=observation_table(),
        bounds=bounds_table(),
        state_size=kit.state_size,
    )


__doc__ = _documentation()
# ``pinochle_env.env`` names this function, which shadows the module: let it carry the page too.
env.__doc__ = f"{env.__doc__}\n\n{__doc__}"
