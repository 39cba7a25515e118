# Stage 2: one BO run per (problem, method, seed); checkpoints make retries resume.


rule bo_run:
    input:
        problem=f"{RESULTS}/problems/{{problem}}.json",
    output:
        f"{RESULTS}/runs/{{problem}}/{{method}}/seed{{seed}}.parquet",
    params:
        spec=lambda wc: config["methods"][wc.method],
        budget=lambda wc: run_budget(wc)[0],
        n_init=lambda wc: run_budget(wc)[1],
        settings=config["bo"],
        checkpoint=lambda wc: f"{RESULTS}/checkpoints/{wc.problem}/{wc.method}/seed{wc.seed}.ckpt",
    log:
        f"logs/{RUN}/runs/{{problem}}/{{method}}/seed{{seed}}.log",
    threads: 1
    resources:
        runtime=bo_runtime_min,
        mem_mb=bo_mem_mb,
    conda:
        ENV
    script:
        "../scripts/run_bo.py"
