"""The arena's results: per-pairing statistics, ratings and cross table, and their outputs.

:func:`summarise` turns results-file lines (see :mod:`agents.arena.play`) into one summary dict;
:func:`format_summary`, :func:`write_csv`, :func:`write_json`, :func:`write_plot` (margins) and
:func:`write_ratings_plot` (a round robin's ratings) present it.
Margins are always A's team score minus B's, per hand (without partners, A's score minus the mean
of the others'; every seat is a team there). A deal pair's margin is the mean of its plays (one
per team A takes: two, or three in cutthroat), and the margin interval is the paired Student t interval over deal pairs
(:func:`agents.arena.stats.mean_interval`). Game win rates use the Wilson interval over single games
(a draw, equal totals at the hand cap, counts half); as the two games of a pair are played on the
same deals with the teams swapped, their outcomes are negatively correlated where card luck
matters, which makes that interval conservative.
"""

from __future__ import annotations

import csv
import json
import math
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from pinochle_env.games.registry import DEFAULT_VARIANT
from pinochle_env.records import dealer_stuck
from pinochle_env.render import format_table
from pinochle_env.rules.switches import Rules

from .play import SIDES
from .stats import fit_elo, mean_interval, wilson_interval

Line = dict[str, Any]
#: The keys of a hand record the summary reads (the two-handed game has no auction: no declarer,
#: auction, bid, made or thrown_in).
HAND_KEYS = (
    "variant",
    "score",
    "declarer",
    "auction",
    "bid",
    "made",
    "thrown_in",
    "meld",
    "points",
    "totals",
    "game_winner",
)


def slim_line(line: Line) -> Line:
    """A results-file line with only what :func:`summarise` reads: keeps a long run's memory small."""
    plays = [
        {
            "a_team": play["a_team"],
            "hands": [{key: hand[key] for key in HAND_KEYS if key in hand} for hand in play["hands"]],
        }
        for play in line["plays"]
    ]
    return {**line, "plays": plays}


def summarise(lines: list[Line], agents: list[str], confidence: float = 0.95) -> dict[str, Any]:
    """The whole report of a run: every pairing, and ratings with a cross table for 3+ agents.

    Pairings are every pair of ``agents`` in order (A before B); lines of other pairings are ignored.
    """
    pairings = [(a, b) for i, a in enumerate(agents) for b in agents[i + 1 :]]
    by_pairing: dict[tuple[str, str], list[Line]] = {pairing: [] for pairing in pairings}
    for line in sorted(lines, key=lambda line: (line["kind"], line["id"])):
        by_pairing.get((line["a"], line["b"]), []).append(line)
    summary: dict[str, Any] = {
        "agents": list(agents),
        "confidence": confidence,
        "pairings": [_pairing(a, b, by_pairing[a, b], confidence) for a, b in pairings],
        "speed": _speed([line for pairing in pairings for line in by_pairing[pairing]]),
    }
    if len(agents) > 2:
        summary["ratings"] = _ratings(agents, by_pairing, confidence)
        summary["cross_table"] = _cross_table(agents, summary["pairings"])
    return summary


def deal_pair_margin(line: Line) -> float:
    """A's mean margin per hand over the plays of a deal pair."""
    margins = [_hand_margin(hand, play["a_team"]) for play in line["plays"] for hand in play["hands"]]
    return float(np.mean(margins))


def _hand_margin(hand: dict[str, Any], a_team: int) -> float:
    """A's team score minus the mean of the other teams' (B's) in one hand."""
    scores = hand["score"]
    return scores[a_team] - (sum(scores) - scores[a_team]) / (len(scores) - 1)


def _teams(hand: dict[str, Any]) -> tuple[int, ...]:
    """The team of each seat in a hand's variant (records made before the variants name none)."""
    return Rules(variant=hand.get("variant", DEFAULT_VARIANT)).teams


def _pairing(a: str, b: str, lines: list[Line], confidence: float) -> dict[str, Any]:
    """Statistics of one pairing: margin, games, and per-side contract and point figures."""
    deal_lines = [line for line in lines if line["kind"] == "deal"]
    game_lines = [line for line in lines if line["kind"] == "game"]
    margin = mean_interval([deal_pair_margin(line) for line in deal_lines], confidence)
    hands = [(hand, play["a_team"]) for line in lines for play in line["plays"] for hand in play["hands"]]
    return {
        "a": a,
        "b": b,
        "deal_pairs": len(deal_lines),
        "margin": margin.to_dict(),
        "games": _games(game_lines, confidence),
        "sides": {side: _side(hands, side) for side in SIDES},
    }


