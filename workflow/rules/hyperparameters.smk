# The hyperparameter study (issue 56; our questions, not the paper's): rules H1-H4 decided on
# the final metrics of a config with a `hyperparameters` section (config/hyperparameters.yaml).
# All logic lives in boexplore.analysis.hyperparameters; the script is thin.

HYPERPARAMETER_OUTPUTS = (
    [f"{TABLES}/claims_hyperparameters.csv", f"{TABLES}/claims_hyperparameters.md"]
    if config.get("hyperparameters") is not None
    else []
)


rule hyperparameters_claims:
    input:
        metrics=f"{TABLES}/metrics.parquet",
    output:
        csv=f"{TABLES}/claims_hyperparameters.csv",
        md=f"{TABLES}/claims_hyperparameters.md",
    params:
        rules=config.get("hyperparameters") or {},
        methods=config["methods"],
        bo=config.get("bo") or {},
    log:
        f"{LOGS}/analysis/hyperparameters_claims.log",
    threads: 1
    localrule: True
    conda:
        ENV
    script:
        "../scripts/analysis_hyperparameters.py"
