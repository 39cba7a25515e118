"""Per-run inputs of the paper-1 uses (P1-U1..U3): monitor flags, stop points, regret gaps.

From the workflow's per-prefix metrics table (one row per run prefix) this computes, per
run: the monitor's smoothed state at ``flag_at`` × budget (the one state rule,
:func:`boexplore.diagnostics.monitor.assess`), the evaluations the OTSD stop rule and the
incumbent-only control would have used, and the normalised simple regret ("gap") at the
end and at each stop point. The gap is 0 at the optimum (or the best value any run of the
problem found, when the optimum is unknown) and 1 at the median best value of the initial
designs, so problems of different scales can share one table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from boexplore.diagnostics.build import build_references
from boexplore.diagnostics.monitor import OVER, UNDER, MonitorThresholds, assess
from boexplore.diagnostics.references import References
from boexplore.diagnostics.stopping import StopRule, incumbent_stop_point, stop_point

RUN_KEYS = ["problem", "dim", "method", "seed"]


def split_problems(
    cfg: Mapping[str, Any], problems: Sequence[str], dims: Mapping[str, int]
) -> tuple[list[str], list[str]]:
    """(tune, decide) problems of ``analysis.uses``; both empty: alternate by (dim, name)."""
    tune, decide = list(cfg.get("tune") or []), list(cfg.get("decide") or [])
    if set(tune) & set(decide):
        raise ValueError(
            f"analysis.uses: tune and decide overlap: {sorted(set(tune) & set(decide))}"
        )
    if not tune and not decide:
        order = sorted(problems, key=lambda p: (dims[p], p))
        return order[0::2], order[1::2]
    return [p for p in tune if p in problems], [p for p in decide if p in problems]


def thresholds_from_config(cfg: Mapping[str, Any]) -> MonitorThresholds:
    m = cfg["monitor"]
    return MonitorThresholds(
        warmup=int(m["warmup"]),
        over_ratio=float(m["over_ratio"]),
        under_quantile=float(m["under_quantile"]),
        patience=int(m["patience"]),
    )


def stop_rule_from_config(cfg: Mapping[str, Any]) -> StopRule:
    s = cfg["stop"]
    return StopRule(
        window=int(s["window"]),
        otsd_frac=float(s["otsd_frac"]),
        min_improvement=float(s["min_improvement"]),
        min_evals=int(s["min_evals"]),
    )


def references_from_metrics(metrics: pd.DataFrame, cfg: Mapping[str, Any]) -> References:
    """The monitor's references built from the tune half of ``metrics`` (as the shipped file)."""
    dims = metrics.groupby("problem")["dim"].first().to_dict()
    tune, _ = split_problems(cfg, sorted(dims), dims)
    table = build_references(metrics, tune, cfg["reference_methods"])
    return References({c: table[c].to_numpy(float) for c in table.columns}, source="tune half")


def _gap_scale(metrics: pd.DataFrame) -> pd.DataFrame:
    """Per problem: ``y_top`` (optimum, else best found) and ``y_floor`` (median initial best)."""
    m = metrics
    optimum = (m["best_so_far"] + m["regret"]).where(np.isfinite(m["regret"]))
    init = m[m["iteration"] == 0].groupby(RUN_KEYS)["best_so_far"].max()
    out = pd.DataFrame(
        {
            "y_top": pd.concat(
                [optimum.groupby(m["problem"]).max(), m.groupby("problem")["best_so_far"].max()],
                axis=1,
            ).max(axis=1),
            "y_floor": init.groupby(level="problem").median(),
        }
    )
    return out


def run_table(
    metrics: pd.DataFrame, cfg: Mapping[str, Any], references: References
) -> pd.DataFrame:
    """One row per run: flag state, stop points and gaps (see the module docstring)."""
    th = thresholds_from_config(cfg)
    rule = stop_rule_from_config(cfg)
    inc_window = int(cfg["stop"]["incumbent_window"])
    flag_at = float(cfg["monitor"]["flag_at"])
    scale = _gap_scale(metrics)
    rows: list[dict[str, Any]] = []
    for key, g in metrics.sort_values("n").groupby(RUN_KEYS, sort=True):
        problem, dim, method, seed = key
        d = int(dim)
        T = len(g)
        n_init = int((g["iteration"] == 0).sum())
        a = assess(g["otsd_norm"].to_numpy(float), d, n_init, th, references)
        t_flag = min(T, max(1, int(np.ceil(flag_at * T))))
        y = g["best_so_far"].to_numpy(float)  # incumbent trace stands in for y (same stops)
        top, floor = scale.loc[problem, "y_top"], scale.loc[problem, "y_floor"]
        den = top - floor if np.isfinite(top - floor) and top - floor > 0 else np.nan
        gap = (top - y) / den
        t_stop = stop_point(g["otsd"].to_numpy(float), y, d, n_init, rule)
        t_inc = incumbent_stop_point(y, n_init, inc_window, rule.min_evals)
        state = a["state"][t_flag - 1]
        rows.append(
            {
                "problem": problem,
                "dim": d,
                "method": method,
                "seed": int(seed),
                "T": T,
                "n_init": n_init,
                "state": state,
                "flagged": state in (OVER, UNDER),
                "over": state == OVER,
                "frac_over": float(np.mean([s == OVER for s in a["state"][n_init:]]))
                if T > n_init
                else np.nan,
                "otsd_norm": float(g["otsd_norm"].iloc[-1]),
                "ratio": float(a["ratio"][-1]),
                "gap": float(gap[-1]),
                "t_stop": t_stop,
                "gap_stop": float(gap[t_stop - 1]),
                "t_inc": t_inc,
                "gap_inc": float(gap[t_inc - 1]),
                "gaps": gap,
            }
        )
    return pd.DataFrame(rows)


def example_timelines(
    metrics: pd.DataFrame, cfg: Mapping[str, Any], references: References
) -> list[tuple[str, pd.DataFrame]]:
    """Monitor timelines of seed 0 for the report figure: on the first decide high-d problem
    ``u3.base`` and its fixes, on the first decide low-d problem the first judged method."""
    from boexplore.diagnostics.timeline import timeline_from_history

    dims = metrics.groupby("problem")["dim"].first().to_dict()
    _, decide = split_problems(cfg, sorted(dims), dims)
    hi = [p for p in decide if dims[p] >= int(cfg["u3"]["min_dim"])]
    lo = [p for p in decide if dims[p] < int(cfg["u3"]["min_dim"])]
    picks = [(hi[0], m) for m in [cfg["u3"]["base"], *cfg["u3"]["fixes"]] if hi]
    picks += [(lo[0], m) for m in cfg["judged_methods"][2:3] if lo]
    th, rule = thresholds_from_config(cfg), stop_rule_from_config(cfg)
    out = []
    for problem, method in picks:
        g = metrics[(metrics["problem"] == problem) & (metrics["method"] == method)]
        g = g[g["seed"] == g["seed"].min()].sort_values("n") if len(g) else g
        if g.empty:
            continue
        n_init = int((g["iteration"] == 0).sum())
        tl = timeline_from_history(
            g["otsd"].to_numpy(float),
            g["otsd_norm"].to_numpy(float),
            g["best_so_far"].to_numpy(float),
            int(dims[problem]),
            n_init,
            thresholds=th,
            stop_rule=rule,
            references=references,
        )
        out.append((f"{problem} (d={dims[problem]}) {method} seed {int(g['seed'].iloc[0])}", tl))
    return out
