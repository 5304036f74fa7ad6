"""Replaying hand records, for every game: one loop, each game supplying how a hand starts and
which action its record holds at each decision.

A game module gives ``start(record) -> game`` (the hand as dealt, totals as they stood before it)
and ``next_action(game, record, cursor) -> int`` (the record's action at the game's current
decision; ``cursor`` is a dict in which it counts its way through the record's lists, see
:func:`take`). :func:`recorded_decisions` and :func:`replay_record` do the rest, the same way for
every game. :func:`auction_action` reads the decisions the two auction games share.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from .cards import card_from_str, suit_from_str
from .engine import is_integer

Start = Callable[[dict[str, Any]], Any]
NextAction = Callable[[Any, dict[str, Any], dict[str, int]], int]


def take(cursor: dict[str, int], key: str) -> int:
    """The next index into the record's list ``key`` (0, 1, 2, ... on successive calls)."""
    index = cursor.get(key, 0)
    cursor[key] = index + 1
    return index


def recorded_decisions(record: dict[str, Any], start: Start, next_action: NextAction) -> Iterator[tuple[Any, int, int]]:
    """Each decision of a recorded hand as ``(game, seat, action)``, the game as it stands *before*
    the action (the same object, advanced after each yield: clone it to keep it). ``ValueError``
    names the decision the record has no valid action for, and a hand that cannot be set up from the
    record (no deal or dealer, totals or a score of the wrong shape)."""
    if record.get("deal") is None or record.get("dealer") is None:  # None would deal at random
        raise ValueError("the record has no deal or no dealer")
    try:
        game = start(record)
    except (AttributeError, IndexError, KeyError, TypeError) as error:
        raise ValueError(f"the record's hand cannot be set up from it: {error!r}") from None
    cursor: dict[str, int] = {}
    while not game.hand_over:
        try:
            action = next_action(game, record, cursor)
        except (AttributeError, IndexError, KeyError, TypeError, ValueError) as error:
            where = f"player {game.to_act} in phase {game.phase.name.lower()}"
            raise ValueError(f"the record has no valid decision for {where}: {error!r}") from None
        yield game, game.to_act, action
        game.apply(action)


def replay_record(
    record: dict[str, Any],
    start: Start,
    next_action: NextAction,
    keys: tuple[str, ...],
    upto: int | None = None,
) -> Any:
    """The game after replaying ``record``: the whole hand, or only its first ``upto`` decisions (a
    whole number from 0; past the hand's last decision, the whole hand, as a slice would stop).

    After a whole hand the replay's ``keys`` must equal the record's, or ``ValueError`` says which
    differ (an edited record); an illegal decision names itself.
    """
    if upto is not None and (not is_integer(upto) or upto < 0):
        raise ValueError(f"upto={upto!r} must be a whole number of decisions >= 0")
    game = None
    for done, (game, _, _) in enumerate(recorded_decisions(record, start, next_action)):
        if done == upto:
            return game
    # The generator applies each action after yielding it: ``game`` is now the finished hand.
    if game is not None:
        replayed = game.record()
        differ = [key for key in keys if replayed[key] != record.get(key)]
        if differ:
            raise ValueError(f"the record's {', '.join(differ)} differ from its replay (an edited record?)")
    return game


def auction_action(game: Any, record: dict[str, Any], cursor: dict[str, int]) -> int:
    """The record's action in a phase the auction games share: a call of the auction, the trump,
    the throw-in choice or a card played (``tricks`` in play order, ``NUM_SEATS`` cards each)."""
    layout = game.layout
    decision = game.phase.decision
    if decision == "auction":
        seat, call = record["auction"][take(cursor, "auction")]
        if seat != game.to_act:
            raise ValueError(f"record's auction has player {seat} calling where player {game.to_act} is to act")
        if call == "pass" or (call == "help" and game.HELP_CALL):
            return layout.passing if call == "pass" else layout.help
        if type(call) is not int:
            raise ValueError(f"auction call {call!r} is not a bid or a pass")
        return layout.bid_action(call)
    if decision == "trump":
        return layout.trump_action(suit_from_str(record["trump"]))
    if decision == "throw_in":
        return layout.throw_in if record["thrown_in"] else layout.play_on
    if decision != "play":
        raise ValueError(f"no recorded decision of phase {game.phase.name.lower()} here")
    index, seats = take(cursor, "card"), game.NUM_SEATS
    return layout.card_action(card_from_str(record["tricks"][index // seats]["cards"][index % seats]))
