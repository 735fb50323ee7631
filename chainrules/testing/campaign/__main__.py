"""``python -m chainrules.testing.campaign --seeds 0:10000``: see the package's docstring."""

import sys

from . import main

sys.exit(main())
