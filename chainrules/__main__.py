"""``python -m chainrules``: see :mod:`chainrules.cli`."""

import sys

from .cli import main

sys.exit(main())
