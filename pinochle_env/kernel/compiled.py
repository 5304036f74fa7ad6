"""The compiled search kernel: trick play, meld, play-outs, an exact solver and deal drawing in numba.

Everything jitted lives in this one module on purpose: numba's on-disk cache (``cache=True``)
keys a function on its own source file only, so a jitted caller in another file would keep a
stale copy of a callee changed here. Nothing here is public API; :mod:`pinochle_env.kernel`
wraps it (and says what each entry point means). :mod:`pinochle_env.rules` stays the reference:
``tests/test_kernel.py`` checks legality, winners, points and meld against it on random
positions, the heuristic play-out policy against :class:`agents.heuristic.HeuristicAgent`, and
the solver against plain minimax.

The compact state of trick play (every array indexed by seat, ``S`` seats):

- ``hands``: int8 (S, 24) card counts; ``trick``: int64 (4,) the cards of the trick in progress,
  ``n`` of them, led by ``leader``; ``left``: tricks still to finish (the one in progress
  included); ``pts``, ``tks``: int64 (S,) trick points and tricks taken so far.
- ``rules``: int64 (RULES_SIZE,) the switches as integers (see the ``R_`` indices), and
  ``values``: int64 (24,) the trick points of each card type under the counting switch.

The heuristic play-out policy needs what each seat knows besides its own hand, all public but
its pass knowledge: ``played_by`` (S, 24), ``void`` (S,) suits each seat showed it lacks,
``shown`` (S, 24) the meld cards each seat showed, ``gift`` (S, 24) the cards each seat knows its
partner received from it (or kept from its pass), and the declarer.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# ------------------------------------------------------------------------------------------------
# Tables (module constants: numba freezes them into the compiled code)

NUM_TYPES = 24
SUIT = np.array([c // 6 for c in range(NUM_TYPES)], dtype=np.int64)
RANK = np.array([c % 6 for c in range(NUM_TYPES)], dtype=np.int64)
SUIT_BITS = np.array([0b111111 << (6 * s) for s in range(4)], dtype=np.int64)
#: Cards of the same suit ranked above each card.
ABOVE = np.array([sum(1 << (6 * (c // 6) + r) for r in range(c % 6 + 1, 6)) for c in range(NUM_TYPES)], dtype=np.int64)
NINE, JACK, QUEEN, KING, TEN, ACE = range(6)

#: Indices of the integer rule vector.
R_SEATS, R_TRUMP, R_HEAD, R_OVERTRUMP, R_DECLARER, R_SEQUENTIAL, R_SIMPLE_LAST, R_HAND_SIZE = range(8)
RULES_SIZE = 8
#: head_rule values, in the order of :data:`pinochle_env.switches.CHOICES`.
HEAD_WINNER, HEAD_HIGHEST_LED, HEAD_LED_CARD, HEAD_TRUMP_LEAD_ONLY, HEAD_NONE = range(5)
#: run_extras values, in the same order.
RUN_CONSUME, RUN_REUSE, RUN_ROYAL_IN_RUN = range(3)
#: Play-out policies.
POLICY_RANDOM, POLICY_HEURISTIC, POLICY_SIMPLE = range(3)
LAST_TRICK_BONUS = 10
#: The partnership heuristic's constants (agents/heuristic/partnership.py).
AVERAGE_CARD_POINTS = 250 / 48
RUFF_RISK = 0.4
#: Meld points of arounds per rank (single, double), ``AROUND_POINTS`` of rules.py.
AROUND_RANKS = np.array([ACE, KING, QUEEN, JACK], dtype=np.int64)
AROUND_SINGLE = np.array([100, 80, 60, 40], dtype=np.int64)
AROUND_DOUBLE = np.array([1000, 800, 600, 400], dtype=np.int64)
QUEEN_SPADES, JACK_DIAMONDS = 0 * 6 + QUEEN, 2 * 6 + JACK
#: Work space of the heuristic play-out policy (known cards per seat, unknown cards, free and pool counts).
SCRATCH_SIZE = 5 * NUM_TYPES + 8
#: Solver values are far inside this bound.
INFINITY = 1 << 20


# ------------------------------------------------------------------------------------------------
# Random numbers: splitmix64, so that every stream is explicit and reproducible


@njit(cache=True)
def next_random(state):
    """Advance ``state`` (uint64 array of one) and return a uniform float in [0, 1)."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def random_below(state, n):
    """A uniform integer in [0, n)."""
    k = int(next_random(state) * n)
    return k if k < n else n - 1


# ------------------------------------------------------------------------------------------------
# Trick rules (the reference: pinochle_env.rules)


@njit(cache=True)
def held_bits(hand):
    """Bit mask of the card types a count vector holds."""
    bits = 0
    for c in range(NUM_TYPES):
        if hand[c] > 0:
            bits |= 1 << c
    return bits


@njit(cache=True)
def beats(challenger, winner, trump):
    """Whether ``challenger``, played after ``winner``, takes the trick from it."""
    if SUIT[challenger] == SUIT[winner]:
        return RANK[challenger] > RANK[winner]
    return SUIT[challenger] == trump


