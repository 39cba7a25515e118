"""Scoring user traces and reference runs at a common budget, and placing one among the other.

Both sides are scored with the same estimators: normalised OTSD (OTSD / Psi(d, n))
and ``oe_rel`` (textbook OE without the N >= d cut-off, minus the Monte-Carlo mean
of the same estimator on uniform points of the same (d, n)). Comparisons are made
at one prefix size n (the shorter of the user's traces and the reference budget),
since both metrics depend on n.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from boexplore.metrics.io import load_points
from boexplore.metrics.oe_baseline import UniformOEBaseline
from boexplore.metrics.scoring import metrics_table
from boexplore.metrics.validation import as_points

METRICS: tuple[str, str] = ("otsd_norm", "oe_rel")


@dataclass(frozen=True)
class ReferenceRun:
    """Per-prefix metrics of one problem of a finished workflow run."""

    run_dir: Path
    problem: str  # the run's problem label
    dim: int
    metrics: pd.DataFrame  # rows of tables/metrics.parquet for this problem
    classes: pd.DataFrame | None = None  # paper-1 taxonomy classes, if the run has them

    @property
    def budget(self) -> int:
        """Largest prefix size n present for every (method, seed)."""
        return int(self.metrics.groupby(["method", "seed"])["n"].max().min())


@dataclass
class Placement:
    """Where the user's traces fall among the reference methods at prefix size ``n``."""

    n: int
    user: pd.DataFrame  # label, otsd_norm, oe_rel, otsd_norm_pct, oe_rel_pct
    methods: pd.DataFrame  # method, n_seeds, median otsd_norm / oe_rel, distance (sorted)
    reference: pd.DataFrame  # method, seed, otsd_norm, oe_rel
    notes: list[str] = field(default_factory=list)

    def nearest(self, k: int = 3) -> list[str]:
        """The ``k`` reference methods closest to the user's median point."""
        return list(self.methods["method"].head(k))


def load_user_traces(
    paths: Sequence[str | Path],
    x_columns: list[str] | None = None,
    bounds: np.ndarray | None = None,
) -> list[tuple[str, np.ndarray]]:
    """(label, unit-cube points) per trace; a table with a ``seed`` column yields one per seed.

    Tables use ``x_columns``, else ``x_0 .. x_{d-1}``, else every numeric column; rows
    are taken in ``eval_index`` order when that column exists, else in file order. Labels
    are file stems, prefixed with the parent directory when stems repeat.
    """
    loaded: list[tuple[Path, str, np.ndarray]] = []
    for path in paths:
        p = Path(path)
        frame = _read_table(p)
        if frame is None or "seed" not in frame.columns or frame["seed"].nunique() <= 1:
            raw = load_points(p, x_columns) if frame is None else _table_points(p, frame, x_columns)
            loaded.append((p, "", as_points(raw, bounds, name=str(p))))
            continue
        for s, grp in frame.groupby("seed", sort=True):
            raw = _table_points(p, grp, x_columns)
            loaded.append((p, f"[seed={s}]", as_points(raw, bounds, name=str(p))))
    short = [p.stem + tag for p, tag, _ in loaded]
    long = len(set(short)) < len(short)
    return [((f"{p.parent.name}/{p.stem}" if long else p.stem) + tag, X) for p, tag, X in loaded]


def _read_table(path: Path) -> pd.DataFrame | None:
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".parquet"):
        return None
    if not path.exists():
        raise FileNotFoundError(f"no such file: {path}")
    return pd.read_csv(path) if suffix == ".csv" else pd.read_parquet(path)


def _table_points(path: Path, frame: pd.DataFrame, x_columns: list[str] | None) -> np.ndarray:
    from boexplore.metrics.scoring import x_columns as find_x_columns

    if "eval_index" in frame.columns:
        frame = frame.sort_values("eval_index", kind="stable")
    cols = list(x_columns) if x_columns else find_x_columns(frame)
    if not cols:
        skip = {"seed", "eval_index", "iteration", "y", "best_so_far", "regret", "dim"}
        cols = [
            c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c]) and c not in skip
        ]
    missing = [c for c in cols if c not in frame.columns]
    if missing or not cols:
        raise ValueError(
            f"{path.name}: point columns {missing or cols} not found (use --x-columns)"
        )
    return frame[cols].to_numpy(dtype=np.float64)


def load_reference(run_dir: str | Path, problem: str, dim: int) -> ReferenceRun:
    """Reference metrics of ``problem`` (a run label, or a problem name with ``dim``)."""
    run = Path(run_dir)
    table = run / "tables" / "metrics.parquet"
    if not table.exists():
        raise FileNotFoundError(
            f"{table} not found: finish a workflow run first "
            "(e.g. `snakemake --cores 2 --configfile config/smoke.yaml`) or pass --reference"
        )
    metrics = pd.read_parquet(table)
    label = _resolve_label(run, metrics, problem, int(dim))
    sub = metrics[(metrics["problem"] == label) & (metrics["dim"] == int(dim))].copy()
    classes_csv = run / "tables" / "paper1_taxonomy_classes.csv"
    classes = pd.read_csv(classes_csv) if classes_csv.exists() else None
    return ReferenceRun(run, label, int(dim), sub.reset_index(drop=True), classes)


