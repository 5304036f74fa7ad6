"""The compiled exact solver of trick play (game knowledge: it follows from the rules alone).

Values are the trick points the maximising side (``side[seat] == 1``) takes from the node to the
end of the hand. Under ``mode == 1`` (save meld by tricks) a side that takes no trick at all
changes the score beyond its points, so a sweep by the maximising side counts one point more and
a sweep against it one point less (``flags``: bit 0, the maximising side has a trick; bit 1, the
other side has one); hand scores are non-decreasing in that value, so its minimax is exact.

An explicit-stack alpha-beta search with a transposition table at trick starts (:func:`_search`),
moves ordered by cheap rules, equal cards merged. The tests hold it to plain :func:`minimax`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .tricks import (
    NUM_TYPES,
    R_HEAD,
    R_OVERTRUMP,
    R_SEATS,
    R_TRUMP,
    RANK,
    SUIT,
    SUIT_BITS,
    beats,
    held_bits,
    legal_bits,
    trick_value,
    winning_position,
)

#: Solver values are far inside this bound.
INFINITY = 1 << 20
#: Fields of a search frame (one row of ``frames`` per ply).
(F_N, F_LEADER, F_LEFT, F_FLAGS, F_ALPHA, F_BETA, F_ALPHA0, F_BETA0, F_BEST, F_BEST_MOVE, F_SLOT, F_COUNT, F_INDEX,
 F_SEAT, F_HELD, F_GAIN, F_MAX) = range(17)  # fmt: skip
FRAME_FIELDS = 17


class Solver(NamedTuple):
    """What a search needs besides the position: the maximising ``side`` (1 per seat on it), the
    ``mode`` (1: tricks taken count beyond their points), whether equal cards are merged
    (``equivalent``), the table ``salt`` of the rule set and deal, the Zobrist keys and the
    transposition table (``key``, ``low``, ``high``, ``move``), and the node counter."""

    side: np.ndarray
    mode: int
    equivalent: bool
    salt: np.uint64
    zobrist: np.ndarray
    key: np.ndarray
    low: np.ndarray
    high: np.ndarray
    move: np.ndarray
    nodes: np.ndarray


@njit(cache=True)
def _sweep_adjustment(flags, mode):
    if mode != 1:
        return 0
    if not flags & 2:
        return 1
    if not flags & 1:
        return -1
    return 0


@njit(cache=True)
def side_score(pts, tks, side, seats, mode):
    """The maximising side's trick points, with the sweep adjustment of ``mode`` 1 (see the solver)."""
    points, own, other = 0, 0, 0
    for p in range(seats):
        if side[p] == 1:
            points += pts[p]
            own += tks[p]
        else:
            other += tks[p]
    flags = (1 if own else 0) | (2 if other else 0)
    return points + _sweep_adjustment(flags, mode)


@njit(cache=True)
def _order_moves(moves, scores, count, seat, trick, n, leader, side, rules, values, first):
    """Sort the first ``count`` of ``moves`` best first: ``first`` (the stored best move), then cheap rules.

    Leading: high cards first. Following: a card that takes the trick from the other side
    (cheapest first), a counter on a trick the own side holds, else the cheapest card.
    """
    trump, seats = rules[R_TRUMP], rules[R_SEATS]
    winning, winner = -1, -1
    if n > 0:
        position = winning_position(trick, n, trump)
        winning, winner = trick[position], (leader + position) % seats
    for i in range(count):
        c = moves[i]
        if c == first:
            scores[i] = 1 << 20
        elif n == 0:
            scores[i] = 100 * RANK[c] + values[c]
        elif side[winner] == side[seat]:
            scores[i] = (2000 if not beats(c, winning, trump) else 1000) + values[c] * 10 - RANK[c]
        elif beats(c, winning, trump):
            scores[i] = 3000 - RANK[c] - (50 if SUIT[c] == trump else 0)
        else:
            scores[i] = 500 - values[c] * 10 - RANK[c]
    for i in range(1, count):  # insertion sort, descending
        c, score = moves[i], scores[i]
        j = i - 1
        while j >= 0 and scores[j] < score:
            moves[j + 1], scores[j + 1] = moves[j], scores[j]
            j -= 1
        moves[j + 1], scores[j + 1] = c, score