def game_score(play: dict[str, Any]) -> float:
    """A's result in one played game: 1 won, 0 lost, 0.5 drawn (A level with the best of the others
    at the hand cap)."""
    last = play["hands"][-1]
    a_team = play["a_team"]
    winner = last["game_winner"]
    if winner is not None:
        return 1.0 if winner == a_team else 0.0
    totals = last["totals"]
    best_other = max(total for team, total in enumerate(totals) if team != a_team)
    return 1.0 if totals[a_team] > best_other else 0.5 if totals[a_team] == best_other else 0.0


def _games(lines: list[Line], confidence: float) -> dict[str, Any]:
    """Game-level results of a pairing: A's wins and win rate with its Wilson interval."""
    plays = [play for line in lines for play in line["plays"]]
    scores = [game_score(play) for play in plays]
    return {
        "pairs": len(lines),
        "played": len(plays),
        "a_wins": scores.count(1.0),
        "draws": scores.count(0.5),
        "capped": sum(play["hands"][-1]["game_winner"] is None for play in plays),
        "win_rate": wilson_interval(sum(scores), len(plays), confidence).to_dict(),
        "hands_per_game": float(np.mean([len(play["hands"]) for play in plays])) if plays else math.nan,
    }


def _side(hands: list[tuple[dict[str, Any], int]], side: str) -> dict[str, float]:
    """Contract and point figures of one side over all of a pairing's hands.

    ``declared`` is the share of hands the side declared and ``stuck`` the share it declared as a
    dealer stuck at the minimum bid (:func:`pinochle_env.records.dealer_stuck`); ``bid``, ``made``,
    ``set`` and ``thrown_in`` are over the hands it declared (NaN in the two-handed game, which has no
    auction); ``meld``, ``tricks`` and ``score`` are its team's points per hand (all hands; for
    B in cutthroat, the mean of its two players).
    """
    own = []  # (hand, the side's teams, the team of each seat)
    for hand, a_team in hands:
        teams = _teams(hand)
        own.append((hand, {a_team} if side == "a" else set(teams) - {a_team}, teams))
    declared = [hand for hand, mine, teams in own if hand.get("declarer", -1) >= 0 and teams[hand["declarer"]] in mine]
    count = len(declared)
    thrown = sum(bool(hand["thrown_in"]) for hand in declared)
    made = sum(bool(hand["made"]) for hand in declared)

    def per_team(key: str, hand: dict[str, Any], mine: set[int], teams: tuple[int, ...]) -> float:
        values = hand[key]
        if len(values) == len(teams) and key == "meld":  # meld is per seat: add up each team's seats
            values = [sum(v for seat, v in enumerate(values) if teams[seat] == team) for team in range(max(teams) + 1)]
        return sum(values[team] for team in mine) / len(mine)

    return {
        "declared": _ratio(count, len(own)),
        "stuck": _ratio(sum(dealer_stuck(hand) for hand in declared), len(own)),
        "bid": _ratio(sum(hand["bid"] for hand in declared), count),
        "made": _ratio(made, count),
        "set": _ratio(count - made - thrown, count),
        "thrown_in": _ratio(thrown, count),
        **{
            name: _ratio(sum(per_team(key, hand, mine, teams) for hand, mine, teams in own), len(own))
            for name, key in (("meld", "meld"), ("tricks", "points"), ("score", "score"))
        },
    }


def _ratio(total: float, count: float) -> float:
    return total / count if count else math.nan


def _speed(lines: list[Line]) -> dict[str, dict[str, float | None]]:
    """Decisions, seconds and decisions per second of each agent spec over all units it played, and
    the card decisions it searched, how many its budget cut short and how many of those its time
    budget cut (counted in results files written since 2026-12-07, the time budget's part since
    commit e5de827 of the same day: 0 searched in older lines, and ``cut_on_time`` None where a line
    that searched did not split its cuts)."""
    decisions: dict[str, float] = defaultdict(float)
    seconds: dict[str, float] = defaultdict(float)
    searched: dict[str, int] = defaultdict(int)
    cut_short: dict[str, int] = defaultdict(int)
    cut_on_time: dict[str, int] = defaultdict(int)
    unsplit: set[str] = set()
    for line in lines:
        for side in SIDES:
            spec = line[side]
            count, spent = line["timing"][side]
            decisions[spec] += count
            seconds[spec] += spent
            counts = line.get("searches", {}).get(side, (0, 0, 0))
            searched[spec] += counts[0]
            cut_short[spec] += counts[1]
            if len(counts) > 2:
                cut_on_time[spec] += counts[2]
            elif counts[0]:
                unsplit.add(spec)
    return {
        spec: {
            "decisions": int(decisions[spec]),
            "seconds": seconds[spec],
            "per_second": _ratio(decisions[spec], seconds[spec]),
            "searched": searched[spec],
            "cut_short": cut_short[spec],
            "cut_on_time": None if spec in unsplit else cut_on_time[spec],
        }
        for spec in decisions
    }


