# Exploration beyond the box (our extension): problems on binary / categorical / mixed domains,
# random search, simulated annealing and GP-based BO (boexplore.discrete), scored on their
# domain (boexplore.metrics.domain: OTSD, OE, random-search references, the bounds check on
# every prefix). Logic: boexplore.pipeline.combinatorial_stage. Off unless
# `combinatorial: {enabled: true}` (config/combinatorial.yaml).
from boexplore.pipeline import combinatorial_stage as _comb

CCFG = _comb.section(config)
COMB = f"{RESULTS}/combinatorial"
COMB_JOBS = _comb.jobs(config)
# Job sizing from the cost model `boexplore estimate` prints (boexplore.cost.discrete).
_COMB_COSTS = {(j.rule, j.key): j for j in _cost.combinatorial_job_costs(config)}


def comb_resources(rule_name):
    """(runtime, mem_mb) request functions of a per-seed rule beyond the box."""

    def job(wc):
        return _COMB_COSTS[(rule_name, f"{wc.cprob}/{wc.cmethod}/seed{wc.cseed}")]

    def runtime(wildcards, attempt):
        return _cost.runtime_request_min(job(wildcards), config, attempt)

    def mem(wildcards, attempt):
        return _cost.mem_request_mb(job(wildcards), config, attempt)

    return runtime, mem


wildcard_constraints:
    cprob=r"[A-Za-z0-9_.-]+",
    cmethod=r"[A-Za-z0-9_.-]+",
    cseed=r"\d+",


def comb_metric_files():
    """Scored metrics of every (problem, method, seed) of the section."""
    return [f"{COMB}/metrics/{p}/{m}/seed{s}.parquet" for p, m, s in COMB_JOBS]


COMBINATORIAL_OUTPUTS = (
    [f"{COMB}/tables/runs.csv", f"{COMB}/tables/summary.csv", f"{COMB}/tables/bounds.csv"]
    if COMB_JOBS
    else []
)


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
