"""Verdicts for the paper-2 claims P2-C1 ... P2-C5 from the aggregated tables.

Thresholds come from the config (``parametric.claims``), fixed before results are
looked at. Each row: claim_id, claim, statistic, value, ci_low, ci_high,
threshold, verdict (reproduced / not reproduced / inconclusive), n, note.
The full text of the paper was not available: the tested statements are the
reconstructed ones of the planning note (README says so).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from boexplore.analysis.claims import COLUMNS  # one claims-table format for both papers
from boexplore.parametric.stats import bootstrap_ci

TEXT = {
    "P2-C1": "RR-TS has sublinear cumulative regret on realizable finite-domain problems",
    "P2-C2": "RR-TS regret is comparable to GP-TS and clearly better than random",
    "P2-C3": "Removing re-randomisation or regularisation breaks exploration in a non-trivial fraction of seeds",
    "P2-C4": "beta_t * sigma_t(x) (Matern-dominating kernel) covers the error at rate >= 1 - delta in certified rounds",
    "P2-C5": "Exploration grows with lambda and init scale; regret U-shaped (OTSD/OE of chosen points too)",
}
DEFAULTS = {
    "slope_max": 0.9,
    "gp_factor": 2.0,
    "random_ratio_max": 0.5,
    "stuck_late_frac": 0.5,
    "stuck_min_frac": 0.2,
    "rho_min": 0.5,
    "min_certified_frac": 0.2,
    "level": 0.9,
    "n_boot": 2000,
    "policy": "rr_ts",
    "ablations": ["nn_warm", "nn_greedy"],
}


def _row(
    cid: str,
    statistic: str,
    value: float,
    lo: float,
    hi: float,
    threshold: str,
    verdict: str,
    n: int,
    note: str = "",
) -> dict[str, Any]:
    return dict(
        zip(
            COLUMNS,
            [cid, TEXT[cid], statistic, value, lo, hi, threshold, verdict, n, note],
            strict=True,
        )
    )


def _verdict_upper(lo: float, hi: float, thr: float) -> str:
    """Claim 'statistic < thr': reproduced if the whole CI is below, refuted if the whole CI is above."""
    if not np.isfinite(lo) or not np.isfinite(hi):
        return "inconclusive"
    return "reproduced" if hi < thr else "not reproduced" if lo >= thr else "inconclusive"


def _ratio_ci(
    a: np.ndarray, b: np.ndarray, level: float, n_boot: int
) -> tuple[float, float, float]:
    """mean(a)/mean(b) with a paired (same seeds) bootstrap interval."""
    n = min(len(a), len(b))
    if n == 0 or np.mean(b[:n]) <= 0:
        return (np.nan,) * 3
    a, b = a[:n], b[:n]
    rng = np.random.default_rng(0)
    boots = []
    for _ in range(n_boot):
        i = rng.integers(n, size=n)
        boots.append(a[i].mean() / max(b[i].mean(), 1e-300))
    q = (1 - level) / 2
    return (
        float(a.mean() / b.mean()),
        float(np.quantile(boots, q)),
        float(np.quantile(boots, 1 - q)),
    )


def _rho_ci(x: np.ndarray, y: np.ndarray, level: float, n_boot: int) -> tuple[float, float, float]:
    """Spearman rho with a bootstrap-over-points interval."""
    if len(x) < 3 or np.ptp(y) == 0:
        return (np.nan,) * 3
    rho = float(spearmanr(x, y).statistic)
    rng = np.random.default_rng(0)
    boots = []
    for _ in range(n_boot):
        i = rng.integers(len(x), size=len(x))
        if np.ptp(x[i]) > 0 and np.ptp(y[i]) > 0:
            boots.append(spearmanr(x[i], y[i]).statistic)
    q = (1 - level) / 2
    return rho, float(np.nanquantile(boots, q)), float(np.nanquantile(boots, 1 - q))


def claims_table(
    thresholds: Mapping[str, Any],
    e1_seeds: pd.DataFrame,
    realizable_keys: list[str],
    e2: pd.DataFrame | None,
    e2_bounds: pd.DataFrame | None,
    delta: float,
    e3_static: pd.DataFrame | None,
    e3_dynamic: pd.DataFrame | None,
) -> pd.DataFrame:
    """All claim rows (see module docstring)."""
    th = {**DEFAULTS, **dict(thresholds)}
    level, nb, pol = float(th["level"]), int(th["n_boot"]), th["policy"]
    rows = []
    # P2-C1 and P2-C2 per realizable problem
    for pk in realizable_keys:
        sub = e1_seeds[e1_seeds["problem_key"] == pk]
        mine = sub[sub["method"] == pol].sort_values("seed")
        if mine.empty:
            rows.append(
                _row(
                    "P2-C1",
                    f"median log-log slope of R_t ({pk})",
                    np.nan,
                    np.nan,
                    np.nan,
                    f"< {th['slope_max']}",
                    "inconclusive",
                    0,
                    f"no {pol} runs",
                )
            )
            continue
        med, lo, hi = bootstrap_ci(mine["slope"].to_numpy(), np.median, level, nb)
        note = (
            f"R_T/T mean {mine['R_T_over_T'].mean():.3g}; R_t/t decreasing over 2nd half in "
            f"{mine['ratio_decreasing'].mean():.0%} of seeds; late play at x* {mine['late_frac_opt'].mean():.0%}"
        )
        rows.append(
            _row(
                "P2-C1",
                f"median log-log slope of R_t over 2nd half ({pk}, {pol})",
                med,
                lo,
                hi,
                f"CI high < {th['slope_max']}",
                _verdict_upper(lo, hi, th["slope_max"]),
                len(mine),
                note,
            )
        )
        for other, thr, label in (
            ("gp_ts", th["gp_factor"], "R_T(RR-TS)/R_T(GP-TS)"),
            ("random", th["random_ratio_max"], "R_T(RR-TS)/R_T(random)"),
        ):
            ref = sub[sub["method"] == other].sort_values("seed")
            common = np.intersect1d(mine["seed"], ref["seed"])
            a = mine.set_index("seed").loc[common, "R_T"].to_numpy()
            b = ref.set_index("seed").loc[common, "R_T"].to_numpy()
            v, lo, hi = _ratio_ci(a, b, level, nb)
            rows.append(
                _row(
                    "P2-C2",
                    f"{label} ({pk})",
                    v,
                    lo,
                    hi,
                    f"CI high < {thr}",
                    _verdict_upper(lo, hi, thr),
                    len(common),
                    "paired over seeds, ratio of mean cumulative regret",
                )
            )
    # P2-C3: stuck fraction of ablations vs the policy, pooled over realizable problems
    real = e1_seeds[e1_seeds["problem_key"].isin(realizable_keys)]
    stuck = lambda d: (d["late_frac_opt"] < th["stuck_late_frac"]).to_numpy(float)  # noqa: E731
    base = real[real["method"] == pol]
    for abl in th["ablations"]:
        d = real[real["method"] == abl]
        if d.empty:
            continue
        v, lo, hi = bootstrap_ci(stuck(d), np.mean, level, nb)
        base_frac = float(stuck(base).mean()) if len(base) else np.nan
        thr = float(th["stuck_min_frac"])
        ok = np.isfinite(lo) and lo >= thr and v > base_frac
        bad = np.isfinite(hi) and (hi < thr or v <= base_frac)
        verdict = "reproduced" if ok else "not reproduced" if bad else "inconclusive"
        rows.append(
            _row(
                "P2-C3",
                f"fraction of seeds stuck ({abl}: late play at x* < {th['stuck_late_frac']})",
                v,
                lo,
                hi,
                f"CI low >= {thr} and > {pol}'s fraction",
                verdict,
                len(d),
                f"{pol} stuck fraction {base_frac:.2f}",
            )
        )
    # P2-C4: simultaneous coverage in certified rounds (func regulariser)
    if e2_bounds is not None and len(e2_bounds):
        fb = e2_bounds[e2_bounds["reg"] == "func"]
        cert = fb[fb["certified"]]
        frac_cert = float(fb["certified"].mean()) if len(fb) else np.nan
        if len(cert):
            per_run = cert.groupby(["cell", "seed"])["coverage"].min().to_numpy() >= 1.0
            v, lo, hi = bootstrap_ci(per_run.astype(float), np.mean, level, nb)
            thr = 1 - delta
            if frac_cert < th["min_certified_frac"]:
                verdict = "inconclusive"
            else:
                verdict = (
                    "reproduced" if v >= thr else "not reproduced" if hi < thr else "inconclusive"
                )
            note = (
                f"certified rounds {frac_cert:.0%}; (t,x) coverage in certified rounds {cert['coverage'].mean():.4f}; "
                f"max err/(beta sigma) {cert['ratio_max'].max():.3g}; max empirical beta {fb['empirical_beta'].max():.3g}"
            )
            rows.append(
                _row(
                    "P2-C4",
                    "fraction of (cell, seed) runs with all certified (t, x) covered",
                    v,
                    lo,
                    hi,
                    f">= 1 - delta = {thr}",
                    verdict,
                    len(per_run),
                    note,
                )
            )
        else:
            rows.append(
                _row(
                    "P2-C4",
                    "coverage in certified rounds",
                    np.nan,
                    np.nan,
                    np.nan,
                    f">= {1 - delta}",
                    "inconclusive",
                    0,
                    "no certified rounds (optimiser never reached L_t(theta*))",
                )
            )
    # P2-C5: exploration vs lambda and s
    rho_min = float(th["rho_min"])

    def rho_row(statistic: str, x: np.ndarray, y: np.ndarray, note: str) -> dict:
        """P2-C5 row: Spearman rho >= rho_min with the interval above 0 reproduces it."""
        v, lo, hi = _rho_ci(x, y, level, nb)
        if not np.isfinite(v):
            verdict = "inconclusive"
        elif lo > 0 and v >= rho_min:
            verdict = "reproduced"
        elif hi < rho_min:
            verdict = "not reproduced"
        else:
            verdict = "inconclusive"
        threshold = f"rho >= {rho_min}, CI low > 0"
        return _row("P2-C5", statistic, v, lo, hi, threshold, verdict, len(x), note)

    if e3_static is not None and len(e3_static):
        for var in ("lam", "init_scale"):
            rows.append(
                rho_row(
                    f"Spearman(log {var}, argmax entropy) in the static probe",
                    np.log(e3_static[var].to_numpy(float)),
                    e3_static["argmax_entropy"].to_numpy(float),
                    "bootstrap over grid cells",
                )
            )
    if e3_dynamic is not None and len(e3_dynamic):
        for metric in ("otsd_norm", "late_argmax_entropy"):
            rows.append(
                rho_row(
                    f"Spearman(log lambda, {metric} of chosen points), dynamic runs",
                    np.log(e3_dynamic["lam"].to_numpy(float)),
                    e3_dynamic[metric].to_numpy(float),
                    "bootstrap over (lambda, s) cells",
                )
            )
        by_lam = e3_dynamic.groupby("lam")["R_T_mean"].mean().sort_index()
        if len(by_lam) >= 3:
            interior = by_lam.iloc[1:-1].min()
            v = float(min(by_lam.iloc[0], by_lam.iloc[-1]) / max(interior, 1e-12))
            verdict = "reproduced" if v > 1 else "not reproduced"
            rows.append(
                _row(
                    "P2-C5",
                    "U-shape in lambda: min(R_T at extreme lambdas) / min(R_T at interior lambdas)",
                    v,
                    np.nan,
                    np.nan,
                    "> 1",
                    verdict,
                    len(by_lam),
                    "averaged over init scales; no CI (few cells)",
                )
            )
    return pd.DataFrame(rows, columns=COLUMNS)


def to_markdown(df: pd.DataFrame) -> str:
    """Claims table as GitHub markdown (no optional dependency on tabulate)."""

    def fmt(v: Any) -> str:
        if isinstance(v, float):
            return "" if not np.isfinite(v) else f"{v:.3g}"
        return str(v).replace("|", "\\|")

    lines = ["| " + " | ".join(df.columns) + " |", "|" + "---|" * len(df.columns)]
    lines += ["| " + " | ".join(fmt(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines) + "\n"
