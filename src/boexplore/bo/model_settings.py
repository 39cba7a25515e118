"""The GP's model settings (kernel family, fixed lengthscale / noise / outputscale): names,
defaults and validation, without torch (the workflow plans with them; ``bo/gp_spec.py`` builds
the model).

The rules of each setting are in ``bo/gp_spec.py``.
"""

from __future__ import annotations

import math
from typing import Any

#: Kernel families a run can use (``BOSettings.gp_kernel``); "prior" = the family of gp_prior.
GP_KERNELS: tuple[str, ...] = ("prior", "matern12", "matern32", "matern52", "rbf")
#: The Matern smoothness of each Matern family.
MATERN_NU: dict[str, float] = {"matern12": 0.5, "matern32": 1.5, "matern52": 2.5}
#: The four settings and their defaults (today's model); the identity leaves them out there.
MODEL_DEFAULTS: dict[str, Any] = {
    "gp_kernel": "prior",
    "gp_lengthscale": "fitted",
    "gp_noise": "fitted",
    "gp_outputscale": "prior",
}
#: Lowest fixed noise variance (a fixed value needs no jitter floor; below it the Cholesky
#: jitter of 1e-8 dominates anyway).
MIN_FIXED_NOISE = 1e-8


def is_number(value: Any) -> bool:
    """A fixed value: an int or float, not a bool (YAML true is not a lengthscale)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def model_setting_errors(settings: dict[str, Any]) -> list[str]:
    """What is wrong with the four model settings in ``settings`` (empty when all are valid)."""
    errors = []
    kernel = settings.get("gp_kernel", "prior")
    if kernel not in GP_KERNELS:
        errors.append(f"BO setting gp_kernel must be one of {list(GP_KERNELS)}, got {kernel!r}")
    rules = {
        "gp_lengthscale": ("fitted", 0.0),
        "gp_noise": ("fitted", MIN_FIXED_NOISE),
        "gp_outputscale": (("prior", "fitted"), 0.0),
    }
    for key, (words, low) in rules.items():
        value = settings.get(key, MODEL_DEFAULTS[key])
        names = (words,) if isinstance(words, str) else words
        if value in names and isinstance(value, str):
            continue
        if not is_number(value) or not math.isfinite(value) or value <= low:
            errors.append(
                f"BO setting {key} must be {' or '.join(repr(n) for n in names)} or a number "
                f"> {low:g}, got {value!r}"
            )
    return errors
