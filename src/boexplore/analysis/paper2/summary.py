"""Aggregation of paper-2 experiment outputs into tables (E1-E4)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from boexplore.analysis.claimkit.stats import bootstrap_ci
from boexplore.parametric.stats import entropy, loglog_slope


def incumbent_fraction(g: pd.DataFrame) -> float:
    """Fraction of non-initial rounds that re-query the point with the best observation so far."""
    best_y: dict[int, float] = {}
    hits = []
    for idx, y, initial in zip(g["index"], g["y"], g["is_initial"], strict=True):
        if not initial and best_y:
            hits.append(idx == max(best_y, key=best_y.get))
        best_y[idx] = max(best_y.get(idx, -np.inf), y)
    return float(np.mean(hits)) if hits else float("nan")


def late_lock_share(index: np.ndarray, gap: np.ndarray, gap_min: float = 0.0) -> float:
    """Largest share of the plays in a window held by one point whose regret gap (f* - f, noise
    free) exceeds ``gap_min``.

    1 when every play of the window repeats one such point, 0 when every play is within
    ``gap_min`` of the optimum, about 1/N for uniform random play over N points. NaN for an
    empty window.
    """
    index, gap = np.asarray(index), np.asarray(gap, dtype=float)
    if index.size == 0:
        return float("nan")
    off = index[gap > gap_min]
    if off.size == 0:
        return 0.0
    return float(np.unique(off, return_counts=True)[1].max() / index.size)


def e1_per_seed(
    traces: pd.DataFrame, slope_from: float = 0.5, late_window: int = 25, gap_min: float = 0.0
) -> pd.DataFrame:
    """One row per (problem_key, method, seed): R_T, R_T/T, log-log slope, late play at the
    optimum and the late window's largest share at one point more than ``gap_min`` below the
    optimum (``late_lock_share``; NaN when the trace carries no point indices)."""
    rows = []
    for (pk, m, s), g in traces.groupby(["problem_key", "method", "seed"]):
        g = g.sort_values("eval_index")
        R = g["cum_regret"].to_numpy()
        T = len(R)
        w = min(late_window, T)
        late = g["at_optimum"].to_numpy()[-w:]
        lock = (
            late_lock_share(g["index"].to_numpy()[-w:], g["inst_regret"].to_numpy()[-w:], gap_min)
            if {"index", "inst_regret"} <= set(g.columns)
            else np.nan
        )
        ratio = R / np.arange(1, T + 1)
        half = ratio[T // 2 :]
        rows.append(
            {
                "problem_key": pk,
                "problem": g["problem"].iloc[0],
                "method": m,
                "seed": int(s),
                "T": T,
                "R_T": float(R[-1]),
                "R_T_over_T": float(R[-1] / T),
                "slope": loglog_slope(R, slope_from),
                "late_frac_opt": float(late.mean()),
                "late_lock_share": lock,
                "simple_regret": float(g["regret"].iloc[-1]),
                "ratio_decreasing": bool(half[-1] < half[0]) if len(half) > 1 else False,
                "incumbent_frac": incumbent_fraction(g)
                if {"index", "is_initial"} <= set(g.columns)
                else np.nan,
                **_gap_stats(g),
            }
        )
    return pd.DataFrame(rows)


def _gap_stats(g: pd.DataFrame) -> dict[str, float]:
    """Convergence of the trained rounds: median / 90% quantile of the gap to the exact
    minimiser, and the share of rounds whose argmax agrees with the exact minimiser's."""
    gap = g["exact_gap"].dropna() if "exact_gap" in g else pd.Series(dtype=float)
    agree = g["argmax_agree"].dropna() if "argmax_agree" in g else pd.Series(dtype=float)
    return {
        "gap_median": float(gap.median()) if len(gap) else np.nan,
        "gap_q90": float(gap.quantile(0.9)) if len(gap) else np.nan,
        "argmax_agree": float(agree.mean()) if len(agree) else np.nan,
    }


