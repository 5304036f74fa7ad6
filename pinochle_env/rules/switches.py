"""Rule switches (:class:`Rules`): one frozen dataclass, validated once, with named presets.

(The rule functions themselves, meld, trick legality and scoring, are in :mod:`pinochle_env.rules`.)

Every switch of docs/rules.md (section 11) is a field with exactly its name there and spelled
values; the first allowed value is the default. ``Rules(**switches)`` raises a ``ValueError``
naming the switch and the allowed values on any bad name or value, so an engine never runs with
a rule it does not implement.
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from ..games.registry import DEFAULT_VARIANT, GAMES
from ..suggest import did_you_mean
from .meld import whole_deck_meld
from .scoring import deck_points

#: Allowed values of each switch with a fixed set of choices, default first.
CHOICES: dict[str, tuple[Any, ...]] = {
    "variant": tuple(GAMES),
    "bid_raises": ("seed", "any"),
    "pass_with_help": (True, False),
    "all_pass": ("dealer_stuck", "redeal"),
    "pass_count": (4, 3, 0),
    "pass_mode": ("sequential", "simultaneous"),
    "throw_in": ("seed", "always", "never"),
    "run_extras": ("consume", "reuse", "royal_in_run"),
    "head_rule": ("winner", "highest_led", "led_card", "trump_lead_only", "none"),
    "must_overtrump": (True, False),
    "counting": ("counters", "ak10_kq5", "classic"),
    "save_meld": ("points", "trick", "none"),
    "save_meld_applies_to": ("defenders", "both"),
}

MIN_BID = 250
BID_STEP = 10
#: Integer switches: (smallest allowed value, step the value must be a multiple of).
INTEGER_SWITCHES = {"max_bid": (MIN_BID + BID_STEP, BID_STEP), "target_score": (BID_STEP, BID_STEP)}
#: The highest bid a rule set may allow: no hand can score more than the whole deck's meld (under
#: the richest run_extras) plus every trick point, so a higher contract could never be made; and
#: each bid is an action, so ``max_bid`` sets the size of the action space and observation.
MAX_BID = BID_STEP * (
    max(
        whole_deck_meld(extras) + deck_points(counting)
        for extras in CHOICES["run_extras"]
        for counting in CHOICES["counting"]
    )
    // BID_STEP
)
#: The highest target score: a game to more would last hundreds of hands, and the observations
#: write the target as a share of this (they tell no higher targets apart).
MAX_TARGET = 10_000
#: Integer switches: (largest allowed value, why).
INTEGER_LIMITS = {
    "max_bid": (MAX_BID, "no hand can score more than the whole deck's meld plus every trick point"),
    "target_score": (MAX_TARGET, "a game to more would last hundreds of hands"),
}

#: The game each variant plays to when ``target_score`` is not given (docs/rules.md, section 9).
DEFAULT_TARGET = {name: game.target_score for name, game in GAMES.items()}

#: The switches that mean something in each variant (besides ``variant`` itself). Setting any
#: other switch away from its default there is refused: it would silently do nothing.
_ALL_SWITCHES = tuple(name for name in CHOICES if name != "variant") + tuple(INTEGER_SWITCHES)
VARIANT_SWITCHES: dict[str, tuple[str, ...]] = {
    name: game.switches if game.switches is not None else _ALL_SWITCHES for name, game in GAMES.items()
}


@dataclasses.dataclass(frozen=True)
class Rules:
    """The rule switches of one game (docs/rules.md's names and values; defaults are the base game)."""

    variant: str = DEFAULT_VARIANT
    bid_raises: str = "seed"
    pass_with_help: bool = True
    all_pass: str = "dealer_stuck"
    max_bid: int = 1000
    pass_count: int = 4
    pass_mode: str = "sequential"
    throw_in: str = "seed"
    run_extras: str = "consume"
    head_rule: str = "winner"
    must_overtrump: bool = True
    counting: str = "counters"
    save_meld: str = "points"
    save_meld_applies_to: str = "defenders"
    target_score: int | None = None  # None: the variant's own target (DEFAULT_TARGET)

    def __post_init__(self) -> None:
        if self.variant in DEFAULT_TARGET and self.target_score is None:
            object.__setattr__(self, "target_score", DEFAULT_TARGET[self.variant])
        for name in SWITCH_NAMES:  # a numpy integer (np.arange over max_bid, say) is the int it holds
            value = getattr(self, name)
            if isinstance(value, numbers.Integral) and not isinstance(value, bool):
                object.__setattr__(self, name, int(value))
        for name, allowed in CHOICES.items():
            value = getattr(self, name)
            # bool is an int subclass: demand the exact type so that pass_count=True is refused.
            if not any(type(value) is type(option) and value == option for option in allowed):
                raise ValueError(f"rule {name}={value!r} is not allowed; allowed values: {_spell(allowed)}")
        for name, (smallest, step) in INTEGER_SWITCHES.items():
            value = getattr(self, name)
            largest, why = INTEGER_LIMITS[name]
            if type(value) is not int or value < smallest or value % step:
                raise ValueError(f"rule {name}={value!r} is not allowed; allowed values: {_integers(name)}")
            if value > largest:
                raise ValueError(f"rule {name}={value!r} is not allowed: at most {largest} ({why})")
        applicable = VARIANT_SWITCHES[self.variant]
        defaults = Rules.__dataclass_fields__
        stray = [
            name
            for name in SWITCH_NAMES[1:]
            if name not in applicable and getattr(self, name) != defaults[name].default
        ]
        if stray:
            raise ValueError(
                f"rule {', '.join(stray)} does not apply to variant={self.variant!r}; "
                f"its switches: {', '.join(applicable)}"
            )

    @classmethod
    def from_mapping(cls, switches: Mapping[str, Any]) -> Rules:
        """Build from a mapping, refusing unknown switch names with the list of known ones (and
        anything but a mapping of names to values: a preset's name is no mapping)."""
        if not isinstance(switches, Mapping) or not all(isinstance(name, str) for name in switches):
            raise ValueError(
                f"rules must be a mapping of switch names to values (such as {{'head_rule': 'none'}}), "
                f"not {switches!r:.60}"
            )
        unknown = sorted(set(switches) - set(SWITCH_NAMES))
        if unknown:
            raise ValueError(f"unknown rule switch {', '.join(unknown)}; known switches: {', '.join(SWITCH_NAMES)}")
        return cls(**switches)

    def to_dict(self) -> dict[str, Any]:
        """Every switch with its value (JSON-ready; what a hand record stores)."""
        return dataclasses.asdict(self)

    def replace(self, **changes: Any) -> Rules:
        """A copy with some switches changed (validated like the constructor)."""
        switches = self.to_dict()
        if "variant" in changes and "target_score" not in changes and self.target_score == DEFAULT_TARGET[self.variant]:
            del switches["target_score"]  # follow the new variant's default target
        return Rules.from_mapping({**switches, **changes})

    @property
    def target(self) -> int:
        """The score a game is played to: ``target_score``, which the constructor resolved to the
        variant's own target where none was given."""
        assert self.target_score is not None, "Rules.__post_init__ resolves target_score"
        return self.target_score

    @property
    def num_seats(self) -> int:
        """Players at the table: 4 (partnership), 3 (cutthroat) or 2 (two_hand)."""
        return len(self.teams)

    @property
    def teams(self) -> tuple[int, ...]:
        """The team of each seat: partners share one (0, 1, 0, 1); without partners each seat is its own."""
        return GAMES[self.variant].teams

    def sees_passed_card(self, passer: int, viewer: int) -> bool:
        """Whether ``viewer`` sees the cards ``passer`` passes (or buries): its own, and its
        partner's when cards pass one at a time (``pass_mode="sequential"``, each card handed
        over as it is chosen). The engine's events, the web table and the terminal table all
        show passes by this one rule."""
        partners = self.teams[passer] == self.teams[viewer]
        return passer == viewer or (partners and self.pass_mode == "sequential")


SWITCH_NAMES: tuple[str, ...] = tuple(field.name for field in dataclasses.fields(Rules))


def check_env_options(given: Mapping[str, Any], options: Collection[str]) -> None:
    """Refuse keyword arguments of an environment that are neither its ``options`` nor rule
    switches, naming the nearest one (``opponent=`` for ``opponents=`` would otherwise read as an
    unknown rule switch)."""
    unknown = sorted(set(given) - set(SWITCH_NAMES))
    if unknown:
        raise ValueError(
            f"unknown option {', '.join(unknown)}{did_you_mean(unknown[0], [*options, *SWITCH_NAMES])}; "
            f"environment options: {', '.join(options)}; rule switches: {', '.join(SWITCH_NAMES)}"
        )


def parse_switch(name: str, text: str) -> tuple[str, Any]:
    """Parse ``name=text`` as typed on a command line (``"false"``, ``"3"``) into a switch value;
    ``ValueError`` naming a bad name or value, as :class:`Rules` does (also for a name or a text
    that is not a string: ``int(300.7)`` would quietly parse as 300). An integer switch takes
    the digits 0-9 only, spaces around them aside: its values are all positive, and ``int()``
    would also read ``"3_00"``, ``"+300"`` and Arabic-Indic digits as 300."""
    if not isinstance(name, str):
        raise ValueError(f"parse_switch: the switch name must be a string, got {type(name).__name__}: {name!r:.60}")
    if not isinstance(text, str):
        raise ValueError(
            f"parse_switch: the value of rule {name} must be a string as typed on a command line, "
            f"got {type(text).__name__}: {text!r:.60}"
        )
    if not name.strip():  # "--rule =": "unknown rule switch ;" read as a garbled message
        raise ValueError(f"no rule switch named before '=' (NAME=VALUE); known switches: {', '.join(SWITCH_NAMES)}")
    if name not in SWITCH_NAMES:
        raise ValueError(
            f"unknown rule switch {name}{did_you_mean(name, SWITCH_NAMES)}; known switches: {', '.join(SWITCH_NAMES)}"
        )
    allowed = CHOICES.get(name)
    candidates = allowed if allowed is not None else ()
    for option in candidates:
        if str(option).lower() == text.strip().lower():
            return name, option
    if allowed is not None:
        raise ValueError(f"rule {name}={text!r} is not allowed; allowed values: {_spell(allowed)}")
    digits = text.strip()
    if not (digits.isascii() and digits.isdigit()):
        raise ValueError(f"rule {name}={text!r} is not allowed; allowed values: {_integers(name)}")
    return name, int(digits)


def switches_help() -> str:
    """Every rule switch with the values it takes, as a command's ``--help`` lists them."""
    choices = [f"{name} ({'|'.join(str(v).lower() for v in values)})" for name, values in CHOICES.items()]
    integers = [
        f"{name} (integer {smallest}..{INTEGER_LIMITS[name][0]})" for name, (smallest, _) in INTEGER_SWITCHES.items()
    ]
    return ", ".join(choices + integers)


def parse_rule_assignment(text: str) -> tuple[str, Any]:
    """A ``--rule NAME=VALUE`` argument as a ``(switch, value)`` pair (``ValueError`` naming a bad one,
    or anything but a string)."""
    if not isinstance(text, str):
        raise ValueError(f"--rule takes a NAME=VALUE string, got {type(text).__name__}: {text!r:.60}")
    name, equals, value = text.partition("=")
    if not equals:
        raise ValueError(f"--rule {text!r}: expected NAME=VALUE, e.g. --rule head_rule=led_card")
    return parse_switch(name.strip(), value)


def parse_rule_assignments(texts: Sequence[str]) -> dict[str, Any]:
    """Several ``--rule NAME=VALUE`` arguments as switches (``ValueError`` naming a bad one, or a
    switch given twice: which one a command line meant would be a guess; or one string instead of
    several, whose letters would be read one by one)."""
    if isinstance(texts, str | bytes):
        raise ValueError(f"--rule assignments are a list of NAME=VALUE strings, got one string {texts!r:.60}")
    changes: dict[str, Any] = {}
    for text in texts:
        name, value = parse_rule_assignment(text)
        if name in changes:
            raise ValueError(f"--rule {name} given twice ({spell(changes[name])} and {spell(value)}): give it once")
        changes[name] = value
    return changes


#: Named rule sets. ``default`` is the base game of docs/rules.md.
PRESETS: dict[str, Rules] = {
    "default": Rules(),
    # pagat.com's main text: a run with a spare trump K or Q also scores the royal marriage.
    "pagat": Rules(run_extras="reuse"),
    # A looser table: follow suit without having to head, any trump when void.
    "casual": Rules(head_rule="none", must_overtrump=False),
}


def rules_from_command_line(preset: str | None = None, assignments: Sequence[str] = ()) -> Rules:
    """The rule set a command line asks for: the named rule preset (``--rules-preset NAME``, one of
    :data:`PRESETS`; None: the default rules), then each ``--rule NAME=VALUE`` over it.

    ``ValueError`` names an unknown preset (listing the presets), a malformed assignment, a bad
    switch or value, or a combination the rules refuse.
    """
    if preset is not None and preset not in PRESETS:
        raise ValueError(f"unknown rules preset {preset!r}; presets: {', '.join(PRESETS)}")
    base = PRESETS[preset or "default"]
    changes = parse_rule_assignments(assignments)
    return base.replace(**changes) if changes else base


def random_rules(rng: Any, base: Rules | None = None) -> Rules:
    """A rule set of ``base``'s variant (default: the default rules) whose switches with a fixed set
    of choices are each drawn uniformly from ``rng`` (a ``numpy.random.Generator``), among those
    that apply to the variant; the integer switches (``max_bid``, ``target_score``) stay ``base``'s."""
    base = base if base is not None else Rules()
    applicable = VARIANT_SWITCHES[base.variant]
    drawn = {name: CHOICES[name][int(rng.integers(len(CHOICES[name])))] for name in CHOICES if name in applicable}
    return base.replace(**drawn)


def spell(value: Any, quoted: bool = True) -> str:
    """A switch value as the rules documentation writes it: ``true``, ``4``, and strings quoted
    (``'winner'``) unless ``quoted`` is false (the tables)."""
    if isinstance(value, bool):
        return str(value).lower()
    return repr(value) if isinstance(value, str) and quoted else str(value)


def _spell(allowed: tuple[Any, ...]) -> str:
    """The allowed values of a switch, as an error message lists them."""
    return ", ".join(spell(value) for value in allowed)


def _integers(name: str) -> str:
    """The allowed values of the integer switch ``name``, as an error message lists them."""
    smallest, step = INTEGER_SWITCHES[name]
    return f"integers {smallest}..{INTEGER_LIMITS[name][0]} that are multiples of {step}"
