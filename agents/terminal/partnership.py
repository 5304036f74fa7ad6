"""The partnership game's table in ``pinochle-play``: passing to the partner, help, two teams (see
:mod:`.tables`)."""

from __future__ import annotations

from pinochle_env.cards import (
    format_cards,
)
from pinochle_env.games.partnership.game import NUM_TRICKS as TRICKS
from pinochle_env.games.partnership.game import Phase, PlayerView

from .tables import AuctionTable


class PartnershipTable(AuctionTable[PlayerView]):
    """Partnership Pinochle: four players, partners opposite, passing between declarer and partner."""

    PHASES = Phase
    NUM_TRICKS = TRICKS
    GAME_NAME = "partnership game"
    MOVES = """  260           bid 260 ({raises})
  pass / help   pass, or pass with help (tells your partner you hold help)
  hearts / H    name trump
  TS / 10S      pass or play a card (rank 9 J Q K T A, then suit S H D C)
  AC TC 9H QS   pass several cards at once
  throw / play  throw the hand in, or play it out (declarer, after meld)"""

    def partner(self, seat: int) -> int:
        return (seat + 2) % self.num_seats

    def seat_note(self) -> str:
        return f" (team {self.teams[self.seat]}, with player {self.partner(self.seat)})"

    def cards_to_pass(self, view: PlayerView) -> int | None:
        if view.phase not in (Phase.PASS_TO_DECLARER, Phase.PASS_BACK):
            return None
        return int(self.rules.pass_count - len(view.cards_passed))

    def prompt(self, view: PlayerView) -> str:
        left = self.cards_to_pass(view)
        if left is None:
            return self.PROMPTS[view.phase.decision]
        more = " more" if view.cards_passed else ""
        back = " back" if view.phase == Phase.PASS_BACK else ""
        return f"pass {left}{more} card{'s' if left > 1 else ''}{back} to your partner"

    def tell_cards_moved(self, before: PlayerView, after: PlayerView, actor: int) -> None:
        if before.phase not in (Phase.PASS_TO_DECLARER, Phase.PASS_BACK):
            return
        receiver = self.partner(actor)
        received = after.cards_received[len(before.cards_received) :]
        card: int | None = None
        if actor == self.seat:
            card = after.cards_passed[-1]
        elif receiver == self.seat and self.rules.sees_passed_card(actor, self.seat):
            card, received = received[0], []
        self.transfer(actor, receiver, card)
        if received:  # simultaneous passing: both sets change hands after the last card
            self.say(f"you receive {' '.join(format_cards(received))} from {self.who(self.partner(self.seat))}")

    def transfer_line(self, mover: int, receiver: int, cards: list[int | None]) -> str:
        return f"{self.does(mover, 'passes')} {self.face_down(cards)} to {self.who(receiver)}"
