"""The table as the browser draws it: one JSON-ready dict per moment of a game.

:func:`table_state` presents a game from one seat's point of view, built from that seat's
information-set view (``game.view(seat)``) and the public facts of the engine protocol (running
totals, how many cards each seat holds, the result of a finished hand), so a person at the table
is sent nothing its seat may not know: the other hands go out as card counts only. Replay may
instead show every hand face up (``viewer=None``); only then are the engine's hidden piles read
(the cutthroat widow before it is shown and the buried cards, the two-handed stock).

What differs between the games (auction or none, widow, stock, melds on the table) is presented
by one small function per game (``<game>_parts``, named by the game's kit: ``web_table``); the
rest is shared. Seats are absolute;
``position`` says where each is drawn with ``bottom`` at the bottom of the screen.
"""

from __future__ import annotations

import pkgutil
from collections.abc import Callable, Sequence
from typing import Any

from pinochle_env.cards import NUM_TYPES, SUITS, card_to_str, cards_from_counts, format_cards, sorted_for_display
from pinochle_env.games.kit import variant_kit
from pinochle_env.rules import play_refusal

#: Where each seat is drawn, by its place clockwise from the seat at the bottom.
POSITIONS = {4: ("bottom", "left", "top", "right"), 3: ("bottom", "left", "right"), 2: ("bottom", "top")}

#: What the person is asked to do, by phase name (every game's phases).
PROMPTS = {
    "AUCTION": "Your call: bid or pass",
    "TRUMP": "Name trump",
    "PASS_TO_DECLARER": "Pass a card to your partner, the declarer",
    "PASS_BACK": "Pass a card back to your partner",
    "BURY": "Bury a card",
    "THROW_IN": "Throw the hand in, or play it out",
    "PLAY": "Play a card",
    "PLAY1": "Play a card (any card while the stock lasts)",
    "MELD": "Meld, show or exchange the dix, or end your meld turn",
    "PLAY2": "Play a card: follow suit and beat if you can, else trump",
}

#: Where a hand stands, in words, by phase name (every game's phases): the side panel's heading.
PHASE_TITLES = {
    "AUCTION": "Auction",
    "TRUMP": "Naming trump",
    "PASS_TO_DECLARER": "Passing to the declarer",
    "PASS_BACK": "Passing back",
    "BURY": "Burying",
    "THROW_IN": "Throw in or play",
    "PLAY": "Trick play",
    "PLAY1": "Play while the stock lasts",
    "MELD": "Meld turn",
    "PLAY2": "Play-out, the stock gone",
    "HAND_OVER": "Hand over",
}

#: Keys of a finished hand's record that are public and that the result panel shows.
RESULT_KEYS = ("score", "totals", "points", "meld", "made", "thrown_in", "bid", "declarer", "buried_points")


def cards_text(counts: Sequence[int]) -> list[str]:
    """The cards of a count vector as strings, by suit, strongest first (as a hand is held)."""
    return format_cards(sorted_for_display(cards_from_counts(counts)))


