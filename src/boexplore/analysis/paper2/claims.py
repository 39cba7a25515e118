"""Verdicts for the paper-2 claims P2-C1 ... P2-C5 from the aggregated tables.

Thresholds come from the config (``parametric.claims``), fixed before results are
looked at. Each row: claim_id, claim, statistic, value, ci_low, ci_high,
threshold, verdict (reproduced / not reproduced / inconclusive), n, note. One
function per claim (``claim_p2_c1`` ... ``claim_p2_c5``) turns the evidence into
rows; :func:`claims_table` assembles them. Statistics (bootstrap, paired ratio,
Spearman intervals), verdict rules and the Markdown writer are paper 1's
(:mod:`boexplore.analysis.claimkit.stats`, :mod:`~boexplore.analysis.claimkit.verdict`,
:mod:`~boexplore.analysis.claimkit.markdown`). The full text of the paper was not
available: the tested statements are the reconstructed ones of the planning note
(README says so).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from boexplore.analysis.claimkit.markdown import markdown_table
from boexplore.analysis.claimkit.parts import COLUMNS  # one claims-table format for both papers
from boexplore.analysis.claimkit.stats import bootstrap_ci, paired_ratio_ci, spearman_ci
from boexplore.analysis.claimkit.verdict import UNDECIDED, upper_interval_verdict
from boexplore.analysis.claimkit.verdict import interval_verdict as _interval_verdict
from boexplore.schema import schema_defaults


def interval_verdict(
    value: float, ci_low: float, ci_high: float, threshold: float, n: int, min_n: int = 1
) -> str:
    """The shared interval rule; an undecided interval is reported as ``inconclusive``.

    Paper 2 has no power analysis that could size an undecided row (paper 1 turns it into
    "undecidable at this scale: needs ..."), so its table keeps the plain word.
    """
    verdict = _interval_verdict(value, ci_low, ci_high, threshold, n, min_n)
    return "inconclusive" if verdict == UNDECIDED else verdict


TEXT = {
    "P2-C1": "RR-TS has sublinear cumulative regret on realizable finite-domain problems",
    "P2-C2": "RR-TS regret is comparable to GP-TS and clearly better than random",
    "P2-C3": "Removing re-randomisation or regularisation breaks exploration in a non-trivial fraction of seeds",
    "P2-C4": "beta_t * sigma_t(x) (Matern-dominating kernel) covers the error at rate >= 1 - delta in certified rounds (where the band is informative; controls must fail)",
    "P2-C5": "Exploration grows with lambda and init scale; regret does not fall as lambda rises above sigma_eps^2 (reconstructed bound ~ sqrt(lambda))",
}
#: Claim thresholds when the config sets none: the schema's ``parametric.claims`` defaults.
DEFAULTS: dict[str, Any] = schema_defaults("parametric")["claims"]


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
    """Claim 'statistic < thr' under the shared rule (undecided reported as ``inconclusive``)."""
    verdict = upper_interval_verdict(lo, hi, thr)
    return "inconclusive" if verdict == UNDECIDED else verdict


CONTROLS = ("zero", "untrained")


def _all_covered_ci(
    df: pd.DataFrame, col: str, level: float, n_boot: int
) -> tuple[float, float, float, int]:
    """Fraction of (cell, seed) runs whose every row has ``col`` == 1, with a bootstrap CI."""
    per_run = (df.groupby(["cell", "seed"])[col].min().to_numpy() >= 1.0).astype(float)
    v, lo, hi = bootstrap_ci(per_run, np.mean, level=level, n_boot=n_boot)
    return v, lo, hi, len(per_run)


def coverage_row(bounds: pd.DataFrame, delta: float, th: Mapping[str, Any]) -> dict[str, Any]:
    """P2-C4 on the func-regulariser cells where the band beta_t sigma_t is informative.

    The band covers any function inside the range of f wherever it is wider than that
    range, so (i) only cells whose share of informative (t, x) pairs reaches
    ``min_informative_frac`` count, (ii) the verdict needs the controls g = 0 and the
    untrained network g_{theta_0} to *fail* simultaneous coverage (interval below
    1 - delta) - otherwise the check cannot fail and the row is inconclusive - and
    (iii) the trained policy's simultaneous coverage in certified rounds is judged on
    its interval (reproduced iff CI low > 1 - delta).
    """
    level, nb, thr = float(th["level"]), int(th["n_boot"]), 1 - delta
    fb = bounds[bounds["reg"] == "func"]
    has_controls = "n_informative" in fb.columns
    if has_controls and len(fb):
        share = fb.groupby("cell")["n_informative"].sum() / fb.groupby("cell")["n_points"].sum()
        keep = share[share >= float(th["min_informative_frac"])].index
        share_all = float(fb["n_informative"].sum() / fb["n_points"].sum())
        fb = fb[fb["cell"].isin(keep)]
        scope = f"informative cells {list(keep)} (share of (t,x) with beta*sigma < range f: {share_all:.0%} overall)"
    else:
        scope = "no control columns: cannot show that the check can fail"
    cert = fb[fb["certified"]] if len(fb) else fb
    frac_cert = float(fb["certified"].mean()) if len(fb) else np.nan
    if not len(cert):
        return _row(
            "P2-C4",
            "coverage in certified rounds",
            np.nan,
            np.nan,
            np.nan,
            f">= {thr}",
            "inconclusive",
            0,
            f"no certified rounds in informative cells; {scope}",
        )
    v, lo, hi, n = _all_covered_ci(cert, "coverage", level, nb)
    verdict = interval_verdict(v, lo, hi, thr, n)
    notes = [scope, f"certified rounds {frac_cert:.0%}"]
    can_fail = False
    if has_controls:
        can_fail = True
        for name in CONTROLS:
            cv, clo, chi, _ = _all_covered_ci(fb, f"coverage_{name}", level, nb)
            fails = np.isfinite(chi) and chi < thr
            can_fail = can_fail and bool(fails)
            notes.append(f"control {name}: {cv:.2f} [{clo:.2f}, {chi:.2f}]")
        inf = fb["n_informative"].sum()
        for name in ("trained", *CONTROLS):
            notes.append(
                f"informative-pair coverage {name} {fb[f'covered_informative_{name}'].sum() / max(inf, 1):.3f}"
            )
    if frac_cert < float(th["min_certified_frac"]):
        verdict = "inconclusive"
        notes.append("too few certified rounds")
    elif verdict == "reproduced" and not can_fail:
        verdict = "inconclusive"
        notes.append("a control is covered too: the check cannot fail here")
    notes.append(f"max err/(beta sigma) {cert['ratio_max'].max():.3g}")
    if "exact_gap" in cert.columns:
        notes.append(f"median convergence gap {cert['exact_gap'].median():.2g}")
    return _row(
        "P2-C4",
        "fraction of (cell, seed) runs with all certified (t, x) covered (informative cells)",
        v,
        lo,
        hi,
        f"CI low > 1 - delta = {thr}; controls' CI high < {thr}",
        verdict,
        n,
        "; ".join(x for x in notes if x),
    )


def _gap_note(seeds: pd.DataFrame, gap_max: float) -> str:
    """Flag a large median convergence gap (training loss minus exact minimum) of these runs."""
    if "gap_median" not in seeds.columns or seeds["gap_median"].isna().all():
        return ""
    g = float(seeds["gap_median"].median())
    return f"; LARGE CONVERGENCE GAP (median {g:.3g} > {gap_max})" if g > gap_max else ""


def lambda_regret_row(per_seed: pd.DataFrame, level: float, n_boot: int) -> dict[str, Any]:
    """P2-C5 (replaces the U-shape row): R_T at the largest lambda / R_T at the smallest.

    Reconstruction: the converged RR-TS-FUNC draw is g0 + K S^T (S K S^T + lambda I)^{-1}
    (y - g0(X)), a GP-posterior-sample-like draw with noise variance lambda; the bound
    beta_t sigma_t grows like sqrt(lambda) once lambda exceeds sigma_eps^2, so the theory
    implies regret that does not fall - and the bound that grows - as lambda rises from
    sigma_eps^2. Paired over seeds (common random numbers), averaged over init scales.
    """
    lams = sorted(per_seed["lam"].unique())
    if len(lams) < 2:
        return _row(
            "P2-C5",
            "R_T(lambda max)/R_T(lambda min)",
            *(np.nan,) * 3,
            "> 1",
            "inconclusive",
            0,
            "one lambda only",
        )
    by = per_seed.groupby(["lam", "seed"])["R_T"].mean()
    lo_l, hi_l = lams[0], lams[-1]
    common = np.intersect1d(by.loc[lo_l].index, by.loc[hi_l].index)
    v, lo, hi = paired_ratio_ci(
        by.loc[hi_l].loc[common].to_numpy(),
        by.loc[lo_l].loc[common].to_numpy(),
        level=level,
        n_boot=n_boot,
    )
    means = ", ".join(
        f"{lam:g}: {per_seed.loc[per_seed.lam == lam, 'R_T'].mean():.3g}" for lam in lams
    )
    return _row(
        "P2-C5",
        f"R_T(lambda={hi_l:g}) / R_T(lambda={lo_l:g}), dynamic runs",
        v,
        lo,
        hi,
        "CI low > 1",
        interval_verdict(v, lo, hi, 1.0, len(common)),
        len(common),
        f"mean R_T by lambda {{{means}}}; paired over seeds; replaces the U-shape row (not implied "
        "by the reconstructed bound, which grows ~sqrt(lambda) above sigma_eps^2)",
    )


@dataclass(frozen=True)
class Paper2Evidence:
    """The aggregated paper-2 tables (and thresholds) that the claims are decided on."""

    thresholds: Mapping[str, Any]
    e1_seeds: pd.DataFrame
    realizable_keys: Sequence[str] = ()
    misspecified: Sequence[str] = ()
    e2_bounds: pd.DataFrame | None = None
    delta: float = 0.1
    e3_static: pd.DataFrame | None = None
    e3_dynamic: pd.DataFrame | None = None
    e3_dynamic_seeds: pd.DataFrame | None = None
    th: dict[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "th", {**DEFAULTS, **dict(self.thresholds)})

    @property
    def level(self) -> float:
        return float(self.th["level"])

    @property
    def n_boot(self) -> int:
        return int(self.th["n_boot"])

    @property
    def policy(self) -> str:
        return str(self.th["policy"])

    def tag(self, problem_key: str) -> str:
        """Label of a problem outside the theorem's assumptions."""
        return " [misspecified]" if problem_key in self.misspecified else ""

    def runs(self, problem_key: str, method: str) -> pd.DataFrame:
        """Per-seed E1 rows of one method on one problem, sorted by seed."""
        sub = self.e1_seeds[self.e1_seeds["problem_key"] == problem_key]
        return sub[sub["method"] == method].sort_values("seed")


