"""``load_agent(spec)``: agents from short strings, as the arena and the play CLI take them.

Specs: ``random``, ``heuristic``, ``pimc``, ``checkpoint:PATH``, ``guided`` and ``openspiel`` (OpenSpiel's
IS-MCTS, with the ``openspiel`` extra: :mod:`agents.openspiel.bots`), parameters after a colon as
``name:key=value,key=value`` (``pimc:samples=32,budget=0.2``), and
``mix:auction=heuristic,play=checkpoint:PATH`` to combine agents by phase (``auction`` (alias
``bid``), ``trump``, ``passing``, ``throw_in``, ``play``, and ``default`` for the phases not
named). An unknown name or parameter raises a ``ValueError`` listing what exists.

``program:cmd=COMMAND[,timeout=SECONDS]`` runs a bot program as a seat (:mod:`agents.program`,
``docs/bot_protocol.md``): ``COMMAND`` is everything up to a comma that starts another parameter
(``,timeout=``), split into arguments as a POSIX shell would (``shlex``: quote an argument with
spaces) and started without a shell, e.g. ``program:cmd=python3 examples/random_bot.py,timeout=5``
or, as a ``mix:`` part, ``mix:play=program:cmd=node examples/random_bot.js,default=heuristic``.

A list of specs in one string (``random,pimc:samples=2,budget=0.1``, as ``--eval-opponents`` takes
it) is cut by :func:`split_specs` only at a comma followed by a known agent name, as the ``mix:``
parser cuts only before a phase name, so parameters keep their commas.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from pinochle_env.engine import checked_seed
from pinochle_env.games.kit import variant_kit
from pinochle_env.protocol import DECISIONS, View
from pinochle_env.rules.switches import Rules
from pinochle_env.suggest import did_you_mean

from .base import Agent, RandomAgent, ValuedAction, act_with_values, check_plays, prepare, total_search_counts
from .search.parameters import GUIDED_SEARCH_PARAMETERS, PIMC_PARAMETERS

#: name -> (factory taking keyword parameters, {parameter: type}).
Factory = Callable[..., Any]  # returns an Agent
_REGISTRY: dict[str, tuple[Factory, dict[str, type]]] = {}
_BUILTINS_LOADED = False


def register(name: str, factory: Factory, parameters: dict[str, type] | None = None) -> None:
    """Make ``name[:key=value,...]`` loadable; ``parameters`` lists the keys the factory accepts."""
    _REGISTRY[name] = (factory, dict(parameters or {}))


def known_agents() -> list[str]:
    _load_builtins()
    return sorted([*_REGISTRY, "mix"])


def agents_help() -> str:
    """Every registered agent with its parameters, as a command's ``--help`` lists them."""
    _load_builtins()
    from .neural.agent import BUNDLED_FILES  # imports no PyTorch

    described = []
    for name in sorted(_REGISTRY):
        parameters = ", ".join(_REGISTRY[name][1])
        if name == "checkpoint":  # its path comes first: a file, a run folder or a bundled agent
            described.append(f"checkpoint:PATH (a file or run folder, or {' or '.join(BUNDLED_FILES)}; {parameters})")
        else:
            described.append(name + (f" ({parameters})" if parameters else ""))
    described.append(f"mix:PHASE=SPEC,... (phases {', '.join(MIX_KEYS)})")
    return "; ".join(described)


def split_specs(text: str) -> list[str]:
    """The agent specs of a comma-separated list: a comma starts a new spec only where a known agent
    name follows it (``random``, ``pimc:...``), so ``pimc:samples=2,budget=0.1,heuristic`` is two specs."""
    names = "|".join(re.escape(name) for name in sorted(known_agents(), key=len, reverse=True))
    split = re.compile(r",(?=\s*(?:" + names + r")\s*(?::|,|$))")
    return [part.strip() for part in split.split(text) if part.strip()]


