# Shared helpers: config validation, wildcard constraints, path builders, resources.
import os

from boexplore.workflow_config import ConfigError, problem_design, run_table, validate_config

try:
    config = validate_config(config)  # schemas ship with the package (boexplore/schema)
except ConfigError as err:
    raise WorkflowError(f"invalid configuration:\n{err}") from None

RUN = config["run_name"]
RESULTS = f"results/{RUN}"
FIGURES = f"figures/{RUN}"
RUNS = run_table(config)
ENV = "../../envs/boexplore.yaml"


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
    """Config entry of a problem instance label."""
    return config["problems"][problem]


def run_budget(wildcards):
    """(budget, n_init) of a problem instance."""
    _, budget, n_init = problem_design(config, wildcards.problem)
    return budget, n_init


# Relative cost of one acquisition step (measured, see docs/bo_timings.md).
METHOD_COST = {
    "random": 0.05, "sobol": 0.05, "greedy": 1.0, "ucb": 1.0, "logei": 1.0, "pi": 1.0,
    "logpi": 1.0, "ts": 1.5, "mes": 6.0, "gibbon": 4.0, "jes": 10.0, "pes": 12.0, "kg": 15.0,
}


def _base_method(method):
    spec = config["methods"][method]
    return spec.split("(")[0].split("+")[0].strip()


def _dim(problem):
    from boexplore.problems import problem_info

    entry = problem_entry(problem)
    return entry.get("dim") or problem_info(entry["name"]).default_dim


def bo_runtime_min(wildcards, attempt):
    """Requested minutes for one BO run: grows with budget, dimension and AF cost."""
    budget, n_init = run_budget(wildcards)
    d = _dim(wildcards.problem)
    per_iter_s = (1.0 + 0.05 * d) * (0.5 + METHOD_COST.get(_base_method(wildcards.method), 2.0))
    seeds = len(CHUNK_SEEDS[wildcards.chunk])
    est_min = seeds * (budget - n_init) * per_iter_s * (1 + budget / 100) / 60
    return int(max(10, 3 * est_min * config["resources"]["runtime_factor"]) * attempt)


def bo_mem_mb(wildcards, attempt):
    """Requested memory for one BO run (KG / entropy searches need the most)."""
    budget, _ = run_budget(wildcards)
    base = 2000 + 4 * budget + 10 * _dim(wildcards.problem)
    heavy = _base_method(wildcards.method) in {"kg", "jes", "pes", "mes"}
    return int((base * (2 if heavy else 1)) * config["resources"]["mem_factor"] * attempt)


def final_outputs():
    """Everything the default target builds: tables, figures, claims of every included stage."""
    outs = [
        f"{RESULTS}/tables/metrics.parquet",
        f"{RESULTS}/tables/runs_summary.csv",
        f"{RESULTS}/tables/bounds_summary.csv",
        f"{FIGURES}/otsd_bounds.png",
        f"{FIGURES}/run_timings.png",
    ]
    outs += globals().get("ANALYSIS_OUTPUTS", [])
    outs += globals().get("PARAMETRIC_OUTPUTS", [])
    return outs
