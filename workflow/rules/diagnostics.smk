# Paper 1's uses (issue 24): the exploration monitor's reference table (tune-half problems of
# analysis.uses; the release copy is shipped as src/boexplore/diagnostics/references.csv) and
# the diagnostics figure of the report (monitor timelines with states and stop points).
# The P1-U1..U3 claims rows are part of rule paper1_analysis (boexplore.analysis.uses.claims).

DIAG_REFERENCES = f"{TABLES}/exploration_references.csv"


rule exploration_references:
    input:
        metrics=f"{TABLES}/metrics.parquet",
    output:
        DIAG_REFERENCES,
    params:
        analysis=report_param(config.get("analysis"), "analysis"),
    log:
        f"{LOGS}/analysis/exploration_references.log",
    threads: 1
    localrule: True
    conda:
        ENV
    script:
        "../scripts/exploration_references.py"


rule paper1_fig_diagnostics:
    input:
        metrics=f"{TABLES}/metrics.parquet",
        references=DIAG_REFERENCES,
    output:
        png=report(
            f"{FIGURES}/diagnostics.png",
            caption="../report/diagnostics.rst",
            category="Paper 1",
        ),
        pdf=f"{FIGURES}/diagnostics.pdf",
        sidecar=f"{FIGURES}/diagnostics.json",
    params:
        analysis=report_param(config.get("analysis"), "analysis"),
    log:
        f"{LOGS}/figures/diagnostics.log",
    localrule: True
    conda:
        ENV
    script:
        "../scripts/figure_diagnostics.py"


ANALYSIS_OUTPUTS += [DIAG_REFERENCES] + [
    f"{FIGURES}/diagnostics.{ext}" for ext in ("png", "pdf", "json")
]
