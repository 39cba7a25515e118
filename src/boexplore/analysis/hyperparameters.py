"""Pre-registered rules H1-H4 of the hyperparameter study (issue 56; our questions, not the
paper's): does the order of methods by exploration survive the GP's settings, and how far do
the settings move exploration?

Inputs: ``final``, one row per (problem, method label, seed) with the exploration metrics at
the run's last evaluation and its ``regret``; and the study's cells, read from the config
(:func:`study_cells`): a label's *method* is its spec string, its *setting* the model settings of
its ``bo.by_method`` entry (none = ``default``, the fitted model of today). Units are
(problem, seed); every bootstrap resamples seeds within each problem, the same draw for every
cell (the runs of one seed share their initial design). The rules, fixed before any run
(``docs/hyperparameters.md``):

* H1, per setting and metric: Kendall's tau between the order of the model-based methods
  under the setting and under the default (the order: mean over problems of the
  within-problem rank of the seed-mean metric). Holds when the interval lies above
  ``h1_tau_min``, does not when it lies below. Control: the default against itself with its
  order shifted by half the methods (tau about -0.14 for 7 methods) must not hold.
* H2, per model-based method and metric, over the fixed-lengthscale grid: per unit, tau between
  the lengthscale and the metric; holds when the mean of those taus is negative by a two-sided
  t-test (Holm over methods x metrics) and no adjacent pair of the grid is significantly the
  wrong way (shorter lengthscale, lower metric; paired t, Holm over the same family); does not
  hold when the trend is significantly positive or a pair is significantly reversed. Control:
  the grid labels permuted within each unit (seeded) must not hold.
* H3, per metric: shares of the variance of the cell means (method x setting x problem, after
  the problem means) that the method (main + by-problem), the setting (main + by-problem) and
  their interaction explain; holds when the interval of (method share - setting share) lies
  above 0, does not when it lies below. Control: method labels permuted within each
  (problem, setting, seed) must not hold.
* H4, per model-based method: normalised log regret (per problem, min-max over the study's runs)
  of the default against the best fixed lengthscale g*; holds when the interval of the
  difference lies below ``h4_margin`` and the default's nOTSD lies between the lowest and the
  highest nOTSD of g* and its grid neighbours; does not hold when the interval lies above the
  margin or the nOTSD is outside that window. g* is picked on the same data (favours the grid,
  so against H4). Control: the worst grid point in the default's place must not hold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from boexplore.analysis.claimkit.markdown import markdown_table
from boexplore.analysis.claimkit.stats import holm, paired_t_two_sided, t_interval
from boexplore.analysis.claimkit.verdict import (
    MISSING,
    NOT_REPRODUCED,
    REPRODUCED,
    UNDECIDED,
    interval_verdict,
    upper_interval_verdict,
)

#: Config keys of the model settings -> the study's dimension names.
DIMENSIONS: dict[str, str] = {
    "gp_kernel": "kernel",
    "gp_lengthscale": "lengthscale",
    "gp_noise": "noise",
    "gp_outputscale": "outputscale",
}
DEFAULT = "default"
#: Verdict words of this study (it tests hypotheses, it does not reproduce claims).
WORDS = {REPRODUCED: "holds", NOT_REPRODUCED: "does not hold", UNDECIDED: "undecided",
         MISSING: MISSING}  # fmt: skip
COLUMNS = ["rule", "part", "metric", "statistic", "estimate", "ci_low", "ci_high", "p_holm",
           "threshold", "n_units", "verdict", "control"]  # fmt: skip


@dataclass(frozen=True)
class StudyRules:
    """Thresholds of H1-H4 (the config's ``hyperparameters`` section)."""

    metrics: tuple[str, ...] = ("otsd_norm", "oe_ref")
    alpha: float = 0.05
    n_boot: int = 2000
    seed: int = 0
    h1_tau_min: float = 0.5
    h4_margin: float = 0.05
    regret_floor: float = 1e-12
    min_units: int = 10

    @classmethod
    def from_config(cls, section: Mapping[str, Any] | None) -> StudyRules:
        section = dict(section or {})
        if "metrics" in section:
            section["metrics"] = tuple(section["metrics"])
        return cls(**section)


@dataclass(frozen=True)
class Cell:
    """One method label of the study: its method (spec string) and setting."""

    method: str
    setting: str
    dimension: str
    value: Any
    model_based: bool = True


@dataclass
class Study:
    """The cells of a study and the final table in one (problem, method, setting, seed) frame."""

    frame: pd.DataFrame
    settings: dict[str, tuple[str, Any]] = field(default_factory=dict)

    def methods(self) -> list[str]:
        f = self.frame
        return sorted(f.loc[f["model_based"] & (f["setting"] == DEFAULT), "method"].unique())

    def lengthscale_grid(self) -> list[str]:
        grid = [(v, s) for s, (dim, v) in self.settings.items() if dim == "lengthscale"]
        return [s for _, s in sorted(grid)]


def setting_name(entry: Mapping[str, Any]) -> tuple[str, str, Any]:
    """(name, dimension, value) of a ``by_method`` entry's model settings; default when none."""
    keys = [k for k in DIMENSIONS if k in entry]
    if not keys:
        return DEFAULT, DEFAULT, None
    if len(keys) > 1:
        raise ValueError(f"one setting at a time from the default, got {keys}")
    dim, value = DIMENSIONS[keys[0]], entry[keys[0]]
    return f"{dim}={value}", dim, value


def study_cells(config: Mapping[str, Any], model_free: Sequence[str] = ("random", "sobol")
                ) -> dict[str, Cell]:  # fmt: skip
    """Label -> ``Cell`` from a config's ``methods`` and ``bo.by_method``."""
    by_method = (config.get("bo") or {}).get("by_method") or {}
    cells = {}
    for label, spec in config["methods"].items():
        name, dim, value = setting_name(by_method.get(label) or {})
        free = str(spec).split("(")[0].split("+")[0] in model_free
        cells[label] = Cell(str(spec), name, dim, value, not free)
    return cells


def build_study(final: pd.DataFrame, cells: Mapping[str, Cell]) -> Study:
    """Join the final table with the cells (labels outside ``cells`` are dropped)."""
    f = final[final["method"].isin(list(cells))].copy()
    f["label"] = f["method"]
    f["method"] = f["label"].map(lambda lab: cells[lab].method)
    f["setting"] = f["label"].map(lambda lab: cells[lab].setting)
    f["model_based"] = f["label"].map(lambda lab: cells[lab].model_based)
    settings = {c.setting: (c.dimension, c.value) for c in cells.values()}
    return Study(f, settings)


def _cube(study: Study, metric: str, settings: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """Array [problem, method, setting, seed] of ``metric`` (NaN where absent)."""
    f = study.frame[study.frame["model_based"]]
    problems, methods = sorted(f["problem"].unique()), study.methods()
    seeds = sorted(f["seed"].unique())
    idx = pd.MultiIndex.from_product([problems, methods, list(settings), seeds])
    s = f.set_index(["problem", "method", "setting", "seed"])[metric]
    s = s[~s.index.duplicated()].reindex(idx)
    shape = (len(problems), len(methods), len(settings), len(seeds))
    return s.to_numpy(float, copy=True).reshape(shape), methods


def _seed_draws(n_seeds: int, n_problems: int, rules: StudyRules) -> np.ndarray:
    """[n_boot, problem, seed] indices: seeds resampled within each problem."""
    rng = np.random.default_rng(rules.seed)
    return rng.integers(0, n_seeds, size=(rules.n_boot, n_problems, n_seeds))


def _resample(cube: np.ndarray, draw: np.ndarray) -> np.ndarray:
    return np.stack([cube[p][..., draw[p]] for p in range(cube.shape[0])])


def _ci(point: float, boots: np.ndarray) -> tuple[float, float, float]:
    boots = boots[np.isfinite(boots)]
    if not np.isfinite(point) or boots.size == 0:
        return point, np.nan, np.nan
    lo, hi = np.quantile(boots, [0.025, 0.975])
    return point, float(lo), float(hi)


def _row(rule: str, part: str, metric: str, statistic: str, est: tuple[float, float, float],
         threshold: float, n: int, verdict: str, control: bool = False, p: float = np.nan
         ) -> dict[str, Any]:  # fmt: skip
    return dict(zip(COLUMNS, [rule, part, metric, statistic, *est, p, threshold, n,
                              WORDS.get(verdict, verdict), control], strict=True))  # fmt: skip


# ---- H1 -------------------------------------------------------------------------------------


def _order_scores(cube: np.ndarray) -> np.ndarray:
    """[method, setting] mean over problems of the within-problem rank (1 = most explorative)."""
    means = np.nanmean(cube, axis=-1)  # problem, method, setting
    ranks = stats.rankdata(-means, axis=1, nan_policy="omit")
    return np.nanmean(ranks, axis=0)


def _tau(a: np.ndarray, b: np.ndarray) -> float:
    ok = np.isfinite(a) & np.isfinite(b)
    if ok.sum() < 3:
        return np.nan
    return float(stats.kendalltau(a[ok], b[ok]).statistic)


def _half_shift(scores: np.ndarray) -> np.ndarray:
    """A relabelling of the methods: the k-th in the order of ``scores`` takes the values of the
    (k + m // 2)-th (cyclic), so the order is shifted by half the m methods."""
    order = np.argsort(scores, kind="stable")
    perm = np.empty_like(order)
    perm[order] = np.roll(order, -(len(order) // 2))
    return perm


def h1_rows(study: Study, rules: StudyRules) -> list[dict[str, Any]]:
    """H1 per (setting, metric) and its control."""
    settings = [DEFAULT, *[s for s in study.settings if s != DEFAULT]]
    rows = []
    for metric in rules.metrics:
        cube, methods = _cube(study, metric, settings)
        draws = _seed_draws(cube.shape[-1], cube.shape[0], rules)
        point = _order_scores(cube)
        boots = np.array([_order_scores(_resample(cube, d)) for d in draws])
        for j, setting in enumerate(settings):
            if j == 0:
                continue
            taus = np.array([_tau(b[:, j], b[:, 0]) for b in boots])
            est = _ci(_tau(point[:, j], point[:, 0]), taus)
            verdict = interval_verdict(*est, rules.h1_tau_min, n=len(methods), min_n=3)
            rows.append(_row("H1", setting, metric, "kendall_tau", est, rules.h1_tau_min,
                             cube.shape[0] * cube.shape[-1], verdict))  # fmt: skip
        perm = _half_shift(point[:, 0])
        ctrl = np.array([_tau(b[perm, 0], b[:, 0]) for b in boots])
        est = _ci(_tau(point[perm, 0], point[:, 0]), ctrl)
        verdict = interval_verdict(*est, rules.h1_tau_min, n=len(methods), min_n=3)
        rows.append(_row("H1", "control: default against itself, order shifted by half", metric,
                         "kendall_tau", est, rules.h1_tau_min, cube.shape[0] * cube.shape[-1],
                         verdict, control=True))  # fmt: skip
    return rows


# ---- H2 -------------------------------------------------------------------------------------


def _unit_trend(grid_cube: np.ndarray, values: np.ndarray) -> np.ndarray:
    """[problem, seed] Kendall tau between the lengthscale and the metric over the grid."""
    p, g, n = grid_cube.shape
    out = np.full((p, n), np.nan)
    for i in range(p):
        for k in range(n):
            out[i, k] = _tau(values, grid_cube[i, :, k])
    return out


def _h2_tests(grid: np.ndarray, values: np.ndarray) -> tuple[Any, float, list[float], list[float]]:
    """((mean unit tau, t interval), its p, adjacent-pair mean differences shorter - longer,
    their p)."""
    taus = _unit_trend(grid, values).ravel()
    p_tau, _ = paired_t_two_sided(taus)
    mean_tau = t_interval(taus[np.isfinite(taus)])
    diffs, ps = [], []
    for j in range(grid.shape[1] - 1):
        p, m = paired_t_two_sided((grid[:, j, :] - grid[:, j + 1, :]).ravel())
        diffs.append(m)
        ps.append(p)
    return mean_tau, p_tau, diffs, ps


def h2_rows(study: Study, rules: StudyRules, permute: bool = False) -> list[dict[str, Any]]:
    """H2 per (method, metric); ``permute``: the control (grid labels permuted per unit)."""
    grid = study.lengthscale_grid()
    if len(grid) < 3:
        return [_row("H2", "lengthscale grid", "", "", (np.nan,) * 3, 0.0, 0, MISSING, permute)]
    values = np.array([study.settings[s][1] for s in grid], dtype=float)
    rng = np.random.default_rng(rules.seed)
    tests = []
    for metric in rules.metrics:
        cube, methods = _cube(study, metric, grid)
        if permute:
            for i, j, k in np.ndindex(cube.shape[0], cube.shape[1], cube.shape[3]):
                cube[i, j, :, k] = cube[i, j, rng.permutation(len(grid)), k]
        for m, method in enumerate(methods):
            tests.append((metric, method, *_h2_tests(cube[:, m], values), cube.shape[0] *
                          cube.shape[-1]))  # fmt: skip
    family = [t[3] for t in tests] + [p for t in tests for p in t[5]]
    adjusted = holm(family)
    n_tests = len(tests)
    pairs = adjusted[n_tests:].reshape(n_tests, len(grid) - 1)
    rows = []
    for i, (metric, method, est, _, diffs, _, n) in enumerate(tests):
        mean_tau = est[0]
        significant_pairs = pairs[i] < rules.alpha
        reversed_pair = any(sig and d < 0 for sig, d in zip(significant_pairs, diffs, strict=True))
        trend = adjusted[i] < rules.alpha
        if reversed_pair or (trend and mean_tau > 0):
            verdict = NOT_REPRODUCED
        elif trend and mean_tau < 0:
            verdict = REPRODUCED
        else:
            verdict = UNDECIDED
        part = f"{method}" + (" (control: grid permuted per unit)" if permute else "")
        rows.append(_row("H2", part, metric, "mean_unit_tau_lengthscale",
                         est, 0.0, n, verdict, permute,
                         p=float(adjusted[i])))  # fmt: skip
    return rows


# ---- H3 -------------------------------------------------------------------------------------


def variance_shares(cell_means: np.ndarray) -> tuple[float, float, float]:
    """(method, setting, interaction) shares of the variance of ``cell_means`` [problem, method,
    setting] after each problem's mean is removed: method = main + by-problem, setting the same,
    interaction = method x setting (+ by problem). They sum to 1."""
    x = cell_means - cell_means.mean(axis=(1, 2), keepdims=True)
    total = float((x**2).sum())
    if not np.isfinite(total) or total <= 0:
        return (np.nan, np.nan, np.nan)
    method = x.mean(axis=2, keepdims=True)
    setting = x.mean(axis=1, keepdims=True)
    ss_m = float((np.broadcast_to(method, x.shape) ** 2).sum())
    ss_s = float((np.broadcast_to(setting, x.shape) ** 2).sum())
    return ss_m / total, ss_s / total, 1.0 - (ss_m + ss_s) / total


def h3_rows(study: Study, rules: StudyRules, permute: bool = False) -> list[dict[str, Any]]:
    """H3 per metric; ``permute``: the control (method labels permuted per problem, setting,
    seed)."""
    settings = [DEFAULT, *[s for s in study.settings if s != DEFAULT]]
    rng = np.random.default_rng(rules.seed)
    rows = []
    for metric in rules.metrics:
        cube, _ = _cube(study, metric, settings)
        if permute:
            for i, j, k in np.ndindex(cube.shape[0], cube.shape[2], cube.shape[3]):
                cube[i, :, j, k] = cube[i, rng.permutation(cube.shape[1]), j, k]
        if np.isnan(cube).all(axis=-1).any():
            rows.append(_row("H3", "method - setting share", metric, "", (np.nan,) * 3, 0.0, 0,
                             MISSING, permute))  # fmt: skip
            continue
        shares = np.array(variance_shares(np.nanmean(cube, axis=-1)))
        boots = np.array([variance_shares(np.nanmean(_resample(cube, d), axis=-1))
                          for d in _seed_draws(cube.shape[-1], cube.shape[0], rules)])  # fmt: skip
        n = cube.shape[0] * cube.shape[-1]
        tag = " (control: methods permuted)" if permute else ""
        for k, name in enumerate(("method share", "setting share", "interaction share")):
            rows.append(_row("H3", name + tag, metric, "variance_share",
                             _ci(shares[k], boots[:, k]), np.nan, n, "", permute))  # fmt: skip
        est = _ci(shares[0] - shares[1], boots[:, 0] - boots[:, 1])
        rows.append(_row("H3", "method - setting share" + tag, metric, "share_difference", est,
                         0.0, n, interval_verdict(*est, 0.0, n=n), permute))  # fmt: skip
    return rows


# ---- H4 -------------------------------------------------------------------------------------


def _normalised_regret(study: Study, floor: float) -> pd.Series:
    """log10 regret, min-max per problem over the study's runs (0 = best run of the problem)."""
    f = study.frame
    q = np.log10(np.maximum(f["regret"].astype(float), floor))
    lo, hi = q.groupby(f["problem"]).transform("min"), q.groupby(f["problem"]).transform("max")
    return (q - lo) / (hi - lo).where(hi > lo)


def h4_rows(study: Study, rules: StudyRules) -> list[dict[str, Any]]:
    """H4 per model-based method, and its control (the worst grid point as the default)."""
    grid = study.lengthscale_grid()
    if len(grid) < 2:
        return [_row("H4", "lengthscale grid", "regret", "", (np.nan,) * 3, 0.0, 0, MISSING)]
    f = study.frame.assign(r_norm=_normalised_regret(study, rules.regret_floor))
    study_r = Study(f, study.settings)
    regret, methods = _cube(study_r, "r_norm", [DEFAULT, *grid])
    explore, _ = _cube(study_r, "otsd_norm", [DEFAULT, *grid])
    draws = _seed_draws(regret.shape[-1], regret.shape[0], rules)
    n = regret.shape[0] * regret.shape[-1]
    rows = []
    for m, method in enumerate(methods):
        r = regret[:, m]  # problem, setting, seed
        mean_r = np.nanmean(r, axis=(0, 2))
        best = 1 + int(np.nanargmin(mean_r[1:]))
        worst = 1 + int(np.nanargmax(mean_r[1:]))
        window = explore[:, m].mean(axis=(0, 2))[max(1, best - 1) : best + 2]
        for idx, control in ((0, False), (worst, True)):
            diff = r[:, idx] - r[:, best]
            boots = np.array([np.nanmean(_resample(diff[:, None, :], d)) for d in draws])
            est = _ci(float(np.nanmean(diff)), boots)
            regret_verdict = upper_interval_verdict(est[1], est[2], rules.h4_margin)
            level = float(explore[:, m, idx].mean())
            inside = bool(window.min() <= level <= window.max())
            if regret_verdict == NOT_REPRODUCED or not inside:
                verdict = NOT_REPRODUCED
            else:
                verdict = regret_verdict
            name = grid[best - 1]
            part = (f"{method}: default vs best {name} (nOTSD {level:.3f} in "
                    f"[{window.min():.3f}, {window.max():.3f}]: {inside})")  # fmt: skip
            if control:
                part = f"{method} (control: worst {grid[idx - 1]} as default) vs best {name}"
            rows.append(_row("H4", part, "regret", "mean_norm_regret_difference", est,
                             rules.h4_margin, n, verdict, control))  # fmt: skip
    return rows


# ---- the table ------------------------------------------------------------------------------


def overall(rows: pd.DataFrame) -> list[dict[str, Any]]:
    """One row per rule: holds when every decided non-control part holds (H3 counts only the
    share differences); does not hold when any part does not; undecided otherwise."""
    back = {v: k for k, v in WORDS.items()}
    out = []
    for rule, part in rows[~rows["control"] & (rows["verdict"] != "")].groupby("rule"):
        verdicts = [back.get(v, v) for v in part["verdict"]]
        if MISSING in verdicts:
            verdict = MISSING
        elif NOT_REPRODUCED in verdicts:
            verdict = NOT_REPRODUCED
        elif all(v == REPRODUCED for v in verdicts):
            verdict = REPRODUCED
        else:
            verdict = UNDECIDED
        k = sum(v == REPRODUCED for v in verdicts)
        out.append(_row(rule, f"overall ({k} of {len(verdicts)} parts hold)", "", "", (np.nan,) *
                        3, np.nan, int(part["n_units"].max()), verdict))  # fmt: skip
    return out


def decide_study(final: pd.DataFrame, cells: Mapping[str, Cell], rules: StudyRules
                 ) -> pd.DataFrame:  # fmt: skip
    """The claims-style table of H1-H4: one row per part, control rows flagged, then one
    overall row per rule. A part decided on fewer than ``rules.min_units`` (problem, seed) units
    is undecided (with two seeds a t-test on constant differences says p = 0)."""
    study = build_study(final, cells)
    rows = [*h1_rows(study, rules), *h2_rows(study, rules), *h2_rows(study, rules, permute=True),
            *h3_rows(study, rules), *h3_rows(study, rules, permute=True), *h4_rows(study, rules)]  # fmt: skip
    table = pd.DataFrame(rows, columns=COLUMNS)
    few = (table["n_units"] < rules.min_units) & table["verdict"].isin(
        [WORDS[REPRODUCED], WORDS[NOT_REPRODUCED]]
    )
    table.loc[few, "verdict"] = WORDS[UNDECIDED]
    return pd.concat([table, pd.DataFrame(overall(table), columns=COLUMNS)], ignore_index=True)


def markdown(table: pd.DataFrame) -> str:
    """The table as Markdown: the overall verdicts first, then every part (estimates to 3
    digits)."""
    shown = table.copy()
    for col in ("estimate", "ci_low", "ci_high", "p_holm", "threshold"):
        shown[col] = shown[col].map(lambda v: "" if pd.isna(v) else f"{v:.3g}")
    first = shown["part"].str.startswith("overall")
    cols = ["rule", "part", "metric", "estimate", "ci_low", "ci_high", "p_holm", "threshold",
            "n_units", "verdict", "control"]  # fmt: skip
    head = "Hyperparameter study, rules H1-H4 (our questions, not the paper's; " \
        "docs/hyperparameters.md)\n\n"  # fmt: skip
    return head + markdown_table(pd.concat([shown[first], shown[~first]]), cols)
