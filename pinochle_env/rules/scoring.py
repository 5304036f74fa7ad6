"""Counting and scoring: trick points, whether a side keeps its meld, a hand's score and a game's
winner."""

from __future__ import annotations

from typing import NamedTuple

from ..cards import (
    COPIES,
    COUNTING_VALUES,
    LAST_TRICK_BONUS,
    NUM_TYPES,
    RANK_OF,
)

# --------------------------------------------------------------------------------------------
# Scoring (docs/rules.md, section 8)


def deck_points(counting: str) -> int:
    """The trick points of a whole hand under ``counting``: every card of the deck and the last
    trick (250 under each counting)."""
    values = COUNTING_VALUES[counting]
    return COPIES * sum(values[RANK_OF[c]] for c in range(NUM_TYPES)) + LAST_TRICK_BONUS


def trick_points(cards: list[int] | tuple[int, ...], values: dict[int, int], last: bool) -> int:
    """Points of the cards of one trick under a counting table, with the last-trick bonus."""
    total = LAST_TRICK_BONUS if last else 0
    for c in cards:
        total += values[RANK_OF[c]]
    return total


def meld_kept(
    declaring: bool, points: int, tricks: int, save_meld: str = "points", save_meld_applies_to: str = "defenders"
) -> bool:
    """Whether a side that took ``points`` trick points in ``tricks`` tricks keeps its meld in a played
    hand (docs/rules.md, section 8, "save meld"); ``declaring`` says if it is the declaring side."""
    if save_meld == "none" or (declaring and save_meld_applies_to == "defenders"):
        return True
    return points >= 1 if save_meld == "points" else tricks >= 1


class HandScore(NamedTuple):
    """A hand's result per team: ``score`` is this hand's change, ``made`` says if D made it."""

    score: tuple[int, int]
    made: bool


def score_hand(
    declaring_team: int,
    bid: int,
    meld: tuple[int, int] | list[int],
    points: tuple[int, int] | list[int],
    tricks: tuple[int, int] | list[int],
    thrown_in: bool,
    save_meld: str = "points",
    save_meld_applies_to: str = "defenders",
) -> HandScore:
    """Score one hand per team (team index 0 / 1) by docs/rules.md, section 8."""
    defending_team = 1 - declaring_team
    score = [0, 0]
    if thrown_in:
        score[declaring_team] = -bid
        score[defending_team] = meld[defending_team]
        return HandScore((score[0], score[1]), False)

    def saved(team: int) -> int:
        kept = meld_kept(team == declaring_team, points[team], tricks[team], save_meld, save_meld_applies_to)
        return meld[team] if kept else 0

    total = saved(declaring_team) + points[declaring_team]
    made = total >= bid
    score[declaring_team] = total if made else -bid
    score[defending_team] = saved(defending_team) + points[defending_team]
    return HandScore((score[0], score[1]), made)


def game_winner(totals: tuple[int, int] | list[int], declaring_team: int, target: int) -> int | None:
    """The team that has won after a hand (the declaring team if both reached ``target``), or None."""
    over = [team for team in (0, 1) if totals[team] >= target]
    if not over:
        return None
    return declaring_team if len(over) == 2 else over[0]
