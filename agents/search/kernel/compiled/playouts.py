"""Compiled play-outs and PIMC's card values: hands played on by a bot's policy (agent knowledge).

A play-out plays every seat with one policy (:data:`POLICY_HEURISTIC`: the partnership heuristic's
card play; :data:`POLICY_SIMPLE`: the three- and two-handed heuristic's; :data:`POLICY_RANDOM`),
each seat deciding from its own knowledge of the deal; :func:`evaluate_cards` values candidate
cards over sampled deals by play-outs down to a leaf solved exactly (the game's solver,
:mod:`pinochle_env.kernel.compiled.solver`); :func:`simulate_hands` plays whole hands from the deal
for the decisions taken before the first card.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pinochle_env.kernel.compiled.solver import (
    B_LIMIT,
    B_NODES,
    STOPPED,
    UNLIMITED,
    points_in_hands,
    side_score,
    solve_node,
    solve_values,
    solver_for_hand,
    work_arrays,
)
from pinochle_env.kernel.compiled.tricks import (
    LAST_TRICK_BONUS,
    NUM_TYPES,
    R_DECLARER,
    R_HAND_SIZE,
    R_HEAD,
    R_OVERTRUMP,
    R_SEATS,
    R_SEQUENTIAL,
    R_SIMPLE_LAST,
    R_TRUMP,
    held_bits,
    legal_bits,
    meld,
    play_card,
    random_below,
)

from .heuristic import (
    SCRATCH_SIZE,
    heuristic_card,
    heuristic_trump,
    leading_zeros,
    pass_cards,
    popcount,
    simple_card,
    trick_estimate,
)

#: Play-out policies.
POLICY_RANDOM, POLICY_HEURISTIC, POLICY_SIMPLE = range(3)
#: Indices of the simulation's integer settings (after the trick-play rule vector).
S_PASS_COUNT, S_RUN_EXTRAS, S_THROW_MODE, S_EXACT, S_NODE_LIMIT = range(5)
SETTINGS_SIZE = 5
#: Throw-in modes of a simulated hand: always play; the rules' ``seed`` rule; ``always`` (the
#: heuristic decides every hand).
THROW_NEVER, THROW_SEED, THROW_ALWAYS = range(3)


class PlayOut(NamedTuple):
    """How play-outs play: the ``policy``, its tie-break ``order`` (a rank per card type), and the
    random stream of each deal (``seeds``)."""

    policy: int
    order: np.ndarray
    seeds: np.ndarray


class Contracts(NamedTuple):
    """Per simulated deal: the declarer (negative: the deal is skipped), the contract and the trump
    (negative: the heuristic's choice)."""

    declarers: np.ndarray
    contracts: np.ndarray
    trumps: np.ndarray


class Passes(NamedTuple):
    """Per simulated deal: the cards passed to the declarer (``given_to``, used where ``to_known``)
    and back (``given_back``, where ``back_known``); elsewhere the heuristic chooses them."""

    given_to: np.ndarray
    to_known: np.ndarray
    given_back: np.ndarray
    back_known: np.ndarray


class SimulatedHands(NamedTuple):
    """Per simulated deal, filled in: each seat's meld, trick points and tricks (N, 4), whether the
    hand was thrown in and the trump (N,).

    A hand played exactly (the simulation's ``S_EXACT``) has each team's points on the declarer's
    seat and the seat after it, and there 1 trick for a team that takes a trick (exact play gives a
    team's points, and under ``save_meld="trick"`` whether it takes a trick, which is all the
    scoring asks; under the other rules 1 stands for a team that takes points); an exact solve that
    ran past its node limit has ``points`` -1 on both seats.
    """

    meld: np.ndarray
    points: np.ndarray
    tricks: np.ndarray
    thrown: np.ndarray
    trumps: np.ndarray


# ------------------------------------------------------------------------------------------------
# Play-outs


@njit(cache=True)
def choose_card(policy, seat, legal, trick, n, leader, left, hands, played, played_by, void, shown, gift, rules,
                values, order, state, scratch):  # fmt: skip
    """The card ``policy`` plays for ``seat`` among the ``legal`` bits (forced cards need no policy)."""
    if legal & (legal - 1) == 0:
        return 63 - leading_zeros(legal)
    if policy == POLICY_HEURISTIC:
        return heuristic_card(seat, legal, trick, n, leader, left, hands, played, played_by, void, shown, gift,
                              rules, values, order, scratch)  # fmt: skip
    if policy == POLICY_SIMPLE:
        last = rules[R_SIMPLE_LAST] == 1 or n == rules[R_SEATS] - 1
        return simple_card(legal, trick, n, rules[R_TRUMP], values, last, order)
    k = random_below(state, popcount(legal))
    for c in range(NUM_TYPES):
        if legal >> c & 1:
            if k == 0:
                return c
            k -= 1
    return -1


@njit(cache=True)
def play_out(policy, hands, trick, n, leader, left, pts, tks, played, played_by, void, shown, gift, rules, values,
             order, state, stop, scratch):  # fmt: skip
    """Play the hand on with ``policy`` for every seat until ``stop`` tricks are left (0: to the end).

    Returns (n, leader, left) of the position reached; every array is updated in place.
    """
    seats = rules[R_SEATS]
    while left > stop or (n > 0 and left > 0):
        seat = (leader + n) % seats
        legal = legal_bits(held_bits(hands[seat]), trick, n, rules[R_TRUMP], rules[R_HEAD], rules[R_OVERTRUMP])
        c = choose_card(policy, seat, legal, trick, n, leader, left, hands, played, played_by, void, shown, gift,
                        rules, values, order, state, scratch)  # fmt: skip
        n, leader, left = play_card(c, seat, hands, trick, n, leader, left, pts, tks, played, played_by, void,
                                    rules, values)  # fmt: skip
    return n, leader, left


@njit(cache=True)
def play_out_many(deals, gifts, position, rules, values, playout, out_pts, out_tks):
    """Play every deal of ``deals`` (N, S, 24) out from the :class:`Position` as ``playout`` (a
    :class:`PlayOut`) says: each seat's final trick points and tricks into ``out_pts`` and
    ``out_tks`` (N, S); deal ``d``'s random stream starts from ``playout.seeds[d]``."""
    trick, n, leader, left, pts, tks, played, played_by, void, shown = position  # the fields, in order
    policy, order, seeds = playout
    state = np.zeros(1, dtype=np.uint64)
    scratch = np.zeros(SCRATCH_SIZE, dtype=np.int64)
    for d in range(deals.shape[0]):
        hands = deals[d].copy()
        trick_now, pts_now, tks_now = trick.copy(), pts.copy(), tks.copy()
        played_now, played_by_now, void_now = played.copy(), played_by.copy(), void.copy()
        state[0] = seeds[d]
        play_out(policy, hands, trick_now, n, leader, left, pts_now, tks_now, played_now, played_by_now, void_now,
                 shown, gifts[d], rules, values, order, state, 0, scratch)  # fmt: skip
        out_pts[d, :] = pts_now
        out_tks[d, :] = tks_now


@njit(cache=True)
def policy_card(seat, position, hands, gift, rules, values, order, policy, seed):
    """The card ``policy`` plays for ``seat`` at one :class:`Position` (the play-outs' choice, one
    decision)."""
    trick, n, leader, left, _, _, played, played_by, void, shown = position  # the fields, in order
    state = np.zeros(1, dtype=np.uint64)
    state[0] = seed
    legal = legal_bits(held_bits(hands[seat]), trick, n, rules[R_TRUMP], rules[R_HEAD], rules[R_OVERTRUMP])
    return choose_card(policy, seat, legal, trick, n, leader, left, hands, played, played_by, void, shown, gift,
                       rules, values, order, state, np.zeros(SCRATCH_SIZE, dtype=np.int64))  # fmt: skip


# ------------------------------------------------------------------------------------------------
# PIMC's values: play-outs down to a leaf, solved exactly from there


@njit(cache=True)
def evaluate_cards(deals, gifts, position, rules, values, playout, stop, solve, cards, solver, out):
    """The maximising side's final score (:func:`side_score`) after each candidate card on each deal.

    ``deals`` (N, S, 24) are the hands now, ``gifts`` (N, S, 24) each seat's pass knowledge in that
    deal; the :class:`Position` is shared by every deal. With ``solve`` the seat to act's cards are
    valued exactly (:func:`solve_values`; ``cards`` is ignored and ``out[d, c]`` is set for the
    legal ``c``); otherwise ``out[d, k]`` is the score after ``cards[k]`` and a play-out as
    ``playout`` (a :class:`PlayOut`) says down to ``stop`` tricks left, solved exactly from there
    (``stop`` 0: played to the end; ``solver``: the game's :class:`Solver`). Deal ``d``'s random
    stream starts from ``playout.seeds[d]`` for every card, so all cards meet the same chances.
    Returns the number of deals valued: fewer than N when the solver's node budget ran out (the
    deal it stopped in is not valued).
    """
    trick, n, leader, left, pts, tks, played, played_by, void, shown = position  # the fields, in order
    policy, order, seeds = playout
    side, mode = solver.side, solver.mode
    seats = rules[R_SEATS]
    flags = 0
    for p in range(seats):
        if tks[p]:
            flags |= 1 if side[p] == 1 else 2
    values_out = np.zeros(NUM_TYPES, dtype=np.int64)
    state = np.zeros(1, dtype=np.uint64)
    scratch = np.zeros(SCRATCH_SIZE, dtype=np.int64)
    hands = np.zeros((seats, NUM_TYPES), dtype=np.int8)
    trick_now, pts_now, tks_now = trick.copy(), pts.copy(), tks.copy()
    played_now, played_by_now, void_now = played.copy(), played_by.copy(), void.copy()
    work = work_arrays(left, seats)
    for d in range(deals.shape[0]):
        if solve:
            hands[:, :] = deals[d]
            legal = solve_values(hands, trick, (n, leader, left, flags), rules, values, solver, work, values_out)
            if legal < 0:
                return d
            base = 0
            for p in range(seats):
                if side[p] == 1:
                    base += pts[p]
            for c in range(NUM_TYPES):
                if legal >> c & 1:
                    out[d, c] = base + values_out[c]
            continue
        for k in range(cards.size):
            hands[:, :] = deals[d]
            trick_now[:], pts_now[:], tks_now[:] = trick, pts, tks
            played_now[:], played_by_now[:, :], void_now[:] = played, played_by, void
            state[0] = seeds[d]
            seat = (leader + n) % seats
            n_now, leader_now, left_now = play_card(cards[k], seat, hands, trick_now, n, leader, left, pts_now, tks_now,
                                                    played_now, played_by_now, void_now, rules, values)  # fmt: skip
            n_now, leader_now, left_now = play_out(policy, hands, trick_now, n_now, leader_now, left_now, pts_now,
                                                   tks_now, played_now, played_by_now, void_now, shown, gifts[d],
                                                   rules, values, order, state, stop, scratch)  # fmt: skip
            score = side_score(pts_now, tks_now, side, seats, 0)
            if left_now == 0:
                out[d, k] = side_score(pts_now, tks_now, side, seats, mode)
                continue
            leaf_flags = 0
            for p in range(seats):
                if tks_now[p]:
                    leaf_flags |= 1 if side[p] == 1 else 2
            root = (n_now, leader_now, left_now, leaf_flags)
            future = solve_node(hands, trick_now, root, rules, values, solver, work)
            if future == STOPPED:
                return d
            out[d, k] = score + future
    return deals.shape[0]


# ------------------------------------------------------------------------------------------------
# Whole hands from the deal: the heuristic's trump, passing and throw-in, meld, then a play-out


@njit(cache=True)
def simulate_hands(dealt, contracts, passes, rules, settings, values, playout, solver, out):
    """Play each deal (N, 4, 24 as dealt) from trump to the last card, with deal ``d``'s declarer
    ``declarers[d]`` at ``contracts[d]`` (``contracts``: a :class:`Contracts`; a negative declarer:
    the deal is skipped, out all zero).

    Trump is ``trumps[d]``, or the heuristic's choice where it is negative. The cards passed to
    the declarer are ``given_to[d]`` where ``to_known[d]``, else the partner's heuristic choice;
    the cards passed back likewise (``given_back``, ``back_known``; ``passes``: a :class:`Passes`).
    Then every seat melds, the throw-in rule of ``settings[S_THROW_MODE]`` applies (the heuristic
    deciding where the declarer chooses), and a played hand is played out as ``playout`` (a
    :class:`PlayOut`) says or, with ``settings[S_EXACT]``, solved exactly from the first lead on
    ``solver``'s table (its side and salt set per deal; at most ``settings[S_NODE_LIMIT]`` nodes
    a hand, 0: no limit). Out (a :class:`SimulatedHands`): each seat's meld, trick points and
    tricks, whether the hand was thrown in, and the trump.
    """
    declarers, contract_of, trumps = contracts  # the fields, in order
    given_to, to_known, given_back, back_known = passes
    policy, order, seeds = playout
    out_meld, out_pts, out_tks, out_thrown, out_trump = out
    pass_count, run_extras, mode = settings[S_PASS_COUNT], settings[S_RUN_EXTRAS], settings[S_THROW_MODE]
    sequential = rules[R_SEQUENTIAL] == 1
    shown = np.zeros((4, NUM_TYPES), dtype=np.int64)
    scratch = np.zeros(NUM_TYPES, dtype=np.int64)
    scratch_play = np.zeros(SCRATCH_SIZE, dtype=np.int64)
    state = np.zeros(1, dtype=np.uint64)
    play_rules = rules.copy()
    for d in range(dealt.shape[0]):
        declarer, contract = declarers[d], contract_of[d]
        out_meld[d, :] = 0
        out_pts[d, :] = 0
        out_tks[d, :] = 0
        out_thrown[d], out_trump[d] = False, -1
        if declarer < 0:
            continue
        partner = (declarer + 2) % 4
        play_rules[R_DECLARER] = declarer
        hands = dealt[d].astype(np.int64)
        trump = trumps[d] if trumps[d] >= 0 else heuristic_trump(hands[declarer], run_extras, order, scratch)
        out_trump[d] = trump
        to_declarer = np.zeros(NUM_TYPES, dtype=np.int64)
        back = np.zeros(NUM_TYPES, dtype=np.int64)
        if pass_count:
            if to_known[d]:
                to_declarer[:] = given_to[d]
                hands[partner] -= to_declarer
            else:
                pass_cards(hands[partner], pass_count, False, trump, run_extras, order, scratch, to_declarer)
            if sequential:
                hands[declarer] += to_declarer
            if back_known[d]:
                back[:] = given_back[d]
                hands[declarer] -= back
            else:
                pass_cards(hands[declarer], pass_count, True, trump, run_extras, order, scratch, back)
            hands[partner] += back
            if not sequential:
                hands[declarer] += to_declarer
        for p in range(4):
            out_meld[d, p] = meld(hands[p], trump, run_extras, shown[p])
        short = contract - out_meld[d, declarer] - out_meld[d, partner]
        thrown = False
        if mode == THROW_ALWAYS or (mode == THROW_SEED and short == 250):
            estimate = trick_estimate(hands[declarer], trump)
            thrown = out_meld[d, declarer] + out_meld[d, partner] + estimate < contract
        elif mode == THROW_SEED:
            thrown = short > 250
        out_thrown[d] = thrown
        if thrown:
            continue
        gifts = np.zeros((4, NUM_TYPES), dtype=np.int64)
        gifts[declarer] = back
        gifts[partner] = np.maximum(0, to_declarer - back) if sequential else to_declarer
        play_rules[R_TRUMP] = trump
        if settings[S_EXACT]:
            _solve_hand(hands, declarer, play_rules, values, settings[S_NODE_LIMIT], solver, out_pts[d], out_tks[d])
            continue
        state[0] = seeds[d]
        current = hands.astype(np.int8)
        trick = np.zeros(4, dtype=np.int64)
        played = np.zeros(NUM_TYPES, dtype=np.int64)
        played_by = np.zeros((4, NUM_TYPES), dtype=np.int64)
        void = np.zeros(4, dtype=np.int64)
        play_out(policy, current, trick, 0, declarer, 12, out_pts[d], out_tks[d], played, played_by, void, shown,
                 gifts, play_rules, values, order, state, 0, scratch_play)  # fmt: skip


@njit(cache=True)
def _solve_hand(hands, declarer, rules, values, node_limit, solver, points, tricks):
    """Solve a partnership hand from the declarer's first lead: the declaring team's trick points on
    ``points[declarer]``, the defenders' on the next seat, 1 in ``tricks`` for a team that takes
    a trick (see :class:`SimulatedHands`)."""
    side = np.zeros(4, dtype=np.int64)
    side[declarer], side[(declarer + 2) % 4] = 1, 1
    hand = solver_for_hand(solver, side, rules[R_TRUMP])
    budget = solver.budget
    budget[B_LIMIT] = budget[B_NODES] + node_limit if node_limit > 0 else UNLIMITED
    root = (0, declarer, rules[R_HAND_SIZE], 0)
    value = solve_node(hands.astype(np.int8), np.zeros(4, dtype=np.int64), root, rules, values, hand,
                       work_arrays(rules[R_HAND_SIZE], 4))  # fmt: skip
    budget[B_LIMIT] = UNLIMITED
    defender = (declarer + 1) % 4
    if value == STOPPED:
        points[declarer] = points[defender] = -1
        return
    total = points_in_hands(hands, 4, values) + LAST_TRICK_BONUS
    # under save_meld="trick" the value is one beyond the points for a sweep (see the solver)
    taken = min(max(value, 0), total)
    points[declarer], points[defender] = taken, total - taken
    tricks[declarer] = 0 if value < 0 or (solver.mode != 1 and taken == 0) else 1
    tricks[defender] = 0 if value > total or (solver.mode != 1 and taken == total) else 1
