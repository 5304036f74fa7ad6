"""Pinochle as an OpenSpiel game: one hand of any of our games, dealt by explicit chance nodes.

:class:`PinochleGame` and :class:`PinochleState` are OpenSpiel *python games* (``pyspiel.Game`` and
``pyspiel.State`` subclasses, registered by :func:`agents.openspiel.register_games`), so OpenSpiel's
Python and C++ algorithms see them as any other game. The rules are our engine's, unchanged: a
state holds the engine (``state.engine``) once the deal is complete and forwards every decision to
it.

- **Chance**: the first chance node picks the dealer (uniform over the seats), the next 48 deal
  the deck card by card (an outcome is a card type, its probability the copies of it left over
  the cards left); the engine's ``deal_from_deck`` turns the deck order into the deal as a
  shuffled deck would (seat 0 the first hand, then seat 1, ...; cutthroat's widow and the
  two-handed game's turn-up and stock are the rest).
- **Decisions**: the engine's seat to act, its legal actions and action ids (``action_to_string``
  is the layout's name: ``bid 260``, ``trump hearts``, ``TS``).
- **Returns** (terminal only): each seat's hand-score margin, team-shared (partners get the same),
  divided by the ``reward_scale`` parameter, as the PettingZoo env's ``reward="margin"``.
- **Observations**: the information-state and the observation tensor are both our encoder's
  observation of the seat (everything the seat may know, ``docs/environment.md``); the strings
  are the seat's information-set view as text. While the deck is being dealt (chance nodes,
  where nobody decides) the tensor is zero and the string says how many cards are dealt.
- **Parameters**: the rule switches that apply to the game (``docs/rules.md``; not the target
  score: a state is one hand) and ``reward_scale``. ``all_pass="redeal"`` is refused: a hand
  dealt again inside the hand would make the game's length unbounded.

``resample_from_infostate`` (:mod:`.resample`) draws a whole state consistent with a seat's
information where the game's search adapter can rebuild a hand from a view.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import numpy as np
import pyspiel

from pinochle_env.cards import COPIES, DECK_SIZE, NUM_TYPES, card_to_str
from pinochle_env.episode import EpisodeConfig
from pinochle_env.games.kit import variant_kit
from pinochle_env.games.registry import GAMES
from pinochle_env.rules.switches import VARIANT_SWITCHES, Rules

#: The name each game is registered under in OpenSpiel: ``python_pinochle_`` and the variant.
NAME_PREFIX = "python_pinochle_"
#: The game parameters besides the rule switches, with their defaults.
EXTRA_PARAMETERS: dict[str, Any] = {"reward_scale": 1000.0}
#: Rule switches that are not game parameters: a state is one hand, and the target score says
#: when a game of hands ends.
NOT_PARAMETERS = ("target_score",)
#: The refused value of the switch that deals again inside a hand.
REDEAL = ("all_pass", "redeal")


def game_name(variant: str) -> str:
    """The OpenSpiel short name of our game ``variant``."""
    return NAME_PREFIX + variant


def parameters_of(variant: str) -> dict[str, Any]:
    """The game parameters of ``variant`` with their defaults: its rule switches, ``reward_scale``."""
    defaults = Rules(variant=variant)
    switches = [name for name in VARIANT_SWITCHES[variant] if name not in NOT_PARAMETERS]
    return {**{name: getattr(defaults, name) for name in switches}, **EXTRA_PARAMETERS}


def game_type(variant: str) -> pyspiel.GameType:
    """OpenSpiel's description of our game ``variant`` (sequential, explicit chance, imperfect
    information, zero-sum team returns at the end of the hand)."""
    seats = len(GAMES[variant].teams)
    return pyspiel.GameType(
        short_name=game_name(variant),
        long_name=f"Pinochle ({variant}, pinochle-rl)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=seats,
        min_num_players=seats,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters_of(variant),
    )


def rules_from_parameters(variant: str, params: dict[str, Any]) -> tuple[Rules, float]:
    """The rule set and the reward scale that game parameters ``params`` ask for (``ValueError``
    naming a bad switch or value, or ``all_pass="redeal"``)."""
    switches = {name: params[name] for name in params if name not in EXTRA_PARAMETERS}
    if switches.get(REDEAL[0]) == REDEAL[1]:
        raise ValueError(
            f"{game_name(variant)}: {REDEAL[0]}={REDEAL[1]!r} deals again inside a hand, which would make "
            "the OpenSpiel game's length unbounded; use the default"
        )
    scale = float(params.get("reward_scale", EXTRA_PARAMETERS["reward_scale"]))
    if not scale > 0:
        raise ValueError(f"{game_name(variant)}: reward_scale={scale!r} must be a number > 0")
    return Rules.from_mapping({"variant": variant, **switches}), scale


class PinochleGame(pyspiel.Game):
    """One hand of our game ``variant`` under the rules that the parameters give (module docstring)."""

    def __init__(self, variant: str, params: dict[str, Any] | None = None) -> None:
        params = {**parameters_of(variant), **(params or {})}
        self.rules, self.reward_scale = rules_from_parameters(variant, params)
        self.kit = kit = variant_kit(self.rules)
        spec = kit.spec
        worst = (spec.max_hand_score() + spec.max_hand_loss()) / self.reward_scale
        info = pyspiel.GameInfo(
            num_distinct_actions=kit.layout.size,
            max_chance_outcomes=max(NUM_TYPES, kit.num_seats),
            num_players=kit.num_seats,
            min_utility=-worst,
            max_utility=worst,
            utility_sum=0.0,
            # The dealer and the deck, then a bound on the decisions (each bid, pass, card...):
            # the layout's ids once each plus two per card, far more than any hand takes.
            max_game_length=1 + DECK_SIZE + kit.layout.size + 2 * DECK_SIZE,
        )
        super().__init__(game_type(variant), info, params)

    def new_initial_state(self) -> PinochleState:
        """The state before the dealer is drawn."""
        return PinochleState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> ViewObserver:
        """The observer of the seat's information set (the only kind this game gives): public
        information and the seat's own private information, with or without perfect recall."""
        if params:
            raise ValueError(f"{self.get_type().short_name} observers take no parameters, got {params}")
        if iig_obs_type is not None and (
            not iig_obs_type.public_info or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
        ):
            raise ValueError(f"{self.get_type().short_name} observes a seat's own information set only")
        return ViewObserver(self)


