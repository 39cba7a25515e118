"""Exploration–performance link (P1-C8): is the relation non-monotone?

Stated rule. Per problem, rank methods by exploration (1 = least) and by
performance (1 = worst; −final simple regret, or the final best value when the
optimum is unknown), using medians over seeds. Fit performance rank as a
quadratic in exploration rank; a negative quadratic coefficient means the best
methods sit at intermediate exploration (inverted U). Across problems, a
one-sided sign test asks whether negative curvature is more common than 1/2.
Reported alongside: the rate at which the best method's exploration rank is
strictly inside the range (chance level (k−2)/k with k methods).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from boexplore.analysis.stats import binomial_ci, binomial_greater_pvalue
from boexplore.analysis.summaries import check_columns


def per_problem_shape(
    cells: pd.DataFrame, exploration: str = "otsd_norm", performance: str = "performance"
) -> pd.DataFrame:
    """Curvature and interior-best flag per problem (needs ≥ 3 methods)."""
    check_columns(cells, ("problem", "method", exploration, performance), "cell table")
    rows = []
    for problem, g in cells.groupby("problem", sort=True):
        g = g[np.isfinite(g[exploration]) & np.isfinite(g[performance])]
        k = len(g)
        if k < 3:
            continue
        er = g[exploration].rank(method="average").to_numpy(float)
        pr = g[performance].rank(method="average").to_numpy(float)
        z = (er - er.mean()) / max(er.std(), 1e-12)
        coef = np.polyfit(z, pr, 2)
        best = pr == pr.max()
        best_er = er[best]
        interior = bool(np.all((best_er > er.min()) & (best_er < er.max())))
        rows.append(
            {
                "problem": problem,
                "dim": int(g["dim"].iloc[0]),
                "n_methods": k,
                "curvature": float(coef[0]),
                "slope": float(coef[1]),
                "best_method": ",".join(sorted(g.loc[best, "method"])),
                "best_exploration_rank": float(best_er.mean()),
                "best_interior": interior,
                "interior_chance": (k - 2) / k,
            }
        )
    return pd.DataFrame(
        rows,
        columns=[
            "problem",
            "dim",
            "n_methods",
            "curvature",
            "slope",
            "best_method",
            "best_exploration_rank",
            "best_interior",
            "interior_chance",
        ],
    )


def nonmonotone_test(shape: pd.DataFrame) -> dict[str, float]:
    """Sign test on negative curvature and the interior-best rate with its chance level."""
    n = len(shape)
    k_neg = int((shape["curvature"] < 0).sum()) if n else 0
    frac, lo, hi = binomial_ci(k_neg, n)
    k_in = int(shape["best_interior"].sum()) if n else 0
    chance = float(shape["interior_chance"].mean()) if n else np.nan
    return {
        "frac_negative_curvature": frac,
        "ci_low": lo,
        "ci_high": hi,
        "n_problems": n,
        "p_sign": binomial_greater_pvalue(k_neg, n, 0.5),
        "interior_rate": k_in / n if n else np.nan,
        "interior_chance": chance,
        "p_interior": binomial_greater_pvalue(k_in, n, chance) if n else np.nan,
    }
