"""Text rendering of a game: hands, auction, meld, trick and scores as a plain-text table."""
from __future__ import annotations
def render_game(game) -> str:
    return ""
