"""The cutthroat game's table in ``pinochle-play``: the widow and the buried cards (see :mod:`.tables`)."""

from __future__ import annotations

from typing import Any

from pinochle_env.cards import (
    NUM_TYPES,
    card_to_str,
    format_cards,
    sorted_for_display,
)
from pinochle_env.games.cutthroat.game import BURY_COUNT, CutthroatView, Phase
from pinochle_env.games.cutthroat.game import NUM_TRICKS as TRICKS

from .tables import AuctionTable


class CutthroatTable(AuctionTable[CutthroatView]):
    """Cutthroat: three players, each for itself; the declarer takes the widow and buries 3 cards."""

    PHASES = Phase
    NUM_TRICKS = TRICKS
    GAME_NAME = "cutthroat (three-handed) game"
    DECLARING = "declarer"
    PASS_VERB = "bury"
    MOVES = """  260           bid 260 ({raises})
  pass          pass (for the rest of the auction)
  hearts / H    name trump (declarer, after taking the widow)
  TS / 10S      bury or play a card (rank 9 J Q K T A, then suit S H D C)
  9S JD QC      bury several cards at once (declarer: cards you did not meld)
  throw / play  throw the hand in, or play it out (declarer, after burying)"""

    def cards_to_pass(self, view: CutthroatView) -> int | None:
        return BURY_COUNT - len(view.buried) if view.phase == Phase.BURY else None

    def prompt(self, view: CutthroatView) -> str:
        left = self.cards_to_pass(view)
        if left is None:
            return self.PROMPTS[view.phase.decision]
        return f"bury {left}{' more' if view.buried else ''} card{'s' if left > 1 else ''}"

    def tell_auction_end(self, view: CutthroatView) -> None:
        super().tell_auction_end(view)
        widow = " ".join(format_cards(sorted_for_display(view.widow)))
        self.say(f"the widow: {widow}; {self.does(view.declarer, 'takes')} it")

    def tell_cards_moved(self, before: CutthroatView, after: CutthroatView, actor: int) -> None:
        if before.phase == Phase.BURY:
            self.transfer(actor, actor, after.buried[-1] if actor == self.seat else None)

    def transfer_line(self, mover: int, receiver: int, cards: list[int | None]) -> str:
        return f"{self.does(mover, 'buries')} {self.face_down(cards)}"

    def status_extra(self, view: CutthroatView) -> list[str]:
        lines = []
        if view.widow:
            widow = " ".join(format_cards(sorted_for_display(view.widow)))
            lines.append(f"widow: {widow} (taken by {self.name(view.declarer)})")
        if view.buried:
            lines.append(f"you buried: {' '.join(format_cards(view.buried))}")
        return lines

    def why_illegal(self, view: CutthroatView, action: int) -> str:
        card = action - self.layout.card0
        if view.phase == Phase.BURY and 0 <= card < NUM_TYPES and view.hand[card]:
            return f"{card_to_str(card)} is in your meld, and you hold other cards to bury"
        return super().why_illegal(view, action)

    def bid_rule(self, view: CutthroatView, action: int) -> str:
        if action == self.layout.help:
            return "there is no pass with help in the three-handed game (nobody has a partner)"
        return super().bid_rule(view, action)

    def point_parts(self, record: dict[str, Any], team: int) -> list[str]:
        """The declarer's buried cards count for it besides its tricks."""
        buried = record["buried_points"] if team == record["declarer"] else 0
        tricks = f"tricks {record['points'][team] - buried}"
        return [tricks, f"buried {buried}"] if buried else [tricks]
