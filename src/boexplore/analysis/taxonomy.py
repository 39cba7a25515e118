"""Exploration taxonomy: a partial order of methods from paired tests over seeds.

Rule (stated once, used everywhere):

1. For every problem and every ordered pair of methods (A, B), pair the final
   exploration values by seed and compute the one-sided p-value for "A
   explores more than B": paired t-test (default) or Wilcoxon signed-rank
   (``test="wilcoxon"``; its p-value cannot drop below 2^-n_seeds, so it only
   survives the correction with many seeds).
2. Correct all p-values of the subset (all problems × ordered pairs) with Holm
   (default) or Benjamini–Hochberg; a problem *supports* A ⪰ B when the
   adjusted p-value is below ``alpha``.
3. A ⪰ B when A is supported on at least ``majority`` (> 1/2, default 2/3) of
   the problems on which both were run.
4. The partial order is the transitive closure of that relation; methods in a
   cycle of the closure are merged into one equivalence class (A ≈ B). The
   Hasse diagram is its transitive reduction.

Because ``majority`` > 1/2, A ⪰ B and B ⪰ A cannot both come out of step 3.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from boexplore.analysis.claimkit.stats import PAIRED_TESTS, adjust_pvalues
from boexplore.analysis.summaries import check_columns


def _t_pvalues(mat: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Vectorised one-sided paired t-tests for all ordered method pairs.

    ``mat`` is (seeds, methods). Returns (p[A, B], median diff, n pairs); the
    rules match :func:`boexplore.analysis.claimkit.stats.paired_t_greater_pvalue`.
    """
    diff = mat[:, :, None] - mat[:, None, :]  # (S, A, B)
    ok = np.isfinite(diff)
    n = ok.sum(axis=0)
    # pairs with no finite difference (a method missing on every seed) give NaN on purpose
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        d0 = np.where(ok, diff, 0.0)
        mean = d0.sum(axis=0) / np.maximum(n, 1)
        var = (np.where(ok, diff - mean, 0.0) ** 2).sum(axis=0) / np.maximum(n - 1, 1)
        med = np.nanmedian(diff, axis=0) if diff.shape[0] else np.full(diff.shape[1:], np.nan)
        scale = np.maximum(1.0, np.nanmax(np.abs(np.where(ok, diff, 0.0)), axis=0))
        const = np.sqrt(var) <= 1e-15 * scale
        t = mean / np.sqrt(var / np.maximum(n, 1))
        p = stats.t.sf(t, np.maximum(n - 1, 1))
    p = np.where(const, np.where(mean > 0, 0.0, 1.0), p)
    p = np.where(n < 2, 1.0, p)
    return p, med, n


def pairwise_tests(
    final: pd.DataFrame, metric: str, methods: Sequence[str] | None = None, test: str = "t"
) -> pd.DataFrame:
    """One row per (problem, A, B), A ≠ B: seeds paired, median diff, one-sided p."""
    check_columns(final, ("problem", "method", "seed", metric), "final table")
    if test not in PAIRED_TESTS:
        raise ValueError(f"unknown paired test {test!r}; use one of {sorted(PAIRED_TESTS)}")
    pvalue = PAIRED_TESTS[test]
    parts = []
    for problem, grp in final.groupby("problem", sort=True):
        wide = grp.pivot_table(index="seed", columns="method", values=metric, aggfunc="first")
        labels = [m for m in wide.columns if methods is None or m in methods]
        mat = wide[labels].to_numpy(float)
        k = len(labels)
        if mat.shape[0] == 0 or k < 2:  # e.g. OE undefined on every prefix (T < d)
            continue
        ia, ib = np.nonzero(~np.eye(k, dtype=bool))
        if test == "t":
            p, med, n = _t_pvalues(mat)
            pv, mv, nv = p[ia, ib], med[ia, ib], n[ia, ib]
        else:
            pv = np.array([pvalue(mat[:, a], mat[:, b]) for a, b in zip(ia, ib, strict=True)])
            d = mat[:, ia] - mat[:, ib]
            nv = np.isfinite(d).sum(axis=0)
            with np.errstate(all="ignore"):
                mv = np.nanmedian(d, axis=0) if d.shape[0] else np.full(ia.size, np.nan)
        parts.append(
            pd.DataFrame(
                {
                    "problem": problem,
                    "a": np.asarray(labels)[ia],
                    "b": np.asarray(labels)[ib],
                    "n_pairs": nv.astype(int),
                    "median_diff": mv,
                    "p_greater": pv,
                }
            )
        )
    cols = ["problem", "a", "b", "n_pairs", "median_diff", "p_greater"]
    if not parts:
        return pd.DataFrame(columns=cols)
    return pd.concat(parts, ignore_index=True)[cols]


