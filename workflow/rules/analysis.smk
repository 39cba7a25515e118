# Paper 1 analysis: exploration summaries, taxonomy, OTSD-OE agreement, performance
# link, variant effects, tour quality, the claims table and the seven paper-1 figures.
# Inputs: the aggregated metrics table and (for tour quality) every run trace.
# All logic lives in boexplore.analysis / boexplore.plotting; scripts are thin.

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
P1_TABLE = {name: f"{TABLES}/{fname}" for name, fname in P1_TABLE_FILES.items()}
P1_TOURS = f"{TABLES}/paper1_tour_quality.csv"
# The seven figures: name -> named input tables (boexplore.plotting.paper1.draw_figure reads
# them by these names); one rule per figure, generated below.
P1_FIGURE_INPUTS = {
    "exploration_trajectories": {"trajectories": P1_TABLE["trajectories"]},
    "otsd_vs_oe": {"cells": P1_TABLE["cells"], "correlation": P1_TABLE["correlation"]},
    "exploration_vs_dimension": {"cells": P1_TABLE["cells"]},
    "variant_effects": {"diffs": P1_TABLE["variant_diffs"]},
    "performance_vs_exploration": {
        "cells": P1_TABLE["cells"],
        "shape": P1_TABLE["performance_shape"],
    },
    "taxonomy_hasse": {"pairs": P1_TABLE["taxonomy_pairs"]},
    "tour_quality": {"tours": P1_TOURS},
    # issue 28: every claim's statistic, interval and verdict against the budget
    "claims_budget": {"budget": f"{TABLES}/claims_paper1_budget.csv"},
}


ANALYSIS_OUTPUTS = (
    list(P1_TABLE.values())
    + [
        f"{TABLES}/claims_paper1.csv",
        f"{TABLES}/claims_paper1.md",
        f"{TABLES}/claims_paper1_parts.csv",
        f"{TABLES}/claims_paper1_units.csv",
        f"{TABLES}/claims_paper1_budget.csv",
        f"{TABLES}/claims_paper1_sensitivity.csv",
        f"{TABLES}/claims_paper1_activity.csv",
        f"{TABLES}/claims_paper1_bands.csv",
        f"{TABLES}/claims_paper1_bands.md",
        P1_TOURS,
    ]
    + [f"{FIGURES}/{name}.{ext}" for name in P1_FIGURE_INPUTS for ext in ("png", "pdf", "json")]
)


rule paper1_analysis:
    input:
        metrics=f"{TABLES}/metrics.parquet",
        runs=all_run_files(),  # trust-region / RAASP activity columns for P1-C7
    output:
        **P1_TABLE,
        claims_csv=f"{TABLES}/claims_paper1.csv",
        claims_md=f"{TABLES}/claims_paper1.md",
        claims_parts=f"{TABLES}/claims_paper1_parts.csv",
        claims_units=f"{TABLES}/claims_paper1_units.csv",
        # issues 22 / 27 / 28: budget curves and the per-setting verdicts
        claims_budget=f"{TABLES}/claims_paper1_budget.csv",
        claims_sensitivity=f"{TABLES}/claims_paper1_sensitivity.csv",
        # issue 58: per problem, in how many seeds P1-C7's trust region / RAASP acted
        claims_activity=f"{TABLES}/claims_paper1_activity.csv",
    params:
        analysis=report_param(config.get("analysis"), "analysis"),
        not_run=config.get("not_run") or {},  # claims left out under a CPU ceiling, priced
    log:
        f"{LOGS}/analysis/paper1_analysis.log",
    threads: 1
    localrule: True
    conda:
        ENV
    script:
        "../scripts/analysis_paper1.py"


rule paper1_bands:
    input:
        units=f"{TABLES}/claims_paper1_units.csv",
    output:
        csv=f"{TABLES}/claims_paper1_bands.csv",
        md=f"{TABLES}/claims_paper1_bands.md",
    params:
        analysis=report_param(config.get("analysis"), "analysis"),
        budgets={p: problem_design(config, p)[1] for p in config["problems"]},
        tier=config["run_name"],
    log:
        f"{LOGS}/analysis/paper1_bands.log",
    threads: 1
    localrule: True
    conda:
        ENV
    script:
        "../scripts/claims_bands.py"


rule paper1_tour_quality:
    input:
        runs=all_run_files(),
    output:
        P1_TOURS,
    params:
        tours=config.get("analysis", {}).get("tours", {}),
    log:
        f"{LOGS}/analysis/paper1_tour_quality.log",
    threads: 1
    localrule: True
    conda:
        ENV
    script:
        "../scripts/analysis_tours.py"


for _fig, _inputs in P1_FIGURE_INPUTS.items():

    rule:
        name:
            f"paper1_fig_{_fig}"
        input:
            **_inputs,
        output:
            png=report(
                f"{FIGURES}/{_fig}.png",
                caption=f"../report/paper1_{_fig}.rst",
                category="Paper 1",
            ),
            pdf=f"{FIGURES}/{_fig}.pdf",
            sidecar=f"{FIGURES}/{_fig}.json",
        params:
            figure=_fig,
            analysis=report_param(config.get("analysis"), "analysis"),
        log:
            f"{LOGS}/figures/{_fig}.log",
        localrule: True
        conda:
            ENV
        script:
            "../scripts/figure_paper1.py"
