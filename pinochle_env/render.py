"""Text rendering shared by the games: hands, the header, meld and trick lines of a table.

Each game draws its own table from these pieces (``pinochle_env/games/<game>/render.py``);
:func:`render_for_mode` is what an environment's ``render()`` does with it in each of the
:data:`RENDER_MODES` (which :func:`check_render_mode` enforces). :func:`format_table`
aligns the columns of every text table the project prints (documentation tables, arena reports).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from .cards import NUM_SUITS, RANKS, SUIT_OF, SUITS, card_to_str, cards_from_counts
from .table_image import table_image

# The render modes of every environment: the table as text, printed, or as an RGB image.
RENDER_MODES = ("ansi", "human", "rgb_array")


def format_hand(counts: list[int]) -> str:
    """A hand grouped by suit, strongest first: ``S: A T T K | H: ... ``."""
    cards = cards_from_counts(counts)
    groups = []
    for suit in range(NUM_SUITS):
        ranks = sorted((c for c in cards if SUIT_OF[c] == suit), reverse=True)
        groups.append(f"{SUITS[suit]}: " + (" ".join(RANKS[c % 6] for c in ranks) or "-"))
    return " | ".join(groups)


def header_line(game: Any) -> str:
    """The first line of any game's table: hand number, dealer, phase and who is to act."""
    line = f"hand {game.hand_number + 1}  dealer: player {game.dealer}  phase: {game.phase.name.lower()}"
    return line + (f"  to act: player {game.to_act}" if game.to_act >= 0 else "")


def meld_lines(melds: list) -> list[str]:
    """Each seat's meld (points and the melds shown), once melded (the auction games)."""
    if melds[0] is None:
        return []
    lines = []
    for seat, meld in enumerate(melds):
        shown = ", ".join(f"{name} {points}" for name, points in meld.melds) or "none"
        lines.append(f"  meld player {seat}: {meld.points:>4}  ({shown})")
    return lines


def trick_lines(game: Any, points: str) -> list[str]:
    """Tricks so far with the trick ``points`` (as the game words them), the last trick and the
    trick in progress (the auction games)."""
    if not (game.tricks or game.trick):
        return []
    lines = [f"tricks: {len(game.tricks)}  trick points: {points}"]
    if game.tricks:
        leader, cards, winner = game.tricks[-1]
        lines.append(f"  last trick (led by p{leader}): {format_card_list(cards)} -> p{winner}")
    if game.trick:
        lines.append(f"  trick in progress (led by p{game.trick_leader}): {format_card_list(game.trick)}")
    return lines


def format_card_list(cards: list[int]) -> str:
    """Cards in the order given, as ``TS AH 9C``."""
    return " ".join(map(card_to_str, cards))


def check_render_mode(render_mode: str | None) -> None:
    """Refuse a render mode that is not None or one of :data:`RENDER_MODES`, naming the allowed ones."""
    if render_mode not in (None, *RENDER_MODES):
        allowed = ", ".join(["None", *map(repr, RENDER_MODES)])
        raise ValueError(f"render_mode={render_mode!r} is not allowed; allowed values: {allowed}")


def render_for_mode(game: Any, render_mode: str | None) -> str | np.ndarray | None:
    """What an environment's ``render()`` gives: the table as a string for ``"ansi"``, printed for
    ``"human"``, drawn as an RGB array for ``"rgb_array"`` (:func:`table_image.table_image`), and a
    warning (and None) when the environment was made without a render mode."""
    if render_mode is None:
        gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi', 'human' or 'rgb_array'")
        return None
    text = str(game) if game is not None else "(not reset)"  # each variant's engine renders itself
    if render_mode == "ansi":
        return text
    if render_mode == "rgb_array":
        return table_image(text)
    print(text)
    return None


def format_table(headers: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1, ruled: bool = False) -> str:
    """Rows aligned under headers: the first ``left`` columns (names) left-aligned, the rest
    (figures) right-aligned. ``ruled`` draws ``===`` lines above and below the headers and below the rows: a
    reStructuredText simple table, which Markdown shows as preformatted text."""
    widths = [max(len(cell) for cell in column) for column in zip(headers, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        aligned = [
            cell.ljust(width) if k < left else cell.rjust(width)
            for k, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(aligned).rstrip()

    if not ruled:
        return "\n".join(line(row) for row in [headers, *rows])
    rule = "  ".join("=" * width for width in widths)
    return "\n".join([rule, line(headers), rule, *(line(row) for row in rows), rule])
