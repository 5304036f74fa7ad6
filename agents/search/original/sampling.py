"""Deal sampling for PIMC: perfect-information games consistent with everything one seat knows.

From a :class:`~pinochle_env.PlayerView` taken during play, :class:`DealSampler` draws the hidden
cards of the three other hands so that

- the seat's own cards, the cards it passed and received, and every card played stay as they are;
- each seat still holds the meld it showed, and its hand at meld time scores exactly the meld it
  showed (same points, melds and shown cards);
- every card played was legal for the hand its player then held: a player who did not follow
  suit had none of it, one who did not trump had no trump, one who did not head the trick (or
  over-trump) had no card that could, under the game's ``head_rule`` and ``must_overtrump``;
- the cards passed between the declarer and its partner are the ones the seat knows, or (for a
  defender, who never sees them) a random choice consistent with the two hands.

The hidden cards are dealt at random among the seats that may hold them (the most constrained
cards first), and a draw that breaks the meld condition is rejected; when random draws keep
failing, cards are checked against the meld one by one, and as a last resort (the fallback) the
meld condition is dropped, so a draw is still returned whenever the play constraints allow one.
Each accepted draw becomes a :class:`~pinochle_env.Game` built with the public API only: the
original deal it implies, the dealer and running totals of the view, and the public history
(auction, trump, passes, throw-in decision, cards played) replayed with ``apply``.
"""

from __future__ import annotations

import numpy as np

from pinochle_env import Game, IllegalActionError, PlayerView
from pinochle_env import rules as R
from pinochle_env.cards import COPIES, NUM_TYPES, cards_from_counts, counts_from_cards
from pinochle_env.games.kit import variant_kit
from pinochle_env.games.partnership.game import HAND_SIZE, Phase

#: How hidden cards are drawn, in the order tried for each sample, with the number of tries:
#: ``quick`` deals them at random and rejects a draw whose meld differs from the meld shown;
#: ``careful`` also checks every card against the meld of the hand it joins (slower, but it finds
#: deals where almost any random draw would meld more); ``fallback`` drops the meld condition.
DRAW_MODES = (("quick", 12), ("careful", 24), ("fallback", 24))


