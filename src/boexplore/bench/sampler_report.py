"""The page, tables and figure placing Optuna's samplers and Ax's default strategy beside our
methods (our measurement), all generated from the per-run rows of
:mod:`boexplore.bench.samplers` (``python -m boexplore.bench.samplers --report-only``).

Tables written beside the rows: ``samplers_placement.csv`` (the class per subset, metric and
method, :func:`~boexplore.bench.sampler_placement.placement_table`) and
``samplers_summary.csv`` (means with seed intervals, :func:`~.sampler_placement.seed_summary`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from boexplore.bench.sampler_placement import (
    METRICS,
    Rule,
    placement_table,
    seed_summary,
)
from boexplore.io import atomic_write_text

#: How the page names each sampler (source, method).
LABELS: dict[tuple[str, str], str] = {
    ("optuna", "random"): "Optuna Random",
    ("optuna", "qmc"): "Optuna QMC",
    ("optuna", "tpe"): "Optuna TPE",
    ("optuna", "gp"): "Optuna GPSampler",
    ("optuna", "cmaes"): "Optuna CMA-ES",
    ("ax", "ax"): "Ax default",
}
#: One colour per sampler (our methods are grey in the figure).
COLORS: dict[str, str] = {
    "Optuna Random": "#d62728",
    "Optuna QMC": "#ff7f0e",
    "Optuna TPE": "#2ca02c",
    "Optuna GPSampler": "#1f77b4",
    "Optuna CMA-ES": "#9467bd",
    "Ax default": "#e377c2",
}
METRIC_NAMES = {"otsd_norm": "normalised OTSD", "oe_rel": "OE − uniform"}


def label(source: str, method: str) -> str:
    """The page's name of a method: ours as it is, a sampler by :data:`LABELS`."""
    return method if source == "ours" else LABELS.get((source, method), f"{source} {method}")


def _ci(row: pd.Series, metric: str, fmt: str) -> str:
    lo, hi = row[f"{metric}_lo"], row[f"{metric}_hi"]
    return f"{row[metric]:{fmt}} [{lo:{fmt}}, {hi:{fmt}}]"


def summary_table(summary: pd.DataFrame, placed: pd.DataFrame, subset: str) -> list[str]:
    """Markdown rows of one subset: means with seed intervals and the class per metric, most
    exploring (by mean normalised OTSD) first; samplers in bold."""
    part = summary[summary["subset"] == subset].sort_values("otsd_norm", ascending=False)
    where = placed[placed["subset"] == subset].set_index(["metric", "source", "method"])
    out = [
        "| method | seeds | normalised OTSD [95 % CI] | class by OTSD | OE − uniform [95 % CI] "
        "| class by OE |",
        "|---|---:|---:|---|---:|---|",
    ]
    for _, row in part.iterrows():
        key = (row["source"], row["method"])
        name = label(*key)
        name = name if row["source"] == "ours" else f"**{name}**"
        cls = {
            m: where.loc[(m, *key), "placed"] if (m, *key) in where.index else "" for m in METRICS
        }
        out.append(
            f"| {name} | {row['n_seeds']} | {_ci(row, 'otsd_norm', '.4f')} | {cls['otsd_norm']} "
            f"| {_ci(row, 'oe_rel', '.2f')} | {cls['oe_rel']} |"
        )
    return out


def relations_table(placed: pd.DataFrame) -> list[str]:
    """Markdown rows: the methods of ours each sampler explores more and less than, per subset
    and metric."""
    out = ["| sampler | subset | metric | it explores more than | it explores less than |",
           "|---|---|---|---|---|"]  # fmt: skip
    samplers = placed[placed["source"] != "ours"]
    for _, r in samplers.sort_values(["source", "method", "subset", "metric"]).iterrows():
        out.append(
            f"| {label(r['source'], r['method'])} | {r['subset']} | {METRIC_NAMES[r['metric']]} "
            f"| {r['more_than'] or '–'} | {r['less_than'] or '–'} |"
        )
    return out