@njit(cache=True)
def winning_position(trick, n, trump):
    """Position of the card winning the first ``n`` cards of ``trick`` (of equal cards the first)."""
    best = 0
    for position in range(1, n):
        if beats(trick[position], trick[best], trump):
            best = position
    return best


@njit(cache=True)
def legal_bits(held, trick, n, trump, head, overtrump):
    """Bit mask of the card types a hand holding ``held`` may play to the first ``n`` cards of ``trick``."""
    if n == 0:
        return held
    winning = trick[winning_position(trick, n, trump)]
    led = SUIT[trick[0]]
    following = held & SUIT_BITS[led]
    if following:
        target = -1
        if head == HEAD_WINNER or (head == HEAD_TRUMP_LEAD_ONLY and led == trump):
            if SUIT[winning] == led:
                target = winning
        elif head == HEAD_LED_CARD:
            target = trick[0]
        elif head == HEAD_HIGHEST_LED:
            for position in range(n):
                c = trick[position]
                if SUIT[c] == led and (target < 0 or RANK[c] > RANK[target]):
                    target = c
        if target < 0:
            return following
        heading = following & ABOVE[target]
        return heading if heading else following
    trumps = held & SUIT_BITS[trump]
    if trumps:
        if overtrump and SUIT[winning] == trump:
            over = trumps & ABOVE[winning]
            return over if over else trumps
        return trumps
    return held


@njit(cache=True)
def trick_value(trick, n, values, last):
    """Trick points of the first ``n`` cards of ``trick``, with the last-trick bonus when ``last``."""
    total = LAST_TRICK_BONUS if last else 0
    for position in range(n):
        total += values[trick[position]]
    return total


# ------------------------------------------------------------------------------------------------
# Meld (the reference: pinochle_env.rules.meld)


@njit(cache=True)
def meld(counts, trump, run_extras, shown):
    """Meld points of a count vector with ``trump``; ``shown`` receives the cards shown per type."""
    for c in range(NUM_TYPES):
        shown[c] = 0
    base = 6 * trump
    ace, ten, king, queen, jack = base + ACE, base + TEN, base + KING, base + QUEEN, base + JACK
    kings, queens = counts[king], counts[queen]
    points = 0
    run = min(counts[ace], counts[ten], kings, queens, counts[jack])
    if run > 0:
        points += 1500 if run == 2 else 150
        shown[ace] = shown[ten] = shown[king] = shown[queen] = shown[jack] = run
    reused = run_extras == RUN_REUSE and run == 1
    if run_extras == RUN_ROYAL_IN_RUN:
        royals = min(kings, queens)
    elif reused:
        royals = (kings - 1) + (queens - 1)
    else:
        royals = min(kings, queens) - run
    if royals > 0:
        points += 40 * royals
        shown[king] = kings if reused else min(kings, queens)
        shown[queen] = queens if reused else min(kings, queens)
    for suit in range(4):
        if suit != trump:
            pairs = min(counts[6 * suit + KING], counts[6 * suit + QUEEN])
            if pairs > 0:
                points += 20 * pairs
                shown[6 * suit + KING] = shown[6 * suit + QUEEN] = pairs
    dix = counts[base + NINE]
    if dix > 0:
        points += 10 * dix
        shown[base + NINE] = dix
    for index in range(4):
        rank = AROUND_RANKS[index]
        around = min(counts[rank], counts[6 + rank], counts[12 + rank], counts[18 + rank])
        if around > 0:
            points += AROUND_SINGLE[index] if around == 1 else AROUND_DOUBLE[index]
            for suit in range(4):
                shown[6 * suit + rank] = max(shown[6 * suit + rank], around)
    pinochles = min(counts[QUEEN_SPADES], counts[JACK_DIAMONDS])
    if pinochles > 0:
        points += 300 if pinochles == 2 else 40
        shown[QUEEN_SPADES] = max(shown[QUEEN_SPADES], pinochles)
        shown[JACK_DIAMONDS] = max(shown[JACK_DIAMONDS], pinochles)
    return points


# ------------------------------------------------------------------------------------------------
# The partnership heuristic's card play (agents/heuristic/partnership.py), seat by seat


@njit(cache=True)
def _suit_of_bits(bits):
    """The suit of a non-empty bit mask of cards of one suit."""
    for suit in range(4):
        if bits & SUIT_BITS[suit]:
            return suit
    return -1


@njit(cache=True)
def _holds_any(o, seat, bits, hand, known, unknown, free, pool, void):
    """``CardCount.holds_any``: probability that ``seat`` holds one of ``bits`` (one suit)."""
    if bits == 0:
        return 0.0
    suit = _suit_of_bits(bits)
    base = 6 * suit
    if seat == o:
        for c in range(base, base + 6):
            if bits >> c & 1 and hand[c] > 0:
                return 1.0
        return 0.0
    unseen = 0
    for c in range(base, base + 6):
        if bits >> c & 1:
            if known[seat, c] > 0:
                return 1.0
            unseen += unknown[c]
    if void[seat] >> suit & 1 or free[seat] == 0:
        return 0.0
    return 1.0 - (1.0 - free[seat] / pool[suit]) ** float(unseen)