class PinochleState(pyspiel.State):
    """A hand in progress: the dealer and the deck dealt so far, then the engine (module docstring).

    Its Python attributes are what OpenSpiel copies (``clone``) and pickles (serialization): the
    rules, the reward scale, the dealer, the deck and the engine.
    """

    def __init__(self, game: PinochleGame) -> None:
        super().__init__(game)
        self.rules = game.rules
        self.reward_scale = game.reward_scale
        self.dealer = -1
        self.deck: list[int] = []
        self.engine: Any = None

    # ------------------------------------------------------------------ OpenSpiel's state API

    def current_player(self) -> int:
        if self.engine is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.engine.hand_over:
            return int(pyspiel.PlayerId.TERMINAL)
        return int(self.engine.to_act)

    def _legal_actions(self, player: int) -> list[int]:
        legal: list[int] = self.engine.legal_actions()
        return legal

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The dealer (uniform), then the next card of the deck (each type by its copies left)."""
        if self.dealer < 0:
            seats = self.rules.num_seats
            return [(seat, 1.0 / seats) for seat in range(seats)]
        left = np.full(NUM_TYPES, COPIES) - np.bincount(np.array(self.deck, dtype=np.int64), minlength=NUM_TYPES)
        total = DECK_SIZE - len(self.deck)
        return [(card, int(n) / total) for card, n in enumerate(left) if n]

    def _apply_action(self, action: int) -> None:
        if self.engine is not None:
            self.engine.apply(int(action))
        elif self.dealer < 0:
            self.dealer = int(action)
        else:
            self.deck.append(int(action))
            if len(self.deck) == DECK_SIZE:
                kit = variant_kit(self.rules)
                deal = kit.game_class.deal_from_deck(self.deck)
                # The engine's generator is never drawn from: the deal is given and redeals refused.
                self.engine = kit.new_game(np.random.default_rng(0), dealer=self.dealer, deal=deal)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"dealer {action}" if self.dealer < 0 else f"deal {card_to_str(action)}"
        name: str = variant_kit(self.rules).layout.to_string(action)
        return name

    def is_terminal(self) -> bool:
        return self.engine is not None and bool(self.engine.hand_over)

    def returns(self) -> list[float]:
        """Each seat's hand-score margin over ``reward_scale`` once the hand is over, else zeros."""
        teams = self.rules.teams
        if not self.is_terminal():
            return [0.0] * len(teams)
        rewards, _, _ = EpisodeConfig(reward_scale=self.reward_scale).hand_end(self.engine, teams)
        return rewards

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> PinochleState:
        """A state drawn among those ``player_id`` cannot tell from this one (:mod:`.resample`),
        seeded from ``probability_sampler`` (a callable giving numbers in [0, 1))."""
        from .resample import state_from_view

        if self.engine is None:
            raise ValueError("resample_from_infostate needs the deal to be complete (a decision node)")
        rng = np.random.default_rng(int(probability_sampler() * 2**63))
        return state_from_view(self.get_game(), self.engine.view(player_id), rng)

    def information_text(self, player: int) -> str:
        """``player``'s information set as text: its view, field by field (module docstring)."""
        if self.engine is None:
            return f"dealer {self.dealer}; {len(self.deck)} cards dealt"
        return view_text(self.engine.view(player))

    def __str__(self) -> str:
        return str(self.engine) if self.engine is not None else self.information_text(0)


def view_text(view: Any) -> str:
    """A view as text, every field but the rules (the game's) and the running totals (a state is one hand)."""
    return "; ".join(f"{f.name}={getattr(view, f.name)!r}" for f in fields(view) if f.name not in ("rules", "totals"))


class ViewObserver:
    """OpenSpiel's observer of one seat: our encoder's observation as the tensor, the view as text."""

    def __init__(self, game: PinochleGame) -> None:
        self.kit = game.kit
        self.tensor = np.zeros(game.kit.spec.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: PinochleState, player: int) -> None:
        if state.engine is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = self.kit.observation_from_view(state.engine.view(player))

    def string_from(self, state: PinochleState, player: int) -> str:
        return state.information_text(player)
