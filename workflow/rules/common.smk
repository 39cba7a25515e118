# Shared helpers: config validation, the run's directories, path builders, resources.
from boexplore.workflow_config import (
    ConfigError,
    method_bo_settings,
    numerics_profile,
    problem_design,
    read_yaml,
    run_table,
    validate_config,
)

try:
    for _configfile in workflow.configfiles:  # Snakemake's YAML loader keeps the last duplicate
        read_yaml(_configfile)
    config = validate_config(config)  # schemas ship with the package (boexplore/schema)
except ConfigError as err:
    raise WorkflowError(f"invalid configuration:\n{err}") from None

# Every job inherits the numerics profile (BLAS / ATen kernels, MKL branch, one thread) through
# the environment, so a trace is the same bits on every machine the profile supports.
from boexplore.numerics import pin_environment as _pin_environment

NUMERICS = numerics_profile(config)
_missing_flags = _pin_environment(NUMERICS)
if _missing_flags:
    logger.warning(
        f"numerics profile {NUMERICS!r} needs CPU flags {_missing_flags} this machine lacks: "
        "jobs run unpinned, and their traces may differ from other machines' (boexplore verify)"
    )

# BO jobs of methods on a GPU (bo.device: cuda) request one from SLURM (slurm.gpu_gres); a config
# without such methods adds no resource (boexplore.pipeline.gpu_jobs).
from boexplore.pipeline.gpu_jobs import bo_run_resources as _bo_run_resources
from boexplore.pipeline.gpu_jobs import local_gpu_warning as _local_gpu_warning

BO_GPU_RESOURCES = _bo_run_resources(config)
if workflow.is_main_process and workflow.local_exec and not workflow.dryrun:
    _gpu_warning = _local_gpu_warning(config)
    if _gpu_warning:
        logger.warning(_gpu_warning)

# The run's directories, defined here only; every rule file builds its paths from these.
RUN = config["run_name"]
RESULTS = f"results/{RUN}"  # traces, metrics, tables, report pages, benchmarks
TABLES = f"{RESULTS}/tables"
BENCHMARKS = f"{RESULTS}/benchmarks"
FIGURES = f"figures/{RUN}"
LOGS = f"logs/{RUN}"
RUNS = run_table(config)
ENV = "../../envs/boexplore.yaml"  # one conda environment for every rule


CHUNK_SEEDS = {r["chunk"]: r["seeds"] for r in RUNS}


def run_file(problem, method, chunk):
    """Trace file of one BO job (one seed, or a chunk of seeds run in sequence)."""
    return f"{RESULTS}/runs/{problem}/{method}/{chunk}.parquet"


def metric_file(problem, method, chunk):
    """Scored metrics of one BO job."""
    return f"{RESULTS}/metrics/{problem}/{method}/{chunk}.parquet"


def all_run_files():
    """Every trace file the config asks for (used by aggregation and analysis rules)."""
    return [run_file(r["problem"], r["method"], r["chunk"]) for r in RUNS]


def all_metric_files():
    """Every scored-metrics file the config asks for."""
    return [metric_file(r["problem"], r["method"], r["chunk"]) for r in RUNS]


def problem_entry(problem):
    """Config entry of a problem instance label (without its seeds: not part of the instance)."""
    return {k: v for k, v in config["problems"][problem].items() if k != "seeds"}


def run_budget(wildcards):
    """(budget, n_init) of a problem instance."""
    _, budget, n_init = problem_design(config, wildcards.problem)
    return budget, n_init


# Job sizing: CPU time and memory come from the cost model (boexplore.pipeline.cost, the same
# model `boexplore estimate` prints); requests are capped at the partition limit
# (resources.max_runtime_min) and a longer BO job resumes from its checkpoint on resubmission.
from boexplore.pipeline import cost as _cost

_CAL = _cost.config_calibration(config)


def _bo_cost(wildcards):
    return _cost.bo_job_cost(
        config, wildcards.problem, wildcards.method, len(CHUNK_SEEDS[wildcards.chunk]), _CAL
    )


def bo_runtime_min(wildcards, attempt):
    """Wall-time request of one BO job (minutes, capped at the partition limit)."""
    return _cost.runtime_request_min(_bo_cost(wildcards), config, attempt)


def bo_mem_mb(wildcards, attempt):
    """Memory request of one BO job (KG / entropy searches and large n need the most)."""
    return _cost.mem_request_mb(_bo_cost(wildcards), config, attempt)


def _score_cost(wildcards):
    return _cost.score_job_cost(
        config, wildcards.problem, wildcards.method, len(CHUNK_SEEDS[wildcards.chunk]), _CAL
    )


def score_runtime_min(wildcards, attempt):
    """Wall-time request of one scoring job (minutes)."""
    return _cost.runtime_request_min(_score_cost(wildcards), config, attempt)


