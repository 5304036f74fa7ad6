"""The compiled exact solver of trick play (game knowledge: it follows from the rules alone).

Values are the trick points the maximising side (``side[seat] == 1``) takes from the node to the
end of the hand. Under ``mode == 1`` (save meld by tricks) a side that takes no trick at all
changes the score beyond its points, so a sweep by the maximising side counts one point more and
a sweep against it one point less (``flags``: bit 0, the maximising side has a trick; bit 1, the
other side has one); hand scores are non-decreasing in that value, so its minimax is exact.

:func:`_search` is an explicit-stack alpha-beta (fail-soft) with a transposition table at trick
starts keyed on the cards left *relative to each other* (:func:`position_key`), moves ordered by
cheap rules (a lead first that cut off last time the same seat led with as many tricks left: a
killer move), equal cards merged, bounds at trick starts from the points still out and from the
quick tricks of the side on lead (:func:`quick_points`), the last trick played out in closed form
and a node budget.
:func:`solve_node` and :func:`solve_values` find exact values by null-window searches (MTD(f))
from the value of a play-out by the search's own move order (:func:`ordered_playout`).
The tests hold each piece to plain :func:`minimax`.

The helpers the search runs at every node are inlined (numba's ``inline="always"``): a compiled
call that passes arrays cost more than the work of most of them (10-30% of a node's time).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .tricks import (
    LAST_TRICK_BONUS,
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
#: A table entry's second word: its lower and upper bounds, each plus ``BOUND_OFFSET``, in bits 0-23
#: and 24-47, and its best move's code plus one in bits 48-55 (so one entry is one 16-byte row).
BOUND_OFFSET = 1 << 23
#: What :func:`_search` returns when the node budget ran out (its value means nothing).
STOPPED = -(1 << 30)
#: Fields of a search frame (one row of ``frames`` per ply).
(F_N, F_LEADER, F_LEFT, F_FLAGS, F_ALPHA, F_BETA, F_ALPHA0, F_BETA0, F_BEST, F_BEST_MOVE, F_SLOT, F_COUNT, F_INDEX,
 F_SEAT, F_HELD, F_GAIN, F_MAX) = range(17)  # fmt: skip
FRAME_FIELDS = 17
#: Budget fields (``Solver.budget``): nodes visited, the count at which a search stops.
B_NODES, B_LIMIT = range(2)
#: A node budget no search reaches.
UNLIMITED = 1 << 62
#: A seat's weight in a holdings code (base 3: a hand holds 0, 1 or 2 of a card type).
SEAT_WEIGHT = np.array([1, 3, 9, 27], dtype=np.int64)
#: Bits of one rank's holdings code (below 81) in a suit's ``holding`` (see :class:`Work`).
HOLDING_BITS = 7
#: log2 of the rows of a search's cache of suit keys (16 KB).
SUIT_KEY_BITS = 10
#: Hash keys of the table: per suit, rank among the ranks still out, holdings code (a base-3
#: count per seat), and card value; per leader; per sides-with-a-trick flags.
_KEYS = np.random.default_rng(20261203).integers(0, 2**63, size=4 * 6 * 81 + 4 * 6 * 16 + 16, dtype=np.int64)
HOLDING_KEYS = _KEYS[: 4 * 6 * 81].astype(np.uint64).reshape(4, 6, 81)
VALUE_KEYS = _KEYS[4 * 6 * 81 : 4 * 6 * 81 + 4 * 6 * 16].astype(np.uint64).reshape(4, 6, 16)
LEADER_KEYS = _KEYS[-16:-12].astype(np.uint64)
FLAG_KEYS = _KEYS[-12:-8].astype(np.uint64)
#: Salts of a hand set inside compiled code (:func:`solver_for_hand`): per trump, per seat on the side.
TRUMP_KEYS = _KEYS[-8:-4].astype(np.uint64)
SIDE_KEYS = _KEYS[-4:].astype(np.uint64)
#: Hash keys of a block (:func:`position_key`): per suit, order, and 16 x seat + number of cards (1-12).
BLOCK_KEYS = np.random.default_rng(20261205).integers(0, 2**63, size=(4, 6, 64), dtype=np.int64).astype(np.uint64)
#: Per holdings code, 16 x the one seat holding the card type + how many it holds (-1: several seats).
_DIGITS = [[code // 3**p % 3 for p in range(4)] for code in range(81)]
_ALONE = [16 * digits.index(max(digits)) + max(digits) if np.count_nonzero(digits) == 1 else -1 for digits in _DIGITS]
CODE_ALONE = np.array(_ALONE, dtype=np.int64)


def _searched_in_suit() -> np.ndarray:
    """``SEARCHED_IN_SUIT[equal << 12 | stops << 6 | legal]``: of one suit's ``legal`` cards (6 bits,
    lowest rank first), those :func:`representatives` searches, where ``stops`` marks the ranks
    another hand or the trick holds and the seat's own cards it may not play, and bit ``r - 1`` of
    ``equal`` says rank ``r`` has the points of rank ``r - 1``. A legal card is searched unless the
    card held below it nearest in rank is a legal card of the same points with no stop on either."""
    index = np.arange(1 << 17)
    legal, stops, equal = index & 63, index >> 6 & 63, index >> 12
    searched = np.zeros(index.size, dtype=np.int64)
    head = np.full(index.size, -1)  # the rank of the group the next legal card may join (-1: none)
    for rank in range(6):
        is_legal, is_stop = legal >> rank & 1, stops >> rank & 1
        same = np.ones(index.size, dtype=bool)  # ranks head + 1 .. rank all with head's points
        for between in range(1, rank + 1):
            same &= (head >= between) | (equal >> (between - 1) & 1 == 1)
        joins = (is_legal == 1) & (is_stop == 0) & (head >= 0) & same
        starts = (is_legal == 1) & ~joins
        searched |= np.where(starts, 1 << rank, 0)
        head = np.where(is_stop == 1, -1, np.where(starts, rank, head))
    return searched.astype(np.uint8)


SEARCHED_IN_SUIT = _searched_in_suit()

#: The lowest set bit of a card mask times this constant has the bit's index in its top 6 bits,
#: distinct for each of the 64 (a de Bruijn sequence); :data:`BIT_INDEX` reads it back.
DE_BRUIJN = 0x03F79D71B4CB0A89
BIT_INDEX = np.zeros(64, dtype=np.int64)
BIT_INDEX[[(DE_BRUIJN << bit) % 2**64 >> 58 for bit in range(64)]] = np.arange(64)


@njit(cache=True, inline="always")
def lowest_card(cards):
    """The lowest card type of a nonzero card mask."""
    return BIT_INDEX[((cards & -cards) * DE_BRUIJN) >> 58 & 63]


class Solver(NamedTuple):
    """What a search needs besides the position: the maximising ``side`` (1 per seat on it), the
    ``mode`` (1: tricks taken count beyond their points), whether equal cards are merged
    (``equivalent``), the table ``salt`` of the rule set and sides, the transposition ``table``
    (uint64, a power of two rows of two words: the key, then the bounds and best move packed as
    :data:`BOUND_OFFSET` says; one row is read at once, where four arrays cost four cache misses)
    and the ``budget`` (int64: nodes visited, node count at which a search stops and returns
    :data:`STOPPED`)."""

    side: np.ndarray
    mode: int
    equivalent: bool
    salt: np.uint64
    table: np.ndarray
    budget: np.ndarray


class Work(NamedTuple):
    """The work arrays of a search (:func:`work_arrays`): per ply, candidate ``moves`` and their
    ``scores``, the search ``frames`` and the table ``keys``; the ``tricks`` (row
    ``left``: the trick in progress at ``left`` tricks to go); per card type its holdings
    ``codes`` (the count in each seat's hand, base 3), per seat the card types it ``held`` (bits),
    and in ``points[0]`` the trick points of the cards still in hands, all kept as cards are
    played; ``killers[left, leader]``: the lead that last cut off there (-1: none yet); per suit its
    ``holding`` (the codes of its six ranks, lowest first, 7 bits each), kept as cards are played;
    ``suit_keys``: each suit's part of the table key by holding (rows of tag and part, a cache:
    a trick changes one to four suits, and the rest are found here), valid for the card values
    in ``key_values``."""

    moves: np.ndarray
    scores: np.ndarray
    frames: np.ndarray
    keys: np.ndarray
    tricks: np.ndarray
    codes: np.ndarray
    held: np.ndarray
    points: np.ndarray
    killers: np.ndarray
    holding: np.ndarray
    suit_keys: np.ndarray
    key_values: np.ndarray


@njit(cache=True)
def solver_for_hand(solver, side, trump):
    """``solver`` with the maximising ``side`` of a hand whose trump is ``trump``, the table salt
    changed with both (for a caller that sets them inside compiled code, where the Python side's
    salt of the rules and sides cannot follow)."""
    salt = solver.salt ^ TRUMP_KEYS[trump]
    for p in range(side.size):
        if side[p] == 1:
            salt ^= SIDE_KEYS[p]
    return Solver(side, solver.mode, solver.equivalent, salt, solver.table, solver.budget)


@njit(cache=True)
def work_arrays(left, seats):
    """The work arrays of searches from positions with up to ``left`` tricks to go."""
    depth = left * seats + 2
    return Work(
        np.zeros((depth, NUM_TYPES), dtype=np.int64),
        np.zeros((depth, NUM_TYPES), dtype=np.int64),
        np.zeros((depth, FRAME_FIELDS), dtype=np.int64),
        np.zeros(depth, dtype=np.uint64),
        np.zeros((left + 1, 4), dtype=np.int64),
        np.zeros(NUM_TYPES, dtype=np.int64),
        np.zeros(4, dtype=np.int64),
        np.zeros(1, dtype=np.int64),
        np.full((left + 1, 4), -1, dtype=np.int64),
        np.zeros(4, dtype=np.int64),
        np.zeros((1 << SUIT_KEY_BITS, 2), dtype=np.uint64),
        np.full(NUM_TYPES, -1, dtype=np.int64),
    )


@njit(cache=True, inline="always")
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
def points_in_hands(hands, seats, values):
    """The trick points of every card still in ``hands``."""
    total = 0
    for p in range(seats):
        for c in range(NUM_TYPES):
            total += hands[p, c] * values[c]
    return total


@njit(cache=True)
def holdings(hands, seats, values, work):
    """Fill ``work``'s ``codes``, ``held``, ``points`` and ``holding`` from ``hands`` (see
    :class:`Work`), and empty its cache of suit keys if they were for other card values."""
    codes, held = work.codes, work.held
    work.points[0] = points_in_hands(hands, seats, values)
    for p in range(seats):
        held[p] = held_bits(hands[p])
    for c in range(NUM_TYPES):
        code = 0
        for p in range(seats):
            code += hands[p, c] * SEAT_WEIGHT[p]
        codes[c] = code
    for suit in range(4):
        work.holding[suit] = 0
        for rank in range(6):
            work.holding[suit] |= codes[6 * suit + rank] << (HOLDING_BITS * rank)
    if not np.array_equal(work.key_values, values):
        work.key_values[:] = values
        work.suit_keys[:, 0] = 0


@njit(cache=True, inline="always")
def position_key(holding, suit_keys, leader, flags, values, salt):
    """The table key of a trick start: per suit, the ranks still held anywhere *in their order*
    (not which ranks they are), each with its holdings code and its trick points, then the leader
    and the sides-with-a-trick ``flags`` and ``salt``; ranks next to each other in that order that
    one seat holds alone (every copy still out) with the same points are one *block*, keyed by
    the seat and its number of cards.

    Two trick starts with the same key have the same future: the rules compare cards of a suit
    only by order (following, heading, over-trumping, the first of equal cards winning), and points
    go by card value, so renaming the ranks still out in order changes nothing. Positions that
    differ only in which lower cards are gone share an entry (partition search, as in bridge
    solvers' "relative ranks"). Inside a block the cards are interchangeable (no other hand holds
    a card between or equal to them, so each compares alike with every other card; the seat plays
    one card to a trick), so which of them the seat holds does not matter either: a seat left with
    a jack and a queen of a suit, or two queens, after different plays (first leads: 43% fewer
    nodes on the development positions).

    Each suit's part (:func:`suit_key`) is looked up in the cache ``suit_keys`` by the suit's
    ``holding`` (see :class:`Work`) and worked out only when missing there.
    """
    key = salt ^ LEADER_KEYS[leader] ^ FLAG_KEYS[flags]
    mask = suit_keys.shape[0] - 1
    for suit in range(4):
        cards = holding[suit]
        if not cards:
            continue
        tag = np.uint64(cards | suit << (6 * HOLDING_BITS) | 1 << (6 * HOLDING_BITS + 2))  # never 0
        slot = (tag * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - SUIT_KEY_BITS) & np.uint64(mask)
        if suit_keys[slot, 0] != tag:
            suit_keys[slot, 0], suit_keys[slot, 1] = tag, suit_key(suit, cards, values)
        key ^= suit_keys[slot, 1]
    return key


@njit(cache=True, inline="always")
def suit_key(suit, cards, values):
    """A suit's part of :func:`position_key` from its ``holding`` ``cards`` (see :class:`Work`)."""
    key = np.uint64(0)
    order, block, block_value = 0, -1, 0  # block: 16 x seat + cards, -1: none open
    for rank in range(6):
        c = 6 * suit + rank
        code = cards >> (HOLDING_BITS * rank) & ((1 << HOLDING_BITS) - 1)
        if not code:
            continue
        alone = CODE_ALONE[code]
        if alone >= 0 and block >= 0 and alone >> 4 == block >> 4 and values[c] == block_value:
            block += alone & 15  # the block goes on
            continue
        if block >= 0:  # the block before ends
            key ^= BLOCK_KEYS[suit, order, block] ^ VALUE_KEYS[suit, order, block_value]
            order += 1
        block, block_value = alone, values[c]
        if alone < 0:
            key ^= HOLDING_KEYS[suit, order, code] ^ VALUE_KEYS[suit, order, block_value]
            order += 1
    if block >= 0:
        key ^= BLOCK_KEYS[suit, order, block] ^ VALUE_KEYS[suit, order, block_value]
    return key