def _resolve_label(run: Path, metrics: pd.DataFrame, problem: str, dim: int) -> str:
    pairs = set(metrics[["problem", "dim"]].drop_duplicates().itertuples(index=False, name=None))
    if (problem, dim) in pairs:
        return problem
    by_name = []
    for label, d in sorted(pairs):
        spec = run / "problems" / f"{label}.json"
        if d == dim and spec.exists() and json.loads(spec.read_text()).get("name") == problem:
            by_name.append(label)
    if len(by_name) == 1:
        return by_name[0]
    have = ", ".join(f"{p} (d={d})" for p, d in sorted(pairs))
    if len(by_name) > 1:
        raise ValueError(f"problem {problem!r} d={dim} is ambiguous in {run}: {by_name}")
    raise ValueError(f"no reference runs for problem {problem!r} with d={dim} in {run}; has {have}")


def score_points(X: np.ndarray, n: int, baseline: UniformOEBaseline) -> dict[str, float]:
    """Normalised OTSD and ``oe_rel`` of the first ``n`` points of ``X``."""
    if X.shape[0] < n:
        raise ValueError(f"trace has {X.shape[0]} points, fewer than n = {n}")
    cols = metrics_table(X[:n])
    d = X.shape[1]
    return {
        "otsd_norm": float(cols["otsd_norm"][n - 1]),
        "oe_rel": float(cols["oe_kl_all"][n - 1]) - baseline.value(d, n),
    }


def score_reference(ref: ReferenceRun, n: int, baseline: UniformOEBaseline) -> pd.DataFrame:
    """One row per reference (method, seed) with ``otsd_norm`` and ``oe_rel`` at prefix ``n``."""
    rows = ref.metrics[ref.metrics["n"] == n]
    if rows.empty:
        raise ValueError(f"reference {ref.problem} has no rows at n = {n}")
    source = "oe_kl_all" if "oe_kl_all" in rows.columns else "oe_kl"
    out = rows[["method", "seed", "otsd_norm"]].copy()
    out["oe_rel"] = rows[source].astype(float).to_numpy() - baseline.value(ref.dim, n)
    return out.sort_values(["method", "seed"]).reset_index(drop=True)


def percentile(values: np.ndarray, x: float) -> float:
    """Percentage of ``values`` below ``x`` (ties count half); NaN without finite values."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0 or not np.isfinite(x):
        return float("nan")
    return float(100.0 * ((v < x).sum() + 0.5 * (v == x).sum()) / v.size)


def place(
    user: Sequence[tuple[str, np.ndarray]],
    ref: ReferenceRun,
    baseline: UniformOEBaseline | None = None,
    n: int | None = None,
) -> Placement:
    """Score ``user`` traces and ``ref`` at a common n; percentiles and nearest methods."""
    if not user:
        raise ValueError("no user traces given")
    dims = {X.shape[1] for _, X in user}
    if dims != {ref.dim}:
        raise ValueError(
            f"user traces have d = {sorted(dims)}, the reference problem d = {ref.dim}"
        )
    baseline = baseline or UniformOEBaseline(n_rep=16, seed=0)
    notes: list[str] = []
    shortest = min(X.shape[0] for _, X in user)
    n_used = int(n) if n is not None else min(shortest, ref.budget)
    if n_used < 2 or n_used > min(shortest, ref.budget):
        raise ValueError(
            f"n = {n_used} must lie in [2, {min(shortest, ref.budget)}] "
            f"(shortest user trace {shortest}, reference budget {ref.budget})"
        )
    if n_used < ref.budget:
        notes.append(f"compared at n = {n_used}, before the reference budget {ref.budget}")
    if n_used < shortest:
        notes.append(f"user traces truncated to their first {n_used} points")
    reference = score_reference(ref, n_used, baseline)
    urows = []
    for label, X in user:
        s = score_points(X, n_used, baseline)
        urows.append(
            {
                "label": label,
                **s,
                **{f"{m}_pct": percentile(reference[m].to_numpy(), s[m]) for m in METRICS},
            }
        )
    utable = pd.DataFrame(urows)
    methods = _method_distances(reference, utable, ref.classes)
    return Placement(n_used, utable, methods, reference, notes)


def _method_distances(
    reference: pd.DataFrame, user: pd.DataFrame, classes: pd.DataFrame | None
) -> pd.DataFrame:
    """Per-method medians and the scaled distance of each to the user's median point."""
    med = reference.groupby("method")[list(METRICS)].median()
    med["n_seeds"] = reference.groupby("method").size()
    # Scale each axis by the spread of the reference runs so both metrics weigh alike.
    scale = reference[list(METRICS)].std(ddof=0).replace(0.0, 1.0).fillna(1.0)
    centre = user[list(METRICS)].median()
    diff = (med[list(METRICS)] - centre) / scale
    med["distance"] = np.sqrt((diff.fillna(np.inf) ** 2).sum(axis=1))
    out = med.reset_index().sort_values(["distance", "method"]).reset_index(drop=True)
    layers = taxonomy_layers(classes)
    if layers is not None:
        out = out.merge(layers, on="method", how="left")
        out["layer"] = out["layer"].astype("Int64")
    return out[[c for c in ("method", "layer", "n_seeds", *METRICS, "distance") if c in out]]


def taxonomy_layers(classes: pd.DataFrame | None, metric: str = "otsd_norm") -> pd.DataFrame | None:
    """method -> Hasse layer of the run's all-problem taxonomy (0 = top, explores most)."""
    need = {"subset", "metric", "members", "layer"}
    if classes is None or not need <= set(classes.columns):
        return None
    rows = classes[(classes["subset"] == "all") & (classes["metric"] == metric)]
    if rows.empty:
        return None
    out = [
        {"method": m.strip(), "layer": int(r.layer)}
        for r in rows.itertuples(index=False)
        for m in str(r.members).split("≈")
    ]
    return pd.DataFrame(out).drop_duplicates("method")
