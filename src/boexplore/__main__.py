"""Allow ``python -m boexplore``."""

import sys

from boexplore.cli import main

sys.exit(main())