@njit(cache=True, inline="always")
def _relative(c, codes):
    """The order of card ``c`` among the ranks of its suit still held (the table's move code)."""
    order = 0
    for below in range(6 * SUIT[c], c):
        if codes[below]:
            order += 1
    return 8 * SUIT[c] + order


@njit(cache=True, inline="always")
def _absolute(code, codes):
    """The card a stored move code names among the cards held (-1: none)."""
    if code < 0:
        return -1
    suit, order = code // 8, code % 8
    for c in range(6 * suit, 6 * suit + 6):
        if codes[c]:
            if order == 0:
                return c
            order -= 1
    return -1


@njit(cache=True, inline="always")
def _lead_scores(moves, scores, count, values):
    """Scores of the leads in ``moves`` (higher: searched first): high cards first."""
    for i in range(count):
        c = moves[i]
        scores[i] = 100 * RANK[c] + values[c]


@njit(cache=True, inline="always")
def _follow_scores(moves, scores, count, seat, trick, n, leader, side, rules, values):
    """Scores of the cards in ``moves`` onto the first ``n`` cards of ``trick`` (higher: searched
    first): a card that takes the trick from the other side (cheapest first), a counter on a trick
    the own side holds, else the cheapest card."""
    trump, seats = rules[R_TRUMP], rules[R_SEATS]
    position = winning_position(trick, n, trump)
    winning, winner = trick[position], (leader + position) % seats
    for i in range(count):
        c = moves[i]
        if side[winner] == side[seat]:
            scores[i] = (2000 if not beats(c, winning, trump) else 1000) + values[c] * 10 - RANK[c]
        elif beats(c, winning, trump):
            scores[i] = 3000 - RANK[c] - (50 if SUIT[c] == trump else 0)
        else:
            scores[i] = 500 - values[c] * 10 - RANK[c]