def table_state(game: Any, viewer: int | None, bottom: int | None = None) -> dict[str, Any]:
    """The table now, as ``viewer`` may see it (``None``: every hand face up), with ``bottom``
    (default: the viewer, else seat 0) drawn at the bottom. JSON-ready."""
    rules = game.rules
    kit = variant_kit(rules)
    seats = kit.num_seats
    bottom = bottom if bottom is not None else (viewer if viewer is not None else 0)
    # Whose view the public facts come from: the viewer's, or (all hands shown) the seat to act.
    view = game.view(viewer if viewer is not None else (game.to_act if game.to_act >= 0 else bottom))
    layout = game.layout
    held = [list(counts) for counts in game.hands]
    parts = _game_parts(rules)(game, view, viewer)
    on_table = parts.pop("table_cards")
    meld = parts.pop("seat_meld")
    state: dict[str, Any] = {
        "variant": rules.variant,
        "rules": rules.to_dict(),
        "viewer": viewer,
        "bottom": bottom,
        "hand_number": game.hand_number,
        "dealer": game.dealer,
        "phase": view.phase.name.lower(),
        "phase_title": PHASE_TITLES[view.phase.name],
        "decision": view.phase.decision,
        "to_act": game.to_act,
        "trump": SUITS[view.trump] if view.trump >= 0 else None,
        "seats": [],
        "trick": {
            "leader": view.trick_leader,
            "cards": [[(view.trick_leader + i) % seats, card_to_str(c)] for i, c in enumerate(view.trick)],
        },
        "last_trick": _trick(view.tricks[-1]) if view.tricks else None,
        "tricks_played": len(view.tricks),
        "hand_over": game.hand_over,
        "game_over": game.game_over,
        "winner": game.winner,
        **parts,
    }
    for seat in range(seats):
        concealed = [n - t for n, t in zip(held[seat], on_table[seat], strict=True)]
        shown = viewer is None or seat == viewer
        state["seats"].append(
            {
                "seat": seat,
                "position": POSITIONS[seats][(seat - bottom) % seats],
                "relative": kit.seat_names[(seat - bottom) % seats],
                "team": kit.teams[seat],
                "cards": cards_text(concealed) if shown else None,
                "count": sum(concealed),
                "table": cards_text(on_table[seat]),
                "meld": meld[seat],
                "tricks": sum(1 for _, _, winner in view.tricks if winner == seat),
            }
        )
    state["teams"] = _teams(game, view, kit.teams, state["seats"])
    state["result"] = _result(game) if game.hand_over else None
    state["legal"] = []
    state["refused"] = {}
    state["prompt"] = None
    if viewer is not None and game.to_act == viewer:
        state["legal"] = [_action(layout, a) for a in view.legal_actions]
        state["refused"] = _refusals(view, layout, held[viewer])
        state["prompt"] = PROMPTS[view.phase.name] + _progress(view)
    return state


def _trick(trick: tuple[int, list[int], int]) -> dict[str, Any]:
    leader, cards, winner = trick
    seats = len(cards)
    return {
        "leader": leader,
        "cards": [[(leader + i) % seats, card_to_str(c)] for i, c in enumerate(cards)],
        "winner": winner,
    }