@njit(cache=True)
def _is_master(c, hand, played):
    """Whether no other hand can hold a card of ``c``'s suit that beats it."""
    for x in range(c + 1, 6 * (c // 6) + 6):  # noqa: SIM110 (a plain loop, as numba compiles it best)
        if 2 - hand[x] - played[x] > 0:
            return False
    return True


@njit(cache=True)
def _ruff_risk(o, suit, trump, hand, known, unknown, free, pool, void):
    """Probability that an opponent of ``o`` trumps a lead of ``suit``."""
    safe = 1.0
    for step in (1, 3):
        p = (o + step) % 4
        lacks = 1.0 - _holds_any(o, p, SUIT_BITS[suit], hand, known, unknown, free, pool, void)
        safe *= 1.0 - lacks * _holds_any(o, p, SUIT_BITS[trump], hand, known, unknown, free, pool, void)
    return 1.0 - safe


@njit(cache=True)
def _keep_value(o, c, trump, values, hand, played, known, unknown, free, pool, void):
    """What holding ``c`` for later is worth to ``o``'s team, in trick points."""
    suit, points = SUIT[c], values[c]
    if _is_master(c, hand, played):
        wins = 1.0 if suit == trump else 1.0 - _ruff_risk(o, suit, trump, hand, known, unknown, free, pool, void)
        return wins * (points + 3 * AVERAGE_CARD_POINTS) - (1.0 - wins) * points
    if suit == trump:
        return 6.0 + RANK[c]
    return 0.5 * RANK[c] - 0.3 * points


@njit(cache=True)
def _beat_chance(o, seat, winning, led, trump, hand, known, unknown, free, pool, void):
    """Probability that ``seat``, playing later in a trick led in ``led``, beats ``winning``."""
    above = ABOVE[winning]
    if SUIT[winning] == trump:
        chance = _holds_any(o, seat, above, hand, known, unknown, free, pool, void)
        if led == trump:
            return chance
        return (1.0 - _holds_any(o, seat, SUIT_BITS[led], hand, known, unknown, free, pool, void)) * chance
    lacks = 1.0 - _holds_any(o, seat, SUIT_BITS[led], hand, known, unknown, free, pool, void)
    ruff = lacks * _holds_any(o, seat, SUIT_BITS[trump], hand, known, unknown, free, pool, void)
    return min(1.0, _holds_any(o, seat, above, hand, known, unknown, free, pool, void) + ruff)


@njit(cache=True)
def heuristic_card(o, legal, trick, n, leader, left, hands, played, played_by, void, shown, gift, rules, values, order,
                   scratch):  # fmt: skip
    """The card the partnership heuristic plays for seat ``o`` among the ``legal`` bits.

    A port of ``HeuristicAgent.choose_play``: the card counting of ``CardCount`` from the public
    arrays and ``o``'s own hand and pass knowledge, then the same lead rules and follow values,
    ties settled by ``order`` as the agent's tie-break order settles them. ``scratch`` (int64,
    ``SCRATCH_SIZE``) is work space, so that a play-out allocates nothing per card.
    """
    trump, declarer = rules[R_TRUMP], rules[R_DECLARER]
    hand = hands[o]
    partner = (o + 2) % 4
    scratch[:] = 0
    known = scratch[: 4 * NUM_TYPES].reshape((4, NUM_TYPES))
    unknown = scratch[4 * NUM_TYPES : 5 * NUM_TYPES]
    free = scratch[5 * NUM_TYPES : 5 * NUM_TYPES + 4]
    pool = scratch[5 * NUM_TYPES + 4 : 5 * NUM_TYPES + 8]
    for p in range(4):
        if p == o:
            continue
        for c in range(NUM_TYPES):
            k = shown[p, c] - played_by[p, c]
            known[p, c] = k if k > 0 else 0
    if o == declarer or partner == declarer:
        for c in range(NUM_TYPES):
            k = gift[o, c] - played_by[partner, c]
            if k > known[partner, c]:
                known[partner, c] = k
    for c in range(NUM_TYPES):
        unknown[c] = 2 - hand[c] - played[c]
        for p in range(4):
            if p != o:
                unknown[c] -= known[p, c]
    for p in range(4):
        if p != o:
            free[p] = rules[R_HAND_SIZE]
            for c in range(NUM_TYPES):
                free[p] -= played_by[p, c] + known[p, c]
    for s in range(4):
        for p in range(4):
            if p != o and not void[p] >> s & 1:
                pool[s] += free[p]

    if n == 0:
        return _heuristic_lead(o, legal, hand, played, declarer, trump, values, order, known, unknown, free, pool, void)
    led = SUIT[trick[0]]
    best_position = winning_position(trick, n, trump)
    in_trick = 0
    for position in range(n):
        in_trick += values[trick[position]]
    best, best_value, best_order = -1, 0.0, -1
    for c in range(NUM_TYPES):
        if not legal >> c & 1:
            continue
        winning, winner = trick[best_position], (leader + best_position) % 4
        if beats(c, winning, trump):
            winning, winner = c, o
        later_count = 3 - n
        ours = 0.0
        if winner % 2 == o % 2:
            ours = 1.0
            for i in range(n + 1, 4):
                p = (leader + i) % 4
                if p != partner:
                    ours *= 1.0 - _beat_chance(o, p, winning, led, trump, hand, known, unknown, free, pool, void)
        else:
            partner_later = False
            for i in range(n + 1, 4):
                p = (leader + i) % 4
                if p == partner:
                    partner_later = True
                    ours = _beat_chance(o, p, winning, led, trump, hand, known, unknown, free, pool, void)
                elif partner_later:
                    ours *= 1.0 - _beat_chance(o, p, winning, led, trump, hand, known, unknown, free, pool, void) / 2
        at_stake = in_trick + values[c] + AVERAGE_CARD_POINTS * later_count
        if left == 1:
            at_stake += 10
        keep = _keep_value(o, c, trump, values, hand, played, known, unknown, free, pool, void)
        value = (2 * ours - 1) * at_stake - keep
        if best < 0 or value > best_value or (value == best_value and order[c] > best_order):
            best, best_value, best_order = c, value, order[c]
    return best


@njit(cache=True)
def _heuristic_lead(o, legal, hand, played, declarer, trump, values, order, known, unknown, free, pool, void):
    """``HeuristicAgent._lead``: draw trump, cash a safe master, lead to the partner's ruff, else low."""
    partner = (o + 2) % 4
    trumps = legal & SUIT_BITS[trump]
    # Draw trump: the declarer with 3+ trumps leads its top one while it is a master and out.
    if o == declarer and _popcount(trumps) >= 3:
        top = 63 - _leading_zeros(trumps)
        out = 0.0
        for step in (1, 3):
            out = max(out, _holds_any(o, (o + step) % 4, SUIT_BITS[trump], hand, known, unknown, free, pool, void))
        if _is_master(top, hand, played) and out > 0.1:
            return top
    # Cash a side-suit master unlikely to be trumped: most points, then safest, then order.
    best, best_points, best_risk, best_order = -1, 0, 0.0, -1
    for c in range(NUM_TYPES):
        if legal >> c & 1 and SUIT[c] != trump and _is_master(c, hand, played):
            risk = _ruff_risk(o, SUIT[c], trump, hand, known, unknown, free, pool, void)
            if risk < RUFF_RISK:
                points = values[c]
                better = best < 0 or points > best_points
                if not better and points == best_points:
                    better = -risk > -best_risk or (-risk == -best_risk and order[c] > best_order)
                if better:
                    best, best_points, best_risk, best_order = c, points, risk, order[c]
    if best >= 0:
        return best
    # Lead to the partner's ruff: the cheapest card of a suit it is out of while it holds trump.
    chosen, chosen_key = -1, (0, 0, 0)
    for c in range(NUM_TYPES):
        if not legal >> c & 1:
            continue
        suit = SUIT[c]
        if suit == trump or not void[partner] >> suit & 1:
            continue
        if _holds_any(o, partner, SUIT_BITS[trump], hand, known, unknown, free, pool, void) == 0.0:
            continue
        if _ruff_risk(o, suit, trump, hand, known, unknown, free, pool, void) >= RUFF_RISK:
            continue
        key = (values[c], RANK[c], order[c])
        if chosen < 0 or key < chosen_key:
            chosen, chosen_key = c, key
    if chosen >= 0:
        return chosen
    # Otherwise the card that costs least to lead.
    declaring = declarer % 2 == o % 2
    best, best_cost, best_order = -1, 0.0, 0
    for c in range(NUM_TYPES):
        if not legal >> c & 1:
            continue
        cost = values[c] + max(0.0, _keep_value(o, c, trump, values, hand, played, known, unknown, free, pool, void))
        if SUIT[c] == trump and not declaring:
            cost += 5.0
        if best < 0 or cost < best_cost or (cost == best_cost and order[c] < best_order):
            best, best_cost, best_order = c, cost, order[c]
    return best


@njit(cache=True)
def _popcount(bits):
    count = 0
    while bits:
        bits &= bits - 1
        count += 1
    return count


@njit(cache=True)
def _leading_zeros(bits):
    """Leading zero bits of a positive 64-bit integer (so ``63 - result`` is its highest set bit)."""
    zeros = 0
    probe = 1 << 62
    while probe and not bits & probe:
        probe >>= 1
        zeros += 1
    return zeros + 1


@njit(cache=True)
def simple_card(legal, trick, n, trump, values, last, order):
    """``agents.heuristic.simple_play.play_card``: the three- and two-handed heuristic's card play."""
    if n == 0:
        best, best_order = -1, 0
        for c in range(NUM_TYPES):
            if legal >> c & 1 and RANK[c] == ACE and SUIT[c] != trump and (best < 0 or order[c] < best_order):
                best, best_order = c, order[c]
        if best >= 0:
            return best
        return _cheapest(legal, trump, values, order)
    winning = trick[winning_position(trick, n, trump)]
    winners = 0
    for c in range(NUM_TYPES):
        if legal >> c & 1 and beats(c, winning, trump):
            winners |= 1 << c
    at_stake = 0
    for position in range(n):
        at_stake += values[trick[position]]
    if winners and (at_stake > 0 or last):
        return _cheapest(winners, trump, values, order)
    return _cheapest(legal, trump, values, order)


@njit(cache=True)
def _cheapest(bits, trump, values, order):
    """Off-suit before trump, low points and rank before high, then ``order``."""
    best, best_cost, best_order = -1, 0.0, 0
    for c in range(NUM_TYPES):
        if bits >> c & 1:
            cost = (100.0 if SUIT[c] == trump else 0.0) + values[c] + RANK[c] / 10
            if best < 0 or cost < best_cost or (cost == best_cost and order[c] < best_order):
                best, best_cost, best_order = c, cost, order[c]
    return best


# ------------------------------------------------------------------------------------------------
# Play-outs


@njit(cache=True)
def choose_card(policy, seat, legal, trick, n, leader, left, hands, played, played_by, void, shown, gift, rules,
                values, order, state, scratch):  # fmt: skip
    """The card ``policy`` plays for ``seat`` among the ``legal`` bits (forced cards need no policy)."""
    if legal & (legal - 1) == 0:
        return 63 - _leading_zeros(legal)
    if policy == POLICY_HEURISTIC:
        return heuristic_card(seat, legal, trick, n, leader, left, hands, played, played_by, void, shown, gift,
                              rules, values, order, scratch)  # fmt: skip
    if policy == POLICY_SIMPLE:
        last = rules[R_SIMPLE_LAST] == 1 or n == rules[R_SEATS] - 1
        return simple_card(legal, trick, n, rules[R_TRUMP], values, last, order)
    k = random_below(state, _popcount(legal))
    for c in range(NUM_TYPES):
        if legal >> c & 1:
            if k == 0:
                return c
            k -= 1
    return -1


@njit(cache=True)
def play_card(c, seat, hands, trick, n, leader, left, pts, tks, played, played_by, void, rules, values):
    """Play ``c`` for ``seat``: update the hands, the trick and the knowledge; returns (n, leader, left)."""
    trump, seats = rules[R_TRUMP], rules[R_SEATS]
    hands[seat, c] -= 1
    played[c] += 1
    played_by[seat, c] += 1
    if n > 0:
        led = SUIT[trick[0]]
        if SUIT[c] != led:
            void[seat] |= 1 << led
            if SUIT[c] != trump:
                void[seat] |= 1 << trump
    trick[n] = c
    n += 1
    if n < seats:
        return n, leader, left
    winner = (leader + winning_position(trick, n, trump)) % seats
    pts[winner] += trick_value(trick, n, values, left == 1)
    tks[winner] += 1
    return 0, winner, left - 1


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


# ------------------------------------------------------------------------------------------------
# The exact solver
#
# Values are the trick points the maximising side (``side[seat] == 1``) takes from the node to the
# end of the hand. Under ``mode == 1`` (save meld by tricks) a side that takes no trick at all
# changes the score beyond its points, so a sweep by the maximising side counts one point more and
# a sweep against it one point less (``flags``: bit 0, the maximising side has a trick; bit 1, the
# other side has one); hand scores are non-decreasing in that value, so its minimax is exact.


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


#: Fields of a search frame (one row of ``frames`` per ply).
(F_N, F_LEADER, F_LEFT, F_FLAGS, F_ALPHA, F_BETA, F_ALPHA0, F_BETA0, F_BEST, F_BEST_MOVE, F_SLOT, F_COUNT, F_INDEX,
 F_SEAT, F_HELD, F_GAIN, F_MAX) = range(17)  # fmt: skip
FRAME_FIELDS = 17


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
def solve_values(hands, trick, n, leader, left, flags, side, rules, values, mode, equivalent, salt, zobrist, tt_key,
                 tt_low, tt_high, tt_move, nodes, out):  # fmt: skip
    """Exact value of every legal card of the seat to act, into ``out[c]``; returns the legal bits.

    Each representative card (see :func:`representatives`) is played and the rest searched with
    the full window, all sharing one table; the cards of a group get its value. ``nodes[0]``
    counts the nodes visited. ``hands`` and ``trick`` are left as they were.
    """
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


# ------------------------------------------------------------------------------------------------
# Many deals per call: the values of candidate cards


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
def evaluate_cards(deals, gifts, trick, n, leader, left, pts, tks, played, played_by, void, shown, rules, values,
                   order, policy, seeds, stop, solve, cards, side, mode, equivalent, salt, zobrist, tt_key, tt_low,
                   tt_high, tt_move, nodes, out):  # fmt: skip
    """The maximising side's final score (:func:`side_score`) after each candidate card on each deal.

    ``deals`` (N, S, 24) are the hands now, ``gifts`` (N, S, 24) each seat's pass knowledge in that
    deal; the trick, points, tricks and knowledge arrays are the position's, shared by every deal.
    With ``solve`` the seat to act's cards are valued exactly (:func:`solve_values`; ``cards`` is
    ignored and ``out[d, c]`` is set for the legal ``c``); otherwise ``out[d, k]`` is the score
    after ``cards[k]`` and a play-out with ``policy`` down to ``stop`` tricks left, solved exactly
    from there (``stop`` 0: played to the end). Deal ``d``'s random stream starts from
    ``seeds[d]`` for every card, so all cards meet the same chances.
    """
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
    moves, scores, groups, frames, keys, tricks = _buffers(left, seats)
    for d in range(deals.shape[0]):
        if solve:
            hands[:, :] = deals[d]
            legal = solve_values(hands, trick.copy(), n, leader, left, flags, side, rules, values, mode, equivalent,
                                 salt, zobrist, tt_key, tt_low, tt_high, tt_move, nodes, values_out)  # fmt: skip
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
            tricks[left_now, :] = trick_now
            key = hand_key(hands, seats, zobrist)
            out[d, k] = score + _search(hands, tricks, n_now, leader_now, left_now, leaf_flags, key, -INFINITY,
                                        INFINITY, side, rules, values, mode, equivalent, salt, zobrist, tt_key,
                                        tt_low, tt_high, tt_move, moves, scores, groups, frames, keys,
                                        nodes)  # fmt: skip


@njit(cache=True)
def solve_node(hands, trick, n, leader, left, flags, side, rules, values, mode, equivalent, salt, zobrist, tt_key,
               tt_low, tt_high, tt_move, nodes):  # fmt: skip
    """Exact value (future points of the maximising side, see the solver) of one position."""
    moves, scores, groups, frames, keys, tricks = _buffers(left, rules[R_SEATS])
    tricks[left, :] = trick
    key = hand_key(hands, rules[R_SEATS], zobrist)
    return _search(hands, tricks, n, leader, left, flags, key, -INFINITY, INFINITY, side, rules, values, mode,
                   equivalent, salt, zobrist, tt_key, tt_low, tt_high, tt_move, moves, scores, groups, frames, keys,
                   nodes)  # fmt: skip


# ------------------------------------------------------------------------------------------------
# Drawing deals: hidden cards dealt among holders under constraints (pinochle_env.kernel.sampling)

DRAW_QUICK, DRAW_CAREFUL, DRAW_FALLBACK = range(3)
#: Tries per sample of each draw mode, as agents.search.original.sampling.DRAW_MODES has them.
DRAW_TRIES = np.array([12, 24, 24], dtype=np.int64)


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
def _draw_once(known, need, forbidden, pool, holder_seat, played_by, target_points, target_shown, check, trump,
               run_extras, mode, state, hands):  # fmt: skip
    """One random deal of ``pool`` among the holders into ``hands``; whether it meets the constraints.

    Cards are dealt most constrained first (fewest holders that may take them, ties in random
    order), each to a holder that may take it with probability proportional to the cards it still
    lacks. ``mode``: quick (reject a deal whose meld differs from the meld shown), careful (also
    skip holders whose seat the card would give more meld than it showed), fallback (no meld check).
    """
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
def draw_deals(known, need, forbidden, meld_forbidden, pool, holder_seat, played_by, target_points, target_shown,
               check, trump, run_extras, seed, out, modes):  # fmt: skip
    """Fill ``out`` (count, holders, 24) with random deals meeting the constraints; returns how many.

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
            barred = forbidden if mode == DRAW_FALLBACK else meld_forbidden
            for _ in range(DRAW_TRIES[mode]):
                if _draw_once(known, need, barred, pool, holder_seat, played_by, target_points, target_shown, check,
                              trump, run_extras, mode, state, out[i]):  # fmt: skip
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


@njit(cache=True)
def play_out_many(deals, gifts, trick, n, leader, left, pts, tks, played, played_by, void, shown, rules, values,
                  order, policy, seeds, out_pts, out_tks):  # fmt: skip
    """Play every deal of ``deals`` (N, S, 24) out from the position with ``policy``: each seat's
    final trick points and tricks into ``out_pts`` and ``out_tks`` (N, S); deal ``d``'s random
    stream starts from ``seeds[d]``."""
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
def policy_card(seat, trick, n, leader, left, hands, played, played_by, void, shown, gift, rules, values, order,
                policy, seed):  # fmt: skip
    """The card ``policy`` plays for ``seat`` at one position (the play-outs' choice, one decision)."""
    state = np.zeros(1, dtype=np.uint64)
    state[0] = seed
    legal = legal_bits(held_bits(hands[seat]), trick, n, rules[R_TRUMP], rules[R_HEAD], rules[R_OVERTRUMP])
    return choose_card(policy, seat, legal, trick, n, leader, left, hands, played, played_by, void, shown, gift,
                       rules, values, order, state, np.zeros(SCRATCH_SIZE, dtype=np.int64))  # fmt: skip


@njit(cache=True)
def forbidden_by_plays(history, leaders, sizes, seats, observer, trump, head, overtrump, forbidden):
    """Into ``forbidden[p]``: the cards each play shows ``p`` did not hold when it played.

    A card ``c`` was legal for a hand ``H`` iff it is legal for ``{c, x}`` for every ``x`` in ``H``
    (legality only asks whether the hand holds the led suit, a card that heads, trump, a trump that
    over-trumps), so the forbidden cards are the ``x`` that would have made ``c`` illegal.
    ``history[t]`` holds trick ``t``'s first ``sizes[t]`` cards, led by ``leaders[t]``; the
    observer's own plays say nothing new to it.
    """
    for t in range(sizes.size):
        for position in range(1, sizes[t]):
            seat = (leaders[t] + position) % seats
            if seat == observer:
                continue
            c = history[t, position]
            for x in range(NUM_TYPES):
                held = (1 << c) | (1 << x)
                if not legal_bits(held, history[t], position, trump, head, overtrump) >> c & 1:
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
# Whole hands from the deal: the heuristic's trump, passing and throw-in, meld, then a play-out
# (agents/heuristic/partnership.py and hand_value.py are the reference), for the decisions taken
# before the first card: the auction, trump, passing and the throw-in.

#: Indices of the simulation's integer settings (after the trick-play rule vector).
S_PASS_COUNT, S_RUN_EXTRAS, S_THROW_MODE = range(3)
SETTINGS_SIZE = 3
#: Throw-in modes of a simulated hand: always play; RULES.md's ``seed`` rule; ``always`` (the
#: heuristic decides every hand).
THROW_NEVER, THROW_SEED, THROW_ALWAYS = range(3)
#: The heuristic's trick estimate (agents/heuristic/hand_value.py).
TRICK_BASE, TRICK_PER_TRUMP, TRICK_PER_HIGH_TRUMP, TRICK_PER_SIDE_ACE = 68.0, 16.0, 9.0, 13.0


@njit(cache=True)
def trick_estimate(hand, trump):
    """``hand_value.trick_estimate``: trick points the declaring team can expect from this hand."""
    trumps = 0
    for r in range(6):
        trumps += hand[6 * trump + r]
    high = hand[6 * trump + ACE] + hand[6 * trump + TEN]
    aces = 0
    for s in range(4):
        if s != trump:
            aces += hand[6 * s + ACE]
    estimate = TRICK_BASE + TRICK_PER_TRUMP * trumps + TRICK_PER_HIGH_TRUMP * high + TRICK_PER_SIDE_ACE * aces
    return min(estimate, 250.0)


@njit(cache=True)
def heuristic_trump(hand, run_extras, order, shown):
    """``HeuristicAgent.choose_trump``: the suit of the most meld plus trick estimate (ties by ``order``)."""
    best, best_value, best_order = -1, 0.0, -1
    for t in range(4):
        value = meld(hand, t, run_extras, shown) + trick_estimate(hand, t)
        if best < 0 or value > best_value or (value == best_value and order[t] > best_order):
            best, best_value, best_order = t, value, order[t]
    return best


@njit(cache=True)
def _meld_loss(hand, c, trump, run_extras, shown):
    """Meld points lost by giving away one ``c``."""
    before = meld(hand, trump, run_extras, shown)
    hand[c] -= 1
    after = meld(hand, trump, run_extras, shown)
    hand[c] += 1
    return before - after


@njit(cache=True)
def heuristic_pass(hand, declaring, trump, run_extras, order, shown):
    """The next card the heuristic passes from ``hand``: the partner gives help (trump, aces), the
    declarer (``declaring``) returns what it needs least (``HeuristicAgent._choose_pass``)."""
    best, best_value, best_order = -1, 0.0, 0
    for c in range(NUM_TYPES):
        if hand[c] == 0:
            continue
        suit, rank = SUIT[c], RANK[c]
        loss = _meld_loss(hand, c, trump, run_extras, shown)
        if declaring:
            if suit == trump:
                value = 40.0 + 4 * rank
            elif rank == ACE:
                value = 30.0
            else:
                length = 0
                for r in range(6):
                    length += hand[6 * suit + r]
                value = rank + (4.0 if rank == TEN else 0.0) - 3.0 * max(0, 3 - length)
            value += 2 * loss
            better = best < 0 or value < best_value or (value == best_value and order[c] < best_order)
        else:
            if suit == trump:
                value = 30.0 + 4 * rank
            elif rank == ACE:
                value = 25.0
            else:
                value = rank * 0.5
            value -= loss
            better = best < 0 or value > best_value or (value == best_value and order[c] > best_order)
        if better:
            best, best_value, best_order = c, value, order[c]
    return best


@njit(cache=True)
def _pass_cards(hand, count, declaring, trump, run_extras, order, shown, out):
    """Pass ``count`` cards one by one with the heuristic: taken from ``hand`` into ``out`` (counts)."""
    for _ in range(count):
        c = heuristic_pass(hand, declaring, trump, run_extras, order, shown)
        hand[c] -= 1
        out[c] += 1


@njit(cache=True)
def simulate_hands(dealt, declarers, contracts, trumps, given_to, to_known, given_back, back_known, rules, settings,
                   values, order, policy, seeds, out_meld, out_pts, out_tks, out_thrown, out_trump):  # fmt: skip
    """Play each deal (N, 4, 24 as dealt) from trump to the last card, with deal ``d``'s declarer
    ``declarers[d]`` at ``contracts[d]`` (a negative declarer: the deal is skipped, out all zero).

    Trump is ``trumps[d]``, or the heuristic's choice where it is negative. The cards passed to
    the declarer are ``given_to[d]`` where ``to_known[d]``, else the partner's heuristic choice;
    the cards passed back likewise (``given_back``, ``back_known``). Then every seat melds, the
    throw-in rule of ``settings[S_THROW_MODE]`` applies (the heuristic deciding where the
    declarer chooses), and a played hand is played out with ``policy``. Out: each seat's meld,
    trick points and tricks, whether the hand was thrown in, and the trump.
    """
    pass_count, run_extras, mode = settings[S_PASS_COUNT], settings[S_RUN_EXTRAS], settings[S_THROW_MODE]
    sequential = rules[R_SEQUENTIAL] == 1
    shown = np.zeros((4, NUM_TYPES), dtype=np.int64)
    scratch = np.zeros(NUM_TYPES, dtype=np.int64)
    scratch_play = np.zeros(SCRATCH_SIZE, dtype=np.int64)
    state = np.zeros(1, dtype=np.uint64)
    play_rules = rules.copy()
    for d in range(dealt.shape[0]):
        declarer, contract = declarers[d], contracts[d]
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
                _pass_cards(hands[partner], pass_count, False, trump, run_extras, order, scratch, to_declarer)
            if sequential:
                hands[declarer] += to_declarer
            if back_known[d]:
                back[:] = given_back[d]
                hands[declarer] -= back
            else:
                _pass_cards(hands[declarer], pass_count, True, trump, run_extras, order, scratch, back)
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
        state[0] = seeds[d]
        current = hands.astype(np.int8)
        trick = np.zeros(4, dtype=np.int64)
        played = np.zeros(NUM_TYPES, dtype=np.int64)
        played_by = np.zeros((4, NUM_TYPES), dtype=np.int64)
        void = np.zeros(4, dtype=np.int64)
        play_out(policy, current, trick, 0, declarer, 12, out_pts[d], out_tks[d], played, played_by, void, shown,
                 gifts, play_rules, values, order, state, 0, scratch_play)  # fmt: skip


# ------------------------------------------------------------------------------------------------
# Inference: how well a drawn deal explains what the other seats did (policy-based weighting)


@njit(cache=True)
def play_mismatches(deals, gifts, history, leaders, sizes, observer, shown, rules, values, order, policy, out):
    """Into ``out[d]``: how many plays of the other seats in the history ``policy`` would not have
    made with deal ``d``'s hands (the hands now; plays without a choice are not counted).

    The history is replayed from the first lead (``history[t]``: trick ``t``'s first ``sizes[t]``
    cards, led by ``leaders[t]``), every other seat's play compared with the policy's choice from
    that seat's knowledge then. A play matches if the policy makes it with ``order`` or with the
    reverse order, so that equal choices settled by another player's tie-break still match.
    """
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
                hands[(leaders[t] + i) % seats, history[t, i]] += 1
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
                c = history[t, i]
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
def bidding_values(hand, run_extras, shown):
    """The heuristic's bidding reading of a dealt hand: (its best meld plus trick estimate over the
    four trumps, its mean meld over them)."""
    best, melds = -1.0, 0.0
    for t in range(4):
        points = meld(hand, t, run_extras, shown)
        melds += points
        best = max(best, points + trick_estimate(hand, t))
    return best, melds / 4


@njit(cache=True)
def heuristic_call(strength, mean_meld, seat, high, high_bidder, partner_helped, max_bid, help_allowed):
    """The heuristic's auction call at its defaults (agents/heuristic/partnership.py): (kind 0 bid /
    1 pass / 2 help, bid). It bids the smallest raise while that is within the hand's strength plus
    90 for the partner (40 more once the partner passed with help, 40 less to outbid the partner),
    else passes with help when the hand averages 60 meld over the four trumps, else passes."""
    limit = strength + 90.0 + (40.0 if partner_helped else 0.0)
    if high_bidder == (seat + 2) % 4:
        limit -= 40.0
    smallest = max(high, 240) + 10
    if smallest <= max_bid and smallest <= limit:
        return 0, smallest
    if help_allowed and mean_meld >= 60:
        return 2, 0
    return 1, 0


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
    as :func:`pinochle_env.kernel.state.pass_gifts` turns passes into knowledge."""
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
