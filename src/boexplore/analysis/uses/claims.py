"""Claims rows P1-U1..U3: paper 1's claimed *uses* of OTSD, decided on held-out problems.

Every row uses the machinery of P1-C2..C8 (:mod:`boexplore.analysis.claimkit.decide`): per-problem
seed-paired differences, a two-sided t-test per problem, Holm within the part, and the
rule of ``analysis.decision``; only the *decide* half of ``analysis.uses`` enters a
verdict (the monitor's references come from the tune half). Each use has a control that
must fail.

* **P1-U1 diagnosis**: per problem and seed, mean gap (normalised simple regret) of the
  runs the monitor flags over- or under-exploring at ``flag_at`` × budget minus that of
  the unflagged runs (judged methods only) > 0. Control: the same flag frequency assigned
  at random per problem (draw 0 decides the control; the note gives how often any of
  ``n_perm`` draws is reproduced).
* **P1-U2 early stopping**: parts (a) the saved fraction of evaluations, bootstrap over
  runs, ci_low > ``min_saving``; (b) loss within seed noise: per problem and seed,
  ``noise_frac`` × (across-seed SD of the final gap) − (gap at stop − final gap) > 0;
  (c, d) the rule beats the controls — random stopping with the same stop times permuted
  within the problem, and the incumbent-only rule — on the loss at the stop (control
  loss − rule loss > 0). All four must hold.
* **P1-U3 portfolio**, per fix of ``u3.fixes``: on decide problems with d ≥ ``min_dim``,
  (a) the monitor flags ``base`` over-exploring in at least ``min_flagged`` of its runs
  (Clopper–Pearson ci_low above it), (b) the fix lowers normalised OTSD and (c) lowers the
  final gap (seed-paired against ``base``). Control: switching to ``control`` (random
  search, which does not lower exploration) must not improve the final gap.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from boexplore.analysis.claimkit.decide import (
    UNIT_COLUMNS,
    classify_units,
    rule_from_config,
    summarize_part,
    unit_row,
)
from boexplore.analysis.claimkit.power import seeds_problems_needed
from boexplore.analysis.claimkit.stats import binomial_ci, bootstrap_ci
from boexplore.analysis.claimkit.verdict import (
    MISSING,
    NOT_REPRODUCED,
    REPRODUCED,
    UNDECIDED,
    Rule,
    combine,
    interval_verdict,
    undecidable_text,
)
from boexplore.analysis.config import analysis_config
from boexplore.analysis.uses.inputs import references_from_metrics, run_table, split_problems

USES: dict[str, str] = {
    "P1-U1": "Diagnosis: runs the monitor flags over-/under-exploring end with a worse normalised regret.",
    "P1-U2": "Early stopping: the OTSD-trend rule saves >= 25% of evaluations at a loss within seed noise.",
    "P1-U3": "Portfolio: for TS flagged over-exploring in high d, the suggested fix lowers exploration and improves the result.",
}


def _units(part: str, a: str, b: str, diffs: dict[str, tuple[int, np.ndarray]]) -> pd.DataFrame:
    """Unit table (one row per problem) of seed-paired differences, positive = claimed direction."""
    from boexplore.analysis.claimkit.stats import paired_t_two_sided

    rows = []
    for problem, (dim, d) in sorted(diffs.items()):
        d = np.asarray(d, float)
        d = d[np.isfinite(d)]
        if d.size == 0:
            continue
        p, mean = paired_t_two_sided(d)
        rows.append(unit_row(part, problem, dim, a, b, d, p, mean, "t"))
    cols = [c for c in UNIT_COLUMNS if c not in ("p_adj", "outcome")] + ["diffs"]
    return pd.DataFrame(rows, columns=cols)


class _Parts:
    """Decides parts with the claim machinery and collects them in the claims' part format."""

    def __init__(self, cfg: dict[str, Any], parts: list, units: list) -> None:
        self.cfg, self.parts, self.units = cfg, parts, units
        self.rule: Rule = rule_from_config(cfg["decision"])
        self.min_seeds = int(cfg["min_seeds"])

    def rule_part(self, cid: str, variant: str, part: str, units: pd.DataFrame) -> dict[str, Any]:
        units = classify_units(units, self.rule)
        s = summarize_part(
            units, self.rule, seed=int(self.cfg["seed"]), n_boot=int(self.cfg["n_boot"])
        )
        note = ""
        if s["decision"] != MISSING and s["min_seeds"] < self.min_seeds:
            s["decision"], note = UNDECIDED, f"fewer than min_seeds={self.min_seeds} seeds"
        need = None
        if s["decision"] == UNDECIDED:
            pw = self.cfg["power"]
            need = seeds_problems_needed(
                units,
                self.rule,
                [
                    x
                    for x in pw["seeds_grid"]
                    if x >= max(2, self.min_seeds, int(units["n_seeds"].min()))
                ],
                pw["problems_grid"],
                target=float(pw["target"]),
                n_sim=int(pw["n_sim"]),
                seed=int(pw["seed"]),
            )
        row = {
            "claim_id": cid,
            "variant": variant,
            "part": part,
            "metric": "gap/otsd_norm",
            "subset": "decide",
            **s,
            "need_seeds": need.seeds if need else None,
            "need_problems": need.problems if need else None,
            "p_decisive_now": need.p_decisive_now if need else np.nan,
            "p_decisive_at_need": need.p_decisive if need else np.nan,
            "note": note,
        }
        self.parts.append(row)
        if not units.empty:
            self.units.append(
                units.assign(claim_id=cid, variant=variant, metric="", subset="decide")
            )
        return row

    def interval_part(
        self, cid: str, variant: str, part: str, est: tuple[float, float, float], thr: float, n: int
    ) -> dict[str, Any]:
        v, lo, hi = est
        decision = interval_verdict(v, lo, hi, thr, n, 2) if n else MISSING
        row = {
            "claim_id": cid,
            "variant": variant,
            "part": part,
            "metric": "",
            "subset": "decide",
            "n_units": n,
            "n_problems": np.nan,
            "k_for": np.nan,
            "k_against": np.nan,
            "needed": np.nan,
            "allowed_against": np.nan,
            "support": v,
            "support_max": hi,
            "min_seeds": np.nan,
            "effect_mean": v,
            "effect_low": lo,
            "effect_high": hi,
            "decision": decision,
            "need_seeds": None,
            "need_problems": None,
            "p_decisive_now": np.nan,
            "p_decisive_at_need": np.nan,
            "note": f"threshold {thr}",
        }
        self.parts.append(row)
        return {**row, "threshold": thr}


