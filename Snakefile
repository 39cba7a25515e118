# boexplore replication pipeline: problems -> BO runs -> metrics -> bound checks -> figures -> report.
# Usage: `snakemake --cores N` (default config), `--configfile config/smoke.yaml` (CI),
# `--profile profiles/slurm --configfile config/paper.yaml` (cluster). See README.md.
import os

from snakemake.utils import min_version

min_version("9.0")

# Load the default config only when none was given (a --configfile replaces it, never merges).
if "run_name" not in config:

    configfile: os.path.join(workflow.basedir, "config/config.yaml")


include: "workflow/rules/common.smk"


# Path-safe labels for problems and methods; a chunk is seed<k> or seeds<a>-<b>.
wildcard_constraints:
    problem=r"[A-Za-z0-9_.-]+",
    method=r"[A-Za-z0-9_.-]+",
    chunk=r"seeds?\d+(-\d+)?",


include: "workflow/rules/problems.smk"
include: "workflow/rules/runs.smk"
include: "workflow/rules/metrics.smk"
include: "workflow/rules/bounds.smk"
include: "workflow/rules/analysis.smk"
include: "workflow/rules/hyperparameters.smk"
include: "workflow/rules/diagnostics.smk"
include: "workflow/rules/parametric.smk"
include: "workflow/rules/combinatorial.smk"
include: "workflow/rules/release.smk"
include: "workflow/rules/report.smk"


report: "workflow/report/workflow.rst"


# Progress: one line with what will run and the predicted time (boexplore.pipeline.progress);
# each BO job then logs the cost-weighted fraction done. Not called in dry runs. A local run
# schedules when a job finishes, not on Snakemake's default 1-second timer that stats every
# ready job's inputs each round (boexplore.pipeline.scheduling; an explicit limit is kept).
onstart:
    from boexplore.pipeline.progress import onstart_hook
    from boexplore.pipeline.scheduling import relax_rescheduling_timer

    relax_rescheduling_timer(workflow)
    onstart_hook(workflow, config)


rule all:
    input:
        final_outputs(),
        REPORT_OUTPUTS,
    default_target: True
