"""Size of the initial (scrambled Sobol) design: a d-aware default and a guard.

The default leaves most of the budget to BO: ``n_init = min(max(5, d + 1), budget // 5)``
(at least 2 points, so a GP can be fitted). ``d + 1`` points are the fewest that
are not all in one hyperplane; capping at a fifth of the budget keeps at least
80 % of the evaluations for the acquisition function, whatever d. An initial
design larger than half the budget turns a BO run into a Sobol run, so it is
refused unless asked for explicitly (``allow_large_init``).
"""

from __future__ import annotations


def default_n_init(dim: int, budget: int) -> int:
    """``min(max(5, dim + 1), budget // 5)``, at least 2 and at most ``budget``."""
    if dim < 1 or budget < 1:
        raise ValueError(f"dim and budget must be >= 1, got dim={dim}, budget={budget}")
    return min(budget, max(2, min(max(5, dim + 1), budget // 5)))


def initial_design_problem(n_init: int, budget: int, allow_large_init: bool = False) -> str | None:
    """Why ``n_init`` is not acceptable for ``budget`` (None when it is)."""
    if n_init < 1:
        return f"n_init must be >= 1, got {n_init}"
    if n_init > budget:
        return f"n_init ({n_init}) exceeds the budget ({budget})"
    if 2 * n_init > budget and not allow_large_init:
        return (
            f"the initial design ({n_init} Sobol points) would take more than half of the "
            f"budget ({budget}), leaving little to BO; lower n_init, raise the budget, or ask "
            "for it explicitly (--allow-large-init / config key allow_large_init: true)"
        )
    return None


def resolve_n_init(
    n_init: int | None, dim: int, budget: int, allow_large_init: bool = False
) -> int:
    """``n_init`` or the d-aware default; ``ValueError`` with the reason when refused."""
    value = default_n_init(dim, budget) if n_init is None else int(n_init)
    reason = initial_design_problem(value, budget, allow_large_init)
    if reason is not None:
        raise ValueError(reason)
    return value