def claim_p2_c1(ev: Paper2Evidence, problem_key: str) -> list[dict[str, Any]]:
    """P2-C1 on one problem: the median log-log slope of R_t over the 2nd half is below 1."""
    th, pol = ev.th, ev.policy
    mine = ev.runs(problem_key, pol)
    if mine.empty:
        statistic = f"median log-log slope of R_t ({problem_key})"
        return [_row("P2-C1", statistic, np.nan, np.nan, np.nan, f"< {th['slope_max']}",
                     "inconclusive", 0, f"no {pol} runs")]  # fmt: skip
    med, lo, hi = bootstrap_ci(
        mine["slope"].to_numpy(), np.median, level=ev.level, n_boot=ev.n_boot
    )
    note = (
        f"R_T/T mean {mine['R_T_over_T'].mean():.3g}; R_t/t decreasing over 2nd half in "
        f"{mine['ratio_decreasing'].mean():.0%} of seeds; late play at x* {mine['late_frac_opt'].mean():.0%}"
        f"{ev.tag(problem_key)}{_gap_note(mine, float(th['gap_max']))}"
    )
    return [
        _row(
            "P2-C1",
            f"median log-log slope of R_t over 2nd half ({problem_key}, {pol})",
            med,
            lo,
            hi,
            f"CI high < {th['slope_max']}",
            _verdict_upper(lo, hi, th["slope_max"]),
            len(mine),
            note,
        )
    ]


