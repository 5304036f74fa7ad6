"""The rule switches (``pinochle_env.rules.switches``): switches that do not apply to a game are
refused, the target score's default per game, and rules read from a command line (a preset first,
then each ``NAME=VALUE``)."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

import pinochle_env
from pinochle_env import rules as R
from pinochle_env.rules.switches import (
    CHOICES,
    MAX_BID,
    PRESETS,
    Rules,
    parse_rule_assignment,
    parse_switch,
    rules_from_command_line,
)
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


@pytest.mark.parametrize("switches", ["pagat", None, [("head_rule", "none")], Rules(), {1: 2}])
def test_rules_from_anything_but_a_mapping_of_names_is_refused_plainly(switches):
    """'pagat' was read as the switches a, g, p, t; None and Rules() as 'not iterable'."""
    with pytest.raises(ValueError, match="rules must be a mapping of switch names to values"):
        Rules.from_mapping(switches)


def test_rules_from_command_line_takes_the_preset_first_then_each_rule():
    assert rules_from_command_line() == Rules()
    assert rules_from_command_line("casual") == PRESETS["casual"]
    over = rules_from_command_line("casual", ["must_overtrump=true", "counting=classic"])
    assert over == Rules(head_rule="none", must_overtrump=True, counting="classic")
    assert rules_from_command_line(None, ["variant=two_hand"]).target == 1000
    for preset, rules, message in [
        ("nope", [], "unknown rules preset 'nope'; presets: default, pagat, casual"),
        (None, ["head_rule"], "expected NAME=VALUE"),
        ("pagat", ["variant=two_hand"], "run_extras does not apply"),
        (None, ["max_bid=300", "counting=classic", "max_bid=400"], r"--rule max_bid given twice \(300 and 400\)"),
        (None, ["counting=classic", "counting=classic"], "--rule counting given twice"),  # even alike
    ]:
        with pytest.raises(ValueError, match=message):
            rules_from_command_line(preset, rules)


@pytest.mark.parametrize("text", ["=", "=led_card", " =none"])
def test_a_rule_with_no_switch_name_says_so(text):
    """``--rule =`` said "unknown rule switch ; known switches: ...", a name missing from the line."""
    with pytest.raises(ValueError, match=r"^no rule switch named before '=' \(NAME=VALUE\); known switches: variant"):
        rules_from_command_line(None, [text])


def test_max_bid_and_target_score_have_principled_upper_bounds():
    """``env(max_bid=10_000_000)`` took 22 s and 2.7 GB (a bid action per 10 points); a target
    score of 10**9 made a game that could never end."""
    whole_deck = [2] * 24
    richest = max(R.meld(whole_deck, trump, extras).points for trump in range(4) for extras in CHOICES["run_extras"])
    assert 10 * ((richest + 250) // 10) == MAX_BID
    Rules(max_bid=MAX_BID)
    started = time.perf_counter()
    with pytest.raises(ValueError, match=rf"max_bid=10000000 is not allowed: at most {MAX_BID} \(no hand can score"):
        pinochle_env.env(max_bid=10_000_000)
    assert time.perf_counter() - started < 1
    with pytest.raises(ValueError, match=r"max_bid=5080 is not allowed"):
        Rules(max_bid=MAX_BID + 10)
    with pytest.raises(ValueError, match=r"target_score=1000000000 is not allowed: at most 10000 \(a game to more"):
        Rules(target_score=10**9)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: parse_switch(3, "x"), "the switch name must be a string, got int: 3"),
        (lambda: parse_switch("max_bid", 300.7), "the value of rule max_bid must be a string .* got float: 300.7"),
        (lambda: parse_switch("head_rule", None), "the value of rule head_rule must be a string .* got NoneType"),
        (lambda: parse_rule_assignment(None), "--rule takes a NAME=VALUE string, got NoneType: None"),
        (lambda: rules_from_command_line(None, "head_rule=none"), "a list of NAME=VALUE strings, got one string"),
    ],
)
def test_rule_parsing_refuses_what_is_no_string_plainly(call, message):
    """parse_switch('max_bid', 300.7) was max_bid=300; a name of 3 or a value of None a bare TypeError
    or AttributeError; one string of assignments was read letter by letter."""
    with pytest.raises(ValueError, match=message):
        call()


def test_an_integer_switch_takes_the_digits_0_to_9_only():
    """int() read "3_00", "+300" and Arabic-Indic digits as max_bid=300, and "-300" as -300, a value
    no integer switch has; they are refused as what they are, naming the values allowed. Spaces
    around the digits are still fine."""
    for text in ["3_00", "+300", "-300", "\u0663\u0660\u0660", "300.0", "3e2", ""]:
        with pytest.raises(
            ValueError, match=rf"max_bid='.*' is not allowed; allowed values: integers 260\.\.{MAX_BID} "
        ):
            parse_switch("max_bid", text)
    with pytest.raises(ValueError, match=r"target_score='\+700' is not allowed; allowed values: integers 10\.\.10000 "):
        parse_rule_assignment("target_score=+700")
    assert parse_switch("max_bid", " 300 ") == ("max_bid", 300)
    assert parse_rule_assignment("target_score=700") == ("target_score", 700)


def test_numpy_integers_are_the_integers_they_hold():
    """``Rules(max_bid=np.int64(300))`` (a sweep over ``np.arange``) was refused as "not allowed;
    allowed values: integers 260..5070", which it is; it is the rule set of the int, JSON-ready.
    A bool, a float or an integer for a switch of words is still refused."""
    rules = Rules(max_bid=np.int64(300), target_score=np.int32(500), pass_count=np.uint8(3))
    assert rules == Rules(max_bid=300, target_score=500, pass_count=3)
    assert all(type(value) is int for value in (rules.max_bid, rules.target_score, rules.pass_count))
    assert json.loads(json.dumps(rules.to_dict()))["max_bid"] == 300
    assert pinochle_env.env(max_bid=np.int16(400)).unwrapped.rules.max_bid == 400
    refused = [{"pass_count": True}, {"max_bid": 300.0}, {"must_overtrump": np.int64(1)}, {"max_bid": np.int64(305)}]
    for switches in refused:
        with pytest.raises(ValueError, match="is not allowed"):
            Rules(**switches)


def test_who_sees_a_passed_card():
    """The passer always; its partner only when cards pass one at a time; nobody else, and in
    the cutthroat game (the burial) nobody but the declarer."""
    sequential, simultaneous = Rules(), Rules(pass_mode="simultaneous")
    assert [sequential.sees_passed_card(1, viewer) for viewer in range(4)] == [False, True, False, True]
    assert [simultaneous.sees_passed_card(1, viewer) for viewer in range(4)] == [False, True, False, False]
    cutthroat = Rules(variant="cutthroat")
    assert [cutthroat.sees_passed_card(2, viewer) for viewer in range(3)] == [False, False, True]
