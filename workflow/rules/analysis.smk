# Paper 1 analysis: exploration summaries, taxonomy, OTSD-OE agreement, performance
# link, variant effects, tour quality, the claims table and the seven paper-1 figures.
# Inputs: the aggregated metrics table and (for tour quality) every run trace.
# All logic lives in boexplore.analysis / boexplore.plotting; scripts are thin.

RUN = config["run_name"]
P1_TABLES = f"results/{RUN}/tables"
P1_FIGURES = f"figures/{RUN}"
P1_ENV = "../../envs/boexplore.yaml"
# Config sections passed as params show as one-line summaries in the report (same repr/hash).
from boexplore.reporting.params import report_param

# Tables written by rule paper1_analysis (names fixed in boexplore.analysis.pipeline).
P1_TABLE_FILES = {
    "summary_final": "paper1_summary_final.csv",
    "trajectories": "paper1_trajectories.parquet",
    "cells": "paper1_cells.csv",
    "taxonomy_pairs": "paper1_taxonomy_pairs.csv",
    "taxonomy_classes": "paper1_taxonomy_classes.csv",
    "paper_pairs": "paper1_taxonomy_vs_paper.csv",
    "paper_tau": "paper1_kendall_tau.csv",
    "correlation": "paper1_correlation.csv",
    "performance_shape": "paper1_performance.csv",
    "variant_diffs": "paper1_variant_diffs.csv",
    "variant_summary": "paper1_variant_effects.csv",
    "oe_baseline": "paper1_oe_uniform_baseline.csv",
    "final": "paper1_final.parquet",
}
P1_FIGURE_NAMES = [
    "exploration_trajectories",
    "otsd_vs_oe",
    "exploration_vs_dimension",
    "variant_effects",
    "performance_vs_exploration",
    "taxonomy_hasse",
    "tour_quality",
]
P1_TABLE = {name: f"{P1_TABLES}/{fname}" for name, fname in P1_TABLE_FILES.items()}


ANALYSIS_OUTPUTS = (
    list(P1_TABLE.values())
    + [
        f"{P1_TABLES}/claims_paper1.csv",
        f"{P1_TABLES}/claims_paper1.md",
        f"{P1_TABLES}/claims_paper1_parts.csv",
        f"{P1_TABLES}/claims_paper1_units.csv",
        f"{P1_TABLES}/paper1_tour_quality.csv",
    ]
    + [f"{P1_FIGURES}/{name}.{ext}" for name in P1_FIGURE_NAMES for ext in ("png", "pdf", "json")]
)


rule paper1_analysis:
    input:
        metrics=f"{P1_TABLES}/metrics.parquet",
        runs=all_run_files(),  # trust-region / RAASP activity columns for P1-C7
    output:
        **P1_TABLE,
        claims_csv=f"{P1_TABLES}/claims_paper1.csv",
        claims_md=f"{P1_TABLES}/claims_paper1.md",
        claims_parts=f"{P1_TABLES}/claims_paper1_parts.csv",
        claims_units=f"{P1_TABLES}/claims_paper1_units.csv",
    params:
        analysis=report_param(config.get("analysis"), "analysis"),
    log:
        f"logs/{RUN}/analysis/paper1_analysis.log",
    threads: 1
    localrule: True
    conda:
        P1_ENV
    script:
        "../scripts/analysis_paper1.py"


rule paper1_tour_quality:
    input:
        runs=all_run_files(),
    output:
        f"{P1_TABLES}/paper1_tour_quality.csv",
    params:
        tours=config.get("analysis", {}).get("tours", {}),
    log:
        f"logs/{RUN}/analysis/paper1_tour_quality.log",
    threads: 1
    localrule: True
    conda:
        P1_ENV
    script:
        "../scripts/analysis_tours.py"


rule paper1_fig_exploration_trajectories:
    input:
        trajectories=P1_TABLE["trajectories"],
    output:
        png=report(
            f"{P1_FIGURES}/exploration_trajectories.png",
            caption="../report/paper1_exploration_trajectories.rst",
            category="Paper 1",
        ),
        pdf=f"{P1_FIGURES}/exploration_trajectories.pdf",
        sidecar=f"{P1_FIGURES}/exploration_trajectories.json",
    params:
        figure="exploration_trajectories",
        analysis=report_param(config.get("analysis"), "analysis"),
    log:
        f"logs/{RUN}/figures/exploration_trajectories.log",
    localrule: True
    conda:
        P1_ENV
    script:
        "../scripts/figure_paper1.py"


