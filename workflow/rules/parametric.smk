# Paper 2: randomized regularized neural policies, LFBO, regret curves and bound checks.
# Experiments E1-E4 of /work/shared/reference/parametric-notes.md; library: boexplore.parametric.
# Jobs: one per (experiment, problem, method / grid slice, seed chunk); seeds inside a job are
# trained as one batch. Everything is disabled (no jobs, no outputs) with `parametric: {enabled: false}`.
from boexplore.pipeline.paper2_grid import job_files, resolve_config
from boexplore.reporting.params import report_param

RUN = config["run_name"]
PCFG = resolve_config(config.get("parametric", {}))
P2 = f"results/{RUN}/parametric"
P2_TABLES = f"results/{RUN}/tables"
P2_FIG = f"figures/{RUN}"
P2_ENV = "../../envs/boexplore.yaml"


wildcard_constraints:
    pkey=r"[A-Za-z0-9_.-]+",
    pmethod=r"[A-Za-z0-9_]+",
    pchunk=r"\d+",
    pcell=r"[A-Za-z0-9_.-]+",
    preg=r"func|anchor",
    pwidth=r"\d+",


P2_FILES = job_files(PCFG, RUN)
PARAMETRIC_OUTPUTS = P2_FILES["final"]


rule p2_e1:
    output:
        f"{P2}/e1/{{pkey}}/{{pmethod}}/chunk{{pchunk}}.parquet",
    params:
        cfg=PCFG,
    log:
        f"logs/{RUN}/parametric/e1/{{pkey}}/{{pmethod}}/chunk{{pchunk}}.log",
    benchmark:
        f"results/{RUN}/benchmarks/p2_e1/{{pkey}}/{{pmethod}}/chunk{{pchunk}}.tsv"
    resources:
        runtime=p2_runtime("p2_e1"),
        mem_mb=p2_mem("p2_e1"),
    conda:
        P2_ENV
    script:
        "../scripts/parametric_e1.py"


rule p2_e2:
    output:
        bounds=f"{P2}/e2/{{pkey}}/{{preg}}_w{{pwidth}}/chunk{{pchunk}}_bounds.parquet",
        traces=f"{P2}/e2/{{pkey}}/{{preg}}_w{{pwidth}}/chunk{{pchunk}}_traces.parquet",
    params:
        cfg=PCFG,
    log:
        f"logs/{RUN}/parametric/e2/{{pkey}}/{{preg}}_w{{pwidth}}/chunk{{pchunk}}.log",
    benchmark:
        f"results/{RUN}/benchmarks/p2_e2/{{pkey}}/{{preg}}_w{{pwidth}}/chunk{{pchunk}}.tsv"
    resources:
        runtime=p2_runtime("p2_e2"),
        mem_mb=p2_mem("p2_e2"),
    conda:
        P2_ENV
    script:
        "../scripts/parametric_e2.py"


rule p2_e3_static:
    output:
        f"{P2}/e3/static.parquet",
    params:
        cfg=PCFG,
    log:
        f"logs/{RUN}/parametric/e3/static.log",
    benchmark:
        f"results/{RUN}/benchmarks/p2_e3_static/static.tsv"
    resources:
        runtime=p2_runtime("p2_e3_static"),
        mem_mb=p2_mem("p2_e3_static"),
    conda:
        P2_ENV
    script:
        "../scripts/parametric_e3_static.py"


rule p2_e3_dynamic:
    output:
        f"{P2}/e3/dynamic/{{pcell}}/chunk{{pchunk}}.parquet",
    params:
        cfg=PCFG,
    log:
        f"logs/{RUN}/parametric/e3/dynamic/{{pcell}}/chunk{{pchunk}}.log",
    benchmark:
        f"results/{RUN}/benchmarks/p2_e3_dynamic/{{pcell}}/chunk{{pchunk}}.tsv"
    resources:
        runtime=p2_runtime("p2_e3_dynamic"),
        mem_mb=p2_mem("p2_e3_dynamic"),
    conda:
        P2_ENV
    script:
        "../scripts/parametric_e3_dynamic.py"


rule p2_e4:
    output:
        f"{P2}/e4/{{pkey}}/{{pmethod}}/chunk{{pchunk}}.parquet",
    params:
        cfg=PCFG,
    log:
        f"logs/{RUN}/parametric/e4/{{pkey}}/{{pmethod}}/chunk{{pchunk}}.log",
    benchmark:
        f"results/{RUN}/benchmarks/p2_e4/{{pkey}}/{{pmethod}}/chunk{{pchunk}}.tsv"
    resources:
        runtime=p2_runtime("p2_e4"),
        mem_mb=p2_mem("p2_e4"),
    conda:
        P2_ENV
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
        claims=f"{P2_TABLES}/claims_paper2.csv",
        claims_md=f"{P2_TABLES}/claims_paper2.md",
        e1_seeds=f"{P2_TABLES}/paper2_e1_per_seed.csv",
        e1_summary=f"{P2_TABLES}/paper2_e1_summary.csv",
        e1_curves=f"{P2_TABLES}/paper2_e1_curves.parquet",
        e2_bounds=f"{P2_TABLES}/paper2_e2_bounds.parquet",
        e2_summary=f"{P2_TABLES}/paper2_e2_coverage.csv",
        e2_md=f"{P2_TABLES}/paper2_e2_coverage.md",
        e3_static=f"{P2_TABLES}/paper2_e3_static.csv",
        e3_dynamic=f"{P2_TABLES}/paper2_e3_dynamic.csv",
        e4_summary=f"{P2_TABLES}/paper2_e4_summary.csv",
        e4_traces=f"{P2_TABLES}/paper2_e4_traces.parquet",
    params:
        cfg=PCFG,
    log:
        f"logs/{RUN}/parametric/tables.log",
    benchmark:
        f"results/{RUN}/benchmarks/parametric/tables.tsv"
    localrule: True
    conda:
        P2_ENV
    script:
        "../scripts/parametric_tables.py"


P2_FIG_INPUTS = {
    "paper2_regret": [f"{P2_TABLES}/paper2_e1_curves.parquet"],
    "paper2_coverage": [f"{P2_TABLES}/paper2_e2_bounds.parquet"],
    "paper2_lambda_scale_heatmaps": [f"{P2_TABLES}/paper2_e3_static.csv", f"{P2_TABLES}/paper2_e3_dynamic.csv"],
    "paper2_exploration_vs_lambda": [f"{P2_TABLES}/paper2_e3_dynamic.csv"],
    "paper2_lfbo_sanity": [f"{P2_TABLES}/paper2_e4_traces.parquet"],
}


for _fig in P2_FIG_INPUTS:

    rule:
        name:
            f"p2_fig_{_fig}"
        input:
            P2_FIG_INPUTS[_fig],
        output:
            png=report(f"{P2_FIG}/{_fig}.png", caption=f"../report/{_fig}.rst", category="Paper 2"),
            pdf=f"{P2_FIG}/{_fig}.pdf",
            sidecar=f"{P2_FIG}/{_fig}.json",
        params:
            kind=_fig,
            cfg=report_param(PCFG, "parametric"),
        log:
            f"logs/{RUN}/parametric/{_fig}.log",
        benchmark:
            f"results/{RUN}/benchmarks/parametric/{_fig}.tsv"
        localrule: True
        conda:
            P2_ENV
        script:
            "../scripts/parametric_figure.py"
