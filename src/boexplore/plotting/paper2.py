"""Paper-2 figures (one function per figure; fixed colour per method) and the workflow's
``make_figure`` dispatch that draws one from the tables of :mod:`boexplore.analysis.paper2.tables`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from boexplore.io import atomic_write, write_sidecar  # noqa: E402


def colour(method: str) -> str:
    """The method's colour from the one registry shared with paper 1 (plotting.style)."""
    from boexplore.plotting.style import label_color

    return label_color(method)


def _save(fig: plt.Figure, paths: list[str | Path]) -> None:
    for p in paths:
        atomic_write(fig, p, dpi=130)
    plt.close(fig)


#: Legend text of the regret figure, in points: the 10.4-inch figure is shown at the page's
#: content width (about 700-900 px), where 8 pt text rendered at about 6 px.
LEGEND_PT = 12


def regret_curves(curves: pd.DataFrame, paths: list[str | Path]) -> None:
    """Mean +- 2 s.e. of R_t per method on log-log axes, one panel per problem, inset R_t/t.

    On the log axis the lower band edge is clipped at R_t / 3 (a band reaching zero
    would otherwise stretch the axis over decades and hide the curves).
    """
    keys = sorted(curves["problem_key"].unique())
    ncol = min(2, len(keys))  # wrap: one row of 4 panels was too wide to read in the report
    nrow = -(-len(keys) // ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(5.2 * ncol, 4.2 * nrow), squeeze=False)
    for ax in axes.flat[len(keys) :]:
        ax.set_visible(False)
    for ax, pk in zip(axes.flat, keys, strict=False):
        sub = curves[curves["problem_key"] == pk]
        inset = ax.inset_axes([0.62, 0.08, 0.35, 0.32])
        for m, g in sub.groupby("method"):
            g = g.sort_values("t")
            lo = np.maximum(g["R_mean"] - 2 * g["R_se"].fillna(0), g["R_mean"] / 3)
            ax.plot(g["t"], np.maximum(g["R_mean"], 1e-3), color=colour(m), label=m, lw=1.4)
            ax.fill_between(
                g["t"], lo, g["R_mean"] + 2 * g["R_se"].fillna(0), color=colour(m), alpha=0.15
            )
            inset.plot(g["t"], g["ratio_mean"], color=colour(m), lw=1)
        ax.set(
            xscale="log", yscale="log", xlabel="round t", ylabel="cumulative regret $R_t$", title=pk
        )
        ax.title.set_fontsize(LEGEND_PT)
        ax.xaxis.label.set_size(LEGEND_PT - 1)
        ax.yaxis.label.set_size(LEGEND_PT - 1)
        ax.tick_params(labelsize=LEGEND_PT - 2)
        inset.set_title("$R_t/t$", fontsize=LEGEND_PT - 1)
        inset.tick_params(labelsize=LEGEND_PT - 2)
    handles, labels = axes[0][0].get_legend_handles_labels()
    # below the panels, as wide as the figure: at content width the text stays legible
    ncol = min(len(labels), 5)
    fig.legend(handles, labels, fontsize=LEGEND_PT, loc="lower center", ncol=ncol,
               bbox_to_anchor=(0.5, 0.0), frameon=False)  # fmt: skip
    rows = -(-len(labels) // ncol)
    fig.tight_layout(rect=(0.0, 0.045 * rows / nrow + 0.02, 1.0, 1.0))
    _save(fig, paths)


def coverage_histogram(bounds: pd.DataFrame, paths: list[str | Path]) -> None:
    """Per regulariser: histogram of per-round max err/(beta_t sigma_t) (certified vs not) and,
    if the control columns exist, coverage on informative pairs (beta_t sigma_t < range f) of
    the trained fit next to the controls (untrained network, g = 0, exact minimiser) per lambda."""
    regs = sorted(bounds["reg"].unique())
    controls = "n_informative" in bounds.columns
    nrow = 2 if controls else 1
    fig, axes = plt.subplots(nrow, len(regs), figsize=(5 * len(regs), 3.8 * nrow), squeeze=False)
    for ax, reg in zip(axes[0], regs, strict=True):
        sub = bounds[bounds["reg"] == reg]
        ratio = np.log10(np.maximum(sub["ratio_max"].to_numpy(), 1e-6))
        bins = np.linspace(ratio.min(), max(ratio.max(), 0.1), 40)
        for cert, lab in ((True, "certified $c_t\\leq0$"), (False, "not certified")):
            r = ratio[sub["certified"].to_numpy() == cert]
            if len(r):
                ax.hist(r, bins=bins, alpha=0.6, label=f"{lab} (n={len(r)})")
        ax.axvline(0.0, color="k", ls="--", lw=1)
        ax.set(
            xlabel="log10 max$_x$ |g - f*| / ($\\beta_t \\sigma_t$)",
            ylabel="rounds",
            title=f"regulariser: {reg}",
        )
        ax.legend(fontsize=7)
    if controls:
        names = ("trained", "untrained", "zero", "exact")
        for ax, reg in zip(axes[1], regs, strict=True):
            sub = bounds[bounds["reg"] == reg]
            lams = sorted(sub["lam"].unique())
            width = 0.8 / len(names)
            for k, name in enumerate(names):
                vals = []
                for lam in lams:
                    g = sub[sub["lam"] == lam]
                    n_inf = g["n_informative"].sum()
                    cov = g[f"covered_informative_{name}"]
                    ok = n_inf > 0 and not cov.isna().all()
                    vals.append(cov.sum() / n_inf if ok else np.nan)
                ax.bar(np.arange(len(lams)) + k * width, vals, width, label=name)
            shares = [
                sub.loc[sub["lam"] == lam, "n_informative"].sum()
                / sub.loc[sub["lam"] == lam, "n_points"].sum()
                for lam in lams
            ]
            ax.set_xticks(
                np.arange(len(lams)) + 0.4 - width / 2,
                [
                    f"$\\lambda$={lam:g}\n{sh:.0%} informative"
                    for lam, sh in zip(lams, shares, strict=True)
                ],
                fontsize=7,
            )
            ax.set(ylim=(0, 1.05), ylabel="coverage of informative (t, x)")
            ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    _save(fig, paths)


def heatmaps(static: pd.DataFrame, dynamic: pd.DataFrame | None, paths: list[str | Path]) -> None:
    """lambda x s heat maps: static-probe statistics and, if available, dynamic R_T."""
    panels = [
        ("argmax_entropy", static),
        ("optimism_prob", static),
        ("p_argmax_opt", static),
        ("calibration_ratio", static),
    ]
    if dynamic is not None and len(dynamic):
        panels.append(("R_T_mean", dynamic))
    titles = {
        "argmax_entropy": "argmax entropy (static)",
        "optimism_prob": "optimism probability (static)",
        "p_argmax_opt": "P(argmax = x*) (static)",
        "calibration_ratio": "calibration ratio (static)",
        "R_T_mean": "mean regret $R_T$ (dynamic)",
    }
    # At most 3 panels per row: one row of 5 was 2,500 px wide and unreadable in the report.
    ncol = min(3, len(panels))
    nrow = -(-len(panels) // ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.9 * ncol, 3.3 * nrow), squeeze=False)
    for ax in axes.flat[len(panels) :]:
        ax.set_visible(False)
    for idx, (ax, (col, df)) in enumerate(zip(axes.flat, panels, strict=False)):
        piv = df.pivot_table(index="init_scale", columns="lam", values=col)
        im = ax.imshow(piv.to_numpy(), origin="lower", aspect="auto", cmap="viridis")
        ax.set_xticks(range(piv.shape[1]), [f"{v:g}" for v in piv.columns], fontsize=7)
        ax.set_yticks(range(piv.shape[0]), [f"{v:g}" for v in piv.index], fontsize=7)
        for i in range(piv.shape[0]):
            for j in range(piv.shape[1]):
                ax.text(
                    j,
                    i,
                    f"{piv.to_numpy()[i, j]:.2g}",
                    ha="center",
                    va="center",
                    fontsize=6,
                    color="w",
                )
        ax.set(xlabel="$\\lambda$", title=titles.get(col, col))
        if idx % ncol == 0 or col == "R_T_mean":
            ax.set_ylabel("init scale s")
        ax.title.set_fontsize(9)
        fig.colorbar(im, ax=ax, shrink=0.8, pad=0.02)
    fig.tight_layout(w_pad=1.5)
    _save(fig, paths)


def exploration_vs_lambda(dynamic: pd.DataFrame, paths: list[str | Path]) -> None:
    """OTSD (normalised), OE and R_T of the chosen points vs lambda, one line per init scale."""
    cols = [
        ("otsd_norm", "normalised OTSD"),
        ("oe", "observation entropy"),
        ("R_T_mean", "$R_T$"),
        ("optimism_prob", "optimism prob."),
    ]
    fig, axes = plt.subplots(1, len(cols), figsize=(3.8 * len(cols), 3.3))
    for ax, (col, lab) in zip(axes, cols, strict=True):
        for s, g in dynamic.groupby("init_scale"):
            g = g.sort_values("lam")
            ax.plot(g["lam"], g[col], marker="o", label=f"s={s:g}")
        ax.set(xscale="log", xlabel="$\\lambda$", ylabel=lab)
    axes[0].legend(fontsize=7)
    _save(fig, paths)


def lfbo_sanity(traces: pd.DataFrame, paths: list[str | Path]) -> None:
    """E4: mean log10 simple regret vs evaluations per method, one panel per problem."""
    keys = sorted(traces["problem_key"].unique())
    fig, axes = plt.subplots(1, len(keys), figsize=(5 * len(keys), 3.8), squeeze=False)
    for ax, pk in zip(axes[0], keys, strict=True):
        sub = traces[traces["problem_key"] == pk]
        for m, g in sub.groupby("method"):
            lr = np.log10(np.maximum(g["regret"], 1e-8))
            stats = lr.groupby(g["eval_index"]).agg(["mean", "std", "count"])
            se = stats["std"].fillna(0) / np.sqrt(stats["count"])
            ax.plot(stats.index + 1, stats["mean"], color=colour(m), label=m)
            ax.fill_between(
                stats.index + 1, stats["mean"] - se, stats["mean"] + se, color=colour(m), alpha=0.15
            )
        ax.set(xlabel="evaluations", ylabel="log10 simple regret", title=pk)
    axes[0][0].legend(fontsize=7)
    _save(fig, paths)


def make_figure(
    kind: str, inputs: Sequence[str], outputs: Sequence[str], cfg: Mapping[str, Any]
) -> None:
    """Draw figure ``kind`` from its input tables and write the provenance sidecar."""

    def read(path: str) -> pd.DataFrame:
        return pd.read_parquet(path) if path.endswith(".parquet") else pd.read_csv(path)

    tables = [read(p) for p in inputs]
    if kind == "paper2_regret":
        regret_curves(tables[0], outputs)
    elif kind == "paper2_coverage":
        coverage_histogram(tables[0], outputs)
    elif kind == "paper2_lambda_scale_heatmaps":
        heatmaps(tables[0], tables[1] if len(tables) > 1 else None, outputs)
    elif kind == "paper2_exploration_vs_lambda":
        exploration_vs_lambda(tables[0], outputs)
    elif kind == "paper2_lfbo_sanity":
        lfbo_sanity(tables[0], outputs)
    else:
        raise ValueError(f"unknown paper-2 figure {kind!r}")
    write_sidecar(outputs[0], inputs, dict(cfg), outputs=outputs)
