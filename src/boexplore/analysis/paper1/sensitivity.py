"""Verdicts as functions of the choices the paper does not state (issue 27).

The settings of ``analysis.sensitivity`` (fixed before results) are dimensions
along which claims are re-decided with the claim code itself:

* **UCB β** — P1-C3 for every (UCB(high β), UCB(low β)) pair with high > low,
  P1-C5 for every single β (the ONE UCB EI is compared with);
* **TS maximiser** — P1-C4 per TS label, with the share of its BO points on the
  box boundary (a polished maximiser lands on faces, which inflates OTSD in high d);
* **where trust regions / RAASP are tested** — P1-C7 per factor and d-range;
* **the "mechanism acted" filter** — P1-C7 per factor counting only units whose trust region /
  RAASP acted in enough seeds, and counting every unit (our question, not the paper's: the
  filter decides which units test the claim);
* **C8's method set** — P1-C8 on problems with at least k base methods;
* **OE statistic** — P1-C1, C2, C6 and C7 with the authors' OE (defined past d points) and
  with ours as the OE metric, so a row says where the two disagree;
* **GP prior** — P1-C4 (each TS maximiser, with its boundary share), C5 and C8 under each
  prior (BoTorch's default before and since 0.12), all priors on the same problems.

``settings_range`` condenses each claim's settings into one phrase a README row
can show beside the default verdict ("reproduced for β ∈ [0.5, 2]; not for 16").
Labels absent from the data are skipped; a setting without data is "missing data".
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from boexplore.analysis.boundary import share_on
from boexplore.analysis.claimkit.parts import present
from boexplore.analysis.claimkit.verdict import MISSING, NOT_REPRODUCED, REPRODUCED, UNDECIDED
from boexplore.analysis.paper1.claims import (
    claim_c1,
    claim_c2,
    claim_c3,
    claim_c4,
    claim_c5,
    claim_c8,
    claims_report,
    factor_claim,
    one_row,
)
from boexplore.analysis.paper1.views import rederive, with_config
from boexplore.analysis.pipeline import AnalysisResult, oe_metric

COLUMNS = [
    "claim_id",
    "dimension",
    "setting",
    "value",
    "is_default",
    "decision",
    "decision_strict",
    "n_problems",
    "boundary_share",
    "coord_boundary_share",
]
#: How a setting dimension is named in a verdict ("β = 2", "TS maximiser: polished").
LABEL = {
    "ucb_beta (high, low)": "UCB β (high, low)",
    "ucb_beta": "UCB β",
    "ts_maximiser": "TS maximiser",
    "factor @ d-range": "factor @ d",
    "min base methods per problem": "method set",
    "oe_statistic": "OE statistic",
    "gp_prior": "GP prior",
    "c7_activity_filter": "activity filter",
}
#: Between the prior and the TS maximiser in a P1-C4 GP-prior setting ("<prior>, polished").
PRIOR_SEP = ", "
WORD = {
    REPRODUCED: "reproduced",
    NOT_REPRODUCED: "not reproduced",
    UNDECIDED: "undecided",
    MISSING: "no data",
}


def _decide(r: AnalysisResult, build: Any) -> dict[str, Any]:
    c = claims_report(r, light=True, effect_boot=0, builders=[build]).claims.iloc[0]
    return {"decision": c["decision"], "decision_strict": c["decision_strict"]}


def _n_problems(r: AnalysisResult, labels: Sequence[str]) -> int:
    f = r.final
    per = f[f["method"].isin(labels)].groupby("problem")["method"].nunique()
    return int((per == len(set(labels))).sum())


def c3_beta(r: AnalysisResult) -> list[dict[str, Any]]:
    """P1-C3 for every (high, low) β pair of the UCB labels present."""
    cfg = r.config
    betas: Mapping[str, float] = cfg["sensitivity"]["ucb_beta"]
    labels = sorted(present(r, betas), key=lambda m: betas[m])
    default = (tuple(cfg["groups"].get("ucb_high", [])), tuple(cfg["groups"].get("ucb_low", [])))
    rows = []
    for lo, hi in itertools.combinations(labels, 2):
        if betas[hi] <= betas[lo]:
            continue
        groups = {**cfg["groups"], "ucb_high": [hi], "ucb_low": [lo]}
        view = rederive(with_config(r, groups=groups), r.final, int(cfg["n_boot"]))
        rows.append(
            {
                "claim_id": "P1-C3",
                "dimension": "ucb_beta (high, low)",
                "setting": f"({betas[hi]:g}, {betas[lo]:g})",
                "value": f"{hi},{lo}",
                "is_default": ((hi,), (lo,)) == default,
                **_decide(view, one_row(claim_c3)),
                "n_problems": _n_problems(r, [hi, lo]),
            }
        )
    return rows


def c5_beta(r: AnalysisResult) -> list[dict[str, Any]]:
    """P1-C5 with each UCB label as the one UCB."""
    cfg = r.config
    betas: Mapping[str, float] = cfg["sensitivity"]["ucb_beta"]
    ucb_groups = list(cfg["c5_ucb_groups"])
    default = {m for g in ucb_groups for m in cfg["groups"].get(g, [])}
    rows = []
    for lab in sorted(present(r, betas), key=lambda m: betas[m]):
        groups = {**cfg["groups"], "c5_setting": [lab]}
        view = with_config(r, groups=groups, c5_ucb_groups=["c5_setting"])
        rows.append(
            {
                "claim_id": "P1-C5",
                "dimension": "ucb_beta",
                "setting": f"{betas[lab]:g}",
                "value": lab,
                "is_default": {lab} == default,
                **_decide(view, one_row(claim_c5)),
                "n_problems": _n_problems(r, [lab, *cfg["groups"].get("ei", [])]),
            }
        )
    return rows


def c4_maximiser(r: AnalysisResult, boundary: pd.DataFrame | None) -> list[dict[str, Any]]:
    """P1-C4 per TS label, with the boundary share of its BO points when known."""
    cfg = r.config
    names: Mapping[str, str] = cfg["sensitivity"]["ts_maximiser"]
    default = set(cfg["groups"].get(cfg["c4_ts_groups"][0], [])) if cfg["c4_ts_groups"] else set()
    rows = []
    for lab in present(r, names):
        view = with_config(r, groups={**cfg["groups"], "c4_setting": [lab]})
        share, coord = share_on(boundary, lab)
        rows.append(
            {
                "claim_id": "P1-C4",
                "dimension": "ts_maximiser",
                "setting": names[lab],
                "value": lab,
                "is_default": {lab} == default,
                **_decide(view, lambda b: [claim_c4(b, "c4_setting")]),
                "n_problems": _n_problems(r, [lab]),
                "boundary_share": share,
                "coord_boundary_share": coord,
            }
        )
    return rows


def c7_where(r: AnalysisResult) -> list[dict[str, Any]]:
    """P1-C7 per factor (trust region, RAASP) and per d-range."""
    cfg = r.config
    f = r.final
    subsets = {
        "all": f,
        "low-d": f[f["dim"] <= cfg["low_d_max"]],
        "high-d": f[f["dim"] >= cfg["high_d_min"]],
    }
    rows = []
    for sub in cfg["sensitivity"]["c7_subsets"]:
        view = dataclasses.replace(r, final=subsets[sub])
        for factor in ("trust_region", "raasp"):
            dec = _decide(view, one_row(lambda b, fa=factor: factor_claim(b, "P1-C7", [fa], -1)))
            rows.append(
                {
                    "claim_id": "P1-C7",
                    "dimension": "factor @ d-range",
                    "setting": f"{factor} @ {sub}",
                    "value": f"{factor}:{sub}",
                    "is_default": False,
                    **dec,
                    "n_problems": int(subsets[sub].loc[subsets[sub][factor], "problem"].nunique()),
                }
            )
    return rows


def c7_activity_filter(r: AnalysisResult) -> list[dict[str, Any]]:
    """P1-C7 per factor with and without the "mechanism acted" filter (issue 58; our
    question, not the paper's): each setting of ``sensitivity.c7_activity_filter`` is a
    ``c7_min_active_frac`` (None: every unit counts, whether its mechanism acted or not)."""
    cfg = r.config
    settings: Mapping[str, float | None] = cfg["sensitivity"].get("c7_activity_filter", {})
    f = r.final
    rows = []
    for name, frac in settings.items():
        view = with_config(r, c7_min_active_frac=frac)
        for factor in ("trust_region", "raasp"):
            build = one_row(lambda b, fa=factor: factor_claim(b, "P1-C7", [fa], -1))
            rows.append(
                {
                    "claim_id": "P1-C7",
                    "dimension": "c7_activity_filter",
                    "setting": f"{factor} {name}",
                    "value": f"{factor}:{'none' if frac is None else f'{float(frac):g}'}",
                    "is_default": frac is not None
                    and float(frac) == float(cfg["c7_min_active_frac"]),
                    **_decide(view, build),
                    "n_problems": int(f.loc[f[factor], "problem"].nunique()),
                }
            )
    return rows


def c8_method_set(r: AnalysisResult) -> list[dict[str, Any]]:
    """P1-C8 on problems with at least k base methods, for each k of the grid."""
    cfg = r.config
    f = r.final
    base = f[(f["q"] == 1) & ~f["trust_region"] & ~f["raasp"]]
    per = base.groupby("problem")["method"].nunique()
    rows = []
    for k in cfg["sensitivity"]["c8_min_methods"]:
        view = with_config(r, c8_min_methods=int(k))
        rows.append(
            {
                "claim_id": "P1-C8",
                "dimension": "min base methods per problem",
                "setting": f">= {int(k)} methods",
                "value": str(int(k)),
                "is_default": int(k) == int(cfg["c8_min_methods"]),
                **_decide(view, one_row(claim_c8)),
                "n_problems": int((per >= int(k)).sum()),
            }
        )
    return rows


def _with_oe(cfg: Mapping[str, Any], metric: str) -> list[str]:
    """``exploration_metrics`` with its OE entry replaced by ``metric``."""
    return [metric if x.startswith("oe_") else x for x in cfg["exploration_metrics"]]


#: Claims with an OE part (C1's correlation, C2, C6 and C7's metric parts).
OE_CLAIMS: tuple[tuple[str, Any], ...] = (
    ("P1-C1", claim_c1),
    ("P1-C2", claim_c2),
    ("P1-C6", lambda b: factor_claim(b, "P1-C6", ["q"], +1)),
    ("P1-C7", lambda b: factor_claim(b, "P1-C7", ["trust_region", "raasp"], -1)),
)


def oe_statistic(r: AnalysisResult) -> list[dict[str, Any]]:
    """C1, C2, C6 and C7 with each OE metric of ``sensitivity.oe_statistic`` as the OE one."""
    cfg = r.config
    names: Mapping[str, str] = cfg["sensitivity"].get("oe_statistic", {})
    default = oe_metric(cfg)
    rows = []
    for metric, name in names.items():
        if metric not in r.final.columns:
            continue
        view = rederive(
            with_config(r, exploration_metrics=_with_oe(cfg, metric)), r.final, int(cfg["n_boot"])
        )
        for cid, build in OE_CLAIMS:
            rows.append(
                {
                    "claim_id": cid,
                    "dimension": "oe_statistic",
                    "setting": name,
                    "value": metric,
                    "is_default": metric == default,
                    **_decide(view, one_row(build)),
                    "n_problems": int(r.final.loc[r.final[metric].notna(), "problem"].nunique()),
                }
            )
    return rows


def _every_run(r: AnalysisResult) -> pd.DataFrame:
    """Final rows of every run, those under other GP priors included."""
    return r.final if r.final_all is None else r.final_all


def _prior_labels(maps: Mapping[str, Mapping[str, str]]) -> set[str]:
    return {lab for m in maps.values() for lab in (*m, *m.values())}


def prior_view(r: AnalysisResult, mapping: Mapping[str, str]) -> AnalysisResult:
    """``r`` on the problems where every label of every prior ran, with only the labels of
    ``mapping`` (renamed to their base labels) and random search: one GP prior's study."""
    cfg = r.config
    maps: Mapping[str, Mapping[str, str]] = cfg["sensitivity"]["gp_prior"]
    f = _every_run(r)
    every = _prior_labels(maps)
    have = f.groupby("problem")["method"].agg(set)
    problems = [p for p, labs in have.items() if every <= labs]
    keep = set(mapping.values()) | set(cfg["groups"].get("random", []))
    sub = f[f["problem"].isin(problems) & f["method"].isin(keep)].copy()
    sub["method"] = sub["method"].replace({v: k for k, v in mapping.items()})
    return rederive(r, sub, int(cfg["n_boot"]))


def gp_prior(r: AnalysisResult, boundary: pd.DataFrame | None) -> list[dict[str, Any]]:
    """C4 (each TS maximiser, with its boundary share), C5 and C8 under each GP prior of
    ``sensitivity.gp_prior``, every prior on the same problems and base labels."""
    cfg = r.config
    maps: Mapping[str, Mapping[str, str]] = cfg["sensitivity"].get("gp_prior", {})
    present = set(_every_run(r)["method"].unique())
    if not maps or not _prior_labels(maps) <= present:
        return []
    maximisers: Mapping[str, str] = cfg["sensitivity"]["ts_maximiser"]
    rows = []
    for name, mapping in maps.items():
        view = prior_view(r, mapping)
        common = {
            "dimension": "gp_prior",
            "is_default": all(k == v for k, v in mapping.items()),
            "n_problems": int(view.final["problem"].nunique()),
        }
        for group in cfg["c4_ts_groups"]:
            for lab in cfg["groups"].get(group, []):
                if lab not in mapping:
                    continue
                # on the problems every prior ran, so the priors' shares compare
                share, coord = share_on(boundary, mapping[lab], view.final["problem"].unique())
                rows.append(
                    {
                        "claim_id": "P1-C4",
                        "setting": f"{name}{PRIOR_SEP}{maximisers.get(lab, lab)}",
                        "value": f"{mapping[lab]}@{name}",
                        **common,
                        **_decide(view, lambda b, g=group: [claim_c4(b, g)]),
                        "boundary_share": share,
                        "coord_boundary_share": coord,
                    }
                )
        for cid, build in (("P1-C5", claim_c5), ("P1-C8", claim_c8)):
            rows.append(
                {
                    "claim_id": cid,
                    "setting": name,
                    "value": name,
                    **common,
                    **_decide(view, one_row(build)),
                }
            )
    return rows


def boundary_labels(cfg: Mapping[str, Any]) -> list[str]:
    """Labels whose boundary share the C4 rows report: each TS maximiser, under each prior."""
    labels = list(cfg["sensitivity"]["ts_maximiser"])
    for mapping in cfg["sensitivity"].get("gp_prior", {}).values():
        labels += [v for k, v in mapping.items() if k in cfg["sensitivity"]["ts_maximiser"]]
    return list(dict.fromkeys(labels))


def sensitivity_table(r: AnalysisResult, boundary: pd.DataFrame | None = None) -> pd.DataFrame:
    """Long table: one row per (claim, setting) with the decision under that setting."""
    rows = [
        *c3_beta(r),
        *c4_maximiser(r, boundary),
        *c5_beta(r),
        *c7_where(r),
        *c7_activity_filter(r),
        *c8_method_set(r),
        *oe_statistic(r),
        *gp_prior(r, boundary),
    ]
    return pd.DataFrame(rows, columns=COLUMNS)


def _contiguous(order: Sequence[str], chosen: set[str]) -> bool:
    idx = [i for i, s in enumerate(order) if s in chosen]
    return bool(idx) and idx == list(range(idx[0], idx[-1] + 1))


def setting_phrase(dimension: str, settings: Sequence[str]) -> str:
    """``UCB β = 0.5, 2`` / ``TS maximiser: polished`` / ``raasp @ high-d``."""
    label = LABEL.get(dimension, dimension)
    joined = ", ".join(settings)
    if dimension.startswith("ucb_beta"):
        return f"{label} = {joined}"
    if dimension in ("ts_maximiser", "oe_statistic", "gp_prior"):
        return f"{label}: {joined}"
    return joined


def range_text(rows: pd.DataFrame) -> str:
    """One phrase: under which settings the claim is reproduced, and how it fails elsewhere."""
    if rows.empty:
        return ""
    dim = str(rows["dimension"].iloc[0])
    settings = rows["setting"].tolist()
    by: dict[str, list[str]] = {}
    for s, d in zip(rows["setting"], rows["decision"], strict=True):
        by.setdefault(WORD.get(d, d), []).append(s)
    rep = set(by.get("reproduced", []))
    if len(by) == 1 and len(settings) > 2:  # one outcome everywhere: no list needed
        return f"{next(iter(by))} for every tested {LABEL.get(dim, dim)} ({len(settings)} tested)"
    if dim == "ucb_beta" and rep and len(rep) > 1 and _contiguous(settings, rep):
        ordered = [s for s in settings if s in rep]
        head = f"reproduced for β ∈ [{ordered[0]}, {ordered[-1]}]"
    elif rep:
        head = "reproduced for " + setting_phrase(dim, [s for s in settings if s in rep])
    else:
        head = f"reproduced for no tested {LABEL.get(dim, dim)}"
    rest = [f"{w} for " + setting_phrase(dim, ss) for w, ss in by.items() if w != "reproduced"]
    return "; ".join([head, *rest]) + f" ({len(settings)} tested)"


def _prior_and_maximiser(settings: pd.Series) -> tuple[pd.Series, pd.Series]:
    """Split P1-C4 GP-prior settings ``<prior>, <maximiser>`` (built in :func:`gp_prior`)."""
    split = settings.str.rsplit(PRIOR_SEP, n=1)
    return split.str[0], split.str[-1]


def prior_by_maximiser_text(rows: pd.DataFrame) -> str:
    """P1-C4 under each GP prior, one phrase per TS maximiser: ``GP prior, polished:
    reproduced under A, not reproduced under B`` (settings are ``<prior>, <maximiser>``)."""
    prior, maximiser = _prior_and_maximiser(rows["setting"])
    phrases = []
    for m in dict.fromkeys(maximiser):
        mine = maximiser == m
        by: dict[str, list[str]] = {}
        for p, d in zip(prior[mine], rows.loc[mine, "decision"], strict=True):
            by.setdefault(WORD.get(d, d), []).append(p)
        if len(by) == 1 and mine.sum() > 1:
            outcome = f"{next(iter(by))} under every tested prior"
        else:
            outcome = ", ".join(f"{w} under {' / '.join(ps)}" for w, ps in by.items())
        phrases.append(f"{LABEL['gp_prior']}, {m}: {outcome}")
    return "; ".join(phrases) + f" ({prior.nunique()} priors tested)"


def _dimension_text(cid: str, dim: str, rows: pd.DataFrame) -> str:
    if cid == "P1-C4" and dim == "gp_prior":
        return prior_by_maximiser_text(rows)
    return range_text(rows)


def _boundary_text(g: pd.DataFrame) -> str:
    """P1-C4's boundary shares: per TS maximiser over its problems, then per GP prior on the
    problems every prior ran (the same problems for each prior)."""
    shares = g[g["boundary_share"].notna()]
    own = shares[shares["dimension"] != "gp_prior"]
    text = ", ".join(
        f"{s} {b:.2f}" for s, b in zip(own["setting"], own["boundary_share"], strict=True)
    )
    prior = shares[shares["dimension"] == "gp_prior"]
    if len(prior):
        per: dict[str, list[str]] = {}
        names, maximisers = _prior_and_maximiser(prior["setting"])
        for p, m, b in zip(names, maximisers, prior["boundary_share"], strict=True):
            per.setdefault(p, []).append(f"{m} {b:.2f}")
        n = int(prior["n_problems"].max())
        on = f"on the {n} problems run under every GP prior: " + "; ".join(
            f"{p}: {', '.join(v)}" for p, v in per.items()
        )
        text = f"{text}; {on}" if text else on
    return "; boundary share of BO points: " + text if text else ""


def settings_columns(sens: pd.DataFrame) -> pd.DataFrame:
    """Per claim id: ``settings_range`` and ``default_setting`` for the claims table."""
    rows = []
    for cid, g in sens.groupby("claim_id", sort=False):
        text = "; ".join(
            _dimension_text(str(cid), str(dim), gg)
            for dim, gg in g.groupby("dimension", sort=False)
        )
        default = "; ".join(
            setting_phrase(str(d), list(gg.loc[gg["is_default"].astype(bool), "setting"]))
            for d, gg in g.groupby("dimension", sort=False)
            if gg["is_default"].astype(bool).any()
        )
        if cid == "P1-C4":
            text += _boundary_text(g)
        rows.append({"claim_id": cid, "settings_range": text, "default_setting": default})
    return pd.DataFrame(rows, columns=["claim_id", "settings_range", "default_setting"])


def variant_default_setting(
    claims: pd.DataFrame, sens: pd.DataFrame, groups: Mapping[str, Sequence[str]]
) -> pd.Series:
    """``default_setting`` per claims row; a variant row (P1-C4 ``ts_polish``) is decided under
    its own setting (polished TS), not the claim's default."""
    out = claims["default_setting"].copy()
    for i, row in claims.iterrows():
        variant = row.get("variant")
        if not isinstance(variant, str) or not variant:
            continue
        labels = list(groups.get(variant, [variant]))
        hit = sens[(sens["claim_id"] == row["claim_id"]) & sens["value"].isin(labels)]
        if len(hit):
            out[i] = "; ".join(
                setting_phrase(str(d), list(g["setting"]))
                for d, g in hit.groupby("dimension", sort=False)
            )
    return out