class DealSampler:
    """Draws full deals (as replayed games) consistent with one seat's view during play."""

    def __init__(self, view: PlayerView) -> None:
        if view.phase != Phase.PLAY:
            raise ValueError(f"deal sampling needs a view taken during play, not {view.phase.name.lower()}")
        self.view = view
        self.seat = view.seat
        self.partner = (view.declarer + 2) % 4
        self.played_by = [[0] * NUM_TYPES for _ in range(4)]
        self.forbidden = [0] * 4
        for leader, cards, _ in view.tricks:
            self._read_trick(leader, cards)
        self._read_trick(view.trick_leader, view.trick)
        self.known = self._known_cards()
        self.sizes = [HAND_SIZE - sum(self.played_by[p]) for p in range(4)]
        self.pool = self._unknown_pool()
        self.meld_forbidden = [self.forbidden[p] | self._meld_breakers(p) for p in range(4)]
        self._quick_failed = False

    # ------------------------------------------------------------------ what the seat knows

    def _read_trick(self, leader: int, cards: list[int]) -> None:
        """Note who played what, and the cards each play shows its player did not hold then.

        A card ``c`` was legal for the hand ``H`` iff it is legal for ``{c, x}`` for every ``x`` in
        ``H`` (legality only asks whether the hand holds the led suit, a card that heads, trump, a
        trump that over-trumps), so the forbidden cards are the ``x`` that would make ``c`` illegal.
        """
        rules = self.view.rules
        for position, c in enumerate(cards):
            who = (leader + position) % 4
            self.played_by[who][c] += 1
            if not position or who == self.seat:
                continue
            before = cards[:position]
            for x in range(NUM_TYPES):
                held = (1 << c) | (1 << x)
                legal = R.legal_card_bits(held, before, self.view.trump, rules.head_rule, rules.must_overtrump)
                if not legal >> c & 1:
                    self.forbidden[who] |= 1 << x

    def _passes(self) -> tuple[list[int], list[int]] | None:
        """(cards passed to the declarer, cards passed back) when the seat saw both, else None."""
        view = self.view
        if self.seat == view.declarer:
            return list(view.cards_received), list(view.cards_passed)
        if self.seat == self.partner:
            return list(view.cards_passed), list(view.cards_received)
        return None

    def _known_cards(self) -> list[list[int]]:
        """Per seat, the cards it certainly holds now: shown meld and passed cards not played since."""
        view = self.view
        floors = [list(view.meld_of(p).shown) for p in range(4)]
        passes = self._passes()
        if passes is not None and view.rules.pass_count:
            to_declarer, back = counts_from_cards(passes[0]), counts_from_cards(passes[1])
            if self.seat == view.declarer:
                floors[self.partner] = [max(a, b) for a, b in zip(floors[self.partner], back, strict=True)]
            else:  # sequential passing lets the declarer return cards it was just given
                sequential = view.rules.pass_mode == "sequential"
                kept = [max(0, n - back[c]) if sequential else n for c, n in enumerate(to_declarer)]
                floors[view.declarer] = [max(a, b) for a, b in zip(floors[view.declarer], kept, strict=True)]
        known = [[max(0, floors[p][c] - self.played_by[p][c]) for c in range(NUM_TYPES)] for p in range(4)]
        known[self.seat] = list(view.hand)
        return known

    def _unknown_pool(self) -> list[int]:
        """The card types (with repeats) held by the other seats beyond what the seat knows."""
        counts = [COPIES] * NUM_TYPES
        for p in range(4):
            for c in range(NUM_TYPES):
                counts[c] -= self.played_by[p][c] + self.known[p][c]
        return cards_from_counts([max(0, n) for n in counts])

    def _meld_breakers(self, seat: int) -> int:
        """Cards that would give ``seat`` more meld than it showed, added to the cards it surely had then.

        Meld only grows with more cards, so such a card cannot be in a hand that scored the meld shown.
        """
        view = self.view
        if seat == self.seat:
            return 0
        surely = [n + self.played_by[seat][c] for c, n in enumerate(self.known[seat])]
        shown = view.meld_of(seat).points
        breakers = 0
        for c in set(self.pool):
            surely[c] += 1
            if R.meld(surely, view.trump, view.rules.run_extras).points > shown:
                breakers |= 1 << c
            surely[c] -= 1
        return breakers

    # ------------------------------------------------------------------ drawing

    def draw_hands(self, rng: np.random.Generator, mode: str = "quick") -> list[list[int]] | None:
        """Current hands (count vectors) of all four seats for one random draw, or None if it failed.

        The unknown cards are dealt most constrained first, each to a seat that may hold it with
        probability proportional to the cards that seat still lacks (``mode``: see ``DRAW_MODES``).
        """
        forbidden = self.forbidden if mode == "fallback" else self.meld_forbidden
        hands = [list(k) for k in self.known]
        need = [self.sizes[p] - sum(hands[p]) for p in range(4)]
        need[self.seat] = 0
        others = [p for p in range(4) if need[p]]
        choices = {c: sum(1 for p in others if not forbidden[p] >> c & 1) for c in set(self.pool)}
        pool = sorted((self.pool[i] for i in rng.permutation(len(self.pool))), key=choices.__getitem__)
        for c, u in zip(pool, rng.random(len(pool)).tolist(), strict=True):
            seats = [p for p in others if need[p] and not forbidden[p] >> c & 1]
            if mode == "careful":
                seats = [p for p in seats if not self._adds_meld(hands[p], p, c)]
            if not seats:
                return None
            pick = u * sum(need[p] for p in seats)
            for p in seats:
                pick -= need[p]
                if pick < 0:
                    break
            hands[p][c] += 1
            need[p] -= 1
        if mode != "fallback" and not self._meld_matches(hands):
            return None
        return hands

    def _adds_meld(self, hand: list[int], seat: int, c: int) -> bool:
        """Whether ``c`` added to ``seat``'s (partial) current hand would meld more than it showed."""
        at_meld = [n + m for n, m in zip(hand, self.played_by[seat], strict=True)]
        at_meld[c] += 1
        return R.meld(at_meld, self.view.trump, self.view.rules.run_extras).points > self.view.meld_of(seat).points

    def _meld_matches(self, hands: list[list[int]]) -> bool:
        """Whether every other seat's hand at meld time scores exactly the meld it showed."""
        view = self.view
        for p in range(4):
            if p == self.seat:
                continue
            at_meld = [n + self.played_by[p][c] for c, n in enumerate(hands[p])]
            if R.meld(at_meld, view.trump, view.rules.run_extras) != view.meld[p]:
                return False
        return True

    def sample(self, rng: np.random.Generator) -> Game | None:
        """One perfect-information game at the view's position, or None if no consistent draw was found.

        Once quick draws have failed for this view, later samples start with careful ones.
        """
        for mode, tries in DRAW_MODES:
            if mode == "quick" and self._quick_failed:
                continue
            for _ in range(tries):
                hands = self.draw_hands(rng, mode)
                game = self.build_game(hands, rng) if hands is not None else None
                if game is not None:
                    return game
            self._quick_failed = True
        return None

    # ------------------------------------------------------------------ replaying

    def build_game(self, hands: list[list[int]], rng: np.random.Generator) -> Game | None:
        """The game that drawn current hands imply, replayed to the view's position (None if illegal)."""
        view = self.view
        at_meld = [[n + self.played_by[p][c] for c, n in enumerate(hands[p])] for p in range(4)]
        to_declarer, back = self._passes() or self._guess_passes(at_meld, rng)
        dealt = [list(h) for h in at_meld]
        if view.rules.pass_count:
            for c in to_declarer:
                dealt[view.declarer][c] -= 1
                dealt[self.partner][c] += 1
            for c in back:
                dealt[self.partner][c] -= 1
                dealt[view.declarer][c] += 1
        if any(n < 0 for hand in dealt for n in hand):
            return None
        game = Game(
            view.rules,
            np.random.default_rng(0),
            dealer=view.dealer,
            deal=[cards_from_counts(h) for h in dealt],
            totals=tuple(view.totals),
        )
        try:
            self._replay(game, to_declarer, back)
        except IllegalActionError:
            return None
        if game.phase != Phase.PLAY or game.to_act != view.to_act:
            return None
        return game

    def _guess_passes(self, at_meld: list[list[int]], rng: np.random.Generator) -> tuple[list[int], list[int]]:
        """Passed cards a defender cannot see: any cards of the declarer's and its partner's meld-time hands."""
        count = self.view.rules.pass_count
        declarer_cards, partner_cards = (
            cards_from_counts(at_meld[self.view.declarer]),
            cards_from_counts(at_meld[self.partner]),
        )
        to_declarer = [declarer_cards[i] for i in rng.choice(len(declarer_cards), count, replace=False)]
        back = [partner_cards[i] for i in rng.choice(len(partner_cards), count, replace=False)]
        return to_declarer, back

    def _replay(self, game: Game, to_declarer: list[int], back: list[int]) -> None:
        """Apply the public history of the view (with the given passes) to a freshly dealt game."""
        view = self.view
        layout = variant_kit(view.rules).layout
        calls = {"pass": layout.passing, "help": layout.help}
        for _, call in view.auction:
            game.apply(calls[call] if isinstance(call, str) else layout.bid_action(call))
        game.apply(layout.trump0 + view.trump)
        if view.rules.pass_count:
            for c in (*to_declarer, *back):
                game.apply(layout.card0 + c)
        if game.phase == Phase.THROW_IN:
            game.apply(layout.play_on)
        for _, cards, _ in view.tricks:
            for c in cards:
                game.apply(layout.card0 + c)
        for c in view.trick:
            game.apply(layout.card0 + c)