def _text(p: dict[str, Any]) -> str:
    if "threshold" not in p and p["n_units"]:
        return (
            f"{p['part']}: {p['decision']} ({p['k_for']}/{p['n_units']} problems for, "
            f"{p['k_against']} against; effect {p['effect_mean']:.3g} "
            f"[{p['effect_low']:.3g}, {p['effect_high']:.3g}])"
        )
    if p["decision"] == MISSING:
        return f"{p['part']}: missing data"
    return (
        f"{p['part']}: {p['decision']} ({p['effect_mean']:.3g} "
        f"[{p['effect_low']:.3g}, {p['effect_high']:.3g}] vs {p['note']})"
    )


def _row(
    cid: str,
    variant: str,
    statistic: str,
    parts: Sequence[dict[str, Any]],
    extra: str = "",
    rule_support: float = np.nan,
) -> dict[str, Any]:
    decision = combine([p["decision"] for p in parts])
    main = parts[0]
    needs = ""
    if decision == UNDECIDED:
        und = [p for p in parts if p["decision"] == UNDECIDED and p.get("need_seeds")]
        needs = "; ".join(
            f"{p['part']}: {p['need_seeds']} seeds × {p['need_problems']} problems" for p in und
        )
    verdict = {
        REPRODUCED: REPRODUCED,
        NOT_REPRODUCED: NOT_REPRODUCED,
        MISSING: "missing data: " + ", ".join(p["part"] for p in parts if p["decision"] == MISSING),
    }.get(decision)
    if verdict is None:
        und = [p for p in parts if p["decision"] == UNDECIDED]
        verdict = (
            undecidable_text(und[0]["need_seeds"], und[0]["need_problems"])
            if und and und[0].get("need_seeds")
            else undecidable_text(None, None)
        )
    is_rule = "threshold" not in main
    return {
        "claim_id": cid,
        "variant": variant,
        "claim": USES[cid],
        "statistic": statistic,
        "value": main["support"] if is_rule else main["effect_mean"],
        "ci_low": main["support"] if is_rule else main["effect_low"],
        "ci_high": main["support_max"] if is_rule else main["effect_high"],
        "threshold": main.get("threshold", rule_support),
        "verdict": verdict,
        "decision": decision,
        "needs": needs,
        "n": int(main["n_units"] or 0),
        "note": "; ".join([*(_text(p) for p in parts), *([extra] if extra else [])]),
    }


