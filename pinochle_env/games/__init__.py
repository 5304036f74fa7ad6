"""The games, one package each, with the same module names in every package.

Each ``pinochle_env/games/<game>/`` holds ``game.py`` (the engine, its phases and its view),
``encoding.py`` (its observation), ``replay.py`` (its hand records), ``render.py`` (its table as
text) and an ``__init__`` with ``kit(rules)``, the declarations the generic layers read
(:class:`pinochle_env.games.kit.VariantKit`). :mod:`.registry` lists the games (adding a game is a
new folder and one entry there: ``docs/adding_a_variant.md``); :func:`.kit.variant_kit` finds a
rule set's kit. The rules themselves (switches and rule functions) are :mod:`pinochle_env.rules`.
"""
