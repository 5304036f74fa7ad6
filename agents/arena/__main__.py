"""``python -m agents.arena``: the ``pinochle-arena`` command."""

import sys

from .cli import main

sys.exit(main())
