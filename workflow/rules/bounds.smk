# Stage 4: check every trace against the OTSD bounds (lower bounds <= OTSD <= Psi).
from boexplore.reporting.params import report_param


rule bound_checks:
    input:
        f"{TABLES}/metrics.parquet",
    output:
        table=f"{TABLES}/bounds.parquet",
        summary=f"{TABLES}/bounds_summary.csv",
        png=report(
            f"{FIGURES}/otsd_bounds.png",
            caption="../report/otsd_bounds.rst",
            category="Bounds",
        ),
        pdf=f"{FIGURES}/otsd_bounds.pdf",
        sidecar=f"{FIGURES}/otsd_bounds.json",
    params:
        config_section=report_param(
            {"problems": config["problems"], "methods": config["methods"]}, "problems, methods"
        ),
    log:
        f"{LOGS}/tables/bound_checks.log",
    localrule: True
    conda:
        ENV
    script:
        "../scripts/bound_checks.py"
