"""The rule switches (``pinochle_env.rules.switches``): switches that do not apply to a game are
refused, the target score's default per game, and rules read from a command line (a preset first,
then each ``NAME=VALUE``)."""

from __future__ import annotations

import pytest

from pinochle_env.rules.switches import PRESETS, Rules
from tests.helpers import OTHER_GAMES


@pytest.mark.parametrize("variant", OTHER_GAMES)
def test_switches_that_do_not_apply_are_refused(variant):
    stray = "pass_count" if variant == "cutthroat" else "head_rule"
    value = 3 if variant == "cutthroat" else "none"
    with pytest.raises(ValueError, match=f"{stray} does not apply to variant='{variant}'"):
        Rules(variant=variant, **{stray: value})


def test_target_score_defaults_per_variant_and_can_be_set():
    assert Rules().target_score == 1500
    assert Rules(variant="cutthroat").target_score == 1500
    assert Rules(variant="two_hand").target_score == 1000
    assert Rules(variant="two_hand", target_score=500).target_score == 500
    assert Rules().replace(variant="two_hand").target_score == 1000
    assert Rules(target_score=700).replace(variant="two_hand").target_score == 700


def test_rules_from_command_line_takes_the_preset_first_then_each_rule():
    from pinochle_env.rules.switches import rules_from_command_line

    assert rules_from_command_line() == Rules()
    assert rules_from_command_line("casual") == PRESETS["casual"]
    over = rules_from_command_line("casual", ["must_overtrump=true", "counting=classic"])
    assert over == Rules(head_rule="none", must_overtrump=True, counting="classic")
    assert rules_from_command_line(None, ["variant=two_hand"]).target == 1000
    for preset, rules, message in [
        ("nope", [], "unknown rules preset 'nope'; presets: default, pagat, casual"),
        (None, ["head_rule"], "expected NAME=VALUE"),
        ("pagat", ["variant=two_hand"], "run_extras does not apply"),
    ]:
        with pytest.raises(ValueError, match=message):
            rules_from_command_line(preset, rules)