def e1_summary(
    per_seed: pd.DataFrame,
    level: float = 0.9,
    n_boot: int = 2000,
    stuck_late_frac: float = 0.5,
    gap_max: float = 0.05,
) -> pd.DataFrame:
    """Per (problem_key, method): median slope with bootstrap CI, mean R_T, R_T/T, late play,
    stuck fraction, convergence gap (``gap_flag``: median gap above ``gap_max``)."""
    rows = []
    for (pk, m), g in per_seed.groupby(["problem_key", "method"]):
        med, lo, hi = bootstrap_ci(g["slope"].to_numpy(), np.median, level=level, n_boot=n_boot)
        rows.append(
            {
                "problem_key": pk,
                "method": m,
                "n_seeds": len(g),
                "slope_median": med,
                "slope_ci_low": lo,
                "slope_ci_high": hi,
                "R_T_mean": g["R_T"].mean(),
                "R_T_se": g["R_T"].std(ddof=1) / np.sqrt(len(g)) if len(g) > 1 else np.nan,
                "R_T_over_T_mean": g["R_T_over_T"].mean(),
                "late_frac_opt_mean": g["late_frac_opt"].mean(),
                "stuck_frac": float((g["late_frac_opt"] < stuck_late_frac).mean()),
                "simple_regret_mean": g["simple_regret"].mean(),
                "incumbent_frac_mean": g["incumbent_frac"].mean(),
                "gap_median": g["gap_median"].median() if "gap_median" in g else np.nan,
                "gap_q90": g["gap_q90"].median() if "gap_q90" in g else np.nan,
                "argmax_agree": g["argmax_agree"].mean() if "argmax_agree" in g else np.nan,
            }
        )
    out = pd.DataFrame(rows)
    if len(out):
        out["gap_flag"] = out["gap_median"] > gap_max
    return out


