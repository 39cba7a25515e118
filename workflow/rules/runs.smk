# Stage 2: one BO job per (problem, method, seed chunk); per-seed checkpoints make retries resume.
# A released trace shorter than the budget is the job's `released_prefix` input: the job continues it.
# A job whose (problem, method) cell of a release it restores or extends from does not match the
# release manifest is refused here and in restore_run alike (boexplore.pipeline.integrity), so
# Snakemake cannot fall back from a refused restore to BO without saying so.
from boexplore.pipeline.integrity import checked_source as _checked_source


rule bo_run:
    input:
        problem=f"{RESULTS}/problems/{{problem}}.json",
        released_prefix=lambda wc: _checked_source(_restore_roots(RELEASE), wc, extend_source),
    output:
        f"{RESULTS}/runs/{{problem}}/{{method}}/{{chunk}}.parquet",
    params:
        spec=lambda wc: config["methods"][wc.method],
        budget=lambda wc: run_budget(wc)[0],
        n_init=lambda wc: run_budget(wc)[1],
        settings=lambda wc: method_bo_settings(config, wc.method),
        seeds=lambda wc: CHUNK_SEEDS[wc.chunk],
        checkpoint_dir=lambda wc: f"{RESULTS}/checkpoints/{wc.problem}/{wc.method}",
    log:
        f"{LOGS}/runs/{{problem}}/{{method}}/{{chunk}}.log",
    benchmark:
        f"{BENCHMARKS}/bo_run/{{problem}}/{{method}}/{{chunk}}.tsv"
    threads: 1
    retries: bo_retries()
    resources:
        runtime=bo_runtime_min,
        mem_mb=bo_mem_mb,
        **BO_GPU_RESOURCES,
    conda:
        ENV
    script:
        "../scripts/run_bo.py"
