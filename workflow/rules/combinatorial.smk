# Exploration beyond the box (our extension): problems on binary / categorical / mixed domains,
# random search, simulated annealing and GP-based BO (boexplore.discrete), scored on their
# domain (boexplore.metrics.domain: OTSD, OE, random-search references, the bounds check on
# every prefix). Logic: boexplore.pipeline.combinatorial_stage. Off unless
# `combinatorial: {enabled: true}` (config/combinatorial.yaml). Its helpers (jobs, paths, job
# sizing) are in common.smk.

wildcard_constraints:
    cprob=r"[A-Za-z0-9_.-]+",
    cmethod=r"[A-Za-z0-9_.-]+",
    cseed=r"\d+",


rule comb_problem:
    output:
        f"{COMB}/problems/{{cprob}}.json",
    params:
        entry=lambda wc: CCFG["problems"][wc.cprob],
    log:
        f"{LOGS}/combinatorial/problems/{{cprob}}.log",
    localrule: True
    conda:
        ENV
    script:
        "../scripts/combinatorial.py"


rule comb_run:
    input:
        problem=f"{COMB}/problems/{{cprob}}.json",
    output:
        f"{COMB}/runs/{{cprob}}/{{cmethod}}/seed{{cseed}}.parquet",
    params:
        spec=lambda wc: CCFG["methods"][wc.cmethod],
        cfg=CCFG,
    log:
        f"{LOGS}/combinatorial/runs/{{cprob}}/{{cmethod}}/seed{{cseed}}.log",
    benchmark:
        f"{BENCHMARKS}/comb_run/{{cprob}}/{{cmethod}}/seed{{cseed}}.tsv"
    threads: 1
    resources:
        runtime=comb_resources("comb_run")[0],
        mem_mb=comb_resources("comb_run")[1],
    conda:
        ENV
    script:
        "../scripts/combinatorial.py"


rule comb_score:
    input:
        trace=f"{COMB}/runs/{{cprob}}/{{cmethod}}/seed{{cseed}}.parquet",
        problem=f"{COMB}/problems/{{cprob}}.json",
    output:
        f"{COMB}/metrics/{{cprob}}/{{cmethod}}/seed{{cseed}}.parquet",
    params:
        reps=CCFG["reference_reps"],
    log:
        f"{LOGS}/combinatorial/metrics/{{cprob}}/{{cmethod}}/seed{{cseed}}.log",
    threads: 1
    resources:
        runtime=comb_resources("comb_score")[0],
        mem_mb=comb_resources("comb_score")[1],
    conda:
        ENV
    script:
        "../scripts/combinatorial.py"


rule comb_tables:
    input:
        comb_metric_files(),
    output:
        runs=f"{COMB}/tables/runs.csv",
        summary=f"{COMB}/tables/summary.csv",
        bounds=f"{COMB}/tables/bounds.csv",
    params:
        problems=CCFG["problems"],
    log:
        f"{LOGS}/combinatorial/tables.log",
    localrule: True
    conda:
        ENV
    script:
        "../scripts/combinatorial.py"