@njit(cache=True)
def representatives(legal, seat, hands, trick, n, seats, values, equivalent, groups):
    """The legal cards worth searching (a bit mask), and in ``groups[c]`` the card whose value each
    legal card ``c`` shares.

    With ``equivalent``, cards of one suit in the seat's hand with the same points, between which
    no other hand and the trick in progress hold a card of a rank in their span (bounds included),
    are interchangeable for the rest of the hand: the cards any other hand or the trick holds
    compare alike against each (the first of two identical cards wins, so another hand's copy of
    either bound breaks the span too), every head and over-trump rule asks the followers the same
    of each, and what stays in the hand is alike for the same reason. Only the lowest of such a
    group is searched. Without ``equivalent`` every legal card is its own group.
    """
    if not equivalent:
        for c in range(NUM_TYPES):
            groups[c] = c
        return legal
    others = 0
    for p in range(seats):
        if p != seat:
            others |= held_bits(hands[p])
    for position in range(n):
        others |= 1 << trick[position]
    mine = held_bits(hands[seat])
    chosen = 0
    for suit in range(4):
        if not legal & SUIT_BITS[suit]:
            continue
        head = -1
        for rank in range(6):
            c = 6 * suit + rank
            if others >> c & 1:
                head = -1
                if legal >> c & 1:
                    groups[c] = c
                    chosen |= 1 << c
                continue
            if not mine >> c & 1:
                continue  # played out: no longer between anything
            if not legal >> c & 1:
                head = -1
                continue
            if head >= 0 and values[c] == values[head]:
                groups[c] = head
            else:
                head = c
                groups[c] = c
                chosen |= 1 << c
    return chosen


@njit(cache=True)
def _complete(tricks, leader, left, side, rules, values, flags):
    """The trick just filled: (winner, points for the maximising side, flags after it)."""
    seats = rules[R_SEATS]
    trick = tricks[left]
    winner = (leader + winning_position(trick, seats, rules[R_TRUMP])) % seats
    if side[winner] == 1:
        return winner, trick_value(trick, seats, values, left == 1), flags | 1
    return winner, 0, flags | 2


# ------------------------------------------------------------------------------------------------
# The search


