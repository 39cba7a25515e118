"""Variant effects (P1-C6, P1-C7): batch size q, trust region, RAASP.

Matching rule. For a factor f ∈ {q, trust_region, raasp}, a *variant* method
V (q > 1, or trust_region / raasp True) is paired with a *base* method B when
B has the same ``base_method``, the same AF parameters (the method spec up to
the first ``+`` modifier, whitespace removed), the same value of the other two
factors, and the default value of f (q = 1 / False). Differences
V − B in final exploration are paired by (problem, seed).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from boexplore.analysis.claimkit.stats import binomial_ci
from boexplore.analysis.summaries import check_columns

FACTORS: tuple[str, ...] = ("q", "trust_region", "raasp")
META: tuple[str, ...] = ("method", "method_spec", "base_method", "q", "trust_region", "raasp")


def spec_core(spec: str) -> str:
    """AF name with parameters, without ``+`` modifiers: ``ucb(beta=4)+q4`` → ``ucb(beta=4)``."""
    return str(spec).split("+", 1)[0].replace(" ", "").lower()


def _is_default(factor: str, value: object) -> bool:
    return int(value) == 1 if factor == "q" else not bool(value)


def match_variants(methods: pd.DataFrame) -> pd.DataFrame:
    """Table (factor, variant, base, level) of matched method labels."""
    check_columns(methods, META, "method metadata")
    m = methods.drop_duplicates("method").copy()
    m["core"] = m["method_spec"].map(spec_core)
    rows = []
    for factor in FACTORS:
        others = [f for f in FACTORS if f != factor]
        for v in m.itertuples(index=False):
            level = getattr(v, factor)
            if _is_default(factor, level):
                continue
            for b in m.itertuples(index=False):
                if (
                    b.method != v.method
                    and b.base_method == v.base_method
                    and b.core == v.core
                    and _is_default(factor, getattr(b, factor))
                    and all(getattr(b, o) == getattr(v, o) for o in others)
                ):
                    rows.append(
                        {
                            "factor": factor,
                            "variant": v.method,
                            "base": b.method,
                            "level": int(level) if factor == "q" else 1,
                        }
                    )
    return pd.DataFrame(rows, columns=["factor", "variant", "base", "level"])


def paired_differences(
    final: pd.DataFrame, pairs: pd.DataFrame, metrics: tuple[str, ...] = ("otsd_norm", "oe_rel")
) -> pd.DataFrame:
    """Variant − base differences per (factor, variant, problem, seed, metric)."""
    check_columns(final, ("problem", "dim", "method", "seed", *metrics), "final table")
    rows = []
    for pair in pairs.itertuples(index=False):
        va = final[final["method"] == pair.variant]
        ba = final[final["method"] == pair.base]
        j = va.merge(ba, on=["problem", "seed"], suffixes=("_v", "_b"))
        for metric in metrics:
            for r in j.itertuples(index=False):
                d = getattr(r, f"{metric}_v") - getattr(r, f"{metric}_b")
                rows.append(
                    {
                        "factor": pair.factor,
                        "variant": pair.variant,
                        "base": pair.base,
                        "level": pair.level,
                        "problem": r.problem,
                        "dim": int(r.dim_v),
                        "seed": r.seed,
                        "metric": metric,
                        "diff": float(d),
                    }
                )
    return pd.DataFrame(
        rows,
        columns=["factor", "variant", "base", "level", "problem", "dim", "seed", "metric", "diff"],
    )


def effect_summary(diffs: pd.DataFrame) -> pd.DataFrame:
    """Per (factor, metric): fraction of positive differences with exact CI, median diff."""
    rows = []
    for (factor, metric), g in diffs.groupby(["factor", "metric"], sort=True):
        d = g["diff"].to_numpy(float)
        d = d[np.isfinite(d) & (d != 0)]
        frac, lo, hi = binomial_ci(int((d > 0).sum()), d.size)
        rows.append(
            {
                "factor": factor,
                "metric": metric,
                "n": int(d.size),
                "n_problems": int(g["problem"].nunique()),
                "median_diff": float(np.median(d)) if d.size else np.nan,
                "frac_positive": frac,
                "ci_low": lo,
                "ci_high": hi,
            }
        )
    return pd.DataFrame(
        rows,
        columns=[
            "factor",
            "metric",
            "n",
            "n_problems",
            "median_diff",
            "frac_positive",
            "ci_low",
            "ci_high",
        ],
    )


ACTIVITY_COLUMNS = ["problem", "method", "seed", "tr_acted", "raasp_acted"]


def mechanism_activity(frame: pd.DataFrame) -> pd.DataFrame:
    """Per run: did the trust region / RAASP actually act (NaN when not recorded)?

    ``frame`` is a trace (or any per-iteration table) with ``problem``,
    ``method``, ``seed``, ``dim`` and optionally the engine's trace columns
    ``tr_length`` and ``raasp_n_perturbed``. A trust region *acted* when its
    side length took more than one value during the run (it shrank or grew at
    least once; a region that never leaves its initial length is a fixed box
    around the incumbent, not the adaptive mechanism). RAASP *acted* when on
    some iteration its candidates replaced on average fewer than all ``d``
    coordinates (otherwise they are plain uniform points, a no-op).
    """
    check_columns(frame, ("problem", "method", "seed"), "trace table")
    rows = []
    for (problem, method, seed), g in frame.groupby(["problem", "method", "seed"], sort=True):
        tr = raasp = np.nan
        if "tr_length" in g.columns:
            v = g["tr_length"].to_numpy(float)
            v = v[np.isfinite(v)]
            tr = float(np.unique(np.round(v, 12)).size > 1) if v.size else np.nan
        if "raasp_n_perturbed" in g.columns and "dim" in g.columns:
            v = g["raasp_n_perturbed"].to_numpy(float)
            ok = np.isfinite(v)
            d = float(g["dim"].iloc[0])
            raasp = float(np.any(v[ok] < d - 1e-9)) if ok.any() else np.nan
        rows.append(
            {
                "problem": problem,
                "method": method,
                "seed": seed,
                "tr_acted": tr,
                "raasp_acted": raasp,
            }
        )
    return pd.DataFrame(rows, columns=ACTIVITY_COLUMNS)


def mechanism_activity_from_files(paths: list[str]) -> pd.DataFrame:
    """:func:`mechanism_activity` of trace parquet files, reading only the needed columns."""
    import pyarrow.parquet as pq

    frames = []
    want = ("problem", "method", "seed", "dim", "tr_length", "raasp_n_perturbed")
    for path in paths:
        names = set(pq.read_schema(path).names)
        frames.append(pd.read_parquet(path, columns=[c for c in want if c in names]))
    if not frames:
        return pd.DataFrame(columns=ACTIVITY_COLUMNS)
    return mechanism_activity(pd.concat(frames, ignore_index=True))


#: The C7 mechanisms and the column of :func:`mechanism_activity` saying whether each acted.
MECHANISMS: dict[str, str] = {"trust_region": "tr_acted", "raasp": "raasp_acted"}
ACTIVITY_TABLE_COLUMNS = [
    "mechanism",
    "problem",
    "dim",
    "method",
    "n_seeds",
    "n_acted",
    "frac_acted",
    "kept_by_filter",
]


def activity_table(
    activity: pd.DataFrame | None, dims: Mapping[str, int], min_frac: float
) -> pd.DataFrame:
    """Per (mechanism, problem, method): in how many seeds the trust region / RAASP acted.

    ``activity`` is :func:`mechanism_activity`'s per-run table; a (problem, method) gets a row
    for a mechanism when its runs record it (a method without a trust region has no
    ``tr_length``). ``kept_by_filter``: whether P1-C7 counts the unit under its activity
    filter (acted in at least ``min_frac`` of the seeds, ``analysis.c7_min_active_frac``).
    The table says where C7's verdict rests on the filter: a unit left out is one whose
    mechanism the budget did not make act, so the claim is untested there, not confirmed.
    """
    rows: list[dict[str, object]] = []
    if activity is not None and len(activity):
        for mechanism, col in MECHANISMS.items():
            runs = activity[activity[col].notna()]
            for (problem, method), g in runs.groupby(["problem", "method"], sort=True):
                n, acted = len(g), int(g[col].sum())
                rows.append(
                    {
                        "mechanism": mechanism,
                        "problem": problem,
                        "dim": int(dims[problem]) if problem in dims else np.nan,
                        "method": method,
                        "n_seeds": n,
                        "n_acted": acted,
                        "frac_acted": round(acted / n, 4),
                        "kept_by_filter": acted / n >= float(min_frac),
                    }
                )
    out = pd.DataFrame(rows, columns=ACTIVITY_TABLE_COLUMNS)
    return out.sort_values(["mechanism", "dim", "problem", "method"], kind="stable").reset_index(
        drop=True
    )
