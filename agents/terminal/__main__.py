"""``python -m agents.terminal``: the ``pinochle-play`` command."""

import sys

from .cli import main

sys.exit(main())