@njit(cache=True, inline="always")
def _sort_moves(moves, scores, count, first, killer):
    """Sort the first ``count`` of ``moves`` by ``scores``, best first, ``first`` (the stored best
    move) before all, then ``killer``."""
    for i in range(count):
        if moves[i] == first:
            scores[i] = 1 << 20
        elif moves[i] == killer:
            scores[i] = 1 << 19
    for i in range(1, count):  # insertion sort, descending
        c, score = moves[i], scores[i]
        j = i - 1
        while j >= 0 and scores[j] < score:
            moves[j + 1], scores[j + 1] = moves[j], scores[j]
            j -= 1
        moves[j + 1], scores[j + 1] = c, score


@njit(cache=True, inline="always")
def representatives(legal, seat, held, trick, n, seats, values, equivalent, groups):
    """The legal cards worth searching (a bit mask), and in ``groups[c]`` the card whose value each
    legal card ``c`` shares (``held[p]``: the card types seat ``p`` holds, as bits; ``groups`` None:
    the mask alone, as the search needs it).

    With ``equivalent``, cards of one suit in the seat's hand with the same points, between which
    no other hand and the trick in progress hold a card of a rank in their span (bounds included),
    are interchangeable for the rest of the hand: the cards any other hand or the trick holds
    compare alike against each (the first of two identical cards wins, so another hand's copy of
    either bound breaks the span too), every head and over-trump rule asks the followers the same
    of each, and what stays in the hand is alike for the same reason. Only the lowest of such a
    group is searched (looked up per suit in :data:`SEARCHED_IN_SUIT`). Without ``equivalent``
    every legal card is its own group.
    """
    if not equivalent:
        if groups is not None:
            for c in range(NUM_TYPES):
                groups[c] = c
        return legal
    others = 0
    for p in range(seats):
        if p != seat:
            others |= held[p]
    for position in range(n):
        others |= 1 << trick[position]
    stops = others | (held[seat] & ~legal)
    equal = 0  # read from the first suit: card values go by rank (every counting's do)
    for rank in range(1, 6):
        if values[rank] == values[rank - 1]:
            equal |= 1 << (rank - 1)
    chosen = 0
    for suit in range(4):
        shift = 6 * suit
        suit_legal = legal >> shift & 63
        if suit_legal:
            chosen |= np.int64(SEARCHED_IN_SUIT[equal << 12 | (stops >> shift & 63) << 6 | suit_legal]) << shift
    if groups is not None:  # each legal card with the searched card nearest below it in its suit
        head = -1
        for c in range(NUM_TYPES):
            if RANK[c] == 0:
                head = -1
            if chosen >> c & 1:
                head = c
            if legal >> c & 1:
                groups[c] = head
    return chosen