def _teams(game: Any, view: Any, teams: Sequence[int], seats: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per team (a seat where there are no partners): its seats, running total, this hand's
    tricks, trick points and meld."""
    out = []
    for team in range(max(teams) + 1):
        members = [seat for seat, t in enumerate(teams) if t == team]
        melds = [seats[seat]["meld"] for seat in members]
        out.append(
            {
                "team": team,
                "seats": members,
                "total": game.totals[team],
                "tricks": sum(seats[seat]["tricks"] for seat in members),
                "points": view.trick_points[team],
                "meld": sum(m["points"] for m in melds) if all(m is not None for m in melds) else None,
            }
        )
    return out


def _result(game: Any) -> dict[str, Any]:
    """A finished hand's result: the public part of its record (no deal)."""
    record = game.record()
    return {key: record[key] for key in RESULT_KEYS if key in record}


def _action(layout: Any, action: int) -> dict[str, Any]:
    """A legal action as the buttons and cards need it: id, name and, for a card, the card."""
    card = action - layout.card0
    is_card = 0 <= card < NUM_TYPES
    return {"action": action, "name": layout.to_string(action), "card": card_to_str(card) if is_card else None}


def _refusals(view: Any, layout: Any, held: list[int]) -> dict[str, str]:
    """Why each card the viewer holds may not be chosen now, when the decision is a card's.

    A card decision refuses a held card either in trick play (the rule it breaks) or, in the
    cutthroat burial (the only card decision besides play that refuses held cards), because the
    card shows in the declarer's meld while other cards remain to bury.
    """
    legal_cards = {a - layout.card0 for a in view.legal_actions if 0 <= a - layout.card0 < NUM_TYPES}
    if not legal_cards:
        return {}
    reasons = {}
    for card in range(NUM_TYPES):
        if held[card] and card not in legal_cards:
            if view.phase.decision == "play":
                reasons[card_to_str(card)] = play_refusal(held, view.trick, view.trump, card, view.rules.head_rule)
            else:
                reasons[card_to_str(card)] = "it shows in your meld: bury cards outside your meld first"
    return reasons


def _progress(view: Any) -> str:
    """How far a run of card decisions has got: `` (2 of 4)`` while passing or burying."""
    name = view.phase.name
    if name in ("PASS_TO_DECLARER", "PASS_BACK"):
        return f" ({len(view.cards_passed) + 1} of {view.rules.pass_count})"
    if name == "BURY":
        return f" ({len(view.buried) + 1} of 3)"
    return ""


def _meld(meld: Any) -> dict[str, Any] | None:
    """An auction game's meld of one seat (``rules.Meld``) once melded: points, melds, cards shown."""
    if meld is None:
        return None
    return {"points": meld.points, "melds": [list(m) for m in meld.melds], "cards": cards_text(meld.shown)}


def _auction_parts(view: Any) -> dict[str, Any]:
    """What the two auction games show alike: the calls, the contract and its declarer."""
    return {
        "auction": [[seat, call] for seat, call in view.auction],
        "high_bid": view.high_bid or None,
        "declarer": view.declarer if view.declarer >= 0 else None,
        "contract": view.contract or None,
        "thrown_in": view.thrown_in,
        "seat_meld": [_meld(m) for m in view.meld],
        "table_cards": [[0] * NUM_TYPES for _ in view.meld],
    }


def partnership_parts(game: Any, view: Any, viewer: int | None) -> dict[str, Any]:
    """The partnership game: the auction, and the cards the viewer passed and received."""
    return {
        **_auction_parts(view),
        "passed": format_cards(view.cards_passed),
        "received": format_cards(view.cards_received),
    }


def cutthroat_parts(game: Any, view: Any, viewer: int | None) -> dict[str, Any]:
    """Cutthroat: the auction, the widow (once shown) and the buried cards (the declarer's, or all
    hands shown)."""
    revealed = viewer is None
    return {
        **_auction_parts(view),
        "widow": cards_text_of(game.widow if revealed else view.widow),
        "widow_shown": bool(view.widow),
        "buried": cards_text_of(game.buried if revealed else view.buried),
    }


def two_hand_parts(game: Any, view: Any, viewer: int | None) -> dict[str, Any]:
    """The two-handed game: turn-up, stock, the cards melded on the table and each seat's melds."""
    melds: list[list[list[Any]]] = [[] for _ in range(len(view.table))]
    for entries in view.melds:
        for entry in entries:
            melds[entry["seat"]].append([entry["meld"], entry["points"]])
    return {
        "turn_up": card_to_str(view.turn_up) if view.turn_up >= 0 else None,
        "stock": view.stock_size,
        "stock_cards": format_cards(game.stock_left) if viewer is None else None,
        "seat_meld": [
            {"points": points, "melds": melds[seat], "cards": []} for seat, points in enumerate(view.meld_points)
        ],
        "table_cards": [list(counts) for counts in view.table],
    }


def cards_text_of(cards: Sequence[int]) -> list[str]:
    """Card types (a list, not counts) as strings, by suit, strongest first."""
    return format_cards(sorted_for_display(cards))


def _game_parts(rules: Any) -> Callable[[Any, Any, int | None], dict[str, Any]]:
    """The function presenting what only the game of ``rules`` has: ``(game, view, viewer) -> dict``,
    with ``seat_meld`` (each seat's meld) and ``table_cards`` (each seat's cards on the table, as
    counts) besides the game's own keys; its kit names it (``VariantKit.web_table``)."""
    parts: Callable[[Any, Any, int | None], dict[str, Any]] = pkgutil.resolve_name(variant_kit(rules).web_table)
    return parts
