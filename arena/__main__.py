"""``python -m arena``: see :mod:`arena.cli`."""

import sys

from arena.cli import main

sys.exit(main())
