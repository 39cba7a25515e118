# Paper 2: randomized regularized neural policies, LFBO, regret curves and bound checks.
# Experiments E1-E4 (README, "Paper 2"); policy library: boexplore.parametric; job grid and
# drivers: boexplore.pipeline.paper2_*; tables and claims: boexplore.analysis.paper2_*;
# figures: boexplore.plotting.paper2. Jobs: one per (experiment, problem, method / grid slice,
# seed chunk); seeds inside a job are trained as one batch. Everything is disabled (no jobs,
# no outputs) with `parametric: {enabled: false}`.
from boexplore.pipeline.paper2_grid import job_files, resolve_config
from boexplore.reporting.params import report_param

PCFG = resolve_config(config.get("parametric", {}))
P2 = f"{RESULTS}/parametric"


wildcard_constraints:
    pkey=r"[A-Za-z0-9_.-]+",
    pmethod=r"[A-Za-z0-9_]+",
    pchunk=r"\d+",
    pcell=r"[A-Za-z0-9_.-]+",
    preg=r"func|anchor",
    pwidth=r"\d+",


P2_FILES = job_files(PCFG, RESULTS, FIGURES)
PARAMETRIC_OUTPUTS = P2_FILES["final"]


rule p2_e1:
    output:
        f"{P2}/e1/{{pkey}}/{{pmethod}}/chunk{{pchunk}}.parquet",
    params:
        cfg=PCFG,
    log:
        f"{LOGS}/parametric/e1/{{pkey}}/{{pmethod}}/chunk{{pchunk}}.log",
    benchmark:
        f"{BENCHMARKS}/p2_e1/{{pkey}}/{{pmethod}}/chunk{{pchunk}}.tsv"
    resources:
        runtime=p2_runtime("p2_e1"),
        mem_mb=p2_mem("p2_e1"),
    conda:
        ENV
    script:
        "../scripts/parametric_e1.py"


rule p2_e2:
    output:
        bounds=f"{P2}/e2/{{pkey}}/{{preg}}_w{{pwidth}}/chunk{{pchunk}}_bounds.parquet",
        traces=f"{P2}/e2/{{pkey}}/{{preg}}_w{{pwidth}}/chunk{{pchunk}}_traces.parquet",
    params:
        cfg=PCFG,
    log:
        f"{LOGS}/parametric/e2/{{pkey}}/{{preg}}_w{{pwidth}}/chunk{{pchunk}}.log",
    benchmark:
        f"{BENCHMARKS}/p2_e2/{{pkey}}/{{preg}}_w{{pwidth}}/chunk{{pchunk}}.tsv"
    resources:
        runtime=p2_runtime("p2_e2"),
        mem_mb=p2_mem("p2_e2"),
    conda:
        ENV
    script:
        "../scripts/parametric_e2.py"


rule p2_e3_static:
    output:
        f"{P2}/e3/static.parquet",
    params:
        cfg=PCFG,
    log:
        f"{LOGS}/parametric/e3/static.log",
    benchmark:
        f"{BENCHMARKS}/p2_e3_static/static.tsv"
    resources:
        runtime=p2_runtime("p2_e3_static"),
        mem_mb=p2_mem("p2_e3_static"),
    conda:
        ENV
    script:
        "../scripts/parametric_e3_static.py"


rule p2_e3_dynamic:
    output:
        f"{P2}/e3/dynamic/{{pcell}}/chunk{{pchunk}}.parquet",
    params:
        cfg=PCFG,
    log:
        f"{LOGS}/parametric/e3/dynamic/{{pcell}}/chunk{{pchunk}}.log",
    benchmark:
        f"{BENCHMARKS}/p2_e3_dynamic/{{pcell}}/chunk{{pchunk}}.tsv"
    resources:
        runtime=p2_runtime("p2_e3_dynamic"),
        mem_mb=p2_mem("p2_e3_dynamic"),
    conda:
        ENV
    script:
        "../scripts/parametric_e3_dynamic.py"


rule p2_e4:
    output:
        f"{P2}/e4/{{pkey}}/{{pmethod}}/chunk{{pchunk}}.parquet",
    params:
        cfg=PCFG,
    log:
        f"{LOGS}/parametric/e4/{{pkey}}/{{pmethod}}/chunk{{pchunk}}.log",
    benchmark:
        f"{BENCHMARKS}/p2_e4/{{pkey}}/{{pmethod}}/chunk{{pchunk}}.tsv"
    resources:
        runtime=p2_runtime("p2_e4"),
        mem_mb=p2_mem("p2_e4"),
    conda:
        ENV
    script:
        "../scripts/parametric_e4.py"


rule p2_tables:
    input:
        e1=P2_FILES["e1"],
        e2=P2_FILES["e2"],
        e3_static=P2_FILES["e3_static"],
        e3_dynamic=P2_FILES["e3_dynamic"],
        e4=P2_FILES["e4"],
    output:
        claims=f"{TABLES}/claims_paper2.csv",
        claims_md=f"{TABLES}/claims_paper2.md",
        e1_seeds=f"{TABLES}/paper2_e1_per_seed.csv",
        e1_summary=f"{TABLES}/paper2_e1_summary.csv",
        stuck_control=f"{TABLES}/paper2_stuck_control.csv",
        e1_curves=f"{TABLES}/paper2_e1_curves.parquet",
        e2_bounds=f"{TABLES}/paper2_e2_bounds.parquet",
        e2_summary=f"{TABLES}/paper2_e2_coverage.csv",
        e2_md=f"{TABLES}/paper2_e2_coverage.md",
        e3_static=f"{TABLES}/paper2_e3_static.csv",
        e3_dynamic=f"{TABLES}/paper2_e3_dynamic.csv",
        e4_summary=f"{TABLES}/paper2_e4_summary.csv",
        e4_traces=f"{TABLES}/paper2_e4_traces.parquet",
    params:
        cfg=PCFG,
    log:
        f"{LOGS}/parametric/tables.log",
    benchmark:
        f"{BENCHMARKS}/parametric/tables.tsv"
    localrule: True
    conda:
        ENV
    script:
        "../scripts/parametric_tables.py"


P2_FIG_INPUTS = {
    "paper2_regret": [f"{TABLES}/paper2_e1_curves.parquet"],
    "paper2_coverage": [f"{TABLES}/paper2_e2_bounds.parquet"],
    "paper2_lambda_scale_heatmaps": [f"{TABLES}/paper2_e3_static.csv", f"{TABLES}/paper2_e3_dynamic.csv"],
    "paper2_exploration_vs_lambda": [f"{TABLES}/paper2_e3_dynamic.csv"],
    "paper2_lfbo_sanity": [f"{TABLES}/paper2_e4_traces.parquet"],
}


for _fig in P2_FIG_INPUTS:

    rule:
        name:
            f"p2_fig_{_fig}"
        input:
            P2_FIG_INPUTS[_fig],
        output:
            png=report(f"{FIGURES}/{_fig}.png", caption=f"../report/{_fig}.rst", category="Paper 2"),
            pdf=f"{FIGURES}/{_fig}.pdf",
            sidecar=f"{FIGURES}/{_fig}.json",
        params:
            kind=_fig,
            cfg=report_param(PCFG, "parametric"),
        log:
            f"{LOGS}/parametric/{_fig}.log",
        benchmark:
            f"{BENCHMARKS}/parametric/{_fig}.tsv"
        localrule: True
        conda:
            ENV
        script:
            "../scripts/parametric_figure.py"