rule paper1_fig_otsd_vs_oe:
    input:
        cells=P1_TABLE["cells"],
        correlation=P1_TABLE["correlation"],
    output:
        png=report(
            f"{P1_FIGURES}/otsd_vs_oe.png",
            caption="../report/paper1_otsd_vs_oe.rst",
            category="Paper 1",
        ),
        pdf=f"{P1_FIGURES}/otsd_vs_oe.pdf",
        sidecar=f"{P1_FIGURES}/otsd_vs_oe.json",
    params:
        figure="otsd_vs_oe",
        analysis=report_param(config.get("analysis"), "analysis"),
    log:
        f"logs/{RUN}/figures/otsd_vs_oe.log",
    localrule: True
    conda:
        P1_ENV
    script:
        "../scripts/figure_paper1.py"


rule paper1_fig_exploration_vs_dimension:
    input:
        cells=P1_TABLE["cells"],
    output:
        png=report(
            f"{P1_FIGURES}/exploration_vs_dimension.png",
            caption="../report/paper1_exploration_vs_dimension.rst",
            category="Paper 1",
        ),
        pdf=f"{P1_FIGURES}/exploration_vs_dimension.pdf",
        sidecar=f"{P1_FIGURES}/exploration_vs_dimension.json",
    params:
        figure="exploration_vs_dimension",
        analysis=report_param(config.get("analysis"), "analysis"),
    log:
        f"logs/{RUN}/figures/exploration_vs_dimension.log",
    localrule: True
    conda:
        P1_ENV
    script:
        "../scripts/figure_paper1.py"


rule paper1_fig_variant_effects:
    input:
        diffs=P1_TABLE["variant_diffs"],
    output:
        png=report(
            f"{P1_FIGURES}/variant_effects.png",
            caption="../report/paper1_variant_effects.rst",
            category="Paper 1",
        ),
        pdf=f"{P1_FIGURES}/variant_effects.pdf",
        sidecar=f"{P1_FIGURES}/variant_effects.json",
    params:
        figure="variant_effects",
        analysis=report_param(config.get("analysis"), "analysis"),
    log:
        f"logs/{RUN}/figures/variant_effects.log",
    localrule: True
    conda:
        P1_ENV
    script:
        "../scripts/figure_paper1.py"


rule paper1_fig_performance_vs_exploration:
    input:
        cells=P1_TABLE["cells"],
        shape=P1_TABLE["performance_shape"],
    output:
        png=report(
            f"{P1_FIGURES}/performance_vs_exploration.png",
            caption="../report/paper1_performance_vs_exploration.rst",
            category="Paper 1",
        ),
        pdf=f"{P1_FIGURES}/performance_vs_exploration.pdf",
        sidecar=f"{P1_FIGURES}/performance_vs_exploration.json",
    params:
        figure="performance_vs_exploration",
        analysis=report_param(config.get("analysis"), "analysis"),
    log:
        f"logs/{RUN}/figures/performance_vs_exploration.log",
    localrule: True
    conda:
        P1_ENV
    script:
        "../scripts/figure_paper1.py"


rule paper1_fig_taxonomy_hasse:
    input:
        pairs=P1_TABLE["taxonomy_pairs"],
    output:
        png=report(
            f"{P1_FIGURES}/taxonomy_hasse.png",
            caption="../report/paper1_taxonomy_hasse.rst",
            category="Paper 1",
        ),
        pdf=f"{P1_FIGURES}/taxonomy_hasse.pdf",
        sidecar=f"{P1_FIGURES}/taxonomy_hasse.json",
    params:
        figure="taxonomy_hasse",
        analysis=report_param(config.get("analysis"), "analysis"),
    log:
        f"logs/{RUN}/figures/taxonomy_hasse.log",
    localrule: True
    conda:
        P1_ENV
    script:
        "../scripts/figure_paper1.py"


rule paper1_fig_tour_quality:
    input:
        tours=f"{P1_TABLES}/paper1_tour_quality.csv",
    output:
        png=report(
            f"{P1_FIGURES}/tour_quality.png",
            caption="../report/paper1_tour_quality.rst",
            category="Paper 1",
        ),
        pdf=f"{P1_FIGURES}/tour_quality.pdf",
        sidecar=f"{P1_FIGURES}/tour_quality.json",
    params:
        figure="tour_quality",
        analysis=report_param(config.get("analysis"), "analysis"),
    log:
        f"logs/{RUN}/figures/tour_quality.log",
    localrule: True
    conda:
        P1_ENV
    script:
        "../scripts/figure_paper1.py"
