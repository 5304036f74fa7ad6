"""The heuristic bots' decisions, compiled: the search wing's model of how a seat plays (agent knowledge).

Ports of :mod:`agents.heuristic` (the reference: ``tests/agents/search/test_kernel.py`` checks the card play
against :class:`agents.heuristic.HeuristicAgent` and the simple play decision for decision) used by
the play-outs (:mod:`.playouts`) and the deal weighting (:mod:`.inference`).

The partnership card play needs what each seat knows besides its own hand, all public but its pass
knowledge: ``played_by`` (S, 24), ``void`` (S,) suits each seat showed it lacks, ``shown`` (S, 24)
the meld cards each seat showed, ``gift`` (S, 24) the cards each seat knows its partner received
from it (or kept from its pass), and the declarer.
"""

from __future__ import annotations

from numba import njit

from pinochle_env.kernel.compiled.tricks import (
    ABOVE,
    ACE,
    NUM_TYPES,
    R_DECLARER,
    R_HAND_SIZE,
    R_TRUMP,
    RANK,
    SUIT,
    SUIT_BITS,
    TEN,
    beats,
    meld,
    winning_position,
)

#: The partnership heuristic's constants (agents/heuristic/partnership.py).
AVERAGE_CARD_POINTS = 250 / 48
RUFF_RISK = 0.4
#: Work space of the heuristic play-out policy (known cards per seat, unknown cards, free and pool counts).
SCRATCH_SIZE = 5 * NUM_TYPES + 8
#: The heuristic's trick estimate (agents/heuristic/hand_value.py).
TRICK_BASE, TRICK_PER_TRUMP, TRICK_PER_HIGH_TRUMP, TRICK_PER_SIDE_ACE = 68.0, 16.0, 9.0, 13.0


# ------------------------------------------------------------------------------------------------
# Card play: the partnership heuristic (agents/heuristic/partnership.py), seat by seat


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
    if o == declarer and popcount(trumps) >= 3:
        top = 63 - leading_zeros(trumps)
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
def popcount(bits):
    """The set bits of a 64-bit integer."""
    count = 0
    while bits:
        bits &= bits - 1
        count += 1
    return count


@njit(cache=True)
def leading_zeros(bits):
    """Leading zero bits of a positive 64-bit integer (so ``63 - result`` is its highest set bit)."""
    zeros = 0
    probe = 1 << 62
    while probe and not bits & probe:
        probe >>= 1
        zeros += 1
    return zeros + 1


# ------------------------------------------------------------------------------------------------
# Card play: the three- and two-handed heuristic (agents/heuristic/simple_play.py)


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
# Before the first card: trump, passing and the auction (agents/heuristic/partnership.py, hand_value.py)


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
def pass_cards(hand, count, declaring, trump, run_extras, order, shown, out):
    """Pass ``count`` cards one by one with the heuristic: taken from ``hand`` into ``out`` (counts)."""
    for _ in range(count):
        c = heuristic_pass(hand, declaring, trump, run_extras, order, shown)
        hand[c] -= 1
        out[c] += 1


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
