"""What the search kernel needs to know of the partnership game (its kit's ``search``): two teams of
partners, the declaring team against the defenders, and the passes between the declarer and its
partner, which tell each of them cards the other holds and which a defender never sees.

Imported by the kernel only (:func:`pinochle_env.kernel.adapter.adapter_for`), so ``import
pinochle_env`` stays free of numba.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...cards import NUM_TYPES, cards_from_counts, counts_from_cards
from ...engine import IllegalActionError
from ...kernel.adapter import AuctionScoring, Rebuilt, Scoring, SearchAdapter
from ...kernel.compiled import deals as D
from ...kernel.sampling import DealConstraints
from ...rules.switches import Rules
from .game import HAND_SIZE, NUM_TRICKS, Game, Phase


class PartnershipScoring(AuctionScoring):
    """The declaring team's score minus the defenders' (each team's meld is its two seats')."""

    def others(self, keeps_all: Any, other_has: Any) -> tuple[int, Any, int]:
        team = self.declarer % 2
        side_meld = self.meld[team] + self.meld[team + 2]
        other_meld = self.meld[1 - team] + self.meld[3 - team]
        return side_meld, np.where(keeps_all | other_has, other_meld, 0), 1


class PartnershipSearch(SearchAdapter):
    """The partnership game's search adapter (see :class:`~pinochle_env.kernel.adapter.SearchAdapter`)."""

    total_tricks = NUM_TRICKS
    hand_size = HAND_SIZE
    solve_from = 4
    dealt_phases = ("AUCTION", "TRUMP", "PASS_TO_DECLARER", "PASS_BACK")
    rebuilds = True
    deals = "pinochle_env.games.partnership.search:PartnershipDeals"

    def side(self, declarer: int) -> np.ndarray:
        """The declaring team."""
        return np.array([int(p % 2 == declarer % 2) for p in range(self.rules.num_seats)], dtype=np.int64)

    def scoring(self, view: Any, meld_points: list[int], declarer: int, saved: tuple[bool, ...]) -> Scoring:
        factor = tuple(1.0 if p % 2 == declarer % 2 else -1.0 for p in range(self.rules.num_seats))
        rules = self.rules
        return PartnershipScoring(view.contract, tuple(meld_points), declarer, rules.save_meld,
                                  rules.save_meld_applies_to, saved, factor)  # fmt: skip

    @property
    def sequential_passing(self) -> bool:
        return self.rules.pass_mode == "sequential"

    def view_gifts(self, view: Any) -> np.ndarray:
        """Both partners of the declaring team know both passes; a defender knows none."""
        if view.declarer >= 0 and view.seat == view.declarer:
            return pass_gifts(self.rules, view.declarer, view.cards_received, view.cards_passed)
        if view.declarer >= 0 and view.seat == (view.declarer + 2) % 4:
            return pass_gifts(self.rules, view.declarer, view.cards_passed, view.cards_received)
        return super().view_gifts(view)

    def private_gifts(self, game: Any) -> np.ndarray:
        return pass_gifts(game.rules, game.declarer, game.passed_to_declarer, game.passed_back)

    def rebuild(self, view: Any, hands: np.ndarray, dealt: bool, rng: np.random.Generator) -> Rebuilt | None:
        """The hand of :meth:`SearchAdapter.rebuild`: the passes the view shows, or (for a defender,
        who sees none) cards drawn from the declarer's and its partner's hands at meld; the
        auction, trump, passes, the throw-in decision and the cards played replayed on the deal."""
        passes = _known_passes(view)
        count = self.rules.pass_count
        partner = (view.declarer + 2) % 4
        deal: list[list[int]] | None
        if dealt:
            deal = [list(hand) for hand in hands]
            to_declarer, back = passes or ([], [])
            if view.phase == Phase.PASS_BACK and len(to_declarer) < count:  # the partner's pass, unseen
                to_declarer = _draw(rng, deal[partner], count)
            passes = to_declarer, back  # (a pass this seat did not see in the current phase: none yet)
        else:
            at_meld = (np.asarray(hands, dtype=np.int64) + _played_by(view)).tolist()
            if passes is None:
                passes = _draw(rng, at_meld[view.declarer], count), _draw(rng, at_meld[partner], count)
            deal = _before_passes(at_meld, view.declarer, *passes)
        if deal is None:
            return None
        deck = [c for hand in deal for c in cards_from_counts(hand)]
        actions = _replay(view, deck, passes)
        return Rebuilt(deck, actions) if actions is not None else None


