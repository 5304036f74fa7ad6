"""The search wing: bots that look ahead over sampled deals.

- :mod:`.pimc`: ``pimc``, perfect-information Monte Carlo search on the compiled kernel (card play
  over sampled deals, exact once few tricks are left);
- :mod:`.simulation`: its bidding, trump, passing and throw-in decisions, valued by simulated hands;
- :mod:`.inference`: deals weighted by how well they explain the other seats' calls and plays;
- :mod:`.guided`: ``guided``, the search with a policy network's prior over the cards;
- :mod:`.parameters`: the spec parameters of ``pimc`` and ``guided``'s search, for the registry;
- :mod:`.original`: the original ``pimc`` bot and its sampler, frozen (``pimc:evaluate=heuristic``).
"""