def claim_p2_c2(ev: Paper2Evidence, problem_key: str) -> list[dict[str, Any]]:
    """P2-C2 on one problem: R_T ratios to GP-TS (comparable) and to random (clearly better)."""
    th = ev.th
    mine = ev.runs(problem_key, ev.policy)
    if mine.empty:
        return []
    note = (
        "paired over seeds, ratio of mean cumulative regret"
        f"{ev.tag(problem_key)}{_gap_note(mine, float(th['gap_max']))}"
    )
    rows = []
    for other, thr, label in (
        ("gp_ts", th["gp_factor"], "R_T(RR-TS)/R_T(GP-TS)"),
        ("random", th["random_ratio_max"], "R_T(RR-TS)/R_T(random)"),
    ):
        ref = ev.runs(problem_key, other)
        common = np.intersect1d(mine["seed"], ref["seed"])
        a = mine.set_index("seed").loc[common, "R_T"].to_numpy()
        b = ref.set_index("seed").loc[common, "R_T"].to_numpy()
        v, lo, hi = paired_ratio_ci(a, b, level=ev.level, n_boot=ev.n_boot)
        rows.append(_row("P2-C2", f"{label} ({problem_key})", v, lo, hi, f"CI high < {thr}",
                         _verdict_upper(lo, hi, thr), len(common), note))  # fmt: skip
    return rows


