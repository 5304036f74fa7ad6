"""The game's exact solver (``pinochle_env.kernel.solver``: alpha-beta, transposition table, move
ordering, equivalent cards pruned) returns plain minimax's values on random end positions of up to
3 tricks, under every variant and the switches that change values; and the README's example of it
runs as it says.
"""

from __future__ import annotations

import pytest

from pinochle_env import Rules
from pinochle_env.kernel import solver
from pinochle_env.kernel.state import PlayState
from tests.helpers import ROOT

pytestmark = pytest.mark.usefixtures("search_kernel")

SOLVER_RULES = [
    Rules(),
    Rules(head_rule="highest_led", must_overtrump=False, counting="classic"),
    Rules(head_rule="led_card", save_meld="trick", save_meld_applies_to="both"),
    Rules(head_rule="trump_lead_only", counting="ak10_kq5", save_meld="none"),
    Rules(head_rule="none", save_meld="trick"),
    Rules(variant="cutthroat"),
    Rules(variant="cutthroat", head_rule="led_card", counting="ak10_kq5", save_meld="trick"),
    Rules(variant="two_hand"),
    Rules(variant="two_hand", counting="classic"),
]


def final_side_score(game, state: PlayState) -> int:
    """The maximising side's score (points, and the sweep adjustment under ``save_meld="trick"``)
    of a hand just finished."""
    values, total = state.values, len(game.tricks)
    points = tricks = others = 0
    for index, (_, cards, winner) in enumerate(game.tricks):
        if state.side[winner]:
            points += sum(int(values[c]) for c in cards) + (10 if index == total - 1 else 0)
            tricks += 1
        else:
            others += 1
    if state.mode == 1:
        points += (not others) - (not tricks)
    return points


@pytest.mark.parametrize("index", range(len(SOLVER_RULES)), ids=[
    f"{r.variant}-{r.head_rule}-{r.counting}-{r.save_meld}" for r in SOLVER_RULES])  # fmt: skip
def test_solver_equals_plain_minimax(index):
    """The value of the position and of every legal card, with and without pruning equivalent
    cards, equal plain minimax's; pruning saves nodes."""
    rules = SOLVER_RULES[index]
    nodes = {True: 0, False: 0}
    for game in solver.end_positions(rules, 60, seed=index):
        state = PlayState.from_game(game)
        expected = solver.minimax_value(state)
        for equivalent in (True, False):
            solver.clear_table()
            assert solver.solve_value(state, equivalent) == expected
            nodes[equivalent] += solver.take_nodes()
            cards, scores = solver.solve_side_values(state, equivalent)
            for c in cards:
                after = game.clone()
                after.apply(after.layout.card0 + c)
                value = final_side_score(after, state) if after.hand_over else solver.minimax_value(
                    PlayState.from_game(after))  # fmt: skip
                assert scores[c] == value, (c, equivalent)
    if rules.counting != "classic":  # classic counting gives every rank its own value: nothing is equivalent
        assert nodes[True] < nodes[False]


def test_readme_search_example_runs_and_prints_what_it_says():
    """The README's kernel example runs, and its solve() prints the solution its comment shows."""
    import contextlib
    import io

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Search\n", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    shown = block.split("print(solve(game))  # ", 1)[1].split("\n", 1)[0]
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(block, "README.md", "exec"), {})
    lines = output.getvalue().splitlines()
    assert lines[0] == shown
    assert lines[-1] == "(20, 4, 24)"