def _cuts_text(speed: dict[str, Any]) -> str:
    """``"60 of 1,023 (5.9%; 2 on time)"``: card decisions the budget cut short of those searched,
    and how many of those its time budget cut (left out where not counted); ``-`` for none searched."""
    searched, cut, on_time = speed["searched"], speed["cut_short"], speed["cut_on_time"]
    if not searched:
        return "-"
    split = f"; {on_time:,} on time" if on_time is not None and cut else ""
    return f"{cut:,} of {searched:,} ({cut / searched:.1%}{split})"


def _ratings(agents: list[str], by_pairing: dict[tuple[str, str], list[Line]], confidence: float) -> dict[str, Any]:
    """Bradley-Terry Elo ratings from deal-pair outcomes (the sign of the pair margin).

    Runs without deal pairs (``--deals 0``) are rated from single game results instead.
    """
    deal_results, game_results = [], []
    for (a, b), lines in by_pairing.items():
        i, j = agents.index(a), agents.index(b)
        for line in lines:
            if line["kind"] == "deal":
                deal_results.append((i, j, float(np.sign(deal_pair_margin(line)) + 1) / 2))
            else:
                game_results += [(i, j, game_score(play)) for play in line["plays"]]
    basis, results = ("deal pairs", deal_results) if deal_results else ("games", game_results)
    ratings = fit_elo(len(agents), results, confidence)
    return {
        "basis": basis,
        "agents": [{"agent": agent, **vars(rating)} for agent, rating in zip(agents, ratings, strict=True)],
    }


