"""Small statistical helpers shared by the paper-1 analyses.

Bootstrap intervals (the project's single ``bootstrap_ci`` and a hierarchical
problems-then-seeds variant), paired tests over seeds, multiple-comparison
corrections (Holm, Benjamini–Hochberg) and exact binomial intervals. All
randomness goes through an explicit seed so every table is reproducible.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from scipy import stats


def bootstrap_ci(
    values: Sequence[float] | np.ndarray,
    statistic: Callable[[np.ndarray], float] = np.median,
    *,
    n_boot: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> tuple[float, float, float]:
    """``(estimate, low, high)``: ``statistic`` of ``values`` with a percentile bootstrap interval.

    The one bootstrap interval of the project. Everything after ``statistic`` is
    keyword-only so ``level`` and ``n_boot`` cannot be swapped. NaNs are dropped;
    with no finite value everything is NaN; with one value the interval collapses
    to that value.
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"bootstrap_ci: level must be in (0, 1), got {level}")
    if n_boot < 1:
        raise ValueError(f"bootstrap_ci: n_boot must be >= 1, got {n_boot}")
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return (np.nan, np.nan, np.nan)
    point = float(statistic(x))
    if x.size == 1:
        return (point, point, point)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, x.size, size=(n_boot, x.size))
    boots = np.array([statistic(x[row]) for row in idx], dtype=float)
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(boots, [alpha, 1.0 - alpha])
    return (point, float(lo), float(hi))


def paired_ratio_ci(
    a: np.ndarray, b: np.ndarray, *, level: float = 0.95, n_boot: int = 1000, seed: int = 0
) -> tuple[float, float, float]:
    """``mean(a) / mean(b)`` over paired entries (same seeds) with a paired bootstrap interval.

    Only the first ``min(len(a), len(b))`` pairs are used; all NaN when there are none or
    ``mean(b) <= 0`` (the ratio is then not a meaningful size).
    """
    n = min(len(a), len(b))
    if n == 0 or np.mean(b[:n]) <= 0:
        return (np.nan, np.nan, np.nan)
    a, b = np.asarray(a[:n], float), np.asarray(b[:n], float)
    rng = np.random.default_rng(seed)
    boots = []
    for _ in range(n_boot):
        i = rng.integers(n, size=n)
        boots.append(a[i].mean() / max(b[i].mean(), 1e-300))
    alpha = (1.0 - level) / 2.0
    return (
        float(a.mean() / b.mean()),
        float(np.quantile(boots, alpha)),
        float(np.quantile(boots, 1.0 - alpha)),
    )


def spearman_ci(
    x: np.ndarray, y: np.ndarray, *, level: float = 0.95, n_boot: int = 1000, seed: int = 0
) -> tuple[float, float, float]:
    """Spearman rho of ``(x, y)`` with a bootstrap-over-points interval (NaN if undefined).

    Resamples whose ``x`` or ``y`` is constant carry no rank information and are skipped.
    """
    if len(x) < 3 or np.ptp(y) == 0:
        return (np.nan, np.nan, np.nan)
    rho = float(stats.spearmanr(x, y).statistic)
    rng = np.random.default_rng(seed)
    boots = []
    for _ in range(n_boot):
        i = rng.integers(len(x), size=len(x))
        if np.ptp(x[i]) > 0 and np.ptp(y[i]) > 0:
            boots.append(stats.spearmanr(x[i], y[i]).statistic)
    alpha = (1.0 - level) / 2.0
    return rho, float(np.nanquantile(boots, alpha)), float(np.nanquantile(boots, 1.0 - alpha))