def e1_curves(traces: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard error of R_t and R_t/t per (problem_key, method, t)."""
    df = traces.assign(t=traces["eval_index"] + 1)
    df = df.assign(r_over_t=df["cum_regret"] / df["t"])
    g = df.groupby(["problem_key", "method", "t"])
    out = g.agg(
        R_mean=("cum_regret", "mean"),
        R_sd=("cum_regret", "std"),
        n=("seed", "nunique"),
        ratio_mean=("r_over_t", "mean"),
    ).reset_index()
    out["R_se"] = out["R_sd"] / np.sqrt(out["n"])
    return out


def e2_summary(bounds: pd.DataFrame) -> pd.DataFrame:
    """Per E2 cell: coverage overall and in certified rounds, ratio quantiles, beta, empirical beta."""
    rows = []
    for keys, g in bounds.groupby(["problem_key", "reg", "width", "init_scale", "lam"]):
        cert = g[g["certified"]]
        seeds_all = g.groupby("seed")["coverage"].min()
        seeds_cert = cert.groupby("seed")["coverage"].min() if len(cert) else pd.Series(dtype=float)
        rows.append(
            {
                **dict(
                    zip(["problem_key", "reg", "width", "init_scale", "lam"], keys, strict=True)
                ),
                "n_seeds": g["seed"].nunique(),
                "n_rounds": len(g),
                "frac_seeds_all_covered": float((seeds_all >= 1.0).mean()),
                "coverage_pairs": float(g["coverage"].mean()),
                "frac_certified": float(g["certified"].mean()),
                "coverage_pairs_certified": float(cert["coverage"].mean()) if len(cert) else np.nan,
                "frac_seeds_all_covered_certified": float((seeds_cert >= 1.0).mean())
                if len(cert)
                else np.nan,
                "ratio_median": float(g["ratio_median"].median()),
                "ratio_q95": float(g["ratio_q95"].quantile(0.95)),
                "ratio_max": float(g["ratio_max"].max()),
                "beta_median": float(g["beta_t"].median()),
                "B_median": float(g["B_t"].median()),
                "empirical_beta": float(g["empirical_beta"].max()),
                "spearman_err_sigma": float(g["spearman_err_sigma"].mean()),
                **_control_stats(g),
            }
        )
    return pd.DataFrame(rows)


def _control_stats(g: pd.DataFrame) -> dict[str, float]:
    """Coverage of the trained fit next to the controls (untrained network, g = 0, exact
    minimiser), overall and on informative pairs (beta_t sigma_t(x) < range of f)."""
    if "n_informative" not in g:
        return {}
    inf = float(g["n_informative"].sum())
    out: dict[str, float] = {
        "informative_frac": inf / float(g["n_points"].sum()),
        "band_median": float(g["band_median"].median()),
        "gap_median": float(g["exact_gap"].median()) if "exact_gap" in g else np.nan,
    }
    for name in ("trained", "untrained", "zero", "exact"):
        if g[f"coverage_{name}"].isna().all():  # e.g. no exact minimiser (anchored L2)
            for key in ("coverage_pairs", "coverage_informative", "frac_seeds_all_covered"):
                out[f"{key}_{name}"] = np.nan
            continue
        out[f"coverage_pairs_{name}"] = float(g[f"coverage_{name}"].mean())
        out[f"coverage_informative_{name}"] = (
            float(g[f"covered_informative_{name}"].sum()) / inf if inf else np.nan
        )
        out[f"frac_seeds_all_covered_{name}"] = float(
            (g.groupby("seed")[f"coverage_{name}"].min() >= 1.0).mean()
        )
    return out


def e3_dynamic_per_seed(traces: pd.DataFrame, late_window: int = 25) -> pd.DataFrame:
    """Per (lambda, s, seed): R_T, late argmax entropy and OTSD of the chosen points."""
    from boexplore.metrics import otsd_normalized

    rows = []
    for (lam, s, seed), gs in traces.groupby(["lam", "init_scale", "seed"]):
        gs = gs.sort_values("eval_index")
        X = gs[[c for c in gs.columns if c.startswith("x_")]].to_numpy()
        rows.append(
            {
                "lam": lam,
                "init_scale": s,
                "seed": int(seed),
                "R_T": float(gs["cum_regret"].iloc[-1]),
                "late_argmax_entropy": entropy(np.bincount(gs["index"].to_numpy()[-late_window:])),
                "otsd_norm": float(otsd_normalized(X)[-1]),
                **_gap_stats(gs),
            }
        )
    return pd.DataFrame(rows)


def e3_dynamic_summary(traces: pd.DataFrame, late_window: int = 25) -> pd.DataFrame:
    """Per (lambda, s): mean R_T, optimism probability, argmax entropy and OTSD / OE of chosen points."""
    from boexplore.metrics import observation_entropy, otsd_normalized

    rows = []
    for (lam, s), g in traces.groupby(["lam", "init_scale"]):
        per = []
        for _, gs in g.groupby("seed"):
            gs = gs.sort_values("eval_index")
            X = gs[[c for c in gs.columns if c.startswith("x_")]].to_numpy()
            late = gs["index"].to_numpy()[-late_window:]
            per.append(
                {
                    "R_T": gs["cum_regret"].iloc[-1],
                    "optimism": gs.loc[~gs["is_initial"], "optimistic"].mean(),
                    "late_entropy": entropy(np.bincount(late)),
                    "otsd_norm": float(otsd_normalized(X)[-1]),
                    "oe": float(observation_entropy(X, "kl")[-1]),
                }
            )
        p = pd.DataFrame(per)
        rows.append(
            {
                "lam": lam,
                "init_scale": s,
                "n_seeds": len(p),
                "R_T_mean": p["R_T"].mean(),
                "R_T_se": p["R_T"].std(ddof=1) / np.sqrt(len(p)) if len(p) > 1 else np.nan,
                "optimism_prob": p["optimism"].mean(),
                "late_argmax_entropy": p["late_entropy"].mean(),
                "otsd_norm": p["otsd_norm"].mean(),
                "oe": p["oe"].mean(),
            }
        )
    return pd.DataFrame(rows)


def e4_summary(traces: pd.DataFrame) -> pd.DataFrame:
    """Per (problem_key, method): mean final simple regret (log10) and its standard error."""
    last = traces.sort_values("eval_index").groupby(["problem_key", "method", "seed"]).tail(1)
    last = last.assign(log10_regret=np.log10(np.maximum(last["regret"], 1e-8)))
    g = last.groupby(["problem_key", "method"])
    out = g.agg(
        n_seeds=("seed", "nunique"),
        final_regret_mean=("regret", "mean"),
        log10_regret_mean=("log10_regret", "mean"),
        log10_regret_sd=("log10_regret", "std"),
    ).reset_index()
    out["log10_regret_se"] = out["log10_regret_sd"] / np.sqrt(out["n_seeds"])
    return out