def _cross_table(agents: list[str], pairings: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean margin per hand of each row agent against each column agent (antisymmetric)."""
    table = [[math.nan] * len(agents) for _ in agents]
    for pairing in pairings:
        i, j = agents.index(pairing["a"]), agents.index(pairing["b"])
        table[i][j] = pairing["margin"]["estimate"]
        table[j][i] = -pairing["margin"]["estimate"]
    return {"agents": list(agents), "margins": table}


# ---------------------------------------------------------------------------------------- outputs


def _fmt(value: float | None, spec: str = "+.1f") -> str:
    """A number for a table cell; '-' when it is missing (NaN or None)."""
    return "-" if value is None or math.isnan(value) else format(value, spec)


def _interval_text(interval: dict[str, float], spec: str = "+.1f") -> str:
    return f"[{_fmt(interval['low'], spec)}, {_fmt(interval['high'], spec)}]"


def estimate_text(interval: dict[str, float], spec: str = "+.1f") -> str:
    """An estimate with its interval, ``+4.0 [-2.9, +10.8]`` ('-' for what is missing)."""
    return f"{_fmt(interval['estimate'], spec)} {_interval_text(interval, spec)}"


def format_summary(summary: dict[str, Any]) -> str:
    """The printed report: pairings, sides, ratings and cross table (3+ agents), speed."""
    parts = [
        *_pairings_text(summary),
        "",
        "Sides (declared, stuck: share of hands, stuck as the dealer nobody bid over; bid, made, set, thrown in: "
        "when declaring; points per hand)",
        format_table(
            [
                "A vs B",
                "side",
                "agent",
                "declared",
                "stuck",
                "avg bid",
                "made",
                "set",
                "thrown in",
                "meld",
                "tricks",
                "score",
            ],
            [row for p in summary["pairings"] for row in _side_rows(p)],
            left=3,
        ),
    ]
    if "ratings" in summary:
        parts += ["", *_ratings_text(summary)]
    parts += [
        "",
        "Speed (decisions asked of each agent, view and mask building included; cut short: card decisions"
        " whose search the node or time budget stopped before all its deals, of those searched)",
        format_table(
            ["agent", "decisions", "seconds", "decisions/s", "cut short"],
            [
                [
                    spec,
                    str(s["decisions"]),
                    _fmt(s["seconds"], ".1f"),
                    _fmt(s["per_second"], ",.0f"),
                    _cuts_text(s),
                ]
                for spec, s in summary["speed"].items()
            ],
        ),
    ]
    return "\n".join(parts)


def margin_sentence(summary: dict[str, Any]) -> str:
    """The first pairing's result as one sentence (what an example prints after its evaluation):
    "duplicate margin of A vs B over N deal pairs: +x points per hand (95% interval a .. b)"."""
    pairing = summary["pairings"][0]
    margin, level = pairing["margin"], f"{summary['confidence']:.0%}"
    return (
        f"duplicate margin of {pairing['a']} vs {pairing['b']} over {pairing['deal_pairs']} deal pairs: "
        f"{margin['estimate']:+.1f} points per hand ({level} interval {margin['low']:+.1f} .. {margin['high']:+.1f})"
    )


def _pairings_text(summary: dict[str, Any]) -> list[str]:
    """The pairings table: margins, and game columns when games were played."""
    level = f"{summary['confidence']:.0%}"
    with_games = any(p["games"]["played"] for p in summary["pairings"])
    title = f"Pairings (margin = A's team score minus B's per hand, {level} paired t interval over deal pairs"
    headers = ["A vs B", "deal pairs", "margin", f"{level} interval"]
    if with_games:
        title += f"; A's game win rate, {level} Wilson interval"
        headers += ["games", "hands/game", "A win rate", f"{level} interval"]
    rows = []
    for p in summary["pairings"]:
        margin, games = p["margin"], p["games"]
        row = [f"{p['a']} vs {p['b']}", str(p["deal_pairs"]), _fmt(margin["estimate"]), _interval_text(margin)]
        if with_games:
            win = games["win_rate"]
            row += [
                str(games["played"]),
                _fmt(games["hands_per_game"], ".1f"),
                _fmt(win["estimate"], ".1%"),
                _interval_text(win, ".1%"),
            ]
        rows.append(row)
    return [title + ")", format_table(headers, rows)]


def _side_rows(pairing: dict[str, Any]) -> Iterator[list[str]]:
    for side in SIDES:
        s = pairing["sides"][side]
        yield [
            f"{pairing['a']} vs {pairing['b']}",
            side.upper(),
            pairing[side],
            _fmt(s["declared"], ".1%"),
            _fmt(s["stuck"], ".1%"),
            _fmt(s["bid"], ".1f"),
            _fmt(s["made"], ".1%"),
            _fmt(s["set"], ".1%"),
            _fmt(s["thrown_in"], ".1%"),
            _fmt(s["meld"], ".1f"),
            _fmt(s["tricks"], ".1f"),
            _fmt(s["score"], "+.1f"),
        ]


def _ratings_text(summary: dict[str, Any]) -> list[str]:
    """The ratings table (best first) and the cross table of margins."""
    ratings = summary["ratings"]
    level = f"{summary['confidence']:.0%}"
    ranked = sorted(ratings["agents"], key=lambda r: -r["elo"])
    agents = summary["cross_table"]["agents"]
    margins = summary["cross_table"]["margins"]
    return [
        f"Ratings (Bradley-Terry Elo fitted on {ratings['basis']}, mean 0, {level} interval)",
        format_table(
            ["rank", "agent", "elo", f"{level} interval", "se"],
            [
                [str(rank), r["agent"], _fmt(r["elo"], "+.0f"), _interval_text(r, "+.0f"), _fmt(r["se"], ".0f")]
                for rank, r in enumerate(ranked, start=1)
            ],
            left=2,
        ),
        "",
        "Cross table (mean margin per hand of the row agent against the column agent)",
        format_table(
            ["", *agents], [[agent, *(_fmt(m) for m in row)] for agent, row in zip(agents, margins, strict=True)]
        ),
    ]


def json_ready(value: Any) -> Any:
    """``value`` with NaN replaced by None (JSON has no NaN): what a JSON writer of the summary needs."""
    if isinstance(value, dict):
        return {key: json_ready(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_ready(item) for item in value]
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def write_json(summary: dict[str, Any], path: Path) -> None:
    """The summary as indented JSON."""
    path.write_text(json.dumps(json_ready(summary), indent=2) + "\n", encoding="utf-8")


def write_csv(summary: dict[str, Any], path: Path) -> None:
    """One row per pairing: margin and interval, games, and each side's figures (a_*, b_*)."""
    rows = []
    for p in summary["pairings"]:
        row = {
            "a": p["a"],
            "b": p["b"],
            "deal_pairs": p["deal_pairs"],
            "margin": p["margin"]["estimate"],
            "margin_low": p["margin"]["low"],
            "margin_high": p["margin"]["high"],
            "games": p["games"]["played"],
            "a_win_rate": p["games"]["win_rate"]["estimate"],
            "a_win_rate_low": p["games"]["win_rate"]["low"],
            "a_win_rate_high": p["games"]["win_rate"]["high"],
        }
        for side in SIDES:
            row.update({f"{side}_{key}": value for key, value in p["sides"][side].items()})
        rows.append({key: "" if isinstance(v, float) and math.isnan(v) else v for key, v in row.items()})
    with open(path, "w", newline="", encoding="utf-8") as stream:
        writer = csv.DictWriter(stream, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def _short(spec: str, limit: int = 40) -> str:
    """A spec shortened for a plot label (checkpoint paths keep their file name)."""
    return spec if len(spec) <= limit else "..." + spec[-(limit - 3) :]


def _interval_chart(
    estimates: list[float],
    low: list[float],
    high: list[float],
    labels: list[str],
    texts: list[str],
    *,
    xlabel: str,
    title: str,
    row_height: float,
    style: dict[str, Any],
) -> Any:
    """One row per estimate, the first at the bottom: a point with its interval bar (``style``: the
    marker's), its text above it (or, for a NaN estimate, beside 0) and its label on the axis."""
    from matplotlib.figure import Figure  # imported here: only the final report needs it

    values = np.array(estimates, dtype=float)
    errors = np.nan_to_num(np.vstack([values - np.array(low, dtype=float), np.array(high, dtype=float) - values]))
    width = 9 + 0.08 * max(len(label.split("\n")[0]) for label in labels)  # room for the labels beside the plot
    figure = Figure(figsize=(width, 2.0 + row_height * len(values)), layout="constrained")
    axes = figure.subplots()
    rows = np.arange(len(values))
    axes.errorbar(values, rows, xerr=errors, capsize=5, markersize=7, **style)
    axes.axvline(0.0, color="grey", linewidth=1)
    for row, value, text in zip(rows, values, texts, strict=True):
        if math.isnan(value):
            axes.annotate(text, (0.0, row), xytext=(6, 6), textcoords="offset points")
        else:
            axes.annotate(text, (value, row), xytext=(0, 9), textcoords="offset points", ha="center")
    axes.set_ylim(-0.6, len(values) - 0.4)
    axes.set_yticks(rows, labels)
    axes.set_xlabel(xlabel)
    axes.set_title(title)
    axes.grid(axis="x", alpha=0.3)
    return figure


def margin_figure(summary: dict[str, Any]) -> Any:
    """The figure of :func:`write_plot`: each pairing's margin with its interval, the values written
    beside it and the deal pairs counted under its label."""
    pairings = summary["pairings"][::-1]  # first pairing on top
    margins = [p["margin"] for p in pairings]
    return _interval_chart(
        [m["estimate"] for m in margins],
        [m["low"] for m in margins],
        [m["high"] for m in margins],
        [
            f"{_short(p['a'])} vs {_short(p['b'])}\n{p.get('deal_pairs', p['margin'].get('n', '?'))} deal pairs"
            for p in pairings
        ],
        ["no deal pairs" if math.isnan(m["estimate"]) else estimate_text(m) for m in margins],
        xlabel=f"A's margin per hand (A's team score minus B's), {summary['confidence']:.0%} interval over deal pairs",
        title="Duplicate arena: margin per pairing",
        row_height=0.8,
        style={"fmt": "o"},
    )


def write_plot(summary: dict[str, Any], path: Path) -> None:
    """Margins per pairing with their interval bars, values and deal-pair counts, as a PNG."""
    margin_figure(summary).savefig(path, dpi=150)


def ratings_figure(summary: dict[str, Any]) -> Any:
    """The figure of :func:`write_ratings_plot`: each agent's Elo rating with its interval, best on top."""
    ratings = summary["ratings"]
    ranked = sorted(ratings["agents"], key=lambda r: r["elo"])  # best last: on top
    return _interval_chart(
        [r["elo"] for r in ranked],
        [r["low"] for r in ranked],
        [r["high"] for r in ranked],
        [_short(r["agent"]) for r in ranked],
        [f"{_fmt(r['elo'], '+.0f')} {_interval_text(r, '+.0f')}" for r in ranked],
        xlabel=f"Elo rating (Bradley-Terry, mean 0), {summary['confidence']:.0%} interval",
        title=f"Round robin: ratings fitted on {ratings['basis']}",
        row_height=0.7,
        style={"fmt": "s", "color": "tab:green"},
    )


def write_ratings_plot(summary: dict[str, Any], path: Path) -> None:
    """The round robin's ratings with their intervals as a PNG (summaries of 3+ agents)."""
    ratings_figure(summary).savefig(path, dpi=150)
