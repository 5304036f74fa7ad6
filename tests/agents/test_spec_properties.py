"""Property-based tests of the parsers of what a person types (hypothesis): agent specs, rule
switches and an arena run's stored config. Whatever the text, the result is a valid value or a
``ValueError`` naming what is wrong, never another exception (the bugs of issue 34 were of that
kind: a repeated phase taken silently, nan taken for a number, a dealer ``True`` taken for 1)."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.arena import ArenaConfig
from agents.registry import MIX_KEYS, known_agents, load_agent, split_specs
from pinochle_env.rules.switches import CHOICES, SWITCH_NAMES, Rules, parse_rule_assignment, rules_from_command_line

#: Few examples each: the suite stays fast; the strategies aim at the values that went wrong.
FAST = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: The agents cheap to build (``checkpoint`` and ``guided`` load a network each time), with their
#: parameters: a spec names them often, and the values that went wrong (nan, negatives, repeats).
CHEAP_AGENTS = {
    "random": (),
    "heuristic": ("aggression", "help_meld", "partner_value", "help_value"),
    "pimc": (
        "samples",
        "budget",
        "solve",
        "leaf",
        "simulations",
        "pass_simulations",
        "pass_swaps",
        "infer",
        "infer_play",
        "pool",
        "evaluate",
    ),
}
VALUES = st.sampled_from(["nan", "inf", "-inf", "-1", "0", "1e3", "0.5", "2", "24", "true", "search", "", "1" * 30])
TEXT = st.text(st.characters(codec="utf-8", exclude_characters=","), max_size=12)


@st.composite
def _plain_spec(draw: st.DrawFn) -> str:
    """``name:key=value,...``: mostly a cheap agent with its own parameters, sometimes any text."""
    name = draw(st.sampled_from(sorted(CHEAP_AGENTS)) | st.sampled_from(["nosuch", " ", "heuristc", "mix"]))
    keys = st.sampled_from([*CHEAP_AGENTS.get(name, ()), "bogus"])
    parameters = draw(st.lists(st.builds("{}={}".format, keys, VALUES), max_size=3))
    return f"{name}:{','.join(parameters)}" if parameters else name


@st.composite
def _mix_spec(draw: st.DrawFn) -> tuple[str, list[str]]:
    """``mix:phase=spec,...`` and the phases it names (``bid`` is ``auction``)."""
    phases = draw(st.lists(st.sampled_from(MIX_KEYS), max_size=4))
    parts = [f"{phase}={draw(_plain_spec())}" for phase in phases]
    return "mix:" + ",".join(parts), ["auction" if phase == "bid" else phase for phase in phases]


@FAST
@given(_mix_spec() | st.tuples(_plain_spec(), st.just([])))
def test_an_agent_spec_loads_or_is_refused_naming_why(spec_and_phases: tuple[str, list[str]]) -> None:
    """What loads keeps finite, non-negative numbers only, and a mix names each phase once (its
    name would otherwise show a part it does not play)."""
    spec, phases = spec_and_phases
    try:
        agent = load_agent(spec, seed=0)
    except ValueError as error:
        assert str(error)
        return
    assert callable(agent.act) and agent.name == spec.strip()
    numbers = [value for value in vars(agent).values() if isinstance(value, (int, float))]
    assert all(math.isfinite(value) and value >= 0 for value in numbers), vars(agent)
    assert len(phases) == len(set(phases))


@FAST
@given(st.builds(lambda path, options: f"checkpoint:{path}{options}", TEXT, st.sampled_from(["", ",sample=1", ",x"])))
def test_a_checkpoint_spec_of_any_path_is_refused_naming_why(spec: str) -> None:
    """No file of these names exists here: each is refused in one line (a path too long for the
    system, or holding a NUL byte, included)."""
    with pytest.raises(ValueError):
        load_agent(spec)


@FAST
@given(st.lists(st.sampled_from([*known_agents(), "pimc:samples=2", "budget=0.1", " "]) | TEXT, max_size=6))
def test_a_list_of_specs_splits_into_the_specs_it_joins(parts: list[str]) -> None:
    text = ",".join(parts)
    specs = split_specs(text)
    assert all(spec and spec == spec.strip() for spec in specs)
    assert _letters("".join(specs)) == _letters(text)  # cut at commas only: nothing lost or added


def _letters(text: str) -> str:
    """``text`` without its commas and white space."""
    return "".join(text.replace(",", "").split())


SWITCH_VALUES = st.sampled_from(
    [*(str(value) for values in CHOICES.values() for value in values), "1000", "5080", "10", "-10", "1e9", "nan", ""]
)


@FAST
@given(st.builds(lambda name, value: f"{name}={value}", st.sampled_from(SWITCH_NAMES) | TEXT, SWITCH_VALUES | TEXT))
def test_a_rule_switch_typed_parses_or_is_refused_naming_why(text: str) -> None:
    try:
        rules = rules_from_command_line(None, [text])
    except ValueError as error:
        assert str(error)
        return
    name, value = parse_rule_assignment(text)
    assert getattr(rules, name) == value


RULE_VALUES = (
    st.sampled_from([value for values in CHOICES.values() for value in values])
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=True)
    | st.booleans()
    | st.none()
    | TEXT
)


@FAST
@given(st.dictionaries(st.sampled_from(SWITCH_NAMES) | TEXT, RULE_VALUES, max_size=4))
def test_rules_from_any_mapping_are_valid_or_refused_naming_why(switches: dict) -> None:
    try:
        rules = Rules.from_mapping(switches)
    except ValueError as error:
        assert str(error)
        return
    assert rules == Rules.from_mapping(rules.to_dict())  # a valid rule set, every switch checked


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**6) | st.floats(allow_nan=False) | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
CONFIG_KEYS = ("agents", "rules", "deals", "games", "seed", "hand_cap", "rules_preset")


@FAST
@given(st.dictionaries(st.sampled_from(CONFIG_KEYS) | TEXT, JSON | st.lists(TEXT, max_size=3), max_size=7))
def test_an_arena_config_from_any_json_object_is_valid_or_refused_naming_why(data: dict) -> None:
    try:
        config = ArenaConfig.from_dict(data)
    except ValueError as error:
        assert str(error)
        return
    assert all(isinstance(spec, str) for spec in config.agents) and isinstance(config.rules, Rules)