def load_agent(spec: str, seed: int | None = None) -> Agent:
    """Build the agent a spec string describes (seeded with ``seed``: None or a whole number >= 0)."""
    _load_builtins()
    if not isinstance(spec, str):
        raise ValueError(f"an agent spec is text such as 'heuristic' or 'pimc:samples=16', not {spec!r:.60}")
    checked_seed(seed)
    spec = spec.strip()
    name, _, rest = spec.partition(":")
    if name == "mix":
        return MixAgent(_parse_mix(rest), seed=seed, spec=spec)
    if name not in _REGISTRY:
        where = "" if spec == name else f" in spec {spec!r}"
        near = did_you_mean(name, known_agents())
        raise ValueError(f"unknown agent {name!r}{where}{near}; known agents: {', '.join(known_agents())}")
    factory, parameters = _REGISTRY[name]
    if name == "checkpoint":  # checkpoint:PATH[,key=value,...]
        path, _, options = rest.partition(",")
        kwargs = {"path": path.strip(), **_parse_parameters(name, options, parameters)}
    elif name == "program":  # the command keeps its commas
        kwargs = _parse_parameters(name, rest, parameters, _PROGRAM_SPLIT)
    else:
        kwargs = _parse_parameters(name, rest, parameters)
    agent = factory(seed=seed, **kwargs)
    agent.name = spec
    return agent


def _named_in(spec: str, own: Callable[[str, str], list[str]]) -> list[str]:
    """What ``own(name, parameters)`` finds in a spec, or in each part of a ``mix:`` spec."""
    name, _, rest = spec.strip().partition(":")
    if name == "mix":
        return [item for sub in _parse_mix(rest).values() for item in _named_in(sub, own)]
    return own(name, rest)


def checkpoint_names(spec: str) -> list[str]:
    """The checkpoints a spec names, as written (a path or a bundled name): its own
    (``checkpoint:PATH``, ``guided:checkpoint=...``'s policy) or its parts' (``mix:``); without
    resolving them. ``ValueError`` for a malformed ``mix:`` or ``guided:`` spec."""

    def own(name: str, rest: str) -> list[str]:
        if name == "checkpoint":
            return [rest.partition(",")[0].strip()]
        if name == "guided":
            return [_parse_parameters(name, rest, GUIDED_PARAMETERS).get("checkpoint", GUIDED_CHECKPOINT)]
        return []

    return _named_in(spec, own)


def location_model_names(spec: str) -> list[str]:
    """The location models a spec names (``guided:locate=...``, also in a ``mix:``), as written."""

    def own(name: str, rest: str) -> list[str]:
        locate = _parse_parameters(name, rest, GUIDED_PARAMETERS).get("locate", "") if name == "guided" else ""
        return [locate] if locate else []

    return _named_in(spec, own)


def program_commands(spec: str) -> list[str]:
    """The bot-program commands a spec runs, as written: its own (``program:cmd=...``) or its parts'
    (``mix:``); ``ValueError`` for a malformed ``mix:`` or ``program:`` spec."""

    def own(name: str, rest: str) -> list[str]:
        return (
            [_parse_parameters(name, rest, PROGRAM_PARAMETERS, _PROGRAM_SPLIT).get("cmd", "")]
            if name == "program"
            else []
        )

    return _named_in(spec, own)


def checkpoint_files(spec: str, variant: str) -> list[Path]:
    """The files of trained networks a spec plays in the game ``variant``: its checkpoints
    (:func:`checkpoint_names`) and location models (:func:`location_model_names`), resolved as the
    agent resolves them; without loading them."""
    from .neural.agent import resolve_checkpoint  # imports no PyTorch
    from .neural.location import resolve_location_model

    checkpoints = [resolve_checkpoint(name, variant) for name in checkpoint_names(spec)]
    return checkpoints + [resolve_location_model(name, variant) for name in location_model_names(spec)]


