"""Train Pinochle agents by self-play: ``python train.py --config configs/default`` (see ``--help``).

The trainer itself is the :mod:`pinochle_train` package (also installed as ``pinochle-train``).
"""

from pinochle_train.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
