"""The cutthroat game's table as text (``str(game)`` and the environment's ``render()``)."""

from __future__ import annotations

from typing import Any

from ...cards import SUITS
from ...render import format_card_list, format_hand, header_line, meld_lines, trick_lines


def render_game(game: Any) -> str:
    """A cutthroat :class:`~.game.CutthroatGame` as the table a kibitzer sees, all hands, the widow
    and the buried cards included."""
    lines = [
        header_line(game),
        "score  " + "  ".join(f"player {seat}: {total}" for seat, total in enumerate(game.totals)),
    ]
    lines += [f"  player {seat}: {format_hand(game.hands[seat])}" for seat in range(len(game.hands))]
    shown = " (shown, taken by the declarer)" if game.widow_shown else ""
    lines.append(f"widow{shown}: {format_card_list(game.widow)}")
    if game.auction or game.stuck:
        calls = ", ".join(f"p{seat} {call}" for seat, call in game.auction)
        lines.append(f"auction: {calls}" + ("  (dealer stuck at 250)" if game.stuck else ""))
    if game.declarer >= 0:
        trump = SUITS[game.trump] if game.trump >= 0 else "?"
        lines.append(f"declarer: player {game.declarer}  contract: {game.contract}  trump: {trump}")
    lines += meld_lines(game.melds)
    if game.buried:
        lines.append(f"buried: {format_card_list(game.buried)}")
    if game.thrown_in:
        lines.append("thrown in")
    lines += trick_lines(game, ", ".join(f"p{seat} {p}" for seat, p in enumerate(game.trick_points)))
    if game.score is not None:
        result = "thrown in" if game.thrown_in else ("made" if game.made else "set")
        changes = ", ".join(f"player {seat} {change:+d}" for seat, change in enumerate(game.score))
        lines.append(f"hand result: {result}; score {changes}")
        if game.winner is not None:
            lines.append(f"game over: player {game.winner} wins")
    return "\n".join(lines)
