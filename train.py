"""Train Pinochle agents by self-play: ``python train.py --config configs/default`` (see ``--help``).

The trainer itself is the :mod:`pinochle_train` package (also installed as ``pinochle-train``). Its
command line is run through :mod:`pinochle_commands`, as the console script is, so that a Ctrl-C
while the trainer's modules load ends in one line, not a traceback.
"""

from pinochle_commands import train

if __name__ == "__main__":
    raise SystemExit(train())