@njit(cache=True)
def _search(hands, tricks, n, leader, left, flags, key, alpha, beta, side, rules, values, mode, equivalent, salt,
            zobrist, tt_key, tt_low, tt_high, tt_move, moves, scores, groups, frames, keys, nodes):  # fmt: skip
    """Alpha-beta value of a node (see the section comment), fail-soft, without recursion.

    ``frames`` (one row per ply) and ``keys`` (the hands' key and the table key per ply) hold what
    a recursive search keeps on the call stack (numba's cache cannot reload recursive functions
    reliably). The table is read and written at trick starts, keyed on the hands, the leader, the
    flags (mode 1) and ``salt``; the trick in progress at ``left`` tricks to go is ``tricks[left]``.
    """
    seats, trump = rules[R_SEATS], rules[R_TRUMP]
    head, overtrump = rules[R_HEAD], rules[R_OVERTRUMP]
    mask = np.uint64(tt_key.size - 1)
    ply = 0
    frames[0, F_N], frames[0, F_LEADER], frames[0, F_LEFT], frames[0, F_FLAGS] = n, leader, left, flags
    frames[0, F_ALPHA], frames[0, F_BETA] = alpha, beta
    keys[0, 0] = key
    entering = True
    result = 0
    while True:
        if entering:
            nodes[0] += 1
            n, leader, left, flags = frames[ply, F_N], frames[ply, F_LEADER], frames[ply, F_LEFT], frames[ply, F_FLAGS]
            alpha, beta = frames[ply, F_ALPHA], frames[ply, F_BETA]
            done = False
            slot, stored = -1, -1
            if n == 0 and left == 0:
                result, done = _sweep_adjustment(flags, mode), True
            elif n == 0:
                full = keys[ply, 0] ^ salt ^ zobrist[4, leader, 0]
                if mode == 1:
                    full ^= zobrist[4, 4 + flags, 0]
                keys[ply, 1] = full
                slot = np.int64(full & mask)
                if tt_key[slot] == full:
                    low, high = tt_low[slot], tt_high[slot]
                    stored = tt_move[slot]
                    if low >= beta or low == high:
                        result, done = low, True
                    elif high <= alpha:
                        result, done = high, True
                    else:
                        alpha, beta = max(alpha, low), min(beta, high)
            if done:
                if ply == 0:
                    return result
                ply -= 1
                entering = False
                continue
            trick = tricks[left]
            seat = (leader + n) % seats
            legal = legal_bits(held_bits(hands[seat]), trick, n, trump, head, overtrump)
            chosen = representatives(legal, seat, hands, trick, n, seats, values, equivalent, groups[ply])
            count = 0
            for c in range(NUM_TYPES):
                if chosen >> c & 1:
                    moves[ply, count] = c
                    count += 1
            _order_moves(moves[ply], scores[ply], count, seat, trick, n, leader, side, rules, values, stored)
            maximising = side[seat] == 1
            frames[ply, F_SLOT], frames[ply, F_SEAT], frames[ply, F_COUNT], frames[ply, F_INDEX] = slot, seat, count, 0
            frames[ply, F_ALPHA], frames[ply, F_BETA] = alpha, beta
            frames[ply, F_ALPHA0], frames[ply, F_BETA0] = alpha, beta
            frames[ply, F_MAX] = 1 if maximising else 0
            frames[ply, F_BEST] = -INFINITY if maximising else INFINITY
            frames[ply, F_BEST_MOVE] = -1
        else:  # the child of the move at F_INDEX returned ``result``
            index = frames[ply, F_INDEX]
            c, seat = moves[ply, index], frames[ply, F_SEAT]
            hands[seat, c] = frames[ply, F_HELD]
            value = frames[ply, F_GAIN] + result
            alpha, beta, best = frames[ply, F_ALPHA], frames[ply, F_BETA], frames[ply, F_BEST]
            if frames[ply, F_MAX] == 1:
                if value > best:
                    best, frames[ply, F_BEST_MOVE] = value, c
                    alpha = max(alpha, best)
            elif value < best:
                best, frames[ply, F_BEST_MOVE] = value, c
                beta = min(beta, best)
            frames[ply, F_ALPHA], frames[ply, F_BETA], frames[ply, F_BEST] = alpha, beta, best
            frames[ply, F_INDEX] = index + 1 if alpha < beta else frames[ply, F_COUNT]
        index = frames[ply, F_INDEX]
        if index < frames[ply, F_COUNT]:  # play the next move and enter its child
            c, seat = moves[ply, index], frames[ply, F_SEAT]
            n, leader, left, flags = frames[ply, F_N], frames[ply, F_LEADER], frames[ply, F_LEFT], frames[ply, F_FLAGS]
            held = hands[seat, c]
            frames[ply, F_HELD] = held
            keys[ply + 1, 0] = keys[ply, 0] ^ zobrist[seat, c, held] ^ zobrist[seat, c, held - 1]
            hands[seat, c] = held - 1
            tricks[left, n] = c
            gain = 0
            if n + 1 < seats:
                frames[ply + 1, F_N], frames[ply + 1, F_LEADER] = n + 1, leader
                frames[ply + 1, F_LEFT], frames[ply + 1, F_FLAGS] = left, flags
            else:
                winner, gain, child_flags = _complete(tricks, leader, left, side, rules, values, flags)
                frames[ply + 1, F_N], frames[ply + 1, F_LEADER] = 0, winner
                frames[ply + 1, F_LEFT], frames[ply + 1, F_FLAGS] = left - 1, child_flags
            frames[ply, F_GAIN] = gain
            frames[ply + 1, F_ALPHA] = frames[ply, F_ALPHA] - gain
            frames[ply + 1, F_BETA] = frames[ply, F_BETA] - gain
            ply += 1
            entering = True
            continue
        best, slot = frames[ply, F_BEST], frames[ply, F_SLOT]
        if slot >= 0:  # store the result with what it bounds
            full = keys[ply, 1]
            if tt_key[slot] != full:
                tt_key[slot], tt_low[slot], tt_high[slot] = full, -INFINITY, INFINITY
            if best <= frames[ply, F_ALPHA0]:
                tt_high[slot] = min(tt_high[slot], best)
            elif best >= frames[ply, F_BETA0]:
                tt_low[slot] = max(tt_low[slot], best)
            else:
                tt_low[slot] = tt_high[slot] = best
            tt_move[slot] = frames[ply, F_BEST_MOVE]
        result = best
        if ply == 0:
            return result
        ply -= 1
        entering = False


@njit(cache=True)
def _buffers(left, seats):
    """The per-ply work arrays of one search from a position with ``left`` tricks to go."""
    depth = left * seats + 2
    moves = np.zeros((depth, NUM_TYPES), dtype=np.int64)
    scores = np.zeros((depth, NUM_TYPES), dtype=np.int64)
    groups = np.zeros((depth, NUM_TYPES), dtype=np.int64)
    frames = np.zeros((depth, FRAME_FIELDS), dtype=np.int64)
    keys = np.zeros((depth, 2), dtype=np.uint64)
    tricks = np.zeros((left + 1, 4), dtype=np.int64)
    return moves, scores, groups, frames, keys, tricks


@njit(cache=True)
def hand_key(hands, seats, zobrist):
    """The transposition key of the cards left in every hand."""
    key = np.uint64(0)
    for p in range(seats):
        for c in range(NUM_TYPES):
            key ^= zobrist[p, c, hands[p, c]]
    return key


