"""``python -m boexplore.bench.step_profile``: runs the package's ``main``.

A package runs through ``__main__``; ``main`` stays in ``__init__``, by the docstring it cites."""

from boexplore.bench.step_profile import main

raise SystemExit(main())