@njit(cache=True, inline="always")
def _complete(tricks, leader, left, side, rules, values, flags):
    """The trick just filled: (winner, points for the maximising side, flags after it)."""
    seats = rules[R_SEATS]
    trick = tricks[left]
    winner = (leader + winning_position(trick, seats, rules[R_TRUMP])) % seats
    if side[winner] == 1:
        return winner, trick_value(trick, seats, values, left == 1), flags | 1
    return winner, 0, flags | 2


@njit(cache=True, inline="always")
def last_trick(hands, trick, n, leader, flags, side, rules, values, mode):
    """The value of the last trick from its first ``n`` cards: every seat still to play holds one
    card, so the play is forced (closed form, no search)."""
    seats, trump = rules[R_SEATS], rules[R_TRUMP]
    points = LAST_TRICK_BONUS
    winning, winner = -1, -1
    for position in range(seats):
        seat = (leader + position) % seats
        if position < n:
            c = trick[position]
        else:
            c = 0
            while not hands[seat, c]:
                c += 1
        points += values[c]
        if winning < 0 or beats(c, winning, trump):
            winning, winner = c, seat
    if side[winner] == 1:
        return points + _sweep_adjustment(flags | 1, mode)
    return _sweep_adjustment(flags | 2, mode)


@njit(cache=True, inline="always")
def _suit_points(hands, values, seat, suit, count, from_top):
    """The trick points of ``count`` of ``seat``'s cards of ``suit`` (all of them if it holds
    fewer), taken from the highest rank down (``from_top``) or from the lowest up."""
    points, taken = 0, 0
    for step in range(6):
        c = 6 * suit + (5 - step if from_top else step)
        copies = min(hands[seat, c], count - taken)
        points += copies * values[c]
        taken += copies
    return points