def _per_seed(
    rt: pd.DataFrame, value: Callable[[pd.DataFrame], float]
) -> dict[str, tuple[int, np.ndarray]]:
    """Problem -> (dim, per-seed values of ``value`` over that seed's runs)."""
    out: dict[str, tuple[int, np.ndarray]] = {}
    for problem, g in rt.groupby("problem"):
        vals = [value(gs) for _, gs in g.groupby("seed")]
        out[problem] = (int(g["dim"].iloc[0]), np.asarray(vals, float))
    return out


def _flag_diff(g: pd.DataFrame, flag: str = "flagged") -> float:
    f, u = g.loc[g[flag], "gap"], g.loc[~g[flag], "gap"]
    return float(f.mean() - u.mean()) if len(f) and len(u) else np.nan


def _random_flags(rt: pd.DataFrame, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    out = rt.copy()
    out["flagged"] = (
        np.concatenate(
            [rng.permutation(g["flagged"].to_numpy()) for _, g in out.groupby("problem", sort=True)]
        )
        if len(out)
        else []
    )
    return out.sort_values(["problem"], kind="stable")


def use_u1(P: _Parts, rt: pd.DataFrame) -> dict[str, Any]:
    cfg = P.cfg["uses"]
    rt = rt.sort_values(["problem", "method", "seed"]).reset_index(drop=True)
    part = P.rule_part(
        "P1-U1",
        "",
        "flagged − unflagged gap",
        _units("U1", "flagged", "unflagged", _per_seed(rt, _flag_diff)),
    )
    n_perm = int(cfg["u1"]["n_perm"])
    ctrl_decisions = []
    ctrl_row = None
    for k in range(n_perm):
        shuffled = _random_flags(rt.sort_values("problem", kind="stable"), int(P.cfg["seed"]) + k)
        u = classify_units(
            _units("U1c", "random flag", "unflagged", _per_seed(shuffled, _flag_diff)), P.rule
        )
        s = summarize_part(u, P.rule, n_boot=10)
        ctrl_decisions.append(s["decision"])
        if k == 0:
            ctrl_row = P.rule_part(
                "P1-U1",
                "control",
                "random flag (same frequency) − unflagged gap",
                _units("U1c", "random flag", "unflagged", _per_seed(shuffled, _flag_diff)),
            )
    rate = float(np.mean([d == REPRODUCED for d in ctrl_decisions])) if ctrl_decisions else np.nan
    by_state = rt.groupby("state", dropna=False).size().to_dict()
    extra = (
        f"control (random flags, draw 0): {ctrl_row['decision'] if ctrl_row else 'n/a'}, reproduced in "
        f"{rate:.1%} of {n_perm} draws (must fail); flag rate {rt['flagged'].mean():.2f}; states at flag time {by_state}"
    )
    row = _row(
        "P1-U1",
        "",
        "support = fraction of decide problems whose seed-paired mean gap of flagged minus unflagged runs is significantly > 0 (t over seeds, Holm); value/CI = [established, attainable] support",
        [part],
        extra,
        P.rule.support,
    )
    if (
        ctrl_row is not None
        and ctrl_row["decision"] == REPRODUCED
        and row["decision"] == REPRODUCED
    ):
        row["verdict"], row["decision"] = NOT_REPRODUCED, NOT_REPRODUCED
        row["note"] += "; the control did not fail, so the use is not reproduced"
    return row


def use_u2(P: _Parts, rt: pd.DataFrame) -> dict[str, Any]:
    cfg = P.cfg["uses"]
    seed = int(P.cfg["seed"])
    rt = rt.sort_values(["problem", "method", "seed"]).reset_index(drop=True)
    saved = 1.0 - rt["t_stop"] / rt["T"]
    est = bootstrap_ci(saved.to_numpy(float), np.mean, n_boot=int(P.cfg["n_boot"]), seed=seed)
    p_save = P.interval_part(
        "P1-U2", "", "saved fraction of evaluations", est, float(cfg["u2"]["min_saving"]), len(rt)
    )
    noise = rt.groupby(["problem", "method"])["gap"].std(ddof=1).groupby(level="problem").mean()
    rt = rt.assign(loss=rt["gap_stop"] - rt["gap"], loss_inc=rt["gap_inc"] - rt["gap"])
    rng = np.random.default_rng(seed)
    rand_loss = []
    for _, g in rt.groupby("problem", sort=True):
        perm = rng.permutation(g["t_stop"].to_numpy())
        rand_loss += [
            float(gaps[t - 1] - gaps[-1]) for gaps, t in zip(g["gaps"], perm, strict=True)
        ]
    rt["loss_rand"] = rand_loss
    frac = float(cfg["u2"]["noise_frac"])
    p_noise = P.rule_part(
        "P1-U2",
        "",
        "loss below noise",
        _units(
            "U2b",
            "noise margin",
            "loss",
            _per_seed(rt, lambda g: frac * noise[g["problem"].iloc[0]] - g["loss"].mean()),
        ),
    )
    p_rand = P.rule_part(
        "P1-U2",
        "",
        "beats random stop (same times)",
        _units(
            "U2c",
            "random stop",
            "rule",
            _per_seed(rt, lambda g: g["loss_rand"].mean() - g["loss"].mean()),
        ),
    )
    p_inc = P.rule_part(
        "P1-U2",
        "",
        "beats incumbent-only rule",
        _units(
            "U2d",
            "incumbent rule",
            "rule",
            _per_seed(rt, lambda g: g["loss_inc"].mean() - g["loss"].mean()),
        ),
    )
    saved_evals = int((rt["T"] - rt["t_stop"]).sum())
    inc_saved = float(1 - (rt["t_inc"] / rt["T"]).mean())
    extra = (
        f"stop rule saved {saved_evals} of {int(rt['T'].sum())} evaluations ({saved.mean():.1%}; "
        f"incumbent-only control saves {inc_saved:.1%}); mean loss in gap: rule {rt['loss'].mean():.3g}, "
        f"random stop {rt['loss_rand'].mean():.3g}, incumbent rule {rt['loss_inc'].mean():.3g}"
    )
    return _row(
        "P1-U2",
        "",
        "value/CI = mean saved fraction of evaluations (bootstrap over runs) vs min_saving; the loss-within-noise part and both control comparisons use the per-problem rule (t over seeds, Holm); all parts must hold",
        [p_save, p_noise, p_rand, p_inc],
        extra,
    )


def use_u3(P: _Parts, rt: pd.DataFrame, fix: str) -> dict[str, Any]:
    cfg = P.cfg["uses"]["u3"]
    base, control = cfg["base"], cfg["control"]
    hi = rt[rt["dim"] >= int(cfg["min_dim"])]
    b = hi[hi["method"] == base]
    k, n = int(b["over"].sum()), len(b)
    est = binomial_ci(k, n) if n else (np.nan, np.nan, np.nan)
    p_flag = P.interval_part(
        "P1-U3", fix, f"{base} flagged over-exploring", est, float(cfg["min_flagged"]), n
    )

    def paired(other: str, col: str, part: str, sign: int) -> dict[str, Any]:
        diffs: dict[str, tuple[int, np.ndarray]] = {}
        for problem, g in hi.groupby("problem"):
            w = g.pivot_table(index="seed", columns="method", values=col)
            if base in w and other in w:
                diffs[problem] = (
                    int(g["dim"].iloc[0]),
                    sign * (w[base] - w[other]).to_numpy(float),
                )
        return P.rule_part("P1-U3", fix, part, _units(part, base, other, diffs))

    p_x = paired(fix, "otsd_norm", f"{fix} lowers OTSD", +1)
    p_g = paired(fix, "gap", f"{fix} lowers the final gap", +1)
    ctrl = paired(control, "gap", f"control {base}→{control} lowers the final gap", +1)
    extra = (
        f"control ({base}→{control}, does not lower exploration): {ctrl['decision']} (must fail)"
    )
    row = _row(
        "P1-U3",
        fix,
        f"value/CI = fraction of {base} runs flagged over-exploring at d >= {cfg['min_dim']} (Clopper-Pearson); the fix parts use the per-problem rule (seed-paired t, Holm); all parts must hold",
        [p_flag, p_x, p_g],
        extra,
    )
    if ctrl["decision"] == REPRODUCED and row["decision"] == REPRODUCED:
        row["verdict"] = row["decision"] = NOT_REPRODUCED
        row["note"] += "; the control did not fail"
    return row


def _missing_rows(ucfg: dict[str, Any], why: str) -> list[dict[str, Any]]:
    ids = [("P1-U1", ""), ("P1-U2", ""), *(("P1-U3", f) for f in ucfg["u3"]["fixes"])]
    return [
        {
            "claim_id": cid,
            "variant": v,
            "claim": USES[cid],
            "statistic": "",
            "value": np.nan,
            "ci_low": np.nan,
            "ci_high": np.nan,
            "threshold": np.nan,
            "verdict": f"{MISSING}: {why}",
            "decision": MISSING,
            "needs": "",
            "n": 0,
            "note": why,
        }
        for cid, v in ids
    ]


def uses_rows(
    metrics: pd.DataFrame, section: dict[str, Any], parts: list, units: list
) -> list[dict[str, Any]]:
    """The P1-U1..U3 rows (decide half only); parts / units are appended to the given lists."""
    cfg = section if "uses" in section and "decision" in section else analysis_config(section)
    ucfg = cfg["uses"]
    if not (ucfg["tune"] and ucfg["decide"]):
        return _missing_rows(ucfg, "analysis.uses sets no tune/decide problem split")
    need = {"otsd", "otsd_norm", "n", "iteration", "best_so_far", "regret"}
    if need - set(metrics.columns):
        return _missing_rows(ucfg, f"metrics lack {sorted(need - set(metrics.columns))}")
    refs = references_from_metrics(metrics, ucfg)
    dims = metrics.groupby("problem")["dim"].first().to_dict()
    _, decide = split_problems(ucfg, sorted(dims), dims)
    rt = run_table(metrics[metrics["problem"].isin(decide)], ucfg, refs)
    P = _Parts(cfg, parts, units)
    judged = rt[rt["method"].isin(ucfg["judged_methods"])]
    rows = [use_u1(P, judged), use_u2(P, judged)]
    rows += [use_u3(P, rt, fix) for fix in ucfg["u3"]["fixes"]]
    return rows