def _parse_parameters(
    name: str, text: str, parameters: dict[str, type], split: re.Pattern[str] | None = None
) -> dict[str, Any]:
    """The ``key=value`` parameters of agent ``name``, each of its declared type, each given once,
    cut at every comma or where ``split`` matches (``program``'s command keeps its commas); a number
    must be finite (nan passes any bound an agent checks, and inf none meaningfully)."""
    kwargs: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in (split or _COMMA).split(text))):
        key, equals, value = item.partition("=")
        if not equals and key in parameters:
            raise ValueError(f"parameter {key} of agent {name!r} has no value: write {key}=VALUE")
        if not equals or key not in parameters:
            allowed = ", ".join(parameters) or "none"
            near = did_you_mean(key, parameters)
            raise ValueError(f"unknown parameter {item!r} for agent {name!r}{near}; parameters: {allowed}")
        if key in kwargs:
            raise ValueError(f"parameter {key} of agent {name!r} is given twice")
        kind = parameters[key]
        try:
            kwargs[key] = _BOOLEANS[value.lower()] if kind is bool else kind(value)
        except (KeyError, ValueError):
            raise ValueError(f"parameter {key}={value!r} of agent {name!r} is not {_KIND_WORDS[kind]}") from None
        if kind is float and not math.isfinite(kwargs[key]):
            raise ValueError(f"parameter {key}={value!r} of agent {name!r} is not a finite number")
    return kwargs


_COMMA = re.compile(",")
#: ``program``'s parameters, and the cut between them: only a comma before one of their names.
PROGRAM_PARAMETERS: dict[str, type] = {"cmd": str, "timeout": float}
_PROGRAM_SPLIT = re.compile(r",(?=\s*(?:" + "|".join(PROGRAM_PARAMETERS) + r")\s*=)")
_BOOLEANS = {"true": True, "false": False, "1": True, "0": False, "yes": True, "no": False}
_KIND_WORDS = {int: "an integer", float: "a number", bool: "true or false", str: "a string"}
MIX_KEYS = (*DECISIONS, "bid", "default")
_MIX_SPLIT = re.compile(r",(?=\s*(?:" + "|".join(MIX_KEYS) + r")\s*=)")


def _parse_mix(text: str) -> dict[str, str]:
    parts: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in _MIX_SPLIT.split(text))):
        key, equals, value = item.partition("=")
        key = "auction" if key.strip() == "bid" else key.strip()
        if not equals or key not in MIX_KEYS:
            raise ValueError(f"bad mix entry {item!r}; use phase=spec with phases {', '.join(MIX_KEYS)}")
        if key in parts:
            raise ValueError(f"mix phase {key} is given twice ({key}={parts[key]} and {item}); name each phase once")
        parts[key] = value.strip()
    return parts


class MixAgent:
    """Delegates each decision to the agent named for its phase (for ablations).

    Which decisions a game has depends on the game, so whether every one has an agent (or a
    ``default``) is checked when a game is set up (:meth:`check_rules`, through
    :func:`~agents.base.check_plays`), and again at any decision without one.
    """

    def __init__(self, parts: dict[str, str], seed: int | None = None, spec: str = "mix") -> None:
        self.name = spec
        self._agents = {}
        for phase, sub in parts.items():
            try:
                self._agents[phase] = load_agent(sub, seed)
            except ValueError as error:  # name the part: the unknown agent, not the phases left without one
                raise ValueError(f"mix part {phase}={sub}: {error}") from None

    def reset(self, seed: int | None = None) -> None:
        for agent in self._agents.values():
            agent.reset(seed)

    def search_counts(self) -> tuple[int, int, int]:
        """The parts' together (:func:`agents.base.search_counts`)."""
        return total_search_counts(self._agents.values())

    def prepare(self, rules: Rules) -> None:
        """Let every part do its one-time set-up (:func:`agents.base.prepare`)."""
        for agent in self._agents.values():
            prepare(agent, rules)

    def check_rules(self, rules: Rules) -> None:
        """Refuse rules under which a part cannot play, or whose game has a decision no part takes."""
        for phase, agent in self._agents.items():
            try:
                check_plays(agent, rules)
            except ValueError as error:
                raise ValueError(f"mix part {phase}={agent.name}: {error}") from None
        missing = [d for d in variant_kit(rules).decisions_taken if d not in self._agents]
        if missing and "default" not in self._agents:
            raise ValueError(
                f"mix spec leaves the {rules.variant} game's {', '.join(missing)} without an agent; add default=SPEC"
            )

    def act(self, view: View, mask: np.ndarray) -> int:
        return self._part(view).act(view, mask)

    def act_with_values(self, view: View, mask: np.ndarray) -> ValuedAction:
        """The part's action, with its values where that part gives them (:func:`decide_with_values`)."""
        return act_with_values(self._part(view), view, mask)

    def _part(self, view: View) -> Agent:
        phase = view.phase.decision or "default"
        agent = self._agents.get(phase) or self._agents.get("default")
        if agent is None:
            raise ValueError(f"mix spec {self.name!r} has no agent for phase {phase}; add {phase}=SPEC or default=SPEC")
        return agent


