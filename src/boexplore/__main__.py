"""Allow ``python -m boexplore``."""

import sys

from boexplore.cli import console_main

sys.exit(console_main())