def control_line(placed: pd.DataFrame) -> str:
    """Whether Optuna's RandomSampler falls in our random search's class, subset by metric."""
    parts = []
    for (subset, metric), grp in placed.groupby(["subset", "metric"], sort=False):
        ours = grp[(grp["source"] == "ours") & (grp["method"] == "random")]["placed"]
        opt = grp[(grp["source"] == "optuna") & (grp["method"] == "random")]["placed"]
        if ours.empty or opt.empty:
            continue
        ok = control_holds(opt.iloc[0], ours.iloc[0])
        parts.append(f"{subset}, {METRIC_NAMES[metric]}: {'yes' if ok else 'NO'}")
    return "; ".join(parts)


def control_holds(sampler_placed: str, random_class: str) -> bool:
    """True when a sampler's verdict includes our random search's class ``random_class``."""
    if sampler_placed == f"in {random_class}":
        return True
    prefix = "not separated from "
    return sampler_placed.startswith(prefix) and random_class in sampler_placed[
        len(prefix) :
    ].split("; ")


#: Where a point's label may go (offset in points, horizontal alignment), tried in order.
LABEL_SPOTS = ((6, 4, "left"), (6, -13, "left"), (-6, 4, "right"), (-6, -13, "right"),
               (0, 9, "center"), (0, -19, "center"), (10, 14, "left"), (-10, 14, "right"))  # fmt: skip


def place_labels(ax, points: list[tuple[float, float, str, dict]]) -> None:
    """Annotate ``points`` (x, y, text, text style) at the first spot of :data:`LABEL_SPOTS`
    whose box overlaps no marker and no label placed before (else the first spot)."""
    from matplotlib.transforms import Bbox

    renderer = ax.figure.canvas.get_renderer()
    markers = [ax.transData.transform((x, y)) for x, y, _, _ in points]
    boxes = [Bbox.from_extents(u - 4, v - 4, u + 4, v + 4) for u, v in markers]
    for x, y, text, style in points:
        for k, (dx, dy, ha) in enumerate(LABEL_SPOTS):
            t = ax.annotate(text, (x, y), xytext=(dx, dy), textcoords="offset points", ha=ha,
                            **style)  # fmt: skip
            box = t.get_window_extent(renderer).expanded(1.05, 1.1)
            if not any(box.overlaps(b) for b in boxes) or k == len(LABEL_SPOTS) - 1:
                break
            t.remove()
        if any(box.overlaps(b) for b in boxes):  # nowhere free: the first spot
            t.remove()
            dx, dy, ha = LABEL_SPOTS[0]
            t = ax.annotate(text, (x, y), xytext=(dx, dy), textcoords="offset points", ha=ha,
                            **style)  # fmt: skip
            box = t.get_window_extent(renderer)
        boxes.append(box)


def plot(summary: pd.DataFrame, png: Path, inputs: list[Path]) -> None:
    """Normalised OTSD against OE − uniform, one panel per subset: our methods grey, the
    samplers coloured; bars are the seed intervals."""
    import matplotlib.pyplot as plt

    from boexplore.plotting.io import save_figure
    from boexplore.plotting.style import set_style

    set_style("notebook")
    subsets = [s for s in ("low-d", "high-d") if s in set(summary["subset"])]
    fig, axes = plt.subplots(1, len(subsets), figsize=(6.6 * len(subsets), 5.6), squeeze=False)
    for ax, subset in zip(axes[0], subsets, strict=True):
        part = summary[summary["subset"] == subset]
        part = part.assign(ours=part["source"] == "ours").sort_values("ours")  # samplers first
        labels = []
        for _, r in part.iterrows():
            ours = bool(r["ours"])
            name = label(r["source"], r["method"])
            color = "#9a9a9a" if ours else COLORS.get(name, "#000000")
            x, y = r["oe_rel"], r["otsd_norm"]
            ax.errorbar(x, y, xerr=[[x - r["oe_rel_lo"]], [r["oe_rel_hi"] - x]],
                        yerr=[[y - r["otsd_norm_lo"]], [r["otsd_norm_hi"] - y]],
                        fmt="o" if ours else "D", ms=5 if ours else 8, color=color,
                        elinewidth=1, capsize=0, zorder=2 if ours else 3)  # fmt: skip
            style = (dict(fontsize=9, color="#606060") if ours
                     else dict(fontsize=10.5, color=color, fontweight="bold"))  # fmt: skip
            labels.append((x, y, name, style))
        n = int(part["n_problems"].max())
        ax.set_title(f"{subset} ({n} problem{'s' if n != 1 else ''})")
        ax.set_xlabel("final OE − OE of uniform points (mean over problems)")
        ax.set_ylabel("final normalised OTSD (mean over problems)")
        ax.margins(x=0.12, y=0.08)
        fig.tight_layout()
        place_labels(ax, labels)
    fig.suptitle("Samplers (coloured) beside our methods (grey); bars: 95 % intervals over seeds"
                 " — our measurement", fontsize=12)  # fmt: skip
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    save_figure(fig, png, inputs)