@njit(cache=True, inline="always")
def _cheapest_points(hands, values, seat, count):
    """The trick points of ``seat``'s ``count`` lowest-ranked cards (all of them if it holds fewer):
    its cheapest, since card values go by rank alone and never fall with it."""
    points, wanted = 0, count
    for rank in range(6):
        for suit in range(4):
            c = 6 * suit + rank
            copies = min(hands[seat, c], wanted)
            points += copies * values[c]
            wanted -= copies
    return points


@njit(cache=True, inline="always")
def quick_points(hands, codes, held, leader, seats, trump, values, left, skip):
    """(tricks, points) the side of ``leader`` takes for sure at a trick start by leading its top
    cards, suit by suit (quick tricks, as bridge solvers count them), the trump suit last, leaving
    out the suit ``skip`` (-1: none; ``codes``: the holdings codes of :class:`Work`).

    In a suit, the leader's cards from the top down while it holds every copy still out of each
    rank, and one more where it holds one of two copies (of equal cards the first played wins), are
    masters; in a plain suit, a follower holding trumps could trump in once it runs out of the
    suit, so those cashes count only up to the fewest cards of the suit such a follower holds
    (partner included: its trump would take the lead away). Followers holding trumps always
    follow suit while cashing, so their other suits stay as they are, and no trump is played
    before the trump suit's turn. Points: the leader's cards, the lowest-valued cards of the suit
    that each follower with trumps must play, and, for a follower without trumps, the lowest
    values in its hand for as many cards as tricks are cashed; the last trick's bonus when every
    trick left is cashed. (Under every counting a card is worth no less than those below it in
    its suit, so the lowest-valued cards are the lowest-ranked.)
    """
    trump_bits = SUIT_BITS[trump]
    weight = SEAT_WEIGHT[leader]
    tricks, points = 0, 0
    for step in range(4):
        suit = (trump + 1 + step) % 4  # the trump suit last
        if suit == skip:
            continue
        k = 0
        for c in range(6 * suit + 5, 6 * suit - 1, -1):
            if not codes[c]:
                continue
            mine = hands[leader, c]
            if codes[c] == mine * weight:
                k += mine
                continue
            if mine > 0:
                k += 1
            break
        if k == 0:
            continue
        if suit != trump:
            for p in range(seats):
                if p != leader and held[p] & trump_bits:
                    length = 0
                    for c in range(6 * suit, 6 * suit + 6):
                        length += hands[p, c]
                    k = min(k, length)
            if k == 0:
                continue
        points += _suit_points(hands, values, leader, suit, k, True)  # the leader's top k cards
        for p in range(seats):  # the followers with trumps: their k lowest of the suit
            if p != leader and held[p] & trump_bits:
                points += _suit_points(hands, values, p, suit, k, False)
        tricks += k
    if tricks == 0:
        return 0, 0
    for p in range(seats):  # the followers without trumps: their lowest values, a card per trick
        if p != leader and not held[p] & trump_bits:
            points += _cheapest_points(hands, values, p, tricks)
    if tricks == left:
        points += LAST_TRICK_BONUS
    return tricks, points


@njit(cache=True, inline="always")
def ordered_moves(rows, held, trick, node, rules, values, side, equivalent):
    """Fill ``rows``' moves with the cards worth searching of the seat to act at ``node`` (n, leader,
    the stored best move and the killer, -1 where none; the trick in progress is ``trick``, ``held``
    the card types per seat as bits), best first, and return how many there are (``rows``: one
    ply's moves and scores of :class:`Work`)."""
    moves, scores = rows
    n, leader, first, killer = node
    seats = rules[R_SEATS]
    seat = (leader + n) % seats
    legal = legal_bits(held[seat], trick, n, rules[R_TRUMP], rules[R_HEAD], rules[R_OVERTRUMP])
    chosen = representatives(legal, seat, held, trick, n, seats, values, equivalent, None)
    count = 0
    while chosen:
        moves[count] = lowest_card(chosen)
        count += 1
        chosen &= chosen - 1
    if count > 1:  # a forced move needs no order
        if n == 0:
            _lead_scores(moves, scores, count, values)
        else:
            _follow_scores(moves, scores, count, seat, trick, n, leader, side, rules, values)
        _sort_moves(moves, scores, count, first, killer)
    return count


