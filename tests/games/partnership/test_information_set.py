"""The information-set test: what a seat observes depends only on what that seat may know.

For seeded random hands and many decision points, alternative deals (and, where a seat cannot
see them, alternative passed cards) are built by moving hidden cards between the *other*
players. An alternative is kept for seat ``s`` only if replaying the same decisions on it is
legal throughout and everything ``s`` may know is identical: every public fact (auction,
contract, trump, each seat's meld and shown cards, throw-in, every card played and every trick
winner) and ``s``'s private facts (its own deal, the cards it passed, and the cards passed to it
once the rules let it see them). What ``s`` may know is written here from the rules, not from
the engine's audience masks. For every kept alternative, ``s``'s observation vector and
``Game.view(s)`` must be identical to the original's, while the alternatives really do change
other players' hands, and the observations of the seats holding the moved cards do change (so
the comparison can see a leak).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from pinochle_env.actions import ActionLayout
from pinochle_env.games.partnership.encoding import GameEncoder, PartnershipSpec, encode_state
from pinochle_env.games.partnership.game import Event, Game, Phase
from pinochle_env.rules.switches import Rules
from tests.helpers import replay_actions

CONFIGS = {
    "sequential": Rules(),
    "simultaneous": Rules(pass_mode="simultaneous"),
    "simultaneous-3-casual": Rules(pass_mode="simultaneous", pass_count=3, head_rule="none", must_overtrump=False),
    "sequential-never-any": Rules(throw_in="never", bid_raises="any", counting="classic", max_bid=500),
}
PLAYOUTS = 40
ALTERNATIVES = 10
RANDOM_POINTS = 12
PASS_PHASES = (Phase.PASS_TO_DECLARER, Phase.PASS_BACK)


def public_facts(game: Game) -> tuple:
    """Everything every seat sees."""
    return (
        game.dealer,
        game.phase,
        game.to_act,
        tuple(game.auction),
        game.high_bid,
        game.high_bidder,
        game.declarer,
        game.contract,
        game.trump,
        tuple(game.melds),  # points, melds and the cards shown, per seat
        game.thrown_in,
        tuple((leader, tuple(cards), winner) for leader, cards, winner in game.tricks),
        tuple(game.trick),
        game.trick_leader,
        tuple(game.trick_points),
        tuple(game.tricks_won),
        tuple(game.totals),
        game.score,
    )


def private_facts(game: Game, seat: int) -> tuple:
    """What only ``seat`` (and whoever exchanged cards with it) sees."""
    facts: list = [tuple(sorted(game.deal[seat]))]
    partner = (game.declarer + 2) % 4
    if game.declarer >= 0 and seat in (game.declarer, partner):
        is_declarer = seat == game.declarer
        mine = game.passed_back if is_declarer else game.passed_to_declarer
        theirs = game.passed_to_declarer if is_declarer else game.passed_back
        facts.append(tuple(mine))
        exchanged = game.phase not in (Phase.AUCTION, Phase.TRUMP, *PASS_PHASES)
        if game.rules.pass_mode == "sequential" or exchanged:
            facts.append(tuple(theirs))  # simultaneous: seen only once both sets change hands
    return tuple(facts)


def observations(game: Game, spec: PartnershipSpec, encoder: GameEncoder | None = None) -> list[np.ndarray]:
    encoder = encoder or GameEncoder(spec)
    return [encoder.observation(game, seat) for seat in range(4)]


class Playout:
    """One random hand, with what the test needs at each sampled decision point."""

    def __init__(self, rules: Rules, seed: int) -> None:
        self.rules = rules
        self.spec = PartnershipSpec(rules)
        self._card0 = ActionLayout(rules.max_bid).card0
        game = Game(rules, np.random.default_rng(seed))
        policy = np.random.default_rng(10_000 + seed)
        encoder = GameEncoder(self.spec)  # incremental, as the env and the batch use it
        self.dealer = game.dealer
        self.deal = [list(hand) for hand in game.deal]
        self.actions: list[int] = []
        self.actors: list[int] = []
        self.phases: list[Phase] = []
        self.hands_before: list[list[list[int]]] = []
        self.points: dict[int, dict] = {}
        snapshots = []
        while True:
            snapshots.append(self._snapshot(game, encoder))
            if game.hand_over:
                break
            self.actors.append(game.to_act)
            self.phases.append(game.phase)
            self.hands_before.append([list(h) for h in game.hands])
            action = int(policy.choice(game.legal_actions()))
            game.apply(action)
            self.actions.append(action)
        n = len(self.actions)
        chosen = {k for k in range(n) if self.phases[k] in PASS_PHASES}
        chosen |= {int(k) for k in policy.choice(n + 1, size=min(RANDOM_POINTS, n + 1), replace=False)}
        chosen.add(n)
        self.points = {k: snapshots[k] for k in sorted(chosen)}

    def _snapshot(self, game: Game, encoder: GameEncoder) -> dict:
        obs = observations(game, self.spec, encoder)
        return {
            "public": public_facts(game),
            "private": [private_facts(game, s) for s in range(4)],
            "observations": obs,
            "states": [encode_state(game, s, obs[s]) for s in range(4)],
            "views": [game.view(s) for s in range(4)],
            "hands": [list(h) for h in game.hands],
            "phase": game.phase,
            "declarer": game.declarer,
        }

    def alternative(self, k: int, rng: np.random.Generator) -> tuple[list[list[int]], list[int]] | None:
        """A random alternative (deal, actions) for decision point ``k``: hidden cards moved."""
        deal = [list(h) for h in self.deal]
        actions = list(self.actions[:k])
        passes = [i for i in range(k) if self.phases[i] in PASS_PHASES]
        kinds = ["swap", "swap", "swap2"] + (["pass", "pass", "pass+swap"] if passes else [])
        kind = kinds[rng.integers(len(kinds))]
        if "pass" in kind:
            i = int(rng.choice(passes))
            passer, old = self.actors[i], actions[i] - self._card0
            held = [c for c, n in enumerate(self.hands_before[i][passer]) if n and c != old]
            if not held:
                return None
            actions[i] = self._card0 + int(rng.choice(held))
        if "swap" in kind:
            held_now = self.points[k]["hands"]
            for _ in range(2 if kind == "swap2" else 1):
                a, b = (int(x) for x in rng.choice(4, size=2, replace=False))
                if rng.random() < 0.75:  # mostly cards the players still hold (played ones cannot move)
                    x, y = (self._pick([c for c in deal[p] if held_now[p][c]], rng) for p in (a, b))
                else:
                    x, y = int(rng.choice(deal[a])), int(rng.choice(deal[b]))
                if x is None or y is None:
                    return None
                if x == y:
                    return None
                deal[a].remove(x)
                deal[b].remove(y)
                deal[a].append(y)
                deal[b].append(x)
        if deal == self.deal and actions == self.actions[:k]:
            return None
        return deal, actions

    @staticmethod
    def _pick(cards: list[int], rng: np.random.Generator) -> int | None:
        return int(rng.choice(cards)) if cards else None


def check_information_sets(rules: Rules, playouts: int, seed: int = 7) -> tuple[Counter, list[str]]:
    """Build and replay alternatives for ``playouts`` random hands; (statistics, leaks found)."""
    rng = np.random.default_rng(seed)
    spec = PartnershipSpec(rules)
    stats: Counter = Counter()
    leaks: list[str] = []
    for hand_seed in range(playouts):
        playout = Playout(rules, hand_seed)
        for k, point in playout.points.items():
            for _ in range(ALTERNATIVES):
                made = playout.alternative(k, rng)
                if made is None:
                    continue
                deal, actions = made
                alt = replay_actions(rules, playout.dealer, deal, actions)
                stats["generated"] += 1
                if alt is None:
                    stats["illegal"] += 1
                    continue
                if public_facts(alt) != point["public"]:
                    stats["public differs"] += 1
                    continue
                seats = [s for s in range(4) if private_facts(alt, s) == point["private"][s]]
                alt_obs = observations(alt, spec)
                alt_hands = [list(h) for h in alt.hands]
                for s in seats:
                    stats["kept"] += 1
                    where = f"hand seed {hand_seed}, decision {k} ({point['phase'].name}), seat {s}, deal {deal}"
                    if not np.array_equal(alt_obs[s], point["observations"][s]):
                        differ = np.flatnonzero(alt_obs[s] != point["observations"][s])
                        leaks.append(f"{where}: observation entries {[spec.describe(int(i)) for i in differ[:6]]}")
                    if alt.view(s) != point["views"][s]:
                        leaks.append(f"{where}: view {alt.view(s)} != {point['views'][s]}")
                    changed = [q for q in range(4) if q != s and alt_hands[q] != point["hands"][q]]
                    if changed:
                        count_controls(stats, rules, point, s, alt, alt_obs, changed, actions != playout.actions[:k])
    return stats, leaks


def count_controls(
    stats: Counter, rules: Rules, point: dict, s: int, alt: Game, alt_obs: list, changed: list[int], passes: bool
) -> None:
    """Count what an alternative deal that seat ``s`` cannot tell apart, with other hands ``changed``
    (and the passed cards too where ``passes``), shows: each seat holding moved cards sees the change
    (the negative control), and a leaky encoding (the perfect-information state, which appends the
    other hands) is caught."""
    stats["kept, other hands changed"] += 1
    stats[f"changed in {point['phase'].name}"] += 1
    if passes:
        stats["kept, passed cards changed"] += 1
        if rules.pass_mode == "simultaneous" and point["phase"] == Phase.PASS_BACK and s == point["declarer"]:
            stats["declarer passing, partner's passes changed"] += 1
    for q in changed:
        if not np.array_equal(alt_obs[q], point["observations"][q]) and alt.view(q) != point["views"][q]:
            stats["negative control"] += 1
    if not np.array_equal(encode_state(alt, s, alt_obs[s]), point["states"][s]):
        stats["leaky state caught"] += 1


@pytest.mark.parametrize("rules", CONFIGS.values(), ids=CONFIGS.keys())
def test_observation_depends_only_on_the_information_set(rules):
    stats, leaks = check_information_sets(rules, PLAYOUTS)
    assert not leaks, f"{len(leaks)} leaks, first: {leaks[:3]}"
    # not vacuous: many alternatives kept that really move other players' cards, in every phase
    changed = stats["kept, other hands changed"]
    assert changed >= 500, stats
    for phase in ("AUCTION", "PASS_TO_DECLARER", "PASS_BACK", "PLAY"):
        assert stats[f"changed in {phase}"] >= 30, stats
    assert stats["kept, passed cards changed"] >= 30, stats
    if rules.pass_mode == "simultaneous":
        assert stats["declarer passing, partner's passes changed"] >= 10, stats
    # negative controls: the seats that hold the moved cards see them; a state with the other hands differs
    assert stats["negative control"] >= changed, stats
    assert stats["leaky state caught"] == changed, stats
    # the filters do filter
    assert stats["public differs"] > 0 and stats["illegal"] > 0, stats


def test_a_planted_encoder_leak_is_found(monkeypatch):
    """Show the checker catches a leak: the encoder shows simultaneous passes to the receiver at once."""
    rules = CONFIGS["simultaneous"]
    original = GameEncoder._HANDLERS[Event.PASS_CARD]

    def leaky(self, passer, card, audience):
        original(self, passer, card, audience | 1 << ((passer + 2) % 4))

    assert check_information_sets(rules, 4)[1] == []
    monkeypatch.setitem(GameEncoder._HANDLERS, Event.PASS_CARD, leaky)
    _, leaks = check_information_sets(rules, 4)
    assert leaks and all("observation" in leak for leak in leaks)
    assert any("PASS_BACK" in leak for leak in leaks)


def test_a_planted_view_leak_is_found(monkeypatch):
    """Show the checker catches a leak in ``Game.view``: a defender told the partner's passed cards."""
    rules = CONFIGS["sequential"]
    original = Game.view

    def leaky(self, seat):
        view = original(self, seat)
        if self.declarer >= 0 and seat % 2 != self.declarer % 2:
            view.cards_received = list(self.passed_to_declarer)
        return view

    monkeypatch.setattr(Game, "view", leaky)
    _, leaks = check_information_sets(rules, 4)
    assert leaks and all("view" in leak for leak in leaks)
