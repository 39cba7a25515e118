"""Claims table for paper 1 (P1-C1 … P1-C8), one row per claim.

Every statistic, its interval and threshold are stated in the ``statistic``
column; verdicts follow :mod:`boexplore.analysis.verdict` (thresholds come
from ``analysis.thresholds`` in the config, fixed before results are seen).
Unfavourable outcomes are reported as they are.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from boexplore.analysis.pipeline import AnalysisResult
from boexplore.analysis.stats import binomial_ci, bootstrap_ci
from boexplore.analysis.verdict import INCONCLUSIVE, combine, interval_verdict

CLAIMS: dict[str, str] = {
    "P1-C1": "OTSD and OE are strongly correlated across problems and methods.",
    "P1-C2": "Both separate known explorers (random, UCB high β) from exploiters (PI, greedy).",
    "P1-C3": "Taxonomy: Random ⪰ UCB(high β) ⪰ info-theoretic ≈ KG ⪰ EI ⪰ PI ⪰ UCB(low β) ≻ greedy.",
    "P1-C4": "TS is moderately explorative in low d but over-explores in high d (above random on OTSD).",
    "P1-C5": "EI is more explorative than UCB in low d and less in high d.",
    "P1-C6": "Larger batches increase exploration (higher OTSD/OE).",
    "P1-C7": "Trust regions and RAASP consistently reduce exploration.",
    "P1-C8": "The best-performing methods have intermediate exploration (non-monotone relation).",
}
COLUMNS = [
    "claim_id",
    "claim",
    "statistic",
    "value",
    "ci_low",
    "ci_high",
    "threshold",
    "verdict",
    "n",
    "note",
]


def _labels(cfg: dict[str, Any], groups: Sequence[str]) -> list[str]:
    return [lab for g in groups for lab in cfg["groups"].get(g, [])]


def _row(
    cid: str,
    statistic: str,
    value: float,
    lo: float,
    hi: float,
    threshold: float,
    verdict: str,
    n: int,
    note: str,
) -> dict[str, Any]:
    return {
        "claim_id": cid,
        "claim": CLAIMS[cid],
        "statistic": statistic,
        "value": value,
        "ci_low": lo,
        "ci_high": hi,
        "threshold": threshold,
        "verdict": verdict,
        "n": int(n),
        "note": note,
    }


def _wide(cells: pd.DataFrame, metric: str) -> pd.DataFrame:
    return cells.pivot_table(index=["problem", "dim"], columns="method", values=metric)


def _pairwise_fraction(
    cells: pd.DataFrame, metric: str, higher: Sequence[str], lower: Sequence[str]
) -> tuple[int, int]:
    """Count problem-level comparisons with median(higher) > median(lower)."""
    w = _wide(cells, metric)
    k = n = 0
    for a in higher:
        for b in lower:
            if a in w.columns and b in w.columns:
                ok = w[a].notna() & w[b].notna()
                k += int((w.loc[ok, a] > w.loc[ok, b]).sum())
                n += int(ok.sum())
    return k, n


def claim_c1(r: AnalysisResult, thr: float, min_n: int) -> dict[str, Any]:
    c = r.correlation
    v = interval_verdict(c["rho"], c["ci_low"], c["ci_high"], thr, c["n_cells"], min_n)
    return _row(
        "P1-C1",
        "Spearman rho(median final otsd_norm, median final oe_rel) over "
        "(problem, method) cells; bootstrap 95% CI over cells",
        c["rho"],
        c["ci_low"],
        c["ci_high"],
        thr,
        v,
        c["n_cells"],
        "",
    )


def claim_c2(r: AnalysisResult, thr: float, min_problems: int) -> dict[str, Any]:
    cfg = r.config
    hi_l, lo_l = _labels(cfg, cfg["explorers"]), _labels(cfg, cfg["exploiters"])
    per_problem = []
    n_total = 0
    for _problem, g in r.cells.groupby("problem"):
        k_p = n_p = 0
        for x in cfg["exploration_metrics"]:
            k, n = _pairwise_fraction(g, x, hi_l, lo_l)
            k_p, n_p = k_p + k, n_p + n
        if n_p:
            per_problem.append(k_p / n_p)
            n_total += n_p
    val, lo, hi = bootstrap_ci(per_problem, np.mean, r.config["n_boot"], seed=r.config["seed"])
    v = interval_verdict(val, lo, hi, thr, len(per_problem), min_problems)
    return _row(
        "P1-C2",
        "fraction of (explorer, exploiter, metric) comparisons per problem "
        "with explorer median > exploiter median, averaged over problems; bootstrap "
        "CI over problems",
        val,
        lo,
        hi,
        thr,
        v,
        len(per_problem),
        f"explorers={hi_l}, exploiters={lo_l}, {n_total} comparisons",
    )


def claim_c3(r: AnalysisResult, thr: float) -> dict[str, Any]:
    metric = r.config["primary_metric"]
    t = r.paper_tau[(r.paper_tau["subset"] == "all") & (r.paper_tau["metric"] == metric)]
    note = ""
    if not r.paper_pairs.empty:
        pp = r.paper_pairs[(r.paper_pairs["subset"] == "all") & (r.paper_pairs["metric"] == metric)]
        counts = pp["status"].value_counts().to_dict()
        dis = pp[pp["status"] == "disagree"]
        note = f"pairs vs observed partial order: {counts}; disagreeing: " + ", ".join(
            f"{a}/{b}" for a, b in zip(dis["a"], dis["b"], strict=True)
        )
    if t.empty:
        return _row(
            "P1-C3", "Kendall tau-b", np.nan, np.nan, np.nan, thr, INCONCLUSIVE, 0, "no data"
        )
    row = t.iloc[0]
    v = interval_verdict(
        row["tau"],
        row["ci_low"],
        row["ci_high"],
        thr,
        int(row["n_problems"]),
        r.config["min_problems"],
    )
    return _row(
        "P1-C3",
        f"Kendall tau-b between paper level and mean within-problem rank of "
        f"{metric}, all problems; bootstrap CI over problems",
        row["tau"],
        row["ci_low"],
        row["ci_high"],
        thr,
        v,
        int(row["n_labels"]),
        note,
    )


def _split(cells: pd.DataFrame, cfg: dict[str, Any]) -> tuple[pd.DataFrame, pd.DataFrame]:
    return (cells[cells["dim"] <= cfg["low_d_max"]], cells[cells["dim"] >= cfg["high_d_min"]])


def _two_part(
    cid: str, stat: str, parts: list[tuple[str, int, int, float]], min_problems: int
) -> dict[str, Any]:
    """Claim with two parts (e.g. low d and high d), each a proportion k/n vs threshold."""
    verdicts, notes = [], []
    for name, k, n, thr in parts:
        val, lo, hi = binomial_ci(k, n)
        verdicts.append(interval_verdict(val, lo, hi, thr, n, min_problems))
        notes.append(f"{name}: {k}/{n} (CI {lo:.2f}-{hi:.2f}) vs {thr} -> {verdicts[-1]}")
    name, k, n, thr = parts[0]
    val, lo, hi = binomial_ci(k, n)
    return _row(
        cid, stat, val, lo, hi, thr, combine(verdicts), sum(p[2] for p in parts), "; ".join(notes)
    )


def claim_c4(r: AnalysisResult, th: dict[str, float], min_problems: int) -> dict[str, Any]:
    cfg = r.config
    ts, rnd = _labels(cfg, ["ts"]), _labels(cfg, ["random"])
    low, high = _split(r.cells, cfg)
    kh, nh = _pairwise_fraction(high, "otsd_norm", ts, rnd)
    kl, nl = _pairwise_fraction(low, cfg["primary_metric"], rnd, ts)
    return _two_part(
        "P1-C4",
        "fraction of high-d problems with median TS otsd_norm > "
        "random (exact binomial CI); second part: low-d fraction with TS below "
        "random",
        [
            ("high-d TS>random", kh, nh, th["c4_ts_above_random_high_d"]),
            ("low-d TS<random", kl, nl, th["c4_ts_below_random_low_d"]),
        ],
        min_problems,
    )


def claim_c5(r: AnalysisResult, th: dict[str, float], min_problems: int) -> dict[str, Any]:
    cfg = r.config
    ei, ucb = _labels(cfg, ["ei"]), _labels(cfg, cfg["c5_ucb_groups"])
    low, high = _split(r.cells, cfg)
    x = cfg["primary_metric"]
    kl, nl = _pairwise_fraction(low, x, ei, ucb)
    kh, nh = _pairwise_fraction(high, x, ucb, ei)
    return _two_part(
        "P1-C5",
        f"fraction of low-d (problem, UCB label) comparisons with EI "
        f"{x} > UCB (exact binomial CI); second part: high-d fraction EI < UCB",
        [
            ("low-d EI>UCB", kl, nl, th["c5_ei_above_ucb_low_d"]),
            ("high-d EI<UCB", kh, nh, th["c5_ei_below_ucb_high_d"]),
        ],
        min_problems,
    )


def _factor_claim(
    r: AnalysisResult, cid: str, factors: Sequence[str], sign: int, thr: float
) -> dict[str, Any]:
    s = r.variant_summary
    verdicts, notes, ks, ns = [], [], 0, 0
    for factor in factors:
        for x in r.config["exploration_metrics"]:
            row = s[(s["factor"] == factor) & (s["metric"] == x)]
            if row.empty or int(row["n"].iloc[0]) == 0:
                verdicts.append(INCONCLUSIVE)
                notes.append(f"{factor}/{x}: no matched variant pairs")
                continue
            n = int(row["n"].iloc[0])
            k = int(round(row["frac_positive"].iloc[0] * n))
            k = k if sign > 0 else n - k
            val, lo, hi = binomial_ci(k, n)
            verdicts.append(interval_verdict(val, lo, hi, thr, n, 1))
            notes.append(f"{factor}/{x}: {k}/{n} (CI {lo:.2f}-{hi:.2f}) -> {verdicts[-1]}")
            if x == r.config["primary_metric"]:
                ks, ns = ks + k, ns + n
    val, lo, hi = binomial_ci(ks, ns)
    direction = "increase" if sign > 0 else "decrease"
    return _row(
        cid,
        f"fraction of paired (problem, seed) variant−base differences that "
        f"{direction} exploration ({', '.join(factors)}; pooled, primary metric; "
        "exact binomial CI); every factor × metric must hold",
        val,
        lo,
        hi,
        thr,
        combine(verdicts),
        ns,
        "; ".join(notes),
    )


def claim_c8(r: AnalysisResult, thr: float, min_problems: int) -> dict[str, Any]:
    t = r.performance_test
    v = interval_verdict(
        t["frac_negative_curvature"], t["ci_low"], t["ci_high"], thr, t["n_problems"], min_problems
    )
    note = (
        (
            f"sign-test p={t['p_sign']:.3g}; best method strictly inside the exploration "
            f"range on {t['interior_rate']:.2f} of problems (chance {t['interior_chance']:.2f},"
            f" p={t['p_interior']:.3g})"
        )
        if t["n_problems"]
        else "no problem with >= 3 methods"
    )
    return _row(
        "P1-C8",
        "fraction of problems where the quadratic fit of performance rank on "
        "exploration rank is concave (inverted U); exact binomial CI",
        t["frac_negative_curvature"],
        t["ci_low"],
        t["ci_high"],
        thr,
        v,
        t["n_problems"],
        note,
    )


def build_claims(r: AnalysisResult) -> pd.DataFrame:
    """The claims table; too few seeds turns every verdict inconclusive (noted)."""
    cfg, th = r.config, r.config["thresholds"]
    mp = int(cfg["min_problems"])
    rows = [
        claim_c1(r, th["c1_rho"], 3),
        claim_c2(r, th["c2_separation"], mp),
        claim_c3(r, th["c3_tau"]),
        claim_c4(r, th, 1),
        claim_c5(r, th, 1),
        _factor_claim(r, "P1-C6", ["q"], +1, th["c6_frac_increase"]),
        _factor_claim(r, "P1-C7", ["trust_region", "raasp"], -1, th["c7_frac_decrease"]),
        claim_c8(r, th["c8_frac_inverted_u"], mp),
    ]
    df = pd.DataFrame(rows, columns=COLUMNS)
    if r.min_seeds_seen < int(cfg["min_seeds"]):
        msg = f"too few seeds ({r.min_seeds_seen} < min_seeds={cfg['min_seeds']})"
        df["note"] = [f"{msg}; {n}" if n else msg for n in df["note"]]
        df["verdict"] = INCONCLUSIVE
    return df


def claims_markdown(df: pd.DataFrame) -> str:
    """Markdown table of the claims (numbers to 3 significant digits)."""

    def fmt(v: Any) -> str:
        if isinstance(v, float | np.floating):
            return "n/a" if not np.isfinite(v) else f"{v:.3g}"
        return str(v).replace("|", "\\|")

    cols = ["claim_id", "claim", "value", "ci_low", "ci_high", "threshold", "verdict", "n", "note"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for rec in df[cols].itertuples(index=False):
        lines.append("| " + " | ".join(fmt(v) for v in rec) + " |")
    stat = "\n".join(
        f"- **{cid}**: {s}" for cid, s in zip(df["claim_id"], df["statistic"], strict=True)
    )
    rule = (
        "Verdict rule: reproduced when ci_low > threshold, not reproduced when "
        "ci_high < threshold, otherwise inconclusive (also when data are missing or "
        "there are too few seeds)."
    )
    return "\n".join(["# Paper 1 claims", "", *lines, "", rule, "", "Statistics:", stat, ""])


def write_claims(df: pd.DataFrame, csv_path: str | os.PathLike, md_path: str | os.PathLike) -> None:
    """Write the claims CSV and its Markdown rendering (atomic renames)."""
    for path, text in (
        (Path(csv_path), df.to_csv(index=False)),
        (Path(md_path), claims_markdown(df)),
    ):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text)
        os.replace(tmp, path)
