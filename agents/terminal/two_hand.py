"""The two-handed game's table in ``pinochle-play``: the turn-up and the stock, the meld turns, the dix
and the draws (see :mod:`.tables`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pinochle_env.cards import (
    COPIES,
    NINE,
    NUM_TYPES,
    SUIT_NAMES,
    SUITS,
    card_from_str,
    card_to_str,
    cards_from_counts,
    sorted_for_display,
)
from pinochle_env.cards import card as card_of
from pinochle_env.games.two_hand.game import NUM_TRICKS as TRICKS
from pinochle_env.games.two_hand.game import PHASE_TRICKS, Phase, TwoHandView
from pinochle_env.games.two_hand.melds import MELD_CARDS

from .tables import Table


class TwoHandTable(Table[TwoHandView]):
    """Two-handed Pinochle: turn-up trump, the stock, a meld turn after each trick won while it lasts
    (one meld, and the dix), then twelve tricks with strict rules."""

    PHASES = Phase
    NUM_TRICKS = TRICKS
    GAME_NAME = "two-handed game"
    PROMPTS: ClassVar[dict[str | None, str]] = {"play": "your card", "meld": "your meld"}
    ALIASES: ClassVar[dict[str, str]] = {"none": "no meld", "no": "no meld", "pass": "no meld"}
    MOVES = """  TS / 10S      play a card (rank 9 J Q K T A, then suit S H D C), from your hand or the table
  run, marriage H, pinochle, kings around, double pinochle, ...
                after winning a trick while the stock lasts: declare one meld
  dix exchange  exchange the nine of trump for the turn-up (10), besides the meld
  dix show      show the nine of trump (10), besides the meld
  no meld       end your meld turn (also 'done')"""

    def opponent(self) -> int:
        return 1 - self.seat

    def start_hand(self, view: TwoHandView, hand_number: int) -> None:
        turn_up = card_to_str(view.turn_up)
        self.say(f"\n== hand {hand_number + 1}: {self.name(view.dealer)} deals")
        self.say(f"trump: {SUIT_NAMES[view.trump]} (the turn-up {turn_up} lies under the stock)")
        if view.meld_points[view.dealer]:
            self.say(f"the turn-up is the dix: the dealer, {self.who(view.dealer)}, scores 10")
        self.say(f"your hand: {self.hand_text(view.hand, view.trump)}")

    # ------------------------------------------------------------------ narration

    def narrate(self, before: TwoHandView, after: TwoHandView, actor: int, forced: bool = False) -> None:
        plays = self.tell_plays(before, after, forced)
        entries = [entry for turn in after.melds for entry in turn][sum(map(len, before.melds)) :]
        for entry in entries:
            self.say(self.meld_line(entry, after.trump))
        if before.phase == Phase.MELD and not entries:  # the actor said "no meld"
            melded = any(entry["seat"] == actor for entry in after.melds[-1])
            self.say(f"{self.does(actor, 'ends')} the meld turn" if melded else f"{self.does(actor, 'makes')} no meld")
        if after.stock_size < before.stock_size:
            self.tell_draws(before, after, plays, entries)
        if before.phase != Phase.PLAY2 == after.phase:
            self.say(
                "the stock is gone: the melds go back to the hands, and from now on you must follow suit "
                "and beat the card led if you can, else trump"
            )
            self.say(f"your hand: {self.hand_text(after.hand, after.trump)}")
            self.say(f"{self.does(self.opponent(), 'holds')}: {self.cards_text(self.opponent_cards(after))}")

    def meld_line(self, entry: dict[str, Any], trump: int) -> str:
        seat, meld, points, cards = entry["seat"], entry["meld"], entry["points"], entry["cards"]
        if meld == "dix exchange":
            return f"{self.does(seat, 'exchanges')} the dix {cards[0]} for the turn-up {entry['took']} ({points})"
        if meld == "dix show":
            return f"{self.does(seat, 'shows')} the dix {cards[0]} ({points})"
        if meld == f"marriage {SUITS[trump]}":
            meld = "royal marriage"
        reused = list(cards)
        for card in entry["new"]:
            reused.remove(card)
        again = f" ({' '.join(reused)} from the table again)" if reused else ""
        return f"{self.does(seat, 'melds')} {meld} for {points}: {' '.join(cards)}{again}"

    def tell_draws(
        self, before: TwoHandView, after: TwoHandView, plays: list[tuple[int, int]], entries: list[dict[str, Any]]
    ) -> None:
        """The winner of the trick draws the top stock card, the loser the next, or the turn-up last.
        The person's own card is worked out from its hand (what it holds now, less what it held,
        plus what it played or exchanged away); the opponent's is never named, except the turn-up."""
        winner = after.tricks[-1][2]
        loser = 1 - winner
        gained = [now - then for now, then in zip(after.hand, before.hand, strict=True)]
        for seat, card in plays:
            gained[card] += seat == self.seat
        turn_up = before.turn_up
        for entry in entries:
            if entry["meld"] == "dix exchange":
                nine, took = card_from_str(entry["cards"][0]), card_from_str(entry["took"])
                turn_up = nine
                if entry["seat"] == self.seat:
                    gained[nine] += 1
                    gained[took] -= 1
        drawn = [card_to_str(c) for c in range(NUM_TYPES) for _ in range(max(gained[c], 0))]
        mine = drawn[0] if drawn else "a card"
        if after.stock_size == 0:
            last = f"the last stock card {mine}" if winner == self.seat else "the last stock card"
            self.say(
                f"{self.does(winner, 'draws')} {last}, {self.does(loser, 'takes')} the turn-up {card_to_str(turn_up)}"
            )
            return
        cards = {self.seat: mine, self.opponent(): "a card"}
        self.say(
            f"{self.does(winner, 'draws')} {cards[winner]}, {self.does(loser, 'draws')} {cards[loser]}; "
            f"{after.stock_size} card{'s' if after.stock_size > 1 else ''} left in the stock"
        )

    def opponent_cards(self, view: TwoHandView) -> list[int]:
        """The opponent's cards once the stock is gone: every card not in the person's hand or played."""
        counts = [COPIES - n for n in view.hand]
        for _, cards, _ in view.tricks:
            for card in cards:
                counts[card] -= 1
        for card in view.trick:
            counts[card] -= 1
        return cards_from_counts(counts)

    def cards_text(self, cards: Sequence[int]) -> str:
        return " ".join(card_to_str(c) for c in sorted_for_display(cards)) or "-"

    # ------------------------------------------------------------------ the person's turn

    def why_illegal(self, view: TwoHandView, action: int) -> str:
        layout = self.layout
        is_card = action < layout.meld0
        if view.phase == Phase.MELD and is_card:
            return "this is your meld turn: declare a meld, show or exchange the dix, or say 'no meld'"
        if view.phase != Phase.MELD and not is_card:
            return "you meld only in your meld turn, after winning a trick while the stock lasts"
        if is_card:
            card = action - layout.card0
            if not view.hand[card]:
                where = " (in your hand or on the table)" if view.phase == Phase.PLAY1 else ""
                return f"you do not hold {card_to_str(card)}{where}"
            return self.play_rule(view, card, "winner")
        nine = card_of(NINE, view.trump)
        if action in (layout.dix_show, layout.dix_exchange):
            if not view.concealed[nine]:
                return f"you hold no {card_to_str(nine)} in your hand (a dix comes from the hand, not the table)"
            return "the turn-up is gone or is itself a dix"
        if any(entry["seat"] == self.seat and not entry["meld"].startswith("dix") for entry in view.melds[-1]):
            return "you have made this turn's meld (one meld a turn, and the dix besides)"
        needs = " ".join(
            card_to_str(c) for c, copies in MELD_CARDS[view.trump][action - layout.meld0] for _ in range(copies)
        )
        return (
            f"it needs {needs}, at least one of them from your hand (a card on the table serves again only in "
            "another kind of meld, or a royal marriage in a run)"
        )

    # ------------------------------------------------------------------ what the person asks for

    def status(self, view: TwoHandView, hand_number: int) -> list[str]:
        stock = view.phase != Phase.PLAY2
        k = len(view.tricks) % PHASE_TRICKS + (1 if view.phase != Phase.MELD else 0)
        where = f"trick {k} of {PHASE_TRICKS} {'with' if stock else 'without'} the stock"
        lines = [f"{self.header(view, hand_number)}; {where}"]
        trump = f"trump: {SUIT_NAMES[view.trump]}"
        if view.turn_up >= 0:
            trump += f"; the turn-up {card_to_str(view.turn_up)} under {view.stock_size} stock cards"
        lines.append(trump)
        opponent = self.short_name(self.opponent())
        lines.append(
            f"meld: you {view.meld_points[self.seat]}, {opponent} {view.meld_points[self.opponent()]}; "
            f"trick points: you {view.trick_points[self.seat]}, {opponent} {view.trick_points[self.opponent()]}"
        )
        if stock:
            yours, theirs = (self.cards_text(cards_from_counts(view.table[s])) for s in (self.seat, self.opponent()))
            lines.append(f"on the table: yours {yours}; {opponent}'s {theirs}")
        if view.phase == Phase.MELD:
            lines.append("you won the trick: declare one meld (and the dix), or 'no meld'")
        else:
            played = ", ".join(f"{opponent} {card_to_str(c)}" for c in view.trick)
            lines.append(f"trick: {played or 'your lead'}")
        if not stock:
            lines.append(f"{opponent} holds: {self.cards_text(self.opponent_cards(view))}")
        return self.with_hand(lines, view.concealed if stock else view.hand, view.trump)

    def meld_table(self, view: TwoHandView) -> list[str]:
        lines = []
        for seat in (self.seat, self.opponent()):
            entries = [entry for turn in view.melds for entry in turn if entry["seat"] == seat]
            declared = [f"{entry['meld']} {entry['points']}" for entry in entries]
            if view.meld_points[seat] > sum(entry["points"] for entry in entries):
                declared.insert(0, "the turned-up dix 10")
            on_table = self.cards_text(cards_from_counts(view.table[seat]))
            lines.append(
                f"{self.short_name(seat)}: {view.meld_points[seat]} ({', '.join(declared) or 'nothing'}); "
                f"on the table: {on_table}"
            )
        return lines

    def hand_result(self, record: dict[str, Any]) -> list[str]:
        lines = ["hand over:"]
        for seat in (self.seat, self.opponent()):
            meld, points, score = record["meld"][seat], record["points"][seat], record["score"][seat]
            lines.append(f"  {self.short_name(seat)}: meld {meld} + tricks {points} = {score}")
        lines.append(f"game: {self.scores(record['totals'])}")
        if record["game_winner"] is not None:
            lines.append(self.winner_line(record["game_winner"]))
        return lines