def claim_p2_c3(ev: Paper2Evidence, problem_key: str) -> list[dict[str, Any]]:
    """P2-C3 on one problem: each ablation is stuck in a non-trivial fraction of seeds."""
    th, pol = ev.th, ev.policy
    late, thr = float(th["stuck_late_frac"]), float(th["stuck_min_frac"])

    def stuck(d: pd.DataFrame) -> np.ndarray:
        return (d["late_frac_opt"] < late).to_numpy(float)

    base = ev.runs(problem_key, pol)
    base_frac = float(stuck(base).mean()) if len(base) else np.nan
    rows = []
    for ablation in th["ablations"]:
        d = ev.runs(problem_key, ablation)
        if d.empty:
            continue
        v, lo, hi = bootstrap_ci(stuck(d), np.mean, level=ev.level, n_boot=ev.n_boot)
        ok = np.isfinite(lo) and lo >= thr and v > base_frac
        bad = np.isfinite(hi) and (hi < thr or v <= base_frac)
        verdict = "reproduced" if ok else "not reproduced" if bad else "inconclusive"
        rows.append(
            _row(
                "P2-C3",
                f"fraction of seeds stuck ({problem_key}, {ablation}: late play at x* < {th['stuck_late_frac']})",
                v,
                lo,
                hi,
                f"CI low >= {thr} and > {pol}'s fraction",
                verdict,
                len(d),
                f"{pol} stuck fraction {base_frac:.2f}{ev.tag(problem_key)}"
                f"{_gap_note(d, float(th['gap_max']))}",
            )
        )
    return rows


def claim_p2_c4(ev: Paper2Evidence) -> list[dict[str, Any]]:
    """P2-C4: simultaneous coverage in certified rounds, informative cells, with controls."""
    if ev.e2_bounds is None or not len(ev.e2_bounds):
        return []
    return [coverage_row(ev.e2_bounds, ev.delta, ev.th)]