def pass_gifts(rules: Rules, declarer: int, to_declarer: list[int], back: list[int]) -> np.ndarray:
    """Per seat, the cards it knows its partner holds from the passing: the declarer knows what it
    passed back, its partner what it passed (less, when passing is sequential, what came back)."""
    gifts = np.zeros((rules.num_seats, NUM_TYPES), dtype=np.int64)
    if not rules.pass_count or declarer < 0:
        return gifts
    given, returned = np.array(counts_from_cards(to_declarer)), np.array(counts_from_cards(back))
    gifts[declarer] = returned
    kept = np.maximum(0, given - returned) if rules.pass_mode == "sequential" else given
    gifts[(declarer + 2) % 4] = kept
    return gifts


def _known_passes(view: Any) -> tuple[list[int], list[int]] | None:
    """(cards passed to the declarer, cards passed back) so far as ``view`` shows them: none before
    the passing, both to the declarer and its partner, None to a defender once passing began."""
    if view.declarer < 0 or view.phase == Phase.TRUMP or not view.rules.pass_count:
        return [], []
    if view.seat == view.declarer:
        return list(view.cards_received), list(view.cards_passed)
    if view.seat == (view.declarer + 2) % 4:
        return list(view.cards_passed), list(view.cards_received)
    return None


def _played_by(view: Any) -> np.ndarray:
    """Per seat (4, 24), the cards it played this hand (the trick in progress included)."""
    played = np.zeros((4, NUM_TYPES), dtype=np.int64)
    for leader, cards, _ in [*view.tricks, (view.trick_leader, view.trick, -1)]:
        for position, c in enumerate(cards):
            played[(leader + position) % 4, c] += 1
    return played


def _draw(rng: np.random.Generator, counts: list[int], count: int) -> list[int]:
    """``count`` cards drawn from the hand ``counts`` without replacement."""
    cards = cards_from_counts(counts)
    return [cards[i] for i in rng.choice(len(cards), count, replace=False)]


def _before_passes(
    at_meld: list[list[int]], declarer: int, to_declarer: list[int], back: list[int]
) -> list[list[int]] | None:
    """The hands as dealt, from the hands at meld and the passes (None if a count goes negative)."""
    deal = [list(hand) for hand in at_meld]
    partner = (declarer + 2) % 4
    for c in to_declarer:
        deal[declarer][c] -= 1
        deal[partner][c] += 1
    for c in back:
        deal[partner][c] -= 1
        deal[declarer][c] += 1
    return None if any(n < 0 for hand in deal for n in hand) else deal


def _replay(view: Any, deck: list[int], passes: tuple[list[int], list[int]]) -> list[int] | None:
    """The decisions from the deal ``deck`` to ``view``'s position, replayed on an engine (None if
    one is illegal there): the auction, trump, ``passes``, playing on where the engine asks and
    ``view`` is past the throw-in, the cards played."""
    game = Game(view.rules, np.random.default_rng(0), dealer=view.dealer, deal=Game.deal_from_deck(deck))
    layout = game.layout
    calls = {"pass": layout.passing, "help": layout.help}
    actions = [calls[call] if isinstance(call, str) else layout.bid_action(call) for _, call in view.auction]
    if view.trump >= 0:
        actions.append(layout.trump0 + view.trump)
    actions += [layout.card0 + c for c in (*passes[0], *passes[1])]
    try:
        for action in actions:
            game.apply(action)
        if game.phase == Phase.THROW_IN and view.phase != Phase.THROW_IN:
            actions.append(layout.play_on)
            game.apply(layout.play_on)
        for _, cards, _ in [*view.tricks, (view.trick_leader, view.trick, -1)]:
            for c in cards:
                actions.append(layout.card0 + c)
                game.apply(layout.card0 + c)
    except IllegalActionError:
        return None
    return actions


