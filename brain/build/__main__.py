"""``python -m brain.build``: see :func:`brain.build.bundle.main`."""

import sys

from brain.build.bundle import main

sys.exit(main())
