"""The partnership game's table as text (``str(game)`` and the environment's ``render()``)."""

from __future__ import annotations

from typing import Any

from ...cards import SUITS
from ...render import format_card_list, format_hand, header_line, meld_lines, trick_lines


def render_game(game: Any) -> str:
    """The whole deal of a partnership :class:`~.game.Game` as the table a kibitzer would see, all
    four hands included."""
    lines = [
        header_line(game),
        f"score  team 0 (players 0+2): {game.totals[0]}  team 1 (players 1+3): {game.totals[1]}",
    ]
    for seat in range(4):
        lines.append(f"  player {seat} (team {seat & 1}): {format_hand(game.hands[seat])}")
    if game.auction:
        lines.append("auction: " + ", ".join(f"p{seat} {call}" for seat, call in game.auction))
    if game.declarer >= 0:
        trump = SUITS[game.trump] if game.trump >= 0 else "?"
        lines.append(f"declarer: player {game.declarer}  contract: {game.contract}  trump: {trump}")
    if game.passed_to_declarer or game.passed_back:
        lines.append(
            f"passed to declarer: {format_card_list(game.passed_to_declarer)}"
            f"  passed back: {format_card_list(game.passed_back)}"
        )
    lines += meld_lines(game.melds)
    if game.thrown_in:
        lines.append("thrown in")
    lines += trick_lines(game, f"team 0 {game.trick_points[0]}, team 1 {game.trick_points[1]}")
    if game.score is not None:
        result = "thrown in" if game.thrown_in else ("made" if game.made else "set")
        lines.append(f"hand result: {result}; score team 0 {game.score[0]:+d}, team 1 {game.score[1]:+d}")
        if game.winner is not None:
            lines.append(f"game over: team {game.winner} wins")
    return "\n".join(lines)
