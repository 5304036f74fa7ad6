"""Compiled deal drawing: hidden cards dealt among holders so that the deal agrees with everything one
seat knows (its information set), and the passes it did not see (see :mod:`pinochle_env.kernel.sampling`).

Resampling a seat's information set follows from the rules alone (OpenSpiel offers it as a game's
``resample_from_infostate``), so it lives beside the games; weighting the deals by how a bot would
have played them is the search wing's (:mod:`agents.search.inference`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .tricks import NUM_TYPES, legal_bits, meld, next_random, random_below

DRAW_QUICK, DRAW_CAREFUL, DRAW_FALLBACK = range(3)
#: Tries per sample of each draw mode, as agents.search.original.sampling.DRAW_MODES has them.
DRAW_TRIES = np.array([12, 24, 24], dtype=np.int64)


class History(NamedTuple):
    """The tricks of a hand so far: ``cards[t]`` holds trick ``t``'s first ``sizes[t]`` cards, led by
    ``leaders[t]`` (the trick in progress last)."""

    cards: np.ndarray
    leaders: np.ndarray
    sizes: np.ndarray


class Holdings(NamedTuple):
    """Where the hidden cards may go: per holder (a seat, or a pile of a seat's such as the cutthroat
    declarer's buried cards: ``holder_seat``) the cards ``known`` to be there, how many more it
    ``need``s, the cards ``forbidden`` to it by the plays (and ``meld_forbidden`` by the meld shown
    too); the ``pool`` of hidden cards; and per seat its plays (``played_by``), the meld points and
    cards it showed (``target_points``, ``target_shown``), whether its meld is ``check``ed, the
    ``trump`` and the ``run_extras`` rule of meld."""

    known: np.ndarray
    need: np.ndarray
    forbidden: np.ndarray
    meld_forbidden: np.ndarray
    pool: np.ndarray
    holder_seat: np.ndarray
    played_by: np.ndarray
    target_points: np.ndarray
    target_shown: np.ndarray
    check: np.ndarray
    trump: int
    run_extras: int


# ------------------------------------------------------------------------------------------------
# What the plays and the meld shown rule out


@njit(cache=True)
def forbidden_by_plays(history, seats, observer, trump, head, overtrump, forbidden):
    """Into ``forbidden[p]``: the cards each play shows ``p`` did not hold when it played.

    A card ``c`` was legal for a hand ``H`` iff it is legal for ``{c, x}`` for every ``x`` in ``H``
    (legality only asks whether the hand holds the led suit, a card that heads, trump, a trump that
    over-trumps), so the forbidden cards are the ``x`` that would have made ``c`` illegal.
    ``history`` is a :class:`History`; the observer's own plays say nothing new to it.
    """
    cards, leaders, sizes = history  # the fields, in order
    for t in range(sizes.size):
        for position in range(1, sizes[t]):
            seat = (leaders[t] + position) % seats
            if seat == observer:
                continue
            c = cards[t, position]
            for x in range(NUM_TYPES):
                held = (1 << c) | (1 << x)
                if not legal_bits(held, cards[t], position, trump, head, overtrump) >> c & 1:
                    forbidden[seat] |= 1 << x


@njit(cache=True)
def meld_breakers(surely, seat_of, pool_bits, target_points, check, trump, run_extras, out):
    """Into ``out[h]``: the pool cards that would give holder ``h``'s seat more meld than it showed,
    added to what it surely held at meld (``surely[seat]``); meld only grows with more cards."""
    shown = np.zeros(NUM_TYPES, dtype=np.int64)
    counts = np.zeros(NUM_TYPES, dtype=np.int64)
    for h in range(seat_of.size):
        seat = seat_of[h]
        if seat < 0 or not check[seat]:
            continue
        for c in range(NUM_TYPES):
            if pool_bits >> c & 1:
                counts[:] = surely[seat]
                counts[c] += 1
                if meld(counts, trump, run_extras, shown) > target_points[seat]:
                    out[h] |= 1 << c


# ------------------------------------------------------------------------------------------------
# Drawing


@njit(cache=True)
def _meld_time(hands, holder_seat, seat, played_by, counts):
    """Into ``counts``: the cards ``seat`` held at meld, from its holders in ``hands`` and its plays."""
    for c in range(NUM_TYPES):
        counts[c] = played_by[seat, c]
    for h in range(hands.shape[0]):
        if holder_seat[h] == seat:
            for c in range(NUM_TYPES):
                counts[c] += hands[h, c]


@njit(cache=True)
def _draw_once(holdings, forbidden, mode, state, hands):
    """One random deal of the pool among the holders into ``hands``; whether it meets the constraints
    (``holdings``: a :class:`Holdings`; ``forbidden``: its ``forbidden`` or ``meld_forbidden``).

    Cards are dealt most constrained first (fewest holders that may take them, ties in random
    order), each to a holder that may take it with probability proportional to the cards it still
    lacks. ``mode``: quick (reject a deal whose meld differs from the meld shown), careful (also
    skip holders whose seat the card would give more meld than it showed), fallback (no meld check).
    """
    known, need, _, _, pool, holder_seat, played_by, target_points, target_shown, check, trump, run_extras = holdings
    holders = known.shape[0]
    left = need.copy()
    hands[:, :] = known
    order = pool.copy()
    for i in range(order.size - 1, 0, -1):
        j = random_below(state, i + 1)
        order[i], order[j] = order[j], order[i]
    choices = np.zeros(order.size, dtype=np.int64)
    for i in range(order.size):
        for h in range(holders):
            if left[h] > 0 and not forbidden[h] >> order[i] & 1:
                choices[i] += 1
    ranked = order[np.argsort(choices, kind="mergesort")]
    counts = np.zeros(NUM_TYPES, dtype=np.int64)
    shown = np.zeros(NUM_TYPES, dtype=np.int64)
    weights = np.zeros(holders, dtype=np.int64)
    for c in ranked:
        total = 0
        for h in range(holders):
            weights[h] = 0
            if left[h] > 0 and not forbidden[h] >> c & 1:
                seat = holder_seat[h]
                if mode == DRAW_CAREFUL and seat >= 0 and check[seat]:
                    _meld_time(hands, holder_seat, seat, played_by, counts)
                    counts[c] += 1
                    if meld(counts, trump, run_extras, shown) > target_points[seat]:
                        continue
                weights[h] = left[h]
                total += left[h]
        if total == 0:
            return False
        pick = next_random(state) * total
        chosen = -1
        for h in range(holders):
            if weights[h] > 0:
                chosen = h
                pick -= weights[h]
                if pick < 0:
                    break
        hands[chosen, c] += 1
        left[chosen] -= 1
    if mode == DRAW_FALLBACK:
        return True
    for seat in range(check.size):
        if check[seat]:
            _meld_time(hands, holder_seat, seat, played_by, counts)
            if meld(counts, trump, run_extras, shown) != target_points[seat]:
                return False
            for c in range(NUM_TYPES):
                if shown[c] != target_shown[seat, c]:
                    return False
    return True


@njit(cache=True)
def draw_deals(holdings, seed, out, modes):
    """Fill ``out`` (count, holders, 24) with random deals meeting the constraints of ``holdings`` (a
    :class:`Holdings`); returns how many.

    Per deal the modes are tried in turn (quick, careful, fallback; ``DRAW_TRIES`` each), quick no
    more once it has failed for this call; ``modes[i]`` says which mode drew deal ``i``. Drawing
    stops early only when no mode finds a deal (the play constraints leave none).
    """
    state = np.zeros(1, dtype=np.uint64)
    state[0] = seed
    quick_failed = False
    for i in range(out.shape[0]):
        found = False
        for mode in range(3):
            if mode == DRAW_QUICK and quick_failed:
                continue
            barred = holdings.forbidden if mode == DRAW_FALLBACK else holdings.meld_forbidden
            for _ in range(DRAW_TRIES[mode]):
                if _draw_once(holdings, barred, mode, state, out[i]):
                    found = True
                    break
            if found:
                modes[i] = mode
                break
            if mode == DRAW_QUICK:
                quick_failed = True
        if not found:
            return i
    return out.shape[0]


# ------------------------------------------------------------------------------------------------
# The passes a seat did not see


@njit(cache=True)
def _pick_cards(counts, how_many, state, out):
    """Into ``out`` (zeroed first): ``how_many`` cards drawn at random, without replacement, from
    the multiset ``counts`` (which is left as it was)."""
    out[:] = 0
    total = 0
    for c in range(NUM_TYPES):
        total += counts[c]
    for _ in range(min(how_many, total)):
        k = random_below(state, total)
        for c in range(NUM_TYPES):
            k -= counts[c] - out[c]
            if k < 0:
                out[c] += 1
                break
        total -= 1


@njit(cache=True)
def guess_gifts(hands, played_by, declarer, pass_count, sequential, seed, out):
    """Into ``out[d]``: the pass knowledge of deal ``d`` (hands now) when the passes are unseen (a
    defender's view): random cards of the declarer's and its partner's hands at meld as the passes,
    as :func:`pinochle_env.games.partnership.search.pass_gifts` turns passes into knowledge."""
    state = np.zeros(1, dtype=np.uint64)
    state[0] = seed
    partner = (declarer + 2) % 4
    at_meld = np.zeros(NUM_TYPES, dtype=np.int64)
    to_declarer = np.zeros(NUM_TYPES, dtype=np.int64)
    back = np.zeros(NUM_TYPES, dtype=np.int64)
    for d in range(hands.shape[0]):
        for c in range(NUM_TYPES):
            at_meld[c] = hands[d, declarer, c] + played_by[declarer, c]
        _pick_cards(at_meld, pass_count, state, to_declarer)
        for c in range(NUM_TYPES):
            at_meld[c] = hands[d, partner, c] + played_by[partner, c]
        _pick_cards(at_meld, pass_count, state, back)
        out[d, :, :] = 0
        for c in range(NUM_TYPES):
            out[d, declarer, c] = back[c]
            out[d, partner, c] = max(0, to_declarer[c] - back[c]) if sequential else to_declarer[c]