def dominance(
    tests: pd.DataFrame, alpha: float = 0.05, correction: str = "holm", majority: float = 2 / 3
) -> pd.DataFrame:
    """Per ordered pair: problems compared, problems supporting A ⪰ B, the relation."""
    if not 0.5 < majority <= 1.0:
        raise ValueError(f"majority must be in (0.5, 1], got {majority}")
    cols = ["a", "b", "n_problems", "n_support", "support_frac", "dominates"]
    if tests.empty:
        return pd.DataFrame(columns=cols)
    t = tests.copy()
    t["p_adj"] = adjust_pvalues(t["p_greater"].to_numpy(float), correction)
    t["support"] = (t["p_adj"] < alpha) & (t["median_diff"] > 0)
    g = t.groupby(["a", "b"], sort=True)
    out = pd.DataFrame({"n_problems": g.size(), "n_support": g["support"].sum()}).reset_index()
    out["support_frac"] = out["n_support"] / out["n_problems"]
    out["dominates"] = (out["n_problems"] > 0) & (out["support_frac"] >= majority)
    return out[cols]


@dataclass
class PartialOrder:
    """Closure of a dominance relation over ``nodes`` with equivalence classes."""

    nodes: list[str]
    closure: np.ndarray  # closure[i, j]: nodes[i] ⪰ nodes[j] (i ≠ j)
    classes: list[list[str]] = field(default_factory=list)

    def geq(self, a: str, b: str) -> bool:
        """True when a ⪰ b in the closure."""
        i, j = self.nodes.index(a), self.nodes.index(b)
        return bool(self.closure[i, j])

    def hasse_edges(self) -> list[tuple[int, int]]:
        """Transitive reduction between classes: (upper class, lower class)."""
        k = len(self.classes)
        rel = np.zeros((k, k), dtype=bool)
        for ci, mi in enumerate(self.classes):
            for cj, mj in enumerate(self.classes):
                if ci != cj:
                    rel[ci, cj] = self.geq(mi[0], mj[0])
        edges = []
        for u in range(k):
            for v in range(k):
                if rel[u, v] and not np.any(rel[u, :] & rel[:, v]):
                    edges.append((u, v))
        return edges

    def layers(self) -> list[int]:
        """Layer of each class = longest chain of classes above it (0 = top)."""
        k = len(self.classes)
        edges = self.hasse_edges()
        layer = [0] * k
        for _ in range(k):  # Bellman-Ford style relaxation on a DAG
            changed = False
            for u, v in edges:
                if layer[v] < layer[u] + 1:
                    layer[v] = layer[u] + 1
                    changed = True
            if not changed:
                break
        return layer


def transitive_closure(rel: np.ndarray) -> np.ndarray:
    """Boolean Warshall closure (diagonal left False unless on a cycle)."""
    c = rel.astype(bool).copy()
    for k in range(c.shape[0]):
        c |= c[:, [k]] & c[[k], :]
    return c


def partial_order(dom: pd.DataFrame, nodes: Sequence[str]) -> PartialOrder:
    """Build the closure of the ``dominates`` relation and merge cycles."""
    nodes = sorted(set(nodes))
    idx = {m: i for i, m in enumerate(nodes)}
    rel = np.zeros((len(nodes), len(nodes)), dtype=bool)
    for row in dom.itertuples(index=False):
        if row.dominates and row.a in idx and row.b in idx:
            rel[idx[row.a], idx[row.b]] = True
    clo = transitive_closure(rel)
    mutual = clo & clo.T
    classes: list[list[str]] = []
    seen: set[int] = set()
    for i in range(len(nodes)):
        if i in seen:
            continue
        members = [j for j in range(len(nodes)) if j == i or mutual[i, j]]
        seen.update(members)
        classes.append([nodes[j] for j in members])
    np.fill_diagonal(clo, False)
    return PartialOrder(nodes=nodes, closure=clo, classes=classes)


def taxonomy(
    final: pd.DataFrame,
    metric: str,
    alpha: float = 0.05,
    correction: str = "holm",
    majority: float = 2 / 3,
    methods: Sequence[str] | None = None,
    test: str = "t",
) -> tuple[pd.DataFrame, PartialOrder]:
    """Dominance table and partial order for one subset of problems."""
    tests = pairwise_tests(final, metric, methods, test=test)
    dom = dominance(tests, alpha=alpha, correction=correction, majority=majority)
    present = (
        sorted(final["method"].unique())
        if methods is None
        else [m for m in sorted(final["method"].unique()) if m in methods]
    )
    return dom, partial_order(dom, present)


def dimension_subsets(
    final: pd.DataFrame, low_max: int = 10, high_min: int = 50
) -> dict[str, pd.DataFrame]:
    """``all``, ``low_d`` (d ≤ low_max) and ``high_d`` (d ≥ high_min) slices."""
    return {
        "all": final,
        "low_d": final[final["dim"] <= low_max],
        "high_d": final[final["dim"] >= high_min],
    }
