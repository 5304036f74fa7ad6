"""The two-handed game's table as text (``str(game)`` and the environment's ``render()``)."""

from __future__ import annotations

from typing import Any

from ...cards import SUITS, card_to_str
from ...render import format_card_list, format_hand, header_line


def render_game(game: Any) -> str:
    """A two-handed :class:`~.game.TwoHandGame` as the table a kibitzer sees, both hands included."""
    lines = [
        header_line(game),
        f"trump: {SUITS[game.trump]}  turn-up: {card_to_str(game.turn_up) if game.turn_up >= 0 else '-'}"
        f"  stock: {len(game.stock) - game.drawn} cards",
    ]
    for seat in range(len(game.concealed)):
        lines.append(
            f"  player {seat}: {format_hand(game.concealed[seat])}   table: {format_hand(game.table_counts(seat))}"
            f"   meld {game.meld_points[seat]}  tricks {game.trick_points[seat]}  game {game.totals[seat]}"
        )
    if game.trick:
        lines.append(f"trick (led by player {game.trick_leader}): {format_card_list(game.trick)}")
    if game.score is not None:
        won = f"  player {game.winner} wins the game" if game.winner is not None else ""
        lines.append(f"hand score: {game.score}{won}")
    return "\n".join(lines)