def hierarchical_bootstrap_ci(
    groups: Sequence[np.ndarray],
    *,
    n_boot: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> tuple[float, float, float]:
    """Mean over groups of the within-group mean, bootstrapped over groups then members.

    ``groups`` are e.g. the per-seed paired differences of each problem. Each
    resample draws problems with replacement, then seeds with replacement inside
    every drawn problem, so the interval carries both sources of variation.
    Returns ``(estimate, low, high)``; NaNs when no group has a finite value.
    """
    gs = [np.asarray(g, dtype=float) for g in groups]
    gs = [g[np.isfinite(g)] for g in gs]
    gs = [g for g in gs if g.size]
    if not gs:
        return (np.nan, np.nan, np.nan)
    point = float(np.mean([g.mean() for g in gs]))
    if len(gs) == 1 and gs[0].size == 1:
        return (point, point, point)
    rng = np.random.default_rng(seed)
    k = len(gs)
    boots = np.empty(n_boot)
    for b in range(n_boot):
        pick = rng.integers(0, k, size=k)
        boots[b] = np.mean([gs[i][rng.integers(0, gs[i].size, gs[i].size)].mean() for i in pick])
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(boots, [alpha, 1.0 - alpha])
    return (point, float(lo), float(hi))


def _finite(diff: np.ndarray) -> np.ndarray:
    """The finite paired differences of ``diff`` as floats (every paired test drops NaNs)."""
    d = np.asarray(diff, dtype=float)
    return d[np.isfinite(d)]


def paired_t_two_sided(diff: np.ndarray) -> tuple[float, float]:
    """Two-sided one-sample t-test of paired differences: ``(p_value, mean)``.

    NaNs are dropped. Fewer than 2 differences give p = 1; constant non-zero
    differences give p = 0 (the direction is the sign of the mean); all-zero
    differences give p = 1.
    """
    d = _finite(diff)
    if d.size == 0:
        return (1.0, np.nan)
    mean = float(d.mean())
    if d.size < 2:
        return (1.0, mean)
    if np.ptp(d) <= 1e-15 * max(1.0, float(np.abs(d).max())):
        return (0.0 if mean != 0 else 1.0, mean)
    # the closed form of stats.ttest_1samp(d, 0).pvalue, without its per-call overhead
    # (the claims re-decide thousands of units on resamples)
    t = mean / (float(d.std(ddof=1)) / np.sqrt(d.size))
    return (float(2.0 * stats.t.sf(abs(t), d.size - 1)), mean)


def wilcoxon_two_sided(diff: np.ndarray) -> tuple[float, float]:
    """Two-sided Wilcoxon signed-rank test of paired differences: ``(p_value, mean)``.

    Exact for small samples (zeros dropped, ``zero_method="wilcox"``), so with n
    non-zero differences p cannot go below 2^(1-n) (0.0078 at n = 8) — the reason a
    Holm-corrected rank test may be unable to decide at few seeds. No non-zero
    difference gives p = 1.
    """
    d = _finite(diff)
    if d.size == 0:
        return (1.0, np.nan)
    mean = float(d.mean())
    if np.count_nonzero(d) < 1:
        return (1.0, mean)
    res = stats.wilcoxon(d, alternative="two-sided", zero_method="wilcox")
    return (float(res.pvalue), mean)


def sign_test_two_sided(diff: np.ndarray) -> tuple[float, float]:
    """Two-sided exact sign test (binomial, p = 1/2) of paired differences: ``(p, mean)``.

    Zeros are dropped; p cannot go below 2^(1-n) with n non-zero differences.
    """
    d = _finite(diff)
    if d.size == 0:
        return (1.0, np.nan)
    pos, neg = int((d > 0).sum()), int((d < 0).sum())
    if pos + neg == 0:
        return (1.0, float(d.mean()))
    return (float(stats.binomtest(pos, pos + neg, 0.5).pvalue), float(d.mean()))


#: Two-sided paired tests by name (``analysis.robustness.nonparametric`` chooses one).
TWO_SIDED_TESTS = {
    "t": paired_t_two_sided,
    "wilcoxon": wilcoxon_two_sided,
    "sign": sign_test_two_sided,
}


def min_attainable_p(test: str, n: int) -> float:
    """Smallest two-sided p-value ``test`` can give with ``n`` paired differences."""
    if test == "t":
        return 0.0
    if test in ("wilcoxon", "sign"):
        return min(1.0, 2.0 ** (1 - n)) if n > 0 else 1.0
    raise ValueError(f"unknown test {test!r}; use one of {sorted(TWO_SIDED_TESTS)}")


def t_interval(diff: np.ndarray, level: float = 0.95) -> tuple[float, float, float]:
    """Mean of paired differences with its t interval: ``(mean, low, high)``.

    NaNs are dropped; fewer than 2 differences give NaN bounds (and a NaN mean for none).
    """
    d = np.asarray(diff, dtype=float)
    d = d[np.isfinite(d)]
    if d.size < 2:
        return (float(d.mean()) if d.size else np.nan, np.nan, np.nan)
    mean, se = float(d.mean()), float(d.std(ddof=1) / np.sqrt(d.size))
    half = float(stats.t.ppf(0.5 + level / 2.0, d.size - 1)) * se
    return (mean, mean - half, mean + half)


def _paired_diff(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a - b`` over the pairs finite on both sides (equal shapes required)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"paired samples need equal shapes, got {a.shape} and {b.shape}")
    keep = np.isfinite(a) & np.isfinite(b)
    return a[keep] - b[keep]


def paired_greater_pvalue(a: np.ndarray, b: np.ndarray) -> float:
    """One-sided p-value that ``a`` exceeds ``b`` for paired samples (seeds).

    Wilcoxon signed-rank test (exact for small samples); all-zero differences
    give p = 1. Pairs with a NaN on either side are dropped.
    """
    diff = _paired_diff(a, b)
    if diff.size == 0 or np.all(diff == 0):
        return 1.0
    res = stats.wilcoxon(diff, alternative="greater", zero_method="zsplit")
    return float(res.pvalue)


def paired_t_greater_pvalue(a: np.ndarray, b: np.ndarray) -> float:
    """One-sided paired t-test p-value that ``a`` exceeds ``b`` (NaN pairs dropped).

    Unlike the signed-rank test its p-value is not floored at 2^-n, so it can
    survive a multiple-comparison correction with few seeds. Zero-variance
    differences give p = 0 (all positive) or 1; fewer than 2 pairs give 1.
    """
    diff = _paired_diff(a, b)
    if diff.size < 2:
        return 1.0
    if np.ptp(diff) <= 1e-15 * max(1.0, float(np.abs(diff).max())):
        return 0.0 if diff.mean() > 0 else 1.0
    return float(stats.ttest_1samp(diff, 0.0, alternative="greater").pvalue)


PAIRED_TESTS = {"t": paired_t_greater_pvalue, "wilcoxon": paired_greater_pvalue}


def _step_adjust(
    pvalues: Sequence[float] | np.ndarray, on_sorted: Callable[[np.ndarray, int], np.ndarray]
) -> np.ndarray:
    """Adjusted p-values: ``on_sorted(p in ascending order, m)``, capped at 1, put back in the
    order of ``pvalues`` (the frame of Holm's and Benjamini–Hochberg's procedures)."""
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    out = np.empty(m)
    out[order] = np.minimum(on_sorted(p[order], m), 1.0)
    return out


def holm(pvalues: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm step-down adjusted p-values (controls the family-wise error rate)."""
    return _step_adjust(pvalues, lambda p, m: np.maximum.accumulate((m - np.arange(m)) * p))


def benjamini_hochberg(pvalues: Sequence[float] | np.ndarray) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values (controls the false discovery rate)."""
    return _step_adjust(
        pvalues, lambda p, m: np.minimum.accumulate((p * m / np.arange(1, m + 1))[::-1])[::-1]
    )


def adjust_pvalues(pvalues: Sequence[float] | np.ndarray, method: str) -> np.ndarray:
    """Dispatch to ``holm`` or ``bh``; raises ValueError for other names."""
    if method == "holm":
        return holm(pvalues)
    if method in ("bh", "fdr_bh"):
        return benjamini_hochberg(pvalues)
    raise ValueError(f"unknown p-value correction {method!r}; use 'holm' or 'bh'")


def binomial_ci(k: int, n: int, level: float = 0.95) -> tuple[float, float, float]:
    """Proportion k/n with its exact (Clopper–Pearson) interval; NaNs when n = 0."""
    if n <= 0:
        return (np.nan, np.nan, np.nan)
    ci = stats.binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method="exact")
    return (k / n, float(ci.low), float(ci.high))


def binomial_greater_pvalue(k: int, n: int, p0: float) -> float:
    """One-sided exact binomial p-value for a success rate above ``p0``."""
    if n <= 0:
        return np.nan
    return float(stats.binomtest(int(k), int(n), p0, alternative="greater").pvalue)
