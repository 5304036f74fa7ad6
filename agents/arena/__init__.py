"""``pinochle-arena``: duplicate matches and round robins between agent specs.

Usage::

    pinochle-arena random heuristic                          # a match: 100 deal pairs
    pinochle-arena random heuristic pimc:samples=16 --deals 500 --games 20 --rule head_rule=led_card
    pinochle-arena random heuristic --rules-preset casual --rule must_overtrump=true  # a preset, one switch changed
    pinochle-arena random heuristic --name first --deals 2000  # Ctrl-C, then:
    pinochle-arena --resume --name first                       # plays only the missing deal pairs
    pinochle-arena random heuristic --backend ray --ray-address auto  # on a Ray cluster (pip extra ray)

Two specs play a match, more play a round robin (every pair, A = the earlier spec). Every deal
is played twice with the same cards and dealer and the teams swapped (a *deal pair*; in the
variants without partners, once per seat A takes: three times in cutthroat, B in the other seats);
with ``--games N`` each pairing also plays N *game pairs* (whole games to the target score, or
``--hand-cap`` hands, on the same deal sequence, once per team of A). Deal i is the same in every
pairing and every run with the same ``--seed``, and agents are built per play from seeds derived
from the unit id, so results do not depend on ``--workers`` (see :mod:`agents.arena.play`).

With ``--backend ray`` the jobs are Ray tasks spread over a cluster (``--ray-address auto`` or
HOST:PORT joins one; without an address a local Ray instance starts): a task whose worker process
or node dies is run again (up to ``RAY_TASK_RETRIES`` times), and results stream into the same
results file as tasks finish, so the results and ``--resume`` are as with local workers.

The out directory (``--out``, default ``runs/arena/<--name or timestamp>``) receives
``config.json`` (the config, the code version: git commit or package version, the SHA-256 of
every checkpoint file played, and each bot program's command with the SHA-256 of its program
files), ``bots/`` (what bot programs wrote to their standard error, one file per spec, headed by
deal, play and seat), ``results.jsonl`` (one line per finished deal or game pair,
written as it finishes: pairing, both plays' hand records, timing), and at the end
``summary.txt`` (the printed report), ``summary.csv``, ``summary.json``, ``margins.png`` and,
for a round robin, ``ratings.png`` (see :mod:`agents.arena.report` for the statistics).
``--resume`` continues an interrupted run: it reads ``results.jsonl`` (dropping a truncated last
line), skips the pairs already there and plays the rest; ``--deals``, ``--games`` and the agents
may grow on resume, the seed, rules, hand cap, checkpoint and program files may not. A job that
raises or a worker process that dies ends the run (:class:`WorkerFailure`, exit status 1) with the
results file intact for ``--resume``; so does a bot program that breaks the protocol, answers too
late, crashes or hangs (``program:cmd=...``, ``docs/bot_protocol.md``), with an error naming the
unit and play, the bot, the decision and what it sent. A bot program is one process per play and
seat for all the units of a job, a new match each (:mod:`agents.arena.play`).
"""

from .tournament import CONFIG, RESULTS, ArenaConfig, ArenaError, parse_rules, read_results, run_arena
from .workers import WorkerFailure

__all__ = [
    "CONFIG",
    "RESULTS",
    "ArenaConfig",
    "ArenaError",
    "WorkerFailure",
    "parse_rules",
    "read_results",
    "run_arena",
]