class PartnershipDeals(DealConstraints):
    """Deals of the partnership game: what the passes show (see :mod:`pinochle_env.kernel.sampling`)."""

    def dealt_hand(self) -> np.ndarray:
        """The hand as dealt: the cards passed put back, the cards received taken out."""
        view = self.view
        passed = np.bincount(np.array(view.cards_passed, dtype=np.int64), minlength=NUM_TYPES)
        received = np.bincount(np.array(view.cards_received, dtype=np.int64), minlength=NUM_TYPES)
        return super().dealt_hand() + passed - received

    def known_before_meld(self, known: np.ndarray) -> None:
        """In sequential passing, the declarer knows its partner was dealt the cards it passed it,
        and the partner that the declarer was dealt the cards it passed back beyond those it had
        been given (it may return a card it was just given)."""
        view = self.view
        if view.rules.pass_mode == "sequential" and len(view.cards_received):
            received = np.bincount(np.array(view.cards_received, dtype=np.int64), minlength=NUM_TYPES)
            if view.seat != view.declarer:
                received = np.maximum(
                    0, received - np.bincount(np.array(view.cards_passed, dtype=np.int64), minlength=NUM_TYPES)
                )
            known[(view.seat + 2) % 4] = received

    def passes(self) -> tuple[list[int], list[int]] | None:
        """(cards passed to the declarer, cards passed back) when the seat saw both, else None."""
        view = self.view
        if view.seat == view.declarer:
            return list(view.cards_received), list(view.cards_passed)
        if view.seat == (view.declarer + 2) % 4:
            return list(view.cards_passed), list(view.cards_received)
        return None

    def add_known_cards(self, floors: np.ndarray) -> None:
        """The declaring team's partners know the cards they passed each other (the declarer can
        return, in sequential passing, cards it was just given)."""
        view, rules = self.view, self.rules
        passes = self.passes()
        if passes is None or not rules.pass_count:
            return
        to_declarer, back = (np.bincount(np.array(p, dtype=np.int64), minlength=NUM_TYPES) for p in passes)
        declarer = view.declarer
        partner = (declarer + 2) % 4
        if view.seat == declarer:
            floors[partner] = np.maximum(floors[partner], back)
        else:
            kept = np.maximum(0, to_declarer - back) if rules.pass_mode == "sequential" else to_declarer
            floors[declarer] = np.maximum(floors[declarer], kept)

    def gifts(self, hands: np.ndarray, seed: int) -> np.ndarray:
        """The view's own pass knowledge where it shows both passes, else a guess drawn from each
        deal (:func:`~pinochle_env.kernel.compiled.deals.guess_gifts`)."""
        view, rules = self.view, self.rules
        gifts = super().gifts(hands, seed)
        if self.dealt or not rules.pass_count:
            return gifts
        if self.passes() is not None:
            gifts[:] = self.adapter.view_gifts(view)
            return gifts
        sequential = rules.pass_mode == "sequential"
        D.guess_gifts(hands, self.played_by, view.declarer, rules.pass_count, sequential, np.uint64(seed), gifts)
        return gifts


def partnership_scores(
    rules: Rules,
    declarer: Any,
    contract: Any,
    meld: np.ndarray,
    points: np.ndarray,
    tricks: np.ndarray,
    thrown: np.ndarray,
) -> np.ndarray:
    """:func:`pinochle_env.rules.score_hand` for many partnership hands at once: each team's hand
    score (N, 2) from each seat's meld, trick points and tricks (N, 4), thrown-in flags (N,), the
    declarer and the contract (each a number, or one per hand; a declarer of -1 scores 0, 0: a
    redeal)."""
    count = len(meld)
    declarer = np.broadcast_to(np.asarray(declarer), (count,))
    contract = np.broadcast_to(np.asarray(contract), (count,))
    team = declarer % 2
    rows = np.arange(count)
    team_meld = np.stack([meld[:, 0] + meld[:, 2], meld[:, 1] + meld[:, 3]], axis=1)
    team_points = np.stack([points[:, 0] + points[:, 2], points[:, 1] + points[:, 3]], axis=1)
    team_tricks = np.stack([tricks[:, 0] + tricks[:, 2], tricks[:, 1] + tricks[:, 3]], axis=1)
    kept = team_points >= 1 if rules.save_meld == "points" else team_tricks >= 1
    if rules.save_meld == "none":
        kept = np.ones_like(kept)
    saved = np.where(kept, team_meld, 0)
    declaring_saved = team_meld[rows, team] if rules.save_meld_applies_to == "defenders" else saved[rows, team]
    total = declaring_saved + team_points[rows, team]
    scores = np.zeros((count, 2), dtype=np.int64)
    scores[rows, team] = np.where(thrown | (total < contract), -contract, total)
    scores[rows, 1 - team] = np.where(
        thrown, team_meld[rows, 1 - team], saved[rows, 1 - team] + team_points[rows, 1 - team]
    )
    scores[declarer < 0] = 0
    return scores
