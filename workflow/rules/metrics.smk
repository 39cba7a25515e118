# Stage 3: score every run (OTSD, normalized OTSD, OE both variants, bounds, regret),
# then aggregate into tidy tables.


rule score_run:
    input:
        f"{RESULTS}/runs/{{problem}}/{{method}}/{{chunk}}.parquet",
    output:
        f"{RESULTS}/metrics/{{problem}}/{{method}}/{{chunk}}.parquet",
    log:
        f"{LOGS}/metrics/{{problem}}/{{method}}/{{chunk}}.log",
    benchmark:
        f"{BENCHMARKS}/score_run/{{problem}}/{{method}}/{{chunk}}.tsv"
    threads: 1
    resources:
        runtime=score_runtime_min,
        mem_mb=score_mem_mb,
    conda:
        ENV
    script:
        "../scripts/score_run.py"


rule aggregate_metrics:
    input:
        metrics=all_metric_files(),
        runs=all_run_files(),
        problems=expand(f"{RESULTS}/problems/{{problem}}.json", problem=config["problems"]),
    output:
        metrics=f"{TABLES}/metrics.parquet",
        summary=f"{TABLES}/runs_summary.csv",
        provenance=f"{TABLES}/provenance.json",
    params:
        methods=config["methods"],
        problems=config["problems"],
    log:
        f"{LOGS}/tables/aggregate_metrics.log",
    localrule: True
    conda:
        ENV
    script:
        "../scripts/aggregate_metrics.py"


rule timing_figure:
    input:
        f"{TABLES}/runs_summary.csv",
    output:
        png=report(
            f"{FIGURES}/run_timings.png",
            caption="../report/run_timings.rst",
            category="Run diagnostics",
        ),
        pdf=f"{FIGURES}/run_timings.pdf",
        sidecar=f"{FIGURES}/run_timings.json",
    log:
        f"{LOGS}/figures/run_timings.log",
    localrule: True
    conda:
        ENV
    script:
        "../scripts/timing_figure.py"
