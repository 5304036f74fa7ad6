"""Compiled inference: how well a drawn deal explains what the other seats did (policy-based weighting,
agent knowledge: the heuristic is the model of everyone; :mod:`agents.search.inference` uses it).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pinochle_env.kernel.compiled.tricks import (
    NUM_TYPES,
    R_HAND_SIZE,
    R_HEAD,
    R_OVERTRUMP,
    R_SEATS,
    R_TRUMP,
    held_bits,
    legal_bits,
    play_card,
)

from .heuristic import SCRATCH_SIZE, bidding_values, heuristic_call
from .playouts import choose_card


@njit(cache=True)
def play_mismatches(deals, gifts, history, observer, shown, rules, values, order, policy, out):
    """Into ``out[d]``: how many plays of the other seats in the history ``policy`` would not have
    made with deal ``d``'s hands (the hands now; plays without a choice are not counted).

    The history (a :class:`History`) is replayed from the first lead, every other seat's play
    compared with the policy's choice from that seat's knowledge then. A play matches if the policy
    makes it with ``order`` or with the reverse order, so that equal choices settled by another
    player's tie-break still match.
    """
    cards, leaders, sizes = history  # the fields, in order
    seats = rules[R_SEATS]
    trump, head, overtrump = rules[R_TRUMP], rules[R_HEAD], rules[R_OVERTRUMP]
    scratch = np.zeros(SCRATCH_SIZE, dtype=np.int64)
    state = np.zeros(1, dtype=np.uint64)
    hands = np.zeros((seats, NUM_TYPES), dtype=np.int8)
    played = np.zeros(NUM_TYPES, dtype=np.int64)
    played_by = np.zeros((seats, NUM_TYPES), dtype=np.int64)
    void = np.zeros(seats, dtype=np.int64)
    pts = np.zeros(seats, dtype=np.int64)
    tks = np.zeros(seats, dtype=np.int64)
    trick = np.zeros(4, dtype=np.int64)
    reverse = NUM_TYPES - 1 - order
    for d in range(deals.shape[0]):
        hands[:, :] = deals[d]
        for t in range(sizes.size):
            for i in range(sizes[t]):
                hands[(leaders[t] + i) % seats, cards[t, i]] += 1
        played[:] = 0
        played_by[:, :] = 0
        void[:] = 0
        pts[:] = 0
        tks[:] = 0
        misses, left, n = 0, rules[R_HAND_SIZE], 0
        for t in range(sizes.size):
            leader = leaders[t]
            for i in range(sizes[t]):
                seat = (leader + i) % seats
                c = cards[t, i]
                if seat != observer:
                    legal = legal_bits(held_bits(hands[seat]), trick, n, trump, head, overtrump)
                    if legal & (legal - 1):
                        first = choose_card(policy, seat, legal, trick, n, leader, left, hands, played, played_by,
                                            void, shown, gifts[d], rules, values, order, state, scratch)  # fmt: skip
                        if first != c:
                            second = choose_card(policy, seat, legal, trick, n, leader, left, hands, played,
                                                 played_by, void, shown, gifts[d], rules, values, reverse, state,
                                                 scratch)  # fmt: skip
                            misses += second != c
                n, _, left = play_card(
                    c, seat, hands, trick, n, leader, left, pts, tks, played, played_by, void, rules, values
                )
        out[d] = misses


@njit(cache=True)
def call_mismatches(dealt, calls, observer, run_extras, max_bid, help_allowed, out):
    """Into ``out[d]``: how many calls of the other seats :func:`heuristic_call` would not have made
    with deal ``d``'s hands as dealt. ``calls[k]`` = (seat, kind 0 bid / 1 pass / 2 help, bid)."""
    shown = np.zeros(NUM_TYPES, dtype=np.int64)
    strength = np.zeros(4)
    mean_meld = np.zeros(4)
    for d in range(dealt.shape[0]):
        for p in range(4):
            strength[p], mean_meld[p] = bidding_values(dealt[d, p], run_extras, shown)
        high, high_bidder, misses = 0, -1, 0
        helped = np.zeros(4, dtype=np.bool_)
        for k in range(calls.shape[0]):
            seat, kind, value = calls[k, 0], calls[k, 1], calls[k, 2]
            if seat != observer:
                expected, bid = heuristic_call(strength[seat], mean_meld[seat], seat, high, high_bidder,
                                               helped[(seat + 2) % 4], max_bid, help_allowed)  # fmt: skip
                misses += expected != kind or (kind == 0 and bid != value)
            if kind == 0:
                high, high_bidder = value, seat
            elif kind == 2:
                helped[seat] = True
        out[d] = misses
