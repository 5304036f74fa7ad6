"""The spec parameters of ``pimc`` and those ``guided`` passes on to its search: their names and
types, as :mod:`agents.registry` parses specs. Kept apart from :mod:`.pimc` and :mod:`.guided` so
that a spec is parsed, and its mistakes reported, without importing either."""

#: ``pimc``'s parameters (:mod:`agents.search.pimc`).
PIMC_PARAMETERS: dict[str, type] = {
    "evaluate": str,
    "samples": int,
    "budget": float,
    "nodes": int,
    "solve": int,
    "leaf": int,
    "simulations": int,
    "pass_simulations": int,
    "pass_swaps": int,
    "infer": float,
    "infer_play": float,
    "pool": int,
}
#: The parameters of ``pimc``'s card search that ``guided`` passes on to it (with ``pimc``'s defaults).
GUIDED_SEARCH_PARAMETERS = ("samples", "budget", "nodes", "solve", "leaf", "infer", "infer_play")
