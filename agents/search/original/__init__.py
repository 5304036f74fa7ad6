"""The original ``pimc`` bot, kept whole as ``pimc:evaluate=heuristic``: heuristic play-outs in Python
(:mod:`.bot`) over deals drawn and replayed through the engine (:mod:`.sampling`). Frozen: the tests
check its decisions against those it made before the compiled search existed.
"""