@njit(cache=True)
def ordered_playout(hands, root, rules, values, solver, work):
    """The maximising side's future points from ``root`` (n, leader, left, flags; the trick in
    progress is ``work.tricks[left]``) when every seat plays the card the search would try first:
    the first guess of :func:`_exact` (on the development positions, 9 to 12 tricks left, 8 to 22
    points from the value on average, against 40 to 70 for half the points out). ``hands`` and
    ``work.tricks`` are left as they were."""
    n, leader, left, flags = root
    seats = rules[R_SEATS]
    hands = hands.copy()
    tricks = work.tricks.copy()
    holdings(hands, seats, values, work)
    total = 0
    rows = work.moves[0], work.scores[0]
    while left > 0:
        seat = (leader + n) % seats
        node = (n, leader, -1, -1)
        ordered_moves(rows, work.held, tricks[left], node, rules, values, solver.side, solver.equivalent)
        c = work.moves[0, 0]
        hands[seat, c] -= 1
        if not hands[seat, c]:
            work.held[seat] &= ~(1 << c)
        tricks[left, n] = c
        n += 1
        if n == seats:
            leader, gain, flags = _complete(tricks, leader, left, solver.side, rules, values, flags)
            total += gain
            n, left = 0, left - 1
    return total + _sweep_adjustment(flags, solver.mode)


@njit(cache=True)
def entry_points(hands, codes, held, leader, seats, trump, values, left):
    """(tricks, points) the side of ``leader`` takes for sure at a trick start of the partnership
    game by leading a low card to the partner's master and cashing the partner's quick tricks
    (:func:`quick_points`) from there, the best such suit; (0, 0) where none qualifies.

    The entry suit must be one in which the leader holds a card and the partner holds every copy
    still out of the top rank, and (a plain suit) each opponent holds a card of it or no trump: then
    neither opponent can beat or trump the partner's top card, which is always legal to follow
    with (it heads anything). Points of the entry trick: the leader's lowest card of the suit, the
    partner's top card, each opponent's lowest card of the suit, or its lowest-valued card where it
    has none. The partner's cashes leave the entry suit out and see the opponents' hands as they
    were: an opponent then has one card more than it holds, so its cheapest cards counted are no
    dearer than those it must really play.
    """
    if seats != 4:
        return 0, 0
    partner = (leader + 2) % 4
    best_tricks, best_points = 0, 0
    for suit in range(4):
        low, top = -1, -1
        for c in range(6 * suit, 6 * suit + 6):
            if low < 0 and hands[leader, c]:
                low = c
            if codes[c]:
                top = c
        if low < 0 or codes[top] != hands[partner, top] * SEAT_WEIGHT[partner]:
            continue
        points, blocked = values[low] + values[top], False
        for step in (1, 3):
            opponent = (leader + step) % 4
            if held[opponent] & SUIT_BITS[suit]:
                points += _suit_points(hands, values, opponent, suit, 1, False)
            elif suit != trump and held[opponent] & SUIT_BITS[trump]:
                blocked = True  # it could trump the partner's master
            else:
                points += _cheapest_points(hands, values, opponent, 1)
        if blocked:
            continue
        held_before = held[leader], held[partner]
        for seat, c in ((leader, low), (partner, top)):
            hands[seat, c] -= 1
            codes[c] -= SEAT_WEIGHT[seat]
            if not hands[seat, c]:
                held[seat] &= ~(1 << c)
        tricks, more = quick_points(hands, codes, held, partner, seats, trump, values, left - 1, suit)
        for seat, c in ((leader, low), (partner, top)):
            hands[seat, c] += 1
            codes[c] += SEAT_WEIGHT[seat]
        held[leader], held[partner] = held_before
        if points + more > best_points:
            best_tricks, best_points = 1 + tricks, points + more
    return best_tricks, best_points


@njit(cache=True, inline="always")
def _unpack(packed):
    """(lower bound, upper bound, move code) of a table entry's second word."""
    mask = np.uint64(0xFFFFFF)
    low = np.int64(packed & mask) - BOUND_OFFSET
    high = np.int64((packed >> np.uint64(24)) & mask) - BOUND_OFFSET
    return low, high, np.int64(packed >> np.uint64(48)) - 1


@njit(cache=True, inline="always")
def _pack(low, high, code):
    """A table entry's second word from its bounds and move code (-1: none)."""
    bounds = np.uint64(low + BOUND_OFFSET) | (np.uint64(high + BOUND_OFFSET) << np.uint64(24))
    return bounds | (np.uint64(code + 1) << np.uint64(48))


# ------------------------------------------------------------------------------------------------
# The search


@njit(cache=True, inline="always")
def _put_back(ply, hands, values, work):
    """Return the card played at ``ply`` of :func:`_search`'s frames to its seat's hand, and to the
    holdings, held cards and points kept in ``work``; the card."""
    seat, c = work.frames[ply, F_SEAT], work.moves[ply, work.frames[ply, F_INDEX]]
    hands[seat, c] = work.frames[ply, F_HELD]
    work.codes[c] += SEAT_WEIGHT[seat]
    work.holding[SUIT[c]] += SEAT_WEIGHT[seat] << (HOLDING_BITS * RANK[c])
    work.held[seat] |= 1 << c
    work.points[0] += values[c]
    return c