#: ``guided``'s parameters, and the policy it plays without ``checkpoint=``.
GUIDED_PARAMETERS: dict[str, type] = {
    "checkpoint": str,
    "prior": float,
    "bidding": str,
    "declaring": str,
    **{name: PIMC_PARAMETERS[name] for name in GUIDED_SEARCH_PARAMETERS},
    "locate": str,
    "locate_weight": float,
}
GUIDED_CHECKPOINT = "bundled"
#: ``openspiel``'s parameters (:mod:`agents.openspiel.bots`, which needs OpenSpiel: kept here so
#: that a spec is parsed, and its mistakes reported, without importing it).
OPENSPIEL_PARAMETERS: dict[str, type] = {"bot": str, "simulations": int, "uct": float, "rollouts": int, "worlds": int}


def _guided_search(seed: int | None = None, **parameters: Any) -> Agent:
    """``guided:...`` (:mod:`agents.search.guided`), imported when asked for: it needs PyTorch."""
    from .search.guided import GuidedSearchAgent

    return GuidedSearchAgent(seed, **parameters)


def _openspiel_bot(seed: int | None = None, **parameters: Any) -> Agent:
    """``openspiel:...`` (:mod:`agents.openspiel.bots`), imported when asked for: it needs OpenSpiel
    (a ``ValueError`` saying what to install where it is missing)."""
    from .openspiel import import_pyspiel

    try:
        import_pyspiel()
    except ImportError as error:
        raise ValueError(f"agent 'openspiel': {error}") from None
    from .openspiel.bots import OpenSpielAgent

    return OpenSpielAgent(seed, **parameters)


def _load_builtins() -> None:
    """Register the bundled agents on first use (keeps imports light and avoids cycles)."""
    global _BUILTINS_LOADED
    if _BUILTINS_LOADED:
        return
    _BUILTINS_LOADED = True
    from .heuristic import HeuristicAgent
    from .neural.agent import load_checkpoint_agent
    from .program.agent import ProgramAgent
    from .search.pimc import PIMCAgent

    builtins: dict[str, tuple[Factory, dict[str, type]]] = {
        "random": (lambda seed=None: RandomAgent(seed), {}),
        "heuristic": (HeuristicAgent, HeuristicAgent.PARAMETERS),
        "pimc": (PIMCAgent, PIMC_PARAMETERS),
        "checkpoint": (load_checkpoint_agent, {"sample": bool}),
        "guided": (_guided_search, GUIDED_PARAMETERS),
        "program": (ProgramAgent, PROGRAM_PARAMETERS),
        "openspiel": (_openspiel_bot, OPENSPIEL_PARAMETERS),
    }
    for name, entry in builtins.items():  # a user's own registration under the same name wins
        _REGISTRY.setdefault(name, entry)