def render(
    rows: pd.DataFrame,
    summary: pd.DataFrame,
    placed: pd.DataFrame,
    command: str,
    figure: str,
    rule: Rule,
    problems: Mapping[str, tuple[str, int, int]],
) -> str:
    """The Markdown page from the rows and the two tables made from them."""
    samplers = rows[rows["source"] != "ours"]
    measured = [p for p in problems if p in set(samplers["problem"])]
    seeds = samplers.groupby(["source", "method", "problem"])["seed"].nunique()
    ours_seeds = rows.loc[rows["source"] == "ours"].groupby(["method", "problem"])["seed"].nunique()
    cpu = samplers.groupby(["source", "method"])["cpu_s"].median()
    listed = ", ".join(
        f"{p} (d = {problems[p][1]}, {problems[p][2]} evaluations)" for p in measured
    )
    cpu_text = ", ".join(f"{label(*k)} {v:.2g}" for k, v in cpu.items())

    def span(n: pd.Series) -> str:
        return f"{n.min()}" if n.min() == n.max() else f"{n.min()}–{n.max()}"

    short = ", ".join(f"{label(s, m)} on {p}, {n}" for (s, m, p), n in seeds.items()
                      if n < seeds.max())  # fmt: skip
    lines = [
        "---",
        "# the figure at the content width of a wide page (docs/assets/boexplore.css)",
        "wide: true",
        "---",
        "",
        "# Optuna's samplers and Ax's default strategy in the exploration taxonomy",
        "",
        "*Our measurement, not a claim of either paper:* neither paper places the samplers most "
        "users run. Generated by `" + command + " --report-only` from the per-run rows "
        "[`data/samplers/tables/samplers_runs.csv`](tables/samplers/samplers_runs.csv); the "
        "tables below are also [`samplers_summary.csv`](tables/samplers/samplers_summary.csv) "
        "and [`samplers_placement.csv`](tables/samplers/samplers_placement.csv).",
        "",
        "## What was run",
        "",
        "Optuna's RandomSampler, QMCSampler (scrambled Sobol), TPESampler, GPSampler and "
        "CmaEsSampler with their defaults, and Ax's default generation strategy (a `Client` with "
        "no strategy configured: the centre of the space and Sobol points, then its default "
        "BoTorch model), each seeded, "
        f"{seeds.max()} seeds each"
        + (f" (fewer, where the CPU cap stopped the second pass: {short})" if short else "")
        + ", "
        f"maximising {len(measured)} problems of the replicate tier at "
        f"the tier's budget, one float parameter in [0, 1] per dimension: {listed}. Our methods "
        f"are the replicate tier's committed traces on the same problems and budgets "
        f"({span(ours_seeds)} seeds), scored the same way. Median CPU "
        f"seconds of a run: {cpu_text}.",
        "",
        "Fixed before the runs that added Ax and the extra problems (our choice): every low-d "
        "problem of the tier and its high-d problems of d = 50–60 with a synthetic objective, "
        "at the budgets of our traces (the d = 100 problems and the rover are left out, where "
        "GPSampler and Ax cost most); 5 seeds on every problem first, then seeds 5–7 (our "
        "methods have 8) problem by problem while all runs together stayed within about 40 "
        "CPU-minutes. CPU seconds are the process CPU time of a run; the Optuna rows of the "
        "first four problems (seeds 0–4) come from an earlier session of this study, timed "
        "under thread settings it did not record.",
        "",
        "## How a sampler is placed",
        "",
        "Our methods' classes are paper 1's taxonomy rule with the replicate tier's settings "
        f"(one-sided paired {rule.test}-tests over seeds per problem, {rule.correction.title()} "
        f"at α = {rule.alpha}, A ⪰ B when at least {rule.majority:.3g} of the problems support "
        f"it, transitive closure, cycles merged), decided separately on the low-d (d ≤ "
        f"{rule.low_d_max}) and high-d (d ≥ {rule.high_d_min}) problems. A sampler is tested "
        "the same way against each of our methods (its own Holm family, so placing it leaves "
        "our order as it is; its run of seed s is paired with ours of seed s, two independent "
        "runs) and closed with our order. It **falls in** a class when no member of the class "
        "is decided above or below it; *not separated from* lists every class it could join "
        "(too few seeds to tell them apart); *in no class of ours* means the tests put it "
        "where none of our classes is (then the table of relations below says where). OE is "
        "ours (`oe_rel`): the authors' OE needs more points than dimensions, which the high-d "
        "problems at 30 evaluations do not have.",
        "",
        "The control: Optuna's RandomSampler draws uniform points as our random search does, so "
        "it must fall in (or not be separated from) our random search's class. Whether it "
        f"does, per subset and metric: {control_line(placed)}.",
        "",
        '<figure class="boexplore-figure" markdown="span">',
        f"![Samplers beside our methods: normalised OTSD against OE]({figure})",
        "<figcaption><strong>Our measurement.</strong> Final normalised OTSD against final OE "
        "relative to uniform points, each the mean over the subset's problems of a method's "
        "per-seed values (bars: 95 % t intervals over seeds); Optuna's samplers and Ax's "
        "default strategy coloured, paper 1's methods (replicate traces) grey.</figcaption>",
        "</figure>",
        "",
    ]
    for subset in ("low-d", "high-d"):
        if subset not in set(summary["subset"]):
            continue
        n = int(summary.loc[summary["subset"] == subset, "n_problems"].max())
        lines += [f"## {subset} problems ({n})", "",
                  "Means over the problems of each seed's final value, then over seeds "
                  "(95 % t interval over seeds; a seed counts when it was run on every "
                  "problem); most exploring by normalised OTSD first.", "",
                  *summary_table(summary, placed, subset), ""]  # fmt: skip
    lines += [
        "## Each sampler's relations to our methods",
        "",
        "The methods of ours each sampler was decided to explore more than (⪰) and less than "
        "(⪯), in the joint closure; a dash: none.",
        "",
        *relations_table(placed),
        "",
        "Measure one of your own studies or experiments: [Measure your own "
        "loop](measure-your-loop.md).",
        "",
    ]
    return "\n".join(lines)


