"""``python -m chainrules``: see ``chainrules.cli``."""

import sys

from .cli import main

sys.exit(main())