@njit(cache=True)
def _search(hands, root, alpha, beta, rules, values, solver, work):
    """Alpha-beta value of the node ``root`` (n, leader, left, flags; its trick in progress is
    ``work.tricks[left]``), fail-soft, without recursion; :data:`STOPPED` once the budget is spent.

    ``work.frames`` (one row per ply) holds what a recursive search keeps on the call stack
    (numba's cache cannot reload recursive functions reliably). The table is read and written at
    trick starts (:func:`position_key`).
    """
    side, mode, equivalent, salt, table, budget = solver  # the fields, in order
    moves, scores, frames, keys, tricks, codes, held, points, killers, holding, suit_keys, _ = (
        work  # the fields, in order
    )
    seats, trump = rules[R_SEATS], rules[R_TRUMP]
    mask = np.uint64(table.shape[0] - 1)
    holdings(hands, seats, values, work)
    sweep = 1 if mode == 1 else 0
    ply = 0
    frames[0, F_N], frames[0, F_LEADER], frames[0, F_LEFT], frames[0, F_FLAGS] = root
    frames[0, F_ALPHA], frames[0, F_BETA] = alpha, beta
    entering = True
    result = 0
    while True:
        if entering:
            budget[B_NODES] += 1
            if budget[B_NODES] > budget[B_LIMIT]:  # put back the cards on the stack, and stop
                for q in range(ply):
                    _put_back(q, hands, values, work)
                return STOPPED
            n, leader, left, flags = frames[ply, F_N], frames[ply, F_LEADER], frames[ply, F_LEFT], frames[ply, F_FLAGS]
            alpha, beta = frames[ply, F_ALPHA], frames[ply, F_BETA]
            done = False
            slot, stored = -1, -1
            if left == 0:
                result, done = _sweep_adjustment(flags, mode), True
            elif left == 1:
                result, done = last_trick(hands, tricks[1], n, leader, flags, side, rules, values, mode), True
            elif n == 0 and -sweep >= beta:  # the side takes at least nothing
                result, done = -sweep, True
            elif n == 0 and points[0] + LAST_TRICK_BONUS + sweep <= alpha:  # and at most everything left
                result, done = points[0] + LAST_TRICK_BONUS + sweep, True
            elif n == 0:
                full = position_key(holding, suit_keys, leader, flags if mode == 1 else 0, values, salt)
                keys[ply] = full
                slot = np.int64(full & mask)
                if table[slot, 0] == full:
                    low, high, code = _unpack(table[slot, 1])
                    stored = _absolute(code, codes)
                    if low >= beta or low == high:
                        result, done = low, True
                    elif high <= alpha:
                        result, done = high, True
                    else:
                        alpha, beta = max(alpha, low), min(beta, high)
                for bound in range(2 if seats == 4 else 1):  # quick tricks, then through the partner's entry
                    if done:
                        break
                    if bound == 0:
                        quick, sure = quick_points(hands, codes, held, leader, seats, trump, values, left, -1)
                    else:
                        quick, sure = entry_points(hands, codes, held, leader, seats, trump, values, left)
                    if quick and side[leader] == 1 and sure >= beta:  # the side takes at least its sure points
                        result, done = sure, True
                    elif quick and side[leader] != 1 and points[0] + LAST_TRICK_BONUS - sure <= alpha:
                        result, done = points[0] + LAST_TRICK_BONUS - sure, True
            if done:
                if ply == 0:
                    return result
                ply -= 1
                entering = False
                continue
            seat = (leader + n) % seats
            killer = killers[left, leader] if n == 0 else -1
            node = (n, leader, stored, killer)
            rows = moves[ply], scores[ply]
            count = ordered_moves(rows, held, tricks[left], node, rules, values, side, equivalent)
            maximising = side[seat] == 1
            frames[ply, F_SLOT], frames[ply, F_SEAT], frames[ply, F_COUNT], frames[ply, F_INDEX] = slot, seat, count, 0
            frames[ply, F_ALPHA], frames[ply, F_BETA] = alpha, beta
            frames[ply, F_ALPHA0], frames[ply, F_BETA0] = alpha, beta
            frames[ply, F_MAX] = 1 if maximising else 0
            frames[ply, F_BEST] = -INFINITY if maximising else INFINITY
            frames[ply, F_BEST_MOVE] = -1
        else:  # the child of the move at F_INDEX returned ``result``
            c = _put_back(ply, hands, values, work)
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
            if alpha < beta:
                frames[ply, F_INDEX] += 1
            else:
                frames[ply, F_INDEX] = frames[ply, F_COUNT]
                if frames[ply, F_N] == 0:
                    killers[frames[ply, F_LEFT], frames[ply, F_LEADER]] = c
        index = frames[ply, F_INDEX]
        if index < frames[ply, F_COUNT]:  # play the next move and enter its child
            c, seat = moves[ply, index], frames[ply, F_SEAT]
            n, leader, left, flags = frames[ply, F_N], frames[ply, F_LEADER], frames[ply, F_LEFT], frames[ply, F_FLAGS]
            frames[ply, F_HELD] = hands[seat, c]
            hands[seat, c] -= 1
            codes[c] -= SEAT_WEIGHT[seat]
            holding[SUIT[c]] -= SEAT_WEIGHT[seat] << (HOLDING_BITS * RANK[c])
            if not hands[seat, c]:
                held[seat] &= ~(1 << c)
            points[0] -= values[c]
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
            full = keys[ply]
            low, high = -INFINITY, INFINITY
            if table[slot, 0] == full:
                low, high, _ = _unpack(table[slot, 1])
            if best <= frames[ply, F_ALPHA0]:
                high = min(high, best)
            elif best >= frames[ply, F_BETA0]:
                low = max(low, best)
            else:
                low = high = best
            move = frames[ply, F_BEST_MOVE]
            table[slot, 0] = full
            table[slot, 1] = _pack(low, high, _relative(move, codes) if move >= 0 else -1)
        result = best
        if ply == 0:
            return result
        ply -= 1
        entering = False