def score_mem_mb(wildcards, attempt):
    """Memory request of one scoring job."""
    return _cost.mem_request_mb(_score_cost(wildcards), config, attempt)


def bo_retries():
    """Retries of bo_run: enough resubmissions for the longest job to finish through its
    checkpoints at the partition limit, plus one for a genuine failure; None = the profile's."""
    need = max(
        (_cost.segments_needed(_cost.bo_job_cost(config, r["problem"], r["method"], len(r["seeds"]), _CAL), config) for r in RUNS),
        default=1,
    )
    return need + 1 if need > 1 else None


_P2_COSTS = {(j.rule, j.key): j for j in _cost.parametric_job_costs(config, _CAL)}


def _p2_key(rule_name, wildcards):
    if rule_name == "p2_e3_static":
        return "static"
    if rule_name == "p2_e3_dynamic":
        return f"{wildcards.pcell}/chunk{wildcards.pchunk}"
    if rule_name == "p2_e2":
        return f"{wildcards.pkey}/{wildcards.preg}_w{wildcards.pwidth}/chunk{wildcards.pchunk}"
    return f"{wildcards.pkey}/{wildcards.pmethod}/chunk{wildcards.pchunk}"


def p2_runtime(rule_name):
    """Wall-time request function of a paper-2 rule."""

    def runtime(wildcards, attempt):
        return _cost.runtime_request_min(_P2_COSTS[(rule_name, _p2_key(rule_name, wildcards))], config, attempt)

    return runtime


def p2_mem(rule_name):
    """Memory request function of a paper-2 rule."""

    def mem(wildcards, attempt):
        return _cost.mem_request_mb(_P2_COSTS[(rule_name, _p2_key(rule_name, wildcards))], config, attempt)

    return mem


# Beyond the box (workflow/rules/combinatorial.smk; our extension): the section, its jobs,
# their paths and sizes.
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


def comb_metric_files():
    """Scored metrics of every (problem, method, seed) of the section."""
    return [f"{COMB}/metrics/{p}/{m}/seed{s}.parquet" for p, m, s in COMB_JOBS]


COMBINATORIAL_OUTPUTS = (
    [f"{COMB}/tables/runs.csv", f"{COMB}/tables/summary.csv", f"{COMB}/tables/bounds.csv"]
    if COMB_JOBS
    else []
)


def final_outputs():
    """Everything the default target builds: tables, figures, claims of every included stage."""
    outs = [
        f"{TABLES}/metrics.parquet",
        f"{TABLES}/runs_summary.csv",
        f"{TABLES}/bounds_summary.csv",
        f"{FIGURES}/otsd_bounds.png",
        f"{FIGURES}/run_timings.png",
    ]
    return (
        outs
        + ANALYSIS_OUTPUTS
        + HYPERPARAMETER_OUTPUTS
        + PARAMETRIC_OUTPUTS
        + COMBINATORIAL_OUTPUTS
        + RELEASE_OUTPUTS
    )


# Data release (config key `release`): which committed trace a job restores or extends.
RELEASE = config.get("release") or {}
RELEASE_TRACES = RELEASE.get("traces")
RELEASE_TABLES = RELEASE.get("tables")
# Released traces shorter than the budget are continued by bo_run: from `release.extend_from`
# (another study's release, e.g. a longer-budget tier) or from `release.traces` itself.
# Which released files a job reads is decided in one place, boexplore.pipeline.release
# (restore_files / extend_files), which `boexplore verify --integrity` asks too.
from boexplore.pipeline.release import extend_files as _extend_files
from boexplore.pipeline.release import released_evaluations as _released_evaluations
from boexplore.pipeline.release import restore_files as _restore_files
from boexplore.pipeline.release import restore_roots as _restore_roots


def _release_file(wildcards):
    return f"{RELEASE_TRACES}/{wildcards.problem}/{wildcards.method}/{wildcards.chunk}.parquet"


def restore_source(wildcards):
    """The released traces to restore; one shorter than the budget is not restored (bo_run
    extends or re-runs it). A job whose file the release lacks restores from the files that
    hold its seeds at the full budget (a release grouped by seed, a job grouped by four), in
    the study's own release or in one it extends."""
    path = _release_file(wildcards)
    files = _restore_files(
        RELEASE, wildcards.problem, wildcards.method, wildcards.chunk,
        CHUNK_SEEDS[wildcards.chunk], run_budget(wildcards)[0],
    )
    if files:
        return [str(f) for f in files]
    return f"{path}.shorter-than-budget" if _released_evaluations(path) is not None else path


def extend_source(wildcards):
    """Released traces this bo_run job continues (shorter than the budget), else []."""
    files = _extend_files(
        RELEASE, wildcards.problem, wildcards.method, CHUNK_SEEDS[wildcards.chunk],
        run_budget(wildcards)[0],
    )
    return [str(f) for f in files]
