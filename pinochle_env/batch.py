"""The batched API: N games stepping in lockstep, with stacked observations and masks as arrays.

This is what the trainer and the arena drive, and what users can build their own trainers on::

    from pinochle_env import BatchedGames
    batch = BatchedGames(256, seed=0)
    step = batch.reset()
    while ...:
        actions = policy(step.observations, step.action_masks)   # (N,) ints, legal per the mask
        step = batch.step(actions)
        # step.rewards[i, seat] is what (absolute) seat of game i earned by this step;
        # step.episode_over[i] marks the end of an episode, after which game i starts afresh.

Every game is an engine of the rules' variant (:func:`~pinochle_env.games.kit.new_game`) with its
own generator; observations come from the same encoder as the PettingZoo env, so for the same seed
game ``i`` matches ``env().reset(seed=seeds[i])`` decision for decision. When an episode ends the
game restarts at once (a new hand, or a new game), so every row always holds a decision to make.

The partnership game can instead play whole hands of all games at once as arrays, from the
opening bid to the last trick (``arrays=True``, the default from ``BatchedGames.ARRAYS_FROM`` games
on; :mod:`pinochle_env.games.partnership.lockstep_hands`, behind the
:class:`~pinochle_env.protocol.HandArrays` interface). Its engines then lag behind and catch up whenever they
are read (``games``, ``views()``, the message of a refused action, a hand record); where nothing
needs an engine at a hand's end (one-hand episodes without records), hands are scored and the next
games dealt in the arrays too, and an engine is only made when read. ``BatchStep.phases`` and
``states()`` need no engine, so a training loop stays on the fast path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple, cast

import numpy as np

from .actions import masks_from_bits
from .cards import NUM_TYPES
from .engine import ActionTypeError, IllegalActionError, checked_seed, is_integer
from .episode import EpisodeConfig
from .games.kit import variant_kit
from .protocol import Engine, HandArrays, View
from .recycling import RecycledArrays
from .rules.switches import Rules


class BatchStep(NamedTuple):
    """What :meth:`BatchedGames.reset` and :meth:`BatchedGames.step` return (arrays of N rows)."""

    observations: np.ndarray  # (N, obs_size) float32: the acting seat's observation
    action_masks: np.ndarray  # (N, num_actions) int8: legal actions of the acting seat
    seats: np.ndarray  # (N,) int64: the acting (absolute) seat
    rewards: np.ndarray  # (N, seats) float32: reward of each absolute seat from this step
    hand_over: np.ndarray  # (N,) bool: this step ended a hand
    terminated: np.ndarray  # (N,) bool: this step ended the episode (a new one has started)
    truncated: np.ndarray  # (N,) bool: this step cut a game short at max_hands (a new one has started)
    records: list[dict[str, Any]]  # hand records finished by this step (only with record=True)
    phases: np.ndarray  # (N,) int64: the phase of each decision (a value of the variant's ``kit.phase_type``)

    @property
    def episode_over(self) -> np.ndarray:
        over: np.ndarray = self.terminated | self.truncated
        return over


class BatchedGames:
    """N Pinochle games in lockstep.

    ``seed`` is an int (the games get independent generators spawned from it) or a sequence of N
    ints (game ``i`` uses ``numpy.random.default_rng(seed[i])``, exactly as ``env.reset(seed=...)``).
    ``rules`` (a :class:`Rules` or a dict of switches), ``episode``, ``max_hands``, ``reward`` and
    ``reward_scale`` mean what they mean for the PettingZoo env. ``record=True`` collects the hand
    record of every finished hand in ``BatchStep.records``.

    ``arrays`` chooses how the partnership game steps: True plays whole hands for all games at once
    as arrays (:mod:`~pinochle_env.games.partnership.lockstep_hands`), False steps each game's engine; None (the
    default) takes the arrays from ``ARRAYS_FROM`` games on, where they are faster. The results are
    the same either way, decision for decision; the other variants always step their engines.
    """

    #: From this many games on, ``arrays=None`` plays the partnership game as arrays: their cost
    #: is mostly per numpy call, whatever the number of games, so they win only in large batches
    #: (``benchmarks/env_speed.py``: slower than the engines at 64 games, faster from about 100).
    ARRAYS_FROM = 128

    def __init__(
        self,
        num_games: int,
        rules: Rules | dict[str, Any] | None = None,
        seed: int | Sequence[int] | None = None,
        episode: str = "hand",
        max_hands: int | None = None,
        reward: str = "margin",
        reward_scale: float = 1000.0,
        record: bool = False,
        arrays: bool | None = None,
    ) -> None:
        if not is_integer(num_games) or num_games < 1:
            raise ValueError(f"num_games must be an integer >= 1, got {num_games!r}")
        if arrays not in (None, True, False):
            raise ValueError(f"arrays must be True, False or None, got {arrays!r}")
        self.num_games = num_games
        self.rules = rules if isinstance(rules, Rules) else Rules.from_mapping(rules or {})
        self.config = EpisodeConfig(episode, max_hands, reward, reward_scale)
        self.record = record
        self.kit = kit = variant_kit(self.rules)
        self.num_seats = seats = kit.num_seats
        self.spec = kit.spec
        self.layout = kit.layout
        self.observation_size = self.spec.size
        self.num_actions = self.layout.size
        self.state_size = kit.state_size
        self._buffer = np.zeros((num_games, seats, self.spec.size), dtype=np.float32)
        self._seat_rows = self._buffer.reshape(num_games * seats, self.spec.size)  # row seats * i + seat: game i
        self._first_row = np.arange(num_games) * seats
        self._rows = np.arange(num_games)
        self._masks = np.zeros((num_games, self.num_actions), dtype=np.int8)
        self._observations = RecycledArrays((num_games, self.spec.size), np.float32)  # each step's output
        self._encoders = [kit.make_encoder(self._buffer[i]) for i in range(num_games)]
        self._seed = self._checked_seeds(seed)  # a bad seed refused here, not at the first reset
        self._games: list[Engine | None] = []  # each game's engine; None: not made yet (see ``games``)
        self._rngs: list[np.random.Generator] = []  # each game's generator
        # Whole hands of all games at once, as arrays, where the variant has them (partnership only).
        if arrays and kit.lockstep_hands is None:
            raise ValueError(f"arrays=True: variant {self.rules.variant!r} has no array path; its engines step")
        if arrays is None:
            arrays = kit.lockstep_hands is not None and num_games >= self.ARRAYS_FROM
        self.arrays = arrays  # whether whole hands are played as arrays
        self._lockstep: HandArrays | None = None
        if arrays and kit.lockstep_hands is not None:
            self._lockstep = kit.lockstep_hands(num_games, self._buffer)
        # Where nothing needs an engine at a hand's end (one-hand episodes without records), a hand
        # that ends in the arrays is scored there and the next game is dealt there too; its engine
        # is only made, from its first dealer and hands, if something reads it.
        self._in_arrays_only = self._lockstep is not None and self.config.episode == "hand" and not record
        self._first_hands: dict[int, tuple[int, list[list[int]]]] = {}  # game -> (dealer, hands) of an unmade engine

    def __getstate__(self) -> dict[str, Any]:
        """The state without the observation buffer and its views: the encoders' rows are views of
        it, and a pickle or ``deepcopy`` copies views apart from their base. :meth:`__setstate__`
        makes the buffer again from the encoders' (copied) rows, and the encoders and the arrays
        write into it again."""
        return {name: value for name, value in self.__dict__.items() if name not in ("_buffer", "_seat_rows")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._buffer = buffer = np.stack([encoder.rows for encoder in self._encoders])
        self._seat_rows = buffer.reshape(self.num_games * self.num_seats, self.spec.size)
        for encoder, rows in zip(self._encoders, buffer, strict=True):
            encoder.attach(rows)
        if self._lockstep is not None:
            self._lockstep.attach(buffer)

    def _checked_seeds(self, seed: Any) -> int | list[int | None] | None:
        """``seed`` as the generators take it: None or a whole number >= 0 (spawned into one stream
        per game), or one such seed per game (``ValueError`` otherwise)."""
        if seed is None or is_integer(seed):
            return checked_seed(seed)
        if isinstance(seed, str | bytes) or not isinstance(seed, Sequence | np.ndarray) or np.ndim(seed) != 1:
            raise ValueError(f"seed must be None, a whole number >= 0 or one per game, got {seed!r:.60}")
        if len(seed) != self.num_games:
            raise ValueError(f"got {len(seed)} seeds for {self.num_games} games")
        return [checked_seed(s, f"seed {i}") for i, s in enumerate(seed)]

    def _generators(self, seeds: int | list[int | None] | None) -> list[np.random.Generator]:
        """Each game's generator from seeds checked by :meth:`_checked_seeds`."""
        if isinstance(seeds, list):
            return [np.random.default_rng(s) for s in seeds]
        return [np.random.default_rng(s) for s in np.random.SeedSequence(seeds).spawn(self.num_games)]

    @property
    def games(self) -> list[Engine]:
        """The N engines, brought up to date (an engine lags behind its game's arrays until read).

        A list made at each call: a game that starts afresh gets a new engine, so read this again
        rather than keep it.
        """
        if self._lockstep is not None:
            for i in np.flatnonzero(self._lockstep.active).tolist():
                self._lockstep.sync(i, self._engine(i))
        return [self._engine(i) for i in range(len(self._games))]

    def _engine(self, i: int) -> Engine:
        """Game ``i``'s engine, made now from its first hand if it was dealt in the arrays (it may
        still lag behind them)."""
        game = self._games[i]
        if game is None:
            dealer, hands = self._first_hands.pop(i)
            game = self._games[i] = self.kit.new_game(self._rngs[i], dealer=dealer, deal=hands)
        return game

    def reset(self, seed: int | Sequence[int] | None = None) -> BatchStep:
        """Start every game afresh (seeded by ``seed``, or the constructor's seed)."""
        self._rngs = self._generators(self._checked_seeds(seed) if seed is not None else self._seed)
        self._games = [self.kit.new_game(rng) for rng in self._rngs]
        self._first_hands.clear()
        if self._lockstep is not None:
            self._lockstep.active[:] = False
        rows = list(range(self.num_games))
        return self._advance(rows, [None] * self.num_games)

    def step(self, actions: np.ndarray | Sequence[int]) -> BatchStep:
        """Apply one action per game (each must be legal per the last mask) and return the next step."""
        if not self._games:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_games,):
            raise ValueError(f"expected {self.num_games} actions, got shape {actions.shape}")
        if actions.dtype.kind not in "iu" or not (
            actions.min() >= 0 and actions.max() < self.num_actions and self._masks[self._rows, actions].all()
        ):
            self._raise_illegal(actions)
        lockstep = self._lockstep
        if lockstep is None:
            return self._advance(range(self.num_games), actions.tolist())
        # Every game's hand is in the arrays: all take their actions together. Those whose hand
        # ended, or was passed out and is dealt again, may then need their engines.
        lockstep.step(self._rows, actions)
        action_list: list[int | None] = [None] * self.num_games  # every action was applied above
        ended, redealt = lockstep.ended, lockstep.redealt
        outcomes = {}
        if self._in_arrays_only and ended:
            teams = self.kit.teams
            for i in ended:  # a one-hand episode is a new game's first hand (number 0)
                outcomes[i] = self.config.outcome(*lockstep.score(i), 0, teams)
            self._deal_in_arrays(ended)
            ended = []
        for i in ended + redealt:  # the engine scores the hand (or deals again) itself
            lockstep.sync(i, self._engine(i))
        return self._advance(sorted(ended + redealt), action_list, outcomes)

    def _deal_in_arrays(self, rows: list[int]) -> None:
        """Start a new game in each of ``rows`` in the arrays, its engine made only when read."""
        lockstep = self._lockstep
        assert lockstep is not None
        dealers, hands = [], []
        for i in rows:
            dealer, dealt = lockstep.draw(self._rngs[i])  # what a new engine would draw, in its order
            dealers.append(dealer)
            hands.append(dealt)
            self._first_hands[i] = (dealer, dealt)
            self._games[i] = None
        lockstep.deal(np.array(rows), dealers, hands)

    def _advance(
        self,
        rows: Sequence[int],
        action_list: Sequence[int | None],
        outcomes: dict[int, tuple[list[float], bool, bool]] | None = None,
    ) -> BatchStep:
        """Apply ``action_list[i]`` to game ``i`` of ``rows`` through its engine (None: already
        applied), restart finished hands, and return the step. ``outcomes`` holds what the hands
        that ended in the arrays and were scored there paid (their next game is dealt already)."""
        records: list[dict[str, Any]] = []
        ended: list[int] = list(outcomes) if outcomes else []  # games whose hand ended, and what it paid
        paid: list[tuple[list[float], bool, bool]] = list(outcomes.values()) if outcomes else []
        games = cast("list[Engine]", self._games)  # every game of ``rows`` has its engine
        encoders, teams, new_game = self._encoders, self.kit.teams, self.kit.new_game
        lockstep = self._lockstep
        seats: list[int] = []
        phases: list[int] = []
        legal: list[int] = []
        starting: list[int] = []  # games whose auction starts (a new hand, or one dealt again): to the arrays
        # One pass per game: act, restart a finished hand, then read the next decision while the
        # game's objects are still in cache. The engine's per-phase tables are called directly: the
        # actions were checked against the masks, and a call of ``apply``/``legal_bits`` would cost
        # a Python frame per decision each.
        for i in rows:
            game = games[i]
            action = action_list[i]
            if action is not None:
                game.APPLY[game.phase](game, action)
            if game.to_act < 0:
                if self.record:
                    records.append(game.record())
                outcome = self.config.hand_end(game, teams)
                ended.append(i)
                paid.append(outcome)
                if outcome[1] or outcome[2]:
                    game = games[i] = new_game(game.rng)
                else:
                    game.next_hand()
            encoders[i].update(game)
            if lockstep is not None:
                starting.append(i)
                continue
            seats.append(game.to_act)
            phase = game.phase
            phases.append(phase)
            legal.append(game.LEGAL_BITS[phase](game))
        rewards = np.zeros((self.num_games, self.num_seats), dtype=np.float32)
        hand_over, terminated, truncated = np.zeros((3, self.num_games), dtype=bool)
        if ended:  # filled in at once: a numpy call costs more than a step of the loop above
            rewards[ended], terminated[ended], truncated[ended] = zip(*paid, strict=True)
            hand_over[ended] = True
        if lockstep is not None:  # every game's hand is in the arrays
            if starting:
                lockstep.load(starting, [games[i] for i in starting])
            acting, phase_of, masks = lockstep.decisions(self._rows)
            return self._result(acting, phase_of, masks, rewards, hand_over, terminated, truncated, records)
        masks = masks_from_bits(legal, self.num_actions)
        return self._result(seats, phases, masks, rewards, hand_over, terminated, truncated, records)

    def _raise_illegal(self, actions: np.ndarray) -> None:
        """Name the first game whose action is out of range or masked out (or refuse non-integers)."""
        if actions.dtype.kind not in "iu":
            raise ActionTypeError(f"actions must be integers, got an array of {actions.dtype}")
        in_range = (actions >= 0) & (actions < self.num_actions)
        legal = in_range & (self._masks[self._rows, np.where(in_range, actions, 0)] == 1)
        i = int(np.flatnonzero(~legal)[0])
        game = self.games[i]
        raise IllegalActionError(f"game {i}: " + game.illegal_message(actions[i]))

    def _result(
        self,
        seats: list[int] | np.ndarray,
        phases: list[int] | np.ndarray,
        masks: np.ndarray,
        rewards: np.ndarray,
        hand_over: np.ndarray,
        terminated: np.ndarray,
        truncated: np.ndarray,
        records: list[dict[str, Any]],
    ) -> BatchStep:
        """The step's arrays: each acting seat's observation (with its turn stamped) and mask."""
        self._seats = seats = np.asarray(seats, dtype=np.int64)
        self._phases = phases = np.asarray(phases, dtype=np.int64)
        self._masks = masks
        observations = self._acting_observations(self._rows, out=self._observations.get())
        return BatchStep(observations, masks, seats, rewards, hand_over, terminated, truncated, records, phases.copy())

    def states(self, rows: Sequence[int] | np.ndarray | None = None) -> np.ndarray:
        """(len(rows), state_size) perfect-information states of games ``rows`` (default: all), each
        from its acting seat's point of view.

        It reads no engine of a game in a lockstep phase (so no catching up): cheap enough for a
        centralised critic's input at every step.
        """
        rows = self._rows if rows is None else self._checked_rows(rows)
        if not rows.size:
            return np.zeros((0, self.state_size), dtype=np.float32)
        seats = self._seats[rows]
        observations = self._acting_observations(rows)
        if self.kit.stack_states is not None:
            return self.kit.stack_states(observations, self._hands(rows), seats)
        states = [
            self.kit.encode_state(self._games[i], seat, observation)
            for i, seat, observation in zip(rows.tolist(), seats.tolist(), observations, strict=True)
        ]
        return np.stack(states)

    def _checked_rows(self, rows: Sequence[int] | np.ndarray) -> np.ndarray:
        """``rows`` as an array of game numbers, refusing anything but integers 0..num_games - 1 (a
        negative one would count from the end, and a float be cut to an integer, silently)."""
        array = np.asarray(rows).reshape(-1)
        if array.size and (array.dtype.kind not in "iu" or array.min() < 0 or array.max() >= self.num_games):
            raise ValueError(f"rows must be game numbers 0..{self.num_games - 1}, got {rows!r:.80}")
        return array.astype(np.int64)

    def _acting_observations(self, rows: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """The observations of the seats to act in games ``rows``, each with its turn stamped (each
        row is its acting seat's own view), into ``out`` if given."""
        # mode="clip": the rows are valid, and with ``out`` the default mode copies through a temporary
        observations = self._seat_rows.take(self._first_row[rows] + self._seats[rows], axis=0, out=out, mode="clip")
        self.kit.stamp_turn(observations, self._phases[rows], 0)
        return observations

    def _hands(self, rows: np.ndarray) -> np.ndarray:
        """(len(rows), seats, 24) the cards every seat of games ``rows`` holds now, as counts."""
        hands = np.empty((len(rows), self.num_seats, NUM_TYPES), dtype=np.int64)
        lockstep = self._lockstep
        in_arrays = lockstep.active[rows] if lockstep is not None else np.zeros(len(rows), dtype=bool)
        if lockstep is not None and in_arrays.any():
            hands[in_arrays] = lockstep.hands.reshape(-1, self.num_seats, NUM_TYPES)[rows[in_arrays]]
        engine_rows = np.flatnonzero(~in_arrays)
        if len(engine_rows):
            hands[engine_rows] = [self._engine(i).hands for i in rows[engine_rows].tolist()]
        return hands

    def views(self) -> list[View]:
        """Information-set views (the game's :class:`~pinochle_env.protocol.View`) of each acting seat."""
        return [game.view(game.to_act) for game in self.games]
