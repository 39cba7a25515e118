"""Snakemake script of every rule beyond the box (logic in boexplore.pipeline.combinatorial_stage)."""

from boexplore.pipeline import combinatorial_stage as stage
from boexplore.pipeline.io import setup_job_logging

setup_job_logging(snakemake.log[0])
rule, wc = snakemake.rule, snakemake.wildcards
if rule == "comb_problem":
    stage.generate(snakemake.params.entry, snakemake.output[0])
elif rule == "comb_run":
    stage.run(
        snakemake.input.problem, wc.cprob, wc.cmethod, snakemake.params.spec, int(wc.cseed),
        snakemake.params.cfg, snakemake.output[0],
    )  # fmt: skip
elif rule == "comb_score":
    stage.score(
        snakemake.input.trace, snakemake.input.problem, snakemake.params.reps, snakemake.output[0]
    )
else:
    stage.tables(
        list(snakemake.input), snakemake.params.problems, snakemake.output.runs,
        snakemake.output.summary, snakemake.output.bounds,
    )  # fmt: skip
