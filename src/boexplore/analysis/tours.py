"""How good is the OTSD insertion tour? Compare it with near-optimal tours.

OTSD is the length of a closed tour built by cheapest insertion in
chronological order, with no re-optimisation. To tell users how far that is
from the true (optimal) tour length, we compute for real trace prefixes:

* the exact optimum by Held–Karp dynamic programming for small T;
* otherwise a local optimum from 2-opt + Or-opt moves (numpy-vectorised),
  started from the insertion tour itself (so it can only be shorter);
* the lower bound max(MST weight, 2·diameter, Σ nearest-neighbour distance).

Ratios heuristic / best ≥ 1 (how much OTSD overstates the tour) and
heuristic / lower bound are reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.sparse.csgraph import minimum_spanning_tree
from scipy.spatial.distance import cdist

EPS = 1e-12


def distance_matrix(X: np.ndarray) -> np.ndarray:
    """Euclidean distance matrix of the rows of a 2-D array."""
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] == 0:
        raise ValueError(f"need a non-empty (T, d) array, got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("points contain NaN or inf")
    return cdist(X, X)


def tour_length(D: np.ndarray, order: Sequence[int]) -> float:
    """Length of the closed tour visiting ``order`` then returning to its start."""
    o = np.asarray(order, dtype=int)
    if o.size < 2:
        return 0.0
    return float(D[o, np.roll(o, -1)].sum())


def insertion_tour(D: np.ndarray) -> list[int]:
    """Chronological cheapest-insertion tour (ties to the first edge from node 0)."""
    n = D.shape[0]
    tour = [0]
    for t in range(1, n):
        a = np.asarray(tour)
        b = np.roll(a, -1)
        cost = D[a, t] + D[t, b] - D[a, b]
        i = int(np.argmin(cost))  # first minimiser
        tour.insert(i + 1, t)
    return tour


def held_karp(D: np.ndarray) -> tuple[float, list[int]]:
    """Exact shortest closed tour by dynamic programming over subsets (n ≤ ~14)."""
    n = D.shape[0]
    if n <= 3:
        order = list(range(n))
        return tour_length(D, order), order
    if n > 16:
        raise ValueError(f"Held–Karp is exponential; refusing n = {n} > 16")
    m = n - 1  # node 0 is the fixed start; subsets over nodes 1..n-1
    full = 1 << m
    dp = np.full((full, m), np.inf)
    parent = np.full((full, m), -1, dtype=int)
    for j in range(m):
        dp[1 << j, j] = D[0, j + 1]
    Dm = D[1:, 1:]
    masks = sorted(range(1, full), key=lambda s: bin(s).count("1"))
    bits = np.array([1 << j for j in range(m)])
    for s in masks:
        in_s = (s & bits) != 0
        if in_s.sum() < 2:
            continue
        prev = dp[s ^ bits, :]  # row j: subset without j, ending anywhere
        cand = prev + Dm.T  # cand[j, i] = dp[s - j, i] + D[i, j]
        cand[:, ~in_s] = np.inf
        best_i = np.argmin(cand, axis=1)
        vals = cand[np.arange(m), best_i]
        vals[~in_s] = np.inf
        dp[s] = vals
        parent[s] = np.where(in_s, best_i, -1)
    closing = dp[full - 1] + D[1:, 0]
    j = int(np.argmin(closing))
    length = float(closing[j])
    order, s = [], full - 1
    while j >= 0:
        order.append(j + 1)
        pj = parent[s, j]
        s ^= 1 << j
        j = int(pj) if s else -1
    return length, [0, *order[::-1]]


def two_opt(D: np.ndarray, order: Sequence[int], max_iter: int = 100_000) -> list[int]:
    """Best-improvement 2-opt: reverse the segment giving the largest gain, repeat."""
    t = np.asarray(order, dtype=int).copy()
    n = t.size
    if n < 4:
        return t.tolist()
    i_idx, j_idx = np.triu_indices(n, k=2)
    keep = ~((i_idx == 0) & (j_idx == n - 1))  # those two edges are adjacent
    i_idx, j_idx = i_idx[keep], j_idx[keep]
    for _ in range(max_iter):
        a, b = t[i_idx], t[(i_idx + 1) % n]
        c, d = t[j_idx], t[(j_idx + 1) % n]
        delta = D[a, c] + D[b, d] - D[a, b] - D[c, d]
        k = int(np.argmin(delta))
        if delta[k] >= -EPS:
            break
        i, j = i_idx[k], j_idx[k]
        t[i + 1 : j + 1] = t[i + 1 : j + 1][::-1]
    return t.tolist()


def or_opt(
    D: np.ndarray, order: Sequence[int], max_seg: int = 3, max_iter: int = 100_000
) -> list[int]:
    """Move segments of 1..max_seg consecutive nodes (either orientation) elsewhere."""
    t = list(order)
    n = len(t)
    if n < 5:
        return t
    for _ in range(max_iter):
        improved = False
        arr = np.asarray(t)
        for L in range(1, min(max_seg, n - 3) + 1):
            for i in range(n):
                seg_idx = [(i + k) % n for k in range(L)]
                s0, sl = arr[seg_idx[0]], arr[seg_idx[-1]]
                p, nx = arr[(i - 1) % n], arr[(i + L) % n]
                gain = D[p, s0] + D[sl, nx] - D[p, nx]
                rest = np.array([arr[(i + L + k) % n] for k in range(n - L)])
                u, v = rest[:-1], rest[1:]
                fwd = D[u, s0] + D[sl, v] - D[u, v]
                rev = D[u, sl] + D[s0, v] - D[u, v]
                best = np.minimum(fwd, rev)
                k = int(np.argmin(best))
                if best[k] < gain - EPS:
                    seg = arr[seg_idx].tolist()
                    if rev[k] < fwd[k]:
                        seg = seg[::-1]
                    rest_l = rest.tolist()
                    t = rest_l[: k + 1] + seg + rest_l[k + 1 :]
                    arr = np.asarray(t)
                    improved = True
        if not improved:
            break
    return t


def improve_tour(D: np.ndarray, order: Sequence[int]) -> list[int]:
    """Alternate 2-opt and Or-opt until neither shortens the tour."""
    t = list(order)
    best = tour_length(D, t)
    while True:
        t = or_opt(D, two_opt(D, t))
        new = tour_length(D, t)
        if new >= best - EPS:
            return t
        best = new


def tour_lower_bound(D: np.ndarray) -> float:
    """max(MST weight, 2·max pairwise distance, Σ nearest-neighbour distances)."""
    n = D.shape[0]
    if n < 2:
        return 0.0
    mst = float(minimum_spanning_tree(D).sum())  # zero-length edges are ignored: fine
    off = D + np.diag(np.full(n, np.inf))
    return max(mst, 2.0 * float(D.max()), float(off.min(axis=1).sum()))


def _ratio(num: float, den: float) -> float:
    if den <= EPS:
        return 1.0 if num <= EPS else np.inf
    return num / den


def tour_quality(X: np.ndarray, exact_max: int = 11) -> dict[str, float | int | str]:
    """Heuristic vs best-known tour length and lower bound for one point set."""
    D = distance_matrix(X)
    n = D.shape[0]
    heur_order = insertion_tour(D)
    heur = tour_length(D, heur_order)
    if n <= exact_max:
        best, _ = held_karp(D)
        method = "held_karp"
    else:
        best = tour_length(D, improve_tour(D, heur_order))
        method = "2opt+oropt"
    best = min(best, heur)
    lb = tour_lower_bound(D)
    return {
        "n": n,
        "heuristic": heur,
        "best": best,
        "lower_bound": lb,
        "tour_method": method,
        "ratio_best": _ratio(heur, best),
        "ratio_lb": _ratio(heur, lb),
    }


def x_columns(df: pd.DataFrame) -> list[str]:
    """``x_0 .. x_{d-1}`` in numeric order."""
    cols = [c for c in df.columns if c.startswith("x_") and c[2:].isdigit()]
    return sorted(cols, key=lambda c: int(c[2:]))


def trace_tour_quality(
    paths: Sequence[str | Path],
    prefix_sizes: Sequence[int],
    max_traces: int = 20,
    exact_max: int = 11,
    seed: int = 0,
) -> pd.DataFrame:
    """Tour-quality rows for a seeded subsample of traces and prefix sizes.

    A trace file may hold several seeds (``seeds<a>-<b>.parquet``); every
    (file, seed) group is one trace. Files are visited in a seeded random order
    until ``max_traces`` traces are collected.
    """
    if max_traces < 1:
        raise ValueError(f"max_traces must be >= 1, got {max_traces}")
    order = sorted(str(p) for p in paths)
    order = [order[i] for i in np.random.default_rng(seed).permutation(len(order))]
    rows: list[dict[str, object]] = []
    n_traces = 0
    for path in order:
        if n_traces >= max_traces:
            break
        tr = pd.read_parquet(path)
        groups = tr.groupby("seed", sort=True) if "seed" in tr.columns else [(0, tr)]
        for run_seed, g in groups:
            if n_traces >= max_traces:
                break
            if "eval_index" in g.columns:
                g = g.sort_values("eval_index")
            X = g[x_columns(g)].to_numpy(float)
            if X.shape[0] < 2:
                continue
            n_traces += 1
            sizes = sorted({min(int(s), X.shape[0]) for s in prefix_sizes if int(s) >= 2})
            for n in sizes:
                res = tour_quality(X[:n], exact_max=exact_max)
                rows.append(
                    {
                        "trace": path,
                        "problem": g["problem"].iloc[0] if "problem" in g else "",
                        "dim": int(X.shape[1]),
                        "method": g["method"].iloc[0] if "method" in g else "",
                        "seed": int(run_seed),
                        **res,
                    }
                )
    cols = [
        "trace", "problem", "dim", "method", "seed", "n", "heuristic", "best",
        "lower_bound", "tour_method", "ratio_best", "ratio_lb",
    ]  # fmt: skip
    if not rows:
        return pd.DataFrame(columns=cols)
    return pd.DataFrame(rows)[cols]