@njit(cache=True)
def solve_values(hands, trick, n, leader, left, flags, rules, values, solver, out):
    """Exact value of every legal card of the seat to act, into ``out[c]``; returns the legal bits.

    Each representative card (see :func:`representatives`) is played and the rest searched with
    the full window, all sharing one table (``solver``: a :class:`Solver`); the cards of a group get
    its value. ``solver.nodes[0]`` counts the nodes visited. ``hands`` and ``trick`` are left as
    they were.
    """
    side, mode, equivalent, salt, zobrist, tt_key, tt_low, tt_high, tt_move, nodes = solver  # the fields, in order
    seats = rules[R_SEATS]
    moves, scores, groups, frames, keys, tricks = _buffers(left, seats)
    seat = (leader + n) % seats
    legal = legal_bits(held_bits(hands[seat]), trick, n, rules[R_TRUMP], rules[R_HEAD], rules[R_OVERTRUMP])
    root = np.zeros(NUM_TYPES, dtype=np.int64)
    chosen = representatives(legal, seat, hands, trick, n, seats, values, equivalent, root)
    key = hand_key(hands, seats, zobrist)
    for c in range(NUM_TYPES):
        if not chosen >> c & 1:
            continue
        tricks[left, :] = trick
        held = hands[seat, c]
        child_key = key ^ zobrist[seat, c, held] ^ zobrist[seat, c, held - 1]
        hands[seat, c] = held - 1
        tricks[left, n] = c
        if n + 1 < seats:
            value = _search(hands, tricks, n + 1, leader, left, flags, child_key, -INFINITY, INFINITY, side, rules,
                            values, mode, equivalent, salt, zobrist, tt_key, tt_low, tt_high, tt_move, moves,
                            scores, groups, frames, keys, nodes)  # fmt: skip
        else:
            winner, gain, child_flags = _complete(tricks, leader, left, side, rules, values, flags)
            value = gain + _search(hands, tricks, 0, winner, left - 1, child_flags, child_key, -INFINITY,
                                   INFINITY, side, rules, values, mode, equivalent, salt, zobrist, tt_key,
                                   tt_low, tt_high, tt_move, moves, scores, groups, frames, keys, nodes)  # fmt: skip
        hands[seat, c] = held
        out[c] = value
    for c in range(NUM_TYPES):
        if legal >> c & 1:
            out[c] = out[root[c]]
    return legal


@njit(cache=True)
def solve_node(hands, trick, n, leader, left, flags, rules, values, solver):
    """Exact value (future points of the maximising side, see the module docstring) of one position."""
    side, mode, equivalent, salt, zobrist, tt_key, tt_low, tt_high, tt_move, nodes = solver  # the fields, in order
    moves, scores, groups, frames, keys, tricks = _buffers(left, rules[R_SEATS])
    tricks[left, :] = trick
    key = hand_key(hands, rules[R_SEATS], zobrist)
    return _search(hands, tricks, n, leader, left, flags, key, -INFINITY, INFINITY, side, rules, values, mode,
                   equivalent, salt, zobrist, tt_key, tt_low, tt_high, tt_move, moves, scores, groups, frames, keys,
                   nodes)  # fmt: skip


@njit(cache=False)  # recursive: numba's cache does not reload recursive functions reliably (it crashes)
def minimax(hands, tricks, n, leader, left, flags, side, rules, values, mode):
    """Plain minimax value of a node, every legal card searched: the reference the tests hold the
    solver to (``tricks[left]`` holds the trick in progress)."""
    seats, trump = rules[R_SEATS], rules[R_TRUMP]
    if n == 0 and left == 0:
        return _sweep_adjustment(flags, mode)
    trick = tricks[left]
    seat = (leader + n) % seats
    legal = legal_bits(held_bits(hands[seat]), trick, n, trump, rules[R_HEAD], rules[R_OVERTRUMP])
    maximising = side[seat] == 1
    best = -INFINITY if maximising else INFINITY
    for c in range(NUM_TYPES):
        if not legal >> c & 1:
            continue
        hands[seat, c] -= 1
        trick[n] = c
        if n + 1 < seats:
            value = minimax(hands, tricks, n + 1, leader, left, flags, side, rules, values, mode)
        else:
            winner, gain, child_flags = _complete(tricks, leader, left, side, rules, values, flags)
            value = gain + minimax(hands, tricks, 0, winner, left - 1, child_flags, side, rules, values, mode)
        hands[seat, c] += 1
        best = max(best, value) if maximising else min(best, value)
    return best