def _rho_row(ev: Paper2Evidence, statistic: str, x: np.ndarray, y: np.ndarray,
             note: str) -> dict[str, Any]:  # fmt: skip
    """P2-C5 row: Spearman rho >= rho_min with the interval above 0 reproduces it."""
    rho_min = float(ev.th["rho_min"])
    v, lo, hi = spearman_ci(x, y, level=ev.level, n_boot=ev.n_boot)
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


def claim_p2_c5(ev: Paper2Evidence) -> list[dict[str, Any]]:
    """P2-C5: exploration grows with lambda and init scale; regret does not fall with lambda."""
    rows = []
    static = ev.e3_static
    if static is not None and len(static):
        for var in ("lam", "init_scale"):
            rows.append(
                _rho_row(
                    ev,
                    f"Spearman(log {var}, argmax entropy) in the static probe",
                    np.log(static[var].to_numpy(float)),
                    static["argmax_entropy"].to_numpy(float),
                    "bootstrap over grid cells",
                )
            )
    seeds = ev.e3_dynamic_seeds if ev.e3_dynamic_seeds is not None else None
    dyn = seeds if seeds is not None and len(seeds) else None
    if dyn is None and ev.e3_dynamic is not None and len(ev.e3_dynamic):
        dyn, unit = ev.e3_dynamic, "bootstrap over (lambda, s) cells"
    else:
        unit = "bootstrap over (lambda, s, seed) runs"
    if dyn is not None:
        for metric in ("otsd_norm", "late_argmax_entropy"):
            rows.append(
                _rho_row(
                    ev,
                    f"Spearman(log lambda, {metric} of chosen points), dynamic runs",
                    np.log(dyn["lam"].to_numpy(float)),
                    dyn[metric].to_numpy(float),
                    unit,
                )
            )
    if seeds is not None and len(seeds):
        rows.append(lambda_regret_row(seeds, ev.level, ev.n_boot))
    return rows


def claims_table(
    thresholds: Mapping[str, Any],
    e1_seeds: pd.DataFrame,
    realizable_keys: list[str],
    e2: pd.DataFrame | None,
    e2_bounds: pd.DataFrame | None,
    delta: float,
    e3_static: pd.DataFrame | None,
    e3_dynamic: pd.DataFrame | None,
    e3_dynamic_seeds: pd.DataFrame | None = None,
    misspecified: Sequence[str] = (),
) -> pd.DataFrame:
    """All claim rows (see module docstring), in the order P2-C1/C2 per problem, C3, C4, C5.

    ``realizable_keys`` are the problems of P2-C1 ... P2-C3 (one row set each); keys in
    ``misspecified`` are labelled as outside the theorem. ``e3_dynamic_seeds`` (per seed
    and lambda: R_T) feeds the P2-C5 regret-vs-lambda row. ``e2`` (the per-cell summary)
    is not needed by any verdict; it is accepted for the callers' uniform signature.
    """
    ev = Paper2Evidence(
        thresholds=thresholds,
        e1_seeds=e1_seeds,
        realizable_keys=list(realizable_keys),
        misspecified=tuple(misspecified),
        e2_bounds=e2_bounds,
        delta=delta,
        e3_static=e3_static,
        e3_dynamic=e3_dynamic,
        e3_dynamic_seeds=e3_dynamic_seeds,
    )
    rows = []
    for pk in ev.realizable_keys:
        rows += claim_p2_c1(ev, pk) + claim_p2_c2(ev, pk)
    for pk in ev.realizable_keys:
        rows += claim_p2_c3(ev, pk)
    rows += claim_p2_c4(ev) + claim_p2_c5(ev)
    return pd.DataFrame(rows, columns=COLUMNS)


def to_markdown(df: pd.DataFrame) -> str:
    """Claims table as GitHub Markdown (the shared writer; empty cells for missing numbers)."""
    return markdown_table(df)