def tables_of(
    rows: pd.DataFrame, rule: Rule, methods: Sequence[str]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(summary, placement) of the rows: our ``methods`` and every sampler."""
    rows = rows[(rows["source"] != "ours") | rows["method"].isin(methods)]
    return seed_summary(rows, rule).reset_index(drop=True), placement_table(rows, rule, methods)


def write_report(
    rows_csv: Path,
    page: Path,
    figure: Path,
    command: str,
    problems: Mapping[str, tuple[str, int, int]],
    methods: Sequence[str],
    rule: Rule | None = None,
    draw: bool = True,
) -> str:
    """From the per-run rows ``rows_csv``: the two tables beside it, the figure (unless
    ``draw`` is false) and the page; returns the page text."""
    rule = rule or Rule.of_config()
    rows = pd.read_csv(rows_csv)
    summary, placed = tables_of(rows, rule, methods)
    summary.to_csv(rows_csv.parent / "samplers_summary.csv", index=False, float_format="%.6g")
    placed.to_csv(rows_csv.parent / "samplers_placement.csv", index=False)
    rel = Path("figures") / figure.parent.name / figure.name  # as the site serves it
    if draw:
        plot(summary, figure, [rows_csv])
    text = render(rows, summary, placed, command, rel.as_posix(), rule, problems)
    atomic_write_text(text, page)
    return text