@njit(cache=True)
def _exact(hands, root, guess, rules, values, solver, work):
    """The exact value of ``root`` by null-window searches converging on it from ``guess`` (MTD(f));
    :data:`STOPPED` once the budget is spent."""
    lower, upper = -INFINITY, INFINITY
    value = guess
    while lower < upper:
        beta = value + 1 if value == lower else value
        value = _search(hands, root, beta - 1, beta, rules, values, solver, work)
        if value == STOPPED:
            return STOPPED
        if value < beta:
            upper = value
        else:
            lower = value
    return value


@njit(cache=True)
def solve_values(hands, trick, root, rules, values, solver, work, out):
    """Exact value of every legal card of the seat to act at ``root`` (n, leader, left, flags, with
    the first ``n`` cards of ``trick`` in progress), into ``out[c]``; returns the legal bits, or -1
    when the budget ran out (``out`` then incomplete).

    Each representative card (see :func:`representatives`) is played and the rest solved by
    null-window searches from the last card's value (the first from :func:`ordered_playout`), all
    sharing one table; the cards of a group get its value. ``work`` (:func:`work_arrays`) holds at
    least ``left`` tricks. ``hands`` and ``trick`` are left as they were.
    """
    n, leader, left, flags = root
    seats = rules[R_SEATS]
    seat = (leader + n) % seats
    holdings(hands, seats, values, work)
    legal = legal_bits(work.held[seat], trick, n, rules[R_TRUMP], rules[R_HEAD], rules[R_OVERTRUMP])
    root_groups = np.zeros(NUM_TYPES, dtype=np.int64)
    chosen = representatives(legal, seat, work.held, trick, n, seats, values, solver.equivalent, root_groups)
    work.tricks[left, :] = trick
    guess = ordered_playout(hands, root, rules, values, solver, work)
    for c in range(NUM_TYPES):
        if not chosen >> c & 1:
            continue
        work.tricks[left, :] = trick
        hands[seat, c] -= 1
        work.tricks[left, n] = c
        if n + 1 < seats:
            value = _exact(hands, (n + 1, leader, left, flags), guess, rules, values, solver, work)
        else:
            winner, gain, child_flags = _complete(work.tricks, leader, left, solver.side, rules, values, flags)
            value = _exact(hands, (0, winner, left - 1, child_flags), guess - gain, rules, values, solver, work)
            value = STOPPED if value == STOPPED else gain + value
        hands[seat, c] += 1
        if value == STOPPED:
            return -1
        out[c] = guess = value
    for c in range(NUM_TYPES):
        if legal >> c & 1:
            out[c] = out[root_groups[c]]
    return legal


@njit(cache=True)
def solve_node(hands, trick, root, rules, values, solver, work):
    """Exact value (future points of the maximising side, see the module docstring) of the node
    ``root`` (n, leader, left, flags, with the first ``n`` cards of ``trick`` in progress), or
    :data:`STOPPED` when the budget ran out. ``hands`` are left as they were."""
    work.tricks[root[2], :] = trick
    return _exact(hands, root, ordered_playout(hands, root, rules, values, solver, work), rules, values, solver, work)


@njit(cache=False)  # recursive: numba's cache does not reload recursive functions reliably (it crashes)
def minimax(hands, tricks, root, side, rules, values, mode, alpha, beta, prune):
    """The reference the tests and the exactness sweeps hold the solver to: the value of the node
    ``root`` (n, leader, left, flags; ``tricks[left]`` holds the trick in progress) by plain minimax,
    every legal card searched, or with ``prune`` by plain fail-soft alpha-beta in the window
    (``alpha``, ``beta``): no table, no ordering, no merged cards, no bounds, no closed forms (exact
    inside the window, hence at the root from an infinite window, and far faster than minimax)."""
    n, leader, left, flags = root
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
            value = minimax(hands, tricks, (n + 1, leader, left, flags), side, rules, values, mode, alpha, beta, prune)
        else:
            winner, gain, child_flags = _complete(tricks, leader, left, side, rules, values, flags)
            child = (0, winner, left - 1, child_flags)
            value = gain + minimax(hands, tricks, child, side, rules, values, mode, alpha - gain, beta - gain, prune)
        hands[seat, c] += 1
        if maximising:
            best = max(best, value)
            alpha = max(alpha, best)
        else:
            best = min(best, value)
            beta = min(beta, best)
        if prune and alpha >= beta:
            break
    return best
